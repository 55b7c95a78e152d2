"""``dractl explain`` on clusters as kubectl dumps them: one ``kind: List`` with managedFields and
status, in YAML and JSON; the answer is the one for the same objects written as manifests, and a
dump of a large cluster is within the default input limits."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dractl import synthetic
from dractl.load import Limits, load_text

ROOT = Path(__file__).resolve().parents[2]


def _written(kubectl: str | None, nodes: int = 12, gpus: int = 8, network: int = 0) -> str:
    out = io.StringIO()
    synthetic.write(synthetic.cluster(nodes, gpus, network), out, kubectl)
    return out.getvalue()


@pytest.mark.parametrize("kubectl", ["yaml", "json"])
def test_a_kubectl_dump_explains_as_its_manifests(kubectl: str, run_dractl, tmp_path: Path) -> None:
    manifests = tmp_path / "cluster.yaml"
    manifests.write_text(_written(None, network=3))
    dump = tmp_path / f"dump.{kubectl}"
    dump.write_text(_written(kubectl, network=3))
    assert "managedFields" in dump.read_text() and "kind: List" in _written("yaml")
    expected = run_dractl("explain", "-o", "json", str(manifests))
    assert expected.returncode == 0, expected.stderr
    feasible = json.loads(expected.stdout)["units"][0]["feasibleNodes"]
    assert sorted(feasible) == sorted(f"node-{n}" for n in range(12) if n % 3)  # H100 nodes
    for output in ("json", "text"):
        got = run_dractl("explain", "-o", output, str(dump))
        assert (got.returncode, got.stderr) == (0, "")
        assert got.stdout == run_dractl("explain", "-o", output, str(manifests)).stdout


def test_a_dump_of_15000_nodes_is_within_the_default_limits() -> None:
    """Sizes of the dump measured on a few nodes and scaled: the file (JSON, as kubectl indents it)
    and the nodes of its one document."""
    limits = Limits()
    sample = 20
    text = _written("json", nodes=sample)
    per_node_bytes = len(text.encode()) / sample
    assert per_node_bytes * 15_000 * 1.5 < limits.max_file_bytes  # with room for larger nodes

    loaded = load_text(text, "dump.json")
    assert not loaded.diagnostics and len(loaded.objects) == 2 * sample + 2
    per_node_values = _count(loaded.files[0].documents[0].raw) / sample
    assert per_node_values * 15_000 * 1.5 < limits.max_nodes


def _count(node: object) -> int:
    if isinstance(node, dict):
        return 1 + sum(_count(v) for v in node.values())
    if isinstance(node, list):
        return 1 + sum(_count(v) for v in node)
    return 1


def test_the_cluster_is_the_one_the_upstream_benchmark_generator_writes() -> None:
    """The upstream binary and dractl read one file: `bigcluster.py` beside the upstream binary
    (``../shared/oracle`` beside the repository, or the folder above ``$DRA_UPSTREAM``'s)."""
    binary = os.environ.get("DRA_UPSTREAM")
    oracle = Path(binary).resolve().parents[1] if binary else ROOT.parent / "shared" / "oracle"
    generator = oracle / "bigcluster.py"
    if not generator.is_file():
        pytest.skip("the upstream benchmark generator bigcluster.py is not at hand")
    written = subprocess.run(
        [sys.executable, str(generator), "7", "5", "130"], capture_output=True, text=True, check=True
    ).stdout
    assert list(yaml.safe_load_all(written)) == synthetic.cluster(7, 5, 130)


@pytest.mark.parametrize("kubectl", ["yaml", "json"])
def test_errors_in_a_dump_point_where_reading_it_whole_points(kubectl: str, run_dractl, tmp_path: Path) -> None:
    """A dump read item by item (or by the C JSON decoder) reports a value the apiserver could
    not decode at the position the whole document's reading gives it."""
    from dractl.api.decoding import decode_errors
    from dractl.api.model import build_all

    text = _written(kubectl, nodes=5)
    broken = text.replace("resourceSliceCount: 1", "resourceSliceCount: x", 1) if kubectl == "yaml" else (
        text.replace('"resourceSliceCount": 1', '"resourceSliceCount": "x"', 1))
    assert broken != text
    dump = tmp_path / f"dump.{kubectl}"
    dump.write_text(broken)
    whole = load_text(broken, str(dump), comments=False)  # read whole, as every other input
    expected = [f"dractl: error: {error}" for error in decode_errors(build_all(whole.objects), "1.36")]
    assert expected and f"{dump}:" in expected[0]
    got = run_dractl("explain", str(dump))
    assert (got.returncode, got.stderr.splitlines()) == (2, expected)
