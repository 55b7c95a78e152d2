"""`python -m build` makes an sdist and a wheel with everything in them, and the wheel installed
into a fresh virtual environment gives a working `dractl` command (as `pip install .` and
`pipx install .` do, both of which install this wheel)."""

from __future__ import annotations

import email
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # Without isolation when the build backend is installed (the test extras have it): no network.
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-isolation"]
    result = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", *isolation, "--outdir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (sdist,) = out.glob("dractl-*.tar.gz")
    (wheel,) = out.glob("dractl-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def tracked(folder: str) -> set[str]:
    """Files of ``folder`` that belong to the project (not caches or build output)."""
    return {
        str(p.relative_to(ROOT))
        for p in (ROOT / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
    }


def test_sdist_has_the_sources_tests_examples_and_docs(dist: dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for required in (
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "LICENSE",
        "SECURITY.md",
        ".pre-commit-hooks.yaml",
        "dractl/__init__.py",
        "dractl/cli/__init__.py",
    ):
        assert required in names, required
    for folder in ("dractl", "tests", "examples", "docs", "benchmarks", "schemas"):
        if (ROOT / folder).exists():
            missing = tracked(folder) - names
            assert not missing, f"{folder}/ files missing from the sdist: {sorted(missing)[:5]}"
    assert top == f"dractl-{PYPROJECT['project']['version']}"


def test_wheel_has_the_package_and_its_data(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as archive:
        names = set(archive.namelist())
    package = {name for name in tracked("dractl") if name.endswith(".py") or "." in name}
    assert package <= names, sorted(package - names)[:5]
    if (ROOT / "schemas").exists():  # the schema tests check every file; here: they are there
        assert any(name.startswith("dractl/schemas/") for name in names)
    assert not any(name.startswith(("tests/", "examples/", "benchmarks/")) for name in names)


def test_wheel_metadata_is_complete(dist: dict[str, Path]) -> None:
    with zipfile.ZipFile(dist["wheel"]) as archive:
        info = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(archive.read(info))
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert meta["Name"] == "dractl"
    assert meta["Version"] == PYPROJECT["project"]["version"]
    assert meta["Requires-Python"] == ">=3.11"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Summary"] and meta["Description-Content-Type"] == "text/markdown"
    classifiers = meta.get_all("Classifier")
    assert "Environment :: Console" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers
    urls = {value.split(",")[0] for value in meta.get_all("Project-URL")}
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= urls
    required = {
        re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower().replace("_", "-").replace(".", "-")
        for r in meta.get_all("Requires-Dist")
    }
    for dependency in (
        "argcomplete",
        "ruamel-yaml",
        "jsonschema",
        "rich",
        "cel-expr-python",
        "cel-python",
    ):
        assert dependency in required
    assert "dractl = dractl.cli:entry_point" in entry_points
    assert "kubectl-dra = dractl.cli:kubectl_plugin" in entry_points


@pytest.fixture(scope="module")
def installed(dist: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the wheel installed; its dependencies come from the
    environment running the tests (a .pth file), so that no package index is needed."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(dist["wheel"]),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # appended after the venv's own site-packages: the wheel's dractl wins over any other
    Path(site, "dependencies-from-test-env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def clean_env() -> dict[str, str]:
    """The environment without what would import dractl from elsewhere than the install."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def run_installed(
    venv: Path, *args: str, cwd: Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "dractl"), *args],
        cwd=cwd,
        env=clean_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_installed_command_works_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "good", tmp_path / "manifests")
    probe = subprocess.run(
        [str(installed / "bin" / "python"), "-c", "import dractl; print(dractl.__file__)"],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).is_relative_to(installed), probe.stdout
    version = run_installed(installed, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("dractl ")
    good = sorted(str(p) for p in (tmp_path / "manifests").glob("*-v1.yaml"))
    lint = run_installed(installed, "lint", *good, cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert lint.stdout.rstrip().endswith(f"in {len(good)} files)")
    broken = run_installed(installed, "lint", "-", cwd=tmp_path, stdin="kind: [\n")
    assert broken.returncode == 2 and "DRA001" in broken.stdout
    for name in ("lint", "select", "convert", "explain", "schema", "rules"):
        helped = run_installed(installed, name, "--help", cwd=tmp_path)
        if "No such command" in helped.stderr:
            continue  # a subcommand this build does not have yet
        assert helped.returncode == 0 and "Examples" in helped.stdout, name


def test_kubectl_finds_the_plugin(installed: Path, tmp_path: Path) -> None:
    """kubectl runs `kubectl-*` executables on PATH as plugins: `kubectl dra explain ...`."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    env = {**clean_env(), "PATH": os.pathsep.join([str(installed / "bin"), str(Path(kubectl).parent)]),
           "KUBECONFIG": str(tmp_path / "no-kubeconfig")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([kubectl, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)

    listed = run("plugin", "list")
    assert str(installed / "bin" / "kubectl-dra") in listed.stdout, listed.stdout + listed.stderr
    version = run("dra", "--version")
    assert version.returncode == 0 and version.stdout.startswith("dractl "), version.stderr
    helped = run("dra", "explain", "--help")
    assert "Usage: kubectl dra explain" in helped.stdout
    explained = run("dra", "explain", "--node", "gpu-node-2", "examples/explain/gpu-pod/")
    assert explained.returncode == 0, explained.stderr
    assert "1 of 1 node can allocate the claim" in explained.stdout
