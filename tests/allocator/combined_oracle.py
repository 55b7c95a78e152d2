"""Upstream's answers for generated scenarios (`dra-upstream SCENARIO.yaml`), and the comparison.

The oracle sits beside the repository (`../shared/oracle/bin/dra-upstream`) or at
`$DRA_UPSTREAM`; `oracle()` is None where it cannot run (a fresh clone, macOS, ARM), and the
tests that need it skip.

`python tests/allocator/combined_oracle.py [N] [--write SEED...]` runs N generated scenarios
(default 240) through both allocators and prints the agreement; `--write` stores the named seeds
with upstream's answer under `tests/allocator/combined/` (the fixed corpus).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from allocator_scenarios import ANY_SHARE_ID, disagreement, load_scenario  # noqa: E402
from combined_generator import draw, dump  # noqa: E402

ROOT = HERE.parents[1]
CORPUS = HERE / "combined"
ORACLE_ENV = "DRA_UPSTREAM"
COMPARE_TIMEOUT = 120.0


def oracle() -> Path | None:
    configured = os.environ.get(ORACLE_ENV)
    path = Path(configured) if configured else ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream"
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None
    return path if path.is_file() and os.access(path, os.X_OK) else None


def answer(binary: Path, text: str) -> dict[str, Any]:
    """Upstream's `{"error": ..., "allocations": ...}` for one scenario stream."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
        file.write(text)
        file.flush()
        out = subprocess.run([str(binary), file.name], capture_output=True, text=True, timeout=300, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"dra-upstream failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def expectation(upstream: dict[str, Any]) -> dict[str, Any]:
    """The header's `expect` for upstream's answer; share IDs are random, so placeholders."""
    allocations = upstream.get("allocations")
    for allocation in (allocations or {}).values():
        for result in (allocation.get("devices") or {}).get("results") or []:
            if "shareID" in result:
                result["shareID"] = ANY_SHARE_ID
    return {"error": upstream.get("error"), "allocations": allocations, "resultsOrder": "exact"}


def with_expectation(docs: list[dict[str, Any]], upstream: dict[str, Any]) -> list[dict[str, Any]]:
    header = dict(docs[0])
    header["expect"] = expectation(upstream)
    return [header, *docs[1:]]


def compare(text: str) -> str | None:
    """None when dractl agrees with the scenario's `expect`, else what differs."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
        file.write(text)
        file.flush()
        scenario = load_scenario(Path(file.name))
        # The comparison is about answers, not speed: a CEL selector over 10,001 elements takes
        # seconds per device in dractl's engines, more than the default 10 s for some scenarios.
        outcome = scenario.run(timeout=COMPARE_TIMEOUT)
    problem = disagreement(scenario, outcome)
    if problem is not None and outcome.order_ambiguous and outcome.status == "allocated":
        # Upstream's stable implementation walks pools in Go map order: any valid choice agrees.
        return None
    return problem


def run(seeds: Iterable[int], binary: Path) -> dict[int, str | None]:
    verdicts: dict[int, str | None] = {}
    for seed in seeds:
        docs = draw(seed)
        upstream = answer(binary, dump(docs))
        try:
            verdicts[seed] = compare(dump(with_expectation(docs, upstream)))
        except Exception as error:  # a crash is a disagreement to report
            verdicts[seed] = f"dractl raised {type(error).__name__}: {error}"
    return verdicts


def write(seeds: Iterable[int], binary: Path) -> None:
    CORPUS.mkdir(exist_ok=True)
    for seed in seeds:
        docs = draw(seed)
        text = dump(with_expectation(docs, answer(binary, dump(docs))))
        (CORPUS / f"combined-{seed}.yaml").write_text(text)


def main(argv: list[str]) -> int:
    binary = oracle()
    if binary is None:
        print("dra-upstream is not at hand", file=sys.stderr)
        return 2
    if argv[:1] == ["--write"]:
        write((int(a) for a in argv[1:]), binary)
        return 0
    count = int(argv[0]) if argv else 240
    verdicts = run(range(count), binary)
    for seed, problem in verdicts.items():
        if problem is not None:
            print(f"seed {seed}: {problem}")
    agreed = sum(1 for p in verdicts.values() if p is None)
    print(f"{agreed}/{len(verdicts)} agree with upstream")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
