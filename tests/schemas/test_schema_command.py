"""``dractl schema`` writes one release's schemas for editors; they work as editors use them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

ROOT = Path(__file__).resolve().parents[2]
FILES = {
    "all.json",
    *(
        f"{v}/{k}.json"
        for v in ("v1beta1", "v1beta2", "v1")
        for k in ("deviceclass", "resourceclaim", "resourceclaimtemplate", "resourceslice")
    ),
}


def _editor_validator(folder: Path) -> Draft7Validator:
    """Validate as an editor does: open all.json by its file URI and follow its relative $refs."""

    def retrieve(uri: str) -> Resource[Any]:
        path = Path(uri.removeprefix("file://"))
        return Resource.from_contents(json.loads(path.read_text()), default_specification=DRAFT7)

    schema = json.loads((folder / "all.json").read_text())
    registry: Registry[Any] = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    return Draft7Validator({**schema, "$id": (folder / "all.json").as_uri()}, registry=registry)


@pytest.mark.parametrize("release", ["1.34", "1.36"])
def test_writes_the_release_and_an_index(run_dractl: Any, tmp_path: Path, release: str) -> None:
    out = tmp_path / "editor-schemas"
    result = run_dractl("schema", "--kubernetes-version", release, "--out", str(out))
    assert result.returncode == 0, result.stderr
    written = {p.relative_to(out).as_posix() for p in out.rglob("*.json")}
    assert written == FILES | {"index.json"}
    for name in FILES:
        assert (out / name).read_bytes() == (ROOT / "schemas" / release / name).read_bytes()
    index = json.loads((out / "index.json").read_text())
    assert index["kubernetesVersion"] == release
    assert {e["file"] for e in index["schemas"]} == FILES
    for entry in index["schemas"]:
        assert entry["sha256"] == hashlib.sha256((out / entry["file"]).read_bytes()).hexdigest()
    claim = next(e for e in index["schemas"] if e["file"] == "v1/resourceclaim.json")
    assert (claim["apiVersion"], claim["kind"]) == ("resource.k8s.io/v1", "ResourceClaim")
    assert f"Wrote 13 JSON Schemas for Kubernetes {release}" in result.stdout
    assert f"# yaml-language-server: $schema={(out / 'all.json').resolve()}" in result.stdout


def test_written_schemas_validate_like_the_apiserver(run_dractl: Any, tmp_path: Path) -> None:
    result = run_dractl("schema", "-k", "1.35", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    validator = _editor_validator(tmp_path)
    good = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "gpu"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
    }
    flat = {**good, "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}}}
    assert validator.is_valid(good)
    assert not validator.is_valid(flat)
    assert validator.is_valid({**flat, "apiVersion": "resource.k8s.io/v1beta1"})
    assert validator.is_valid({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "b"}})


def test_keeps_other_files_and_replaces_its_own(run_dractl: Any, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "v1").mkdir()
    (tmp_path / "v1" / "deviceclass.json").write_text("{}\n")
    assert run_dractl("schema", "--out", str(tmp_path)).returncode == 0
    assert (tmp_path / "notes.txt").read_text() == "mine\n"
    assert json.loads((tmp_path / "v1" / "deviceclass.json").read_text())["title"].startswith("DeviceClass")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-k", "1.33"], "unknown Kubernetes version '1.33'"),
        (["--out", "{file}"], "cannot write the schemas to"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(run_dractl: Any, tmp_path: Path, args: list[str], message: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    args = [a.replace("{file}", str(blocker)) for a in args]
    result = run_dractl("schema", *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
