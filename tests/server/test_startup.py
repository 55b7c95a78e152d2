"""The server's libraries load only for ``dractl server``: not for lint, not for its own help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER_MODULES = {"pygls", "lsprotocol", "cattrs", "dractl.server"}


@pytest.mark.parametrize(
    "args",
    [["lint", "examples/good/claim-gpu-v1.yaml"], ["server", "--help"], ["--help"]],
)
def test_other_commands_do_not_import_the_server(args: list[str]) -> None:
    probe = (
        "import json, sys\n"
        f"sys.argv = ['dractl', *{args!r}]\n"
        "from dractl.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stdout__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    modules = set(json.loads(out.stdout.strip().splitlines()[-1]))
    modules |= {m.split(".")[0] for m in modules}
    assert sorted(modules & SERVER_MODULES) == []


def test_the_server_ends_with_its_input() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "dractl", "server"],
        input=b"",
        capture_output=True,
        cwd=ROOT,
        timeout=60,
    )
    assert (out.returncode, out.stdout) == (0, b"")
