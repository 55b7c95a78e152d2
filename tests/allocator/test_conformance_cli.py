"""Smoke test: upstream allocator scenarios through the real CLI (``dractl explain -o json``)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from allocator_scenarios import all_scenarios, disagreement, load_scenario

from dractl.api.releases import gate_stage

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = all_scenarios()[::4]  # a quarter of them: the solver test runs every one in-process


@dataclass
class CliOutcome:
    status: str
    allocations: list[dict[str, Any]] | None
    error: str | None


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: p.stem)
def test_scenario_through_the_cli(path: Path) -> None:
    scenario = load_scenario(path)
    if not scenario.header["allocate"]:
        pytest.skip("no claims to allocate: nothing for explain to explain")
    gates = []
    for gate, value in sorted(scenario.gates.items()):
        stage = gate_stage(gate, "1.36")
        if stage is not None and stage.locked:
            # A locked gate cannot be turned off on the command line; that only matters for
            # scenarios that use the feature.
            if stage.default != value and "adminAccess" in path.read_text():
                pytest.skip(f"{gate} is locked to {stage.default} in Kubernetes 1.36")
            continue
        gates.append(f"{gate}={'true' if value else 'false'}")
    args = ["explain", "-o", "json", "-k", "1.36", "--node", scenario.header["node"]]
    if gates:
        args += ["--feature-gates", ",".join(gates)]
    for claim in scenario.header["allocate"]:
        args += ["--claim", claim]
    out = subprocess.run(
        [sys.executable, "-m", "dractl", *args, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode in (0, 1), out.stderr
    data = json.loads(out.stdout)
    (node,) = data["nodes"]
    (unit,) = data["units"]
    assert [c["claim"].split("/", 1)[1] for c in unit["claims"]] == scenario.header["allocate"]
    allocations = (
        None if node["allocations"] is None else [a["allocation"] for a in node["allocations"]]
    )
    problem = disagreement(scenario, CliOutcome(node["result"], allocations, node["error"]))  # type: ignore[arg-type]
    assert problem is None, problem
