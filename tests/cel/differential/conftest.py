"""The differential harness's modules import by name; the summary of each engine's agreement is
printed at the end of the run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cel_harness


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if cel_harness.SUMMARIES:
        terminalreporter.section("CEL agreement with the upstream oracle")
        for line in cel_harness.SUMMARIES:
            terminalreporter.write_line(line)
