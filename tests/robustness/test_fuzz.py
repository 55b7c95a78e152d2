"""Fuzzing: random mutations of the example manifests never crash dractl, exit with 0, 1 or 2
only, take under a second of CPU each, every message they cause names a file and a place
(``FILE:LINE:COLUMN``), and no control character of theirs reaches the terminal raw.
``benchmarks/fuzz.py`` runs the long campaign (issue 25)."""

from __future__ import annotations

import importlib.util
import random
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _load(name: str) -> ModuleType:
    path = Path(__file__).with_name(f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"dractl_robustness_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


mutations = _load("mutations")
harness = _load("harness")

SEEDS = mutations.seeds()
COMMANDS = harness.fuzzed_commands()
CPU_LIMIT = 1.0  # seconds per input and command
FUZZ = settings(
    max_examples=25,
    deadline=None,  # CPU time is checked below; wall time depends on the machine's load
    derandomize=True,  # the same inputs on every run: CI stays reproducible
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    harness.warm_up(COMMANDS, SEEDS[:3])


def check(text: str | bytes) -> None:
    shown = text[:2000] if isinstance(text, str) else repr(text[:2000])
    for args in COMMANDS:
        outcome = harness.run_in_process(args, text)
        assert outcome.crash is None, f"dractl {args[0]} crashed on:\n{shown}\n{outcome.crash}"
        assert outcome.exit_code in (0, 1, 2), f"dractl {args[0]} exited {outcome.exit_code}"
        assert outcome.cpu_seconds < CPU_LIMIT, (
            f"dractl {args[0]} took {outcome.cpu_seconds:.2f}s of CPU on:\n{shown}"
        )
        unplaced = harness.unplaced(outcome)
        assert not unplaced, f"dractl {args[0]} said without a place: {unplaced} on:\n{shown}"
        raw = harness.raw_controls(outcome)
        assert not raw, f"dractl {args[0]} wrote control characters: {raw!r} on:\n{shown}"


def test_seeds_are_the_examples() -> None:
    assert len(SEEDS) >= 10
    assert [args[0] for args in COMMANDS] == ["lint", "select", "convert", "explain"]


@FUZZ
@given(seed=st.sampled_from(SEEDS), rng=st.randoms(use_true_random=False))
def test_mutated_manifests(seed: str, rng: random.Random) -> None:
    check(mutations.mutate(seed, rng))


@pytest.mark.parametrize("mutation", mutations.MUTATIONS, ids=lambda m: m.__name__)
def test_each_mutation(mutation) -> None:
    rng = random.Random(mutation.__name__)
    for seed in rng.sample(SEEDS, 3):
        check(mutation(seed, rng))


# the hostile families of issue 25 but the CEL selectors (test_cel_memory_selectors): encodings,
# numbers at the limits, control characters, lone surrogates
HOSTILE = [m for m in mutations.HOSTILE_MUTATIONS if m is not mutations.cel_memory]


@pytest.mark.parametrize("mutation", HOSTILE, ids=lambda m: m.__name__)
def test_each_hostile_mutation(mutation) -> None:
    rng = random.Random(mutation.__name__)
    for seed in rng.sample(SEEDS, 6):
        check(mutation(seed, rng))


@FUZZ
@given(seed=st.sampled_from(SEEDS), rng=st.randoms(use_true_random=False))
def test_hostile_mutations_together(seed: str, rng: random.Random) -> None:
    check(mutations.mutate(seed, rng, mutations=HOSTILE + mutations.MUTATIONS))


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    check(text)
    check("apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n" + text)


def test_through_the_real_command_line(run_dractl) -> None:
    rng = random.Random(9)
    for seed in SEEDS[:6]:
        text = mutations.mutate(seed, rng, count=2)
        for args in COMMANDS:
            out = run_dractl(*args, "-", stdin=text)
            assert out.returncode in (0, 1, 2), out.stderr
            assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr


def test_undecodable_bytes_through_the_real_command_line(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(bytes(range(256)) * 4)
    out = subprocess.run(
        [sys.executable, "-m", "dractl", "lint", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2
    assert out.stderr.startswith(f"dractl: error: {path}: byte ") and "Traceback" not in out.stderr


PLACED = "<stdin>:3:7: error DRA101 metadata.name: Invalid value"
MESSAGES = [
    # (stream, text, what unplaced() returns)
    ("stderr", "dractl: error: <stdin>:3:7: YAML syntax error: x\n", []),
    ("stderr", "dractl: <stdin>:3:7: duplicate key\n", []),
    ("stderr", "a.yaml:2:1: lossy: spec.x is dropped\n", []),
    ("stderr", "dractl: error: expression:1:5: undeclared reference\n | x\n | ^\n", []),
    (
        "stderr",
        "dractl: error: a.yaml: byte 7 is not valid UTF-8 (line 1, byte 8 of the line, 0xff)\n",
        [],
    ),
    ("stderr", "dractl: error: nothing to explain: the input has no claim\n", []),
    ("stderr", "dractl: warning: d/f.yaml: a FIFO, not a regular file; skipped\n", []),
    ("stderr", "converted a.yaml\n", []),
    (
        "stderr",
        "dractl: error: a.yaml: not valid UTF-16 (truncated data)\n",
        ["dractl: error: a.yaml: not valid UTF-16 (truncated data)"],
    ),
    ("stderr", "dractl: error: <stdin>:0:0: x\n", ["dractl: error: <stdin>:0:0: x"]),
    (
        "stderr",
        "dractl: error: Pod a/b: claim c is not in the input\n",
        ["dractl: error: Pod a/b: claim c is not in the input"],
    ),
    ("stderr", "dractl: internal error: KeyError\n", ["dractl: internal error: KeyError"]),
    (
        "stdout",
        f"{PLACED}\n  |\n3 |   name: X\n  |         ^\n\n1 error, 0 warnings (1 object in 1 file)\n",
        [],
    ),
    (
        "stdout",
        f"{PLACED}: compilation failed: ERROR: <input>:1:2: x\n | a\n | .^\n"
        "ERROR: <input>:-1:-1: <<nil>> parsetree\n\n1 error, 0 warnings (1 object in 1 file)\n"
        "[*] 1 fixable with the `--fix` option.\n",
        [],
    ),
    (
        "stdout",
        "<input>: error DRA101 x\n\n1 error, 0 warnings (1 object in 1 file)\n",
        ["<input>: error DRA101 x"],
    ),
    (
        "stdout",
        f"{PLACED}\nanother message\n\n1 error, 0 warnings (1 object in 1 file)\n",
        ["another message"],
    ),
    ("stdout", "1 error, 0 warnings (1 object in 1 file)\nsomething else\n", ["something else"]),
]


@pytest.mark.parametrize(("stream", "text", "expected"), MESSAGES)
def test_what_counts_as_a_message_with_a_place(stream: str, text: str, expected: list[str]) -> None:
    """The campaign's and check()'s rule for messages (issue 25: no message without a file and
    a position): stderr line by line, lint's text report diagnostic by diagnostic."""
    outcome = harness.Outcome(
        "lint",
        1,
        0.0,
        stdout=text if stream == "stdout" else "",
        stderr=text if stream == "stderr" else "",
    )
    assert harness.unplaced(outcome) == expected


def test_cel_memory_selectors_are_valid_and_grow_within_the_estimate() -> None:
    """The CEL family's selectors compile (below the parser's recursion limit) for stored and
    new objects, and the doublings that only ask for a size pass the compile-time estimate: they
    reach the evaluation in lint, explain and select alike."""
    from dractl.cel import compile_selector
    from dractl.cel.cost import RUNTIME_COST_LIMIT

    within = 0
    for expression in mutations.CEL_MEMORY_SELECTORS:
        compile_selector(expression, release="1.36", purpose="stored")
        cost = compile_selector(expression, release="1.36", purpose="new").cost
        if re.fullmatch(r"cel\.bind\(l0, \[1\], .*l\d+\.size\(\) > 0\)+", expression):
            assert cost is not None and cost <= RUNTIME_COST_LIMIT, (cost, expression[-40:])
            within += 1
    assert within >= 5


@pytest.mark.parametrize(
    ("command", "stdout", "stderr", "expected"),
    [
        ("lint", "a.yaml:1:1: error DRA101 x\\x1by\n", "", []),
        ("lint", "a.yaml:1:1: error DRA101 x\x1by\n", "", ["a.yaml:1:1: error DRA101 x\x1by"]),
        ("explain", "node \x9b2J\n", "", ["node \x9b2J"]),
        ("select", "", "dractl: error: a\x08b\n", ["dractl: error: a\x08b"]),
        ("convert", "name: \x7f\n", "", []),  # the manifest as it was written
        ("lint", "\tindented\n", "", []),
    ],
)
def test_what_counts_as_a_raw_control_character(
    command: str, stdout: str, stderr: str, expected: list[str]
) -> None:
    outcome = harness.Outcome(command, 1, 0.0, stdout=stdout, stderr=stderr)
    assert harness.raw_controls(outcome) == expected
