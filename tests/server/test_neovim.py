"""A headless Neovim with its built-in LSP client attached to ``dractl server`` reads back the
diagnostics of a manifest. Skipped without ``nvim`` (CI installs Debian's ``neovim``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.conftest import CLAIM, DEVICE_CLASS, SLICE

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("neovim.lua")


def diagnostics_in_neovim(tmp_path: Path, root: Path, **env: str) -> list[str]:
    assert NVIM is not None
    out = tmp_path / "diagnostics.txt"
    environment = {
        **os.environ,
        "DRACTL_TEST_ROOT": str(root),
        "DRACTL_TEST_PYTHON": sys.executable,
        "DRACTL_TEST_OUT": str(out),
        "HOME": str(tmp_path),  # no user configuration, no shada file in the real home
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        **env,
    }
    done = subprocess.run(
        [NVIM, "--headless", "--clean", "-c", f"luafile {SCRIPT}"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), done.stderr
    return out.read_text().splitlines()


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_shows_the_diagnostics_of_a_manifest(folder: Path, tmp_path: Path) -> None:
    # claim.yaml: count -1 (DRA120, an error: 1) and the selector's runtime error (DRA210: 2)
    assert diagnostics_in_neovim(tmp_path, folder) == ["11:15 DRA120 1", "14:61 DRA210 2"]


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_with_two_workspace_folders(tmp_path: Path) -> None:
    # the second folder ignores DRA120 in its configuration file; its claim is checked with it and
    # with the folder's slice (DRA210: checked alone, as a file outside every folder, it would
    # have no device to fail on)
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        for name, text in (
            ("deviceclass.yaml", DEVICE_CLASS),
            ("slice.yaml", SLICE),
            ("claim.yaml", CLAIM),
        ):
            (folder / name).write_text(text)
    (b / ".dractl.yaml").write_text("ignore: [DRA120]\n")
    found = diagnostics_in_neovim(
        tmp_path, a, DRACTL_TEST_FILE=str(b / "claim.yaml"), DRACTL_TEST_FOLDERS=f"{a}\n{b}"
    )
    assert found == ["14:61 DRA210 2"]
