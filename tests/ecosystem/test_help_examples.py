"""Every example in a help screen runs as written: each line under "Examples:" of `dractl --help`
and of each command's `--help` is run by a shell in a copy of the bundled examples, and exits
with 0, or with the code its comment names ("# exit code 1: ...")."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dractl.cli import COMMANDS, command_parser, root_parser

ROOT = Path(__file__).resolve().parents[2]


def examples(help_text: str) -> list[str]:
    lines = help_text.splitlines()
    start = lines.index("Examples:") + 1
    found = []
    for line in lines[start:]:
        if not line.startswith("  "):
            break
        found.append(line.strip())
    return found


def help_texts() -> dict[str, str]:
    texts = {"dractl": root_parser().format_help()}
    for name, _, _ in COMMANDS:
        texts[f"dractl {name}"] = command_parser(name).format_help()
    return texts


CASES = [(prog, line) for prog, text in help_texts().items() for line in examples(text)]


@pytest.mark.parametrize("prog", help_texts())
def test_every_help_has_examples_of_its_command(prog: str) -> None:
    lines = examples(help_texts()[prog])
    assert lines, f"`{prog} --help` has no examples"
    assert all(re.search(rf"(^|\| ){re.escape(prog)}( |$)", line) for line in lines), lines


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a copy of examples/, which examples that write files may change."""
    folder = tmp_path_factory.mktemp("help-examples")
    shutil.copytree(ROOT / "examples", folder / "examples")
    return folder


def expected_exit_code(line: str) -> int:
    match = re.search(r"#\s*exit code (\d)", line)
    return int(match.group(1)) if match else 0


@pytest.mark.parametrize(("prog", "line"), CASES, ids=[line for _, line in CASES])
def test_example_runs_as_written(prog: str, line: str, workspace: Path) -> None:
    dractl = f'dractl() {{ "{sys.executable}" -m dractl "$@"; }}'
    out = subprocess.run(
        ["bash", "-c", f"set -o pipefail\n{dractl}\n{line}"],
        capture_output=True,
        text=True,
        cwd=workspace,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert out.returncode == expected_exit_code(line), f"{line}\n{out.stdout}\n{out.stderr}"
    assert "internal error" not in out.stderr
    assert "error" not in out.stderr or expected_exit_code(line), out.stderr


def test_examples_are_found() -> None:
    text = "Usage: x\n\nExamples:\n  dractl a\n  dractl b   # exit code 1: why\n\nExit codes: ...\n"
    assert examples(text) == ["dractl a", "dractl b   # exit code 1: why"]
    assert expected_exit_code("dractl b   # exit code 1: why") == 1
    assert expected_exit_code("dractl a") == 0
