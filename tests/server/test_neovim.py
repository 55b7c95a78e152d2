"""A headless Neovim with its built-in LSP client attached to ``dractl server`` reads back the
diagnostics of a manifest. Skipped without ``nvim`` (CI installs Debian's ``neovim``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("neovim.lua")


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_shows_the_diagnostics_of_a_manifest(folder: Path, tmp_path: Path) -> None:
    assert NVIM is not None
    out = tmp_path / "diagnostics.txt"
    env = {
        **os.environ,
        "DRACTL_TEST_ROOT": str(folder),
        "DRACTL_TEST_PYTHON": sys.executable,
        "DRACTL_TEST_OUT": str(out),
        "HOME": str(tmp_path),  # no user configuration, no shada file in the real home
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {SCRIPT}"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), done.stderr
    # claim.yaml: count -1 (DRA120, an error: 1) and the selector's runtime error (DRA210: 2)
    assert out.read_text().splitlines() == ["11:15 DRA120 1", "14:61 DRA210 2"]
