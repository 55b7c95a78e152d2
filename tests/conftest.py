from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# Every test checks: no lint report comes from an earlier run's cache (tests/lint/test_cache.py
# turns it on and compares both). Subprocesses inherit it.
os.environ["DRACTL_NO_CACHE"] = "1"


@pytest.fixture
def run_dractl():
    """Run the real CLI in a subprocess: ``run_dractl(*args, stdin=None) -> CompletedProcess``."""

    def run(
        *args: str, stdin: str | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "dractl", *args],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=cwd or ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )

    return run


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite golden files (examples/bad/*.expected.*) from the current output.",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))
