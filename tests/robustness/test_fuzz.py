"""Fuzzing: random mutations of the example manifests never crash dractl, exit with 0, 1 or 2
only, and take under a second of CPU each. ``benchmarks/fuzz.py`` runs the long campaign."""

from __future__ import annotations

import importlib.util
import random
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


def check(text: str) -> None:
    for args in COMMANDS:
        outcome = harness.run_in_process(args, text)
        assert outcome.crash is None, (
            f"dractl {args[0]} crashed on:\n{text[:2000]}\n{outcome.crash}"
        )
        assert outcome.exit_code in (0, 1, 2), f"dractl {args[0]} exited {outcome.exit_code}"
        assert outcome.cpu_seconds < CPU_LIMIT, (
            f"dractl {args[0]} took {outcome.cpu_seconds:.2f}s of CPU on:\n{text[:2000]}"
        )


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
