"""`pipx install .` gives a working `dractl` in an isolated environment of its own.

pipx is a test extra (never a runtime dependency); without it this test is skipped. pipx builds
the project and installs its dependencies from the package index, so this test needs one.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# What pip prints when no package index can be reached (then there is nothing to judge here).
NO_INDEX = (
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "No matching distribution found",
    "Could not find a version that satisfies the requirement",
)


def pipx_command() -> list[str] | None:
    if importlib.util.find_spec("pipx") is not None:
        return [sys.executable, "-m", "pipx"]
    found = shutil.which("pipx")
    return [found] if found else None


def test_pipx_install_gives_a_working_dractl(tmp_path: Path) -> None:
    pipx = pipx_command()
    if pipx is None:
        pytest.skip("pipx is not installed (it is in the test extras: pip install -e '.[test]')")
    home = tmp_path / "pipx"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PIPX_HOME=str(home / "home"),
        PIPX_BIN_DIR=str(home / "bin"),
        PIPX_MAN_DIR=str(home / "man"),
    )
    source = tmp_path / "source"  # a copy: building leaves nothing in the checkout
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", ".hypothesis", "*.egg-info"),
    )
    install = subprocess.run(
        [*pipx, "install", "--python", sys.executable, str(source)],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = install.stdout + install.stderr
    if install.returncode != 0 and any(text in output for text in NO_INDEX):
        pytest.skip("pipx could not reach a package index for dractl's dependencies")
    assert install.returncode == 0, output

    dractl = home / "bin" / "dractl"
    assert dractl.is_file(), sorted(p.name for p in (home / "bin").iterdir())
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples" / "good", work / "manifests")

    def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(dractl), *args],
            cwd=work,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )

    # the command runs the copy pipx installed, in pipx's own environment
    probe = subprocess.run(
        [str(home / "home" / "venvs" / "dractl" / "bin" / "python"), "-c",
         "import dractl; print(dractl.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(home / "home" / "venvs" / "dractl")
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("dractl "), version.stderr
    good = sorted(str(p) for p in (work / "manifests").glob("*-v1.yaml"))
    lint = run("lint", *good)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    broken = run("lint", "-", stdin="kind: [\n")
    assert broken.returncode == 2 and "DRA001" in broken.stdout
    schema = run("schema", "--out", "schemas-out")  # the bundled schemas are in the install
    assert schema.returncode == 0 and (work / "schemas-out" / "all.json").is_file(), schema.stderr
