"""The wheel carries schemas/ as dractl/schemas, and an installed dractl finds them there."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without isolation when the build backend is at hand (no network needed), else as pip would.
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-isolation"]
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", *isolation, "--outdir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
        timeout=600,
    )
    (built,) = out.glob("dractl-*.whl")
    return built


@pytest.mark.slow
def test_wheel_contains_every_bundled_schema(wheel: Path) -> None:
    index = json.loads((ROOT / "schemas" / "index.json").read_text())
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        expected = {"dractl/schemas/index.json", "dractl/schemas/PROVENANCE.md"}
        expected |= {f"dractl/schemas/{entry['file']}" for entry in index["schemas"]}
        assert expected <= names
        for entry in index["schemas"]:
            packaged = archive.read(f"dractl/schemas/{entry['file']}")
            assert packaged == (ROOT / "schemas" / entry["file"]).read_bytes()


@pytest.mark.slow
def test_installed_package_loads_schemas_from_its_own_data(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    probe = (
        "import dractl, json\n"
        "from dractl.api.schemas import schemas_root, load_schema\n"
        "schema = load_schema('1.36', 'v1', 'ResourceClaim')\n"
        "print(json.dumps({'package': dractl.__file__, 'root': str(schemas_root()),"
        " 'title': schema['title']}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    facts = json.loads(result.stdout)
    assert Path(facts["package"]).is_relative_to(target)
    assert Path(facts["root"]) == target / "dractl" / "schemas"
    assert facts["title"] == "ResourceClaim (resource.k8s.io/v1, Kubernetes 1.36)"


def test_source_checkout_falls_back_to_top_level_schemas() -> None:
    from dractl.api import schemas

    root = schemas.schemas_root()
    if (ROOT / "dractl" / "schemas").exists():
        pytest.skip("this checkout has a dractl/schemas folder of its own")
    assert Path(str(root)) == ROOT / "schemas"
    assert schemas.load_schema("1.34", "v1beta1", "DeviceClass")["title"].startswith("DeviceClass")
    assert schemas.load_schema("1.34", "v1alpha3", "DeviceClass") is None
    files = dict(schemas.release_files("1.35"))
    assert set(files) == {"all.json"} | {
        f"{v}/{k}.json"
        for v in ("v1beta1", "v1beta2", "v1")
        for k in ("deviceclass", "resourceclaim", "resourceclaimtemplate", "resourceslice")
    }
