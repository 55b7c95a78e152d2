"""``lint --output-file`` writes the report all or nothing: a write that fails leaves the file
that was there as it was, and no temporary file behind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from dractl.cli.testing import invoke
from dractl.convert import writer
from dractl.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
CLAIM = str(ROOT / "examples" / "good" / "claim-gpu-v1.yaml")


def lint_to(target: Path):
    return invoke(["lint", "--no-config", "--no-cache", "--color", "never", "-o", str(target), CLAIM])


def test_the_report_replaces_the_file(tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    target.write_text("an older report\n")
    target.chmod(0o640)
    out = lint_to(target)
    assert (out.exit_code, out.stdout, out.stderr) == (0, "", "")
    assert "0 errors" in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_failed_write_leaves_the_earlier_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.txt"
    target.write_text("an older report\n")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writer.os, "fsync", disk_full)
    out = lint_to(target)
    assert isinstance(out.exception, InputError)  # main prints it on one line, exit code 2
    assert str(out.exception) == f"{target}: not written: No space left on device"
    assert target.read_text() == "an older report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.txt"]


def test_a_folder_that_does_not_exist_is_one_line(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "report.txt"
    out = lint_to(target)
    assert isinstance(out.exception, InputError)
    assert str(out.exception).startswith(f"{target}: cannot write in ")
    assert not target.parent.exists()
