"""The generator of schemas/: committed output is current, inputs are the vendored upstream bytes,
and the schemas accept and reject what the apiserver's strict decoding does."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "generate_schemas.py"
SCHEMAS = ROOT / "schemas"
RELEASES = ("1.34", "1.35", "1.36")
VERSIONS = ("v1beta1", "v1beta2", "v1")
KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_schemas", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate_schemas", module)
    spec.loader.exec_module(module)
    return module


def _schema(release: str, version: str, kind: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / release / version / f"{kind.lower()}.json").read_text())


def test_committed_schemas_are_current() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr


def test_check_reports_changed_missing_and_extra_files(tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    shutil.copytree(SCHEMAS, out)
    (out / "1.35" / "v1" / "deviceclass.json").write_text("{}\n")
    (out / "1.34" / "v1beta2" / "resourceslice.json").unlink()
    (out / "1.36" / "v1" / "stray.json").write_text("{}\n")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--out", str(out)], capture_output=True, text=True
    )
    assert result.returncode == 1
    stale = sorted(re.findall(r"stale: schemas/(\S+)", result.stderr))
    assert stale == [
        "1.34/v1beta2/resourceslice.json",
        "1.35/v1/deviceclass.json",
        "1.36/v1/stray.json",
    ]
    # Writing repairs exactly those files.
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(out)], check=True)
    again = subprocess.run(
        [sys.executable, str(SCRIPT), "--check", "--out", str(out)], capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr


def test_vendored_inputs_match_their_readme() -> None:
    readme = (ROOT / "scripts" / "openapi" / "README.md").read_text()
    rows = re.findall(r"^\| `([^`]+\.json)` \|.*\| `([0-9a-f]{64})` \|$", readme, re.M)
    assert len(rows) == 6
    for name, digest in rows:
        data = (ROOT / "scripts" / "openapi" / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name


def test_index_lists_every_file_with_its_checksums() -> None:
    index = json.loads((SCHEMAS / "index.json").read_text())
    listed = {entry["file"] for entry in index["schemas"]}
    present = {
        p.relative_to(SCHEMAS).as_posix() for p in SCHEMAS.rglob("*.json") if p.name != "index.json"
    }
    assert listed == present
    assert len([e for e in index["schemas"] if e["kind"]]) == len(RELEASES) * len(VERSIONS) * len(
        KINDS
    )
    for entry in index["schemas"]:
        data = (SCHEMAS / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        if entry["source"]:
            source = (ROOT / entry["source"]).read_bytes()
            assert hashlib.sha256(source).hexdigest() == entry["sourceSha256"]
            assert (entry["patch"] is not None) == (entry["release"] == "1.36")
    provenance = (SCHEMAS / "PROVENANCE.md").read_text()
    for entry in index["schemas"]:
        assert entry["sha256"] in provenance


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("kind", KINDS)
def test_each_schema_is_valid_self_contained_draft7(release: str, version: str, kind: str) -> None:
    schema = _schema(release, version, kind)
    Draft7Validator.check_schema(schema)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["title"] == f"{kind} (resource.k8s.io/{version}, Kubernetes {release})"
    assert schema["description"]
    text = json.dumps(schema)
    assert "#/components/" not in text
    for ref in re.findall(r'"\$ref": "([^"]+)"', text):
        assert ref.startswith("#/$defs/") and ref[len("#/$defs/") :] in schema["$defs"], ref
    for name, definition in schema["$defs"].items():
        assert definition["title"] == name.rsplit(".", 1)[1]
        if "properties" in definition:
            assert definition["additionalProperties"] is False, name
    meta = schema["$defs"]["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]["properties"]
    assert {"name", "namespace", "labels", "annotations", "generateName"} <= set(meta)


def _claim(version: str, request: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": f"resource.k8s.io/{version}",
        "kind": "ResourceClaim",
        "metadata": {"name": "c", "namespace": "ns"},
        "spec": {"devices": {"requests": [request]}},
    }


def _slice(version: str, device: dict[str, Any]) -> dict[str, Any]:
    if version == "v1beta1":
        device = {"name": device.pop("name"), "basic": device}
    return {
        "apiVersion": f"resource.k8s.io/{version}",
        "kind": "ResourceSlice",
        "metadata": {"name": "s"},
        "spec": {
            "driver": "gpu.example.com",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "nodeName": "n",
            "devices": [device],
        },
    }


def _errors(release: str, doc: dict[str, Any]) -> list[tuple[str, str]]:
    version = doc["apiVersion"].rsplit("/", 1)[1]
    validator = Draft7Validator(_schema(release, version, doc["kind"]))
    return sorted(
        ("/".join(str(p) for p in e.absolute_path), e.validator) for e in validator.iter_errors(doc)
    )


EXACT = {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}
FLAT = {"name": "gpu", "deviceClassName": "gpu.example.com"}
LIST_ATTRIBUTE = {"name": "d0", "attributes": {"cores": {"ints": [1, 2]}}}
MAPPING = {
    "name": "d0",
    "nodeAllocatableResourceMappings": {
        "cpu": {"capacityKey": "cores", "allocationMultiplier": "2"}
    },
}

CASES = [
    # (id, release, document, expected (path, validator) pairs)
    ("v1-request-ok", "1.35", _claim("v1", EXACT), []),
    ("v1beta1-flat-request-ok", "1.35", _claim("v1beta1", FLAT), []),
    (
        "v1-flat-request-unknown",
        "1.35",
        _claim("v1", FLAT),
        [("spec/devices/requests/0", "additionalProperties")],
    ),
    (
        "v1beta2-flat-request-unknown",
        "1.34",
        _claim("v1beta2", FLAT),
        [("spec/devices/requests/0", "additionalProperties")],
    ),
    (
        "count-as-string",
        "1.36",
        _claim("v1", {"name": "g", "exactly": {"deviceClassName": "c", "count": "2"}}),
        [("spec/devices/requests/0/exactly/count", "type")],
    ),
    (
        "metadata-unknown-field",
        "1.35",
        {**_claim("v1", EXACT), "metadata": {"name": "c", "label": {}}},
        [("metadata", "additionalProperties")],
    ),
    (
        "opaque-parameters-are-free-form",
        "1.35",
        _claim("v1", EXACT)
        | {
            "spec": {
                "devices": {
                    "requests": [EXACT],
                    "config": [
                        {
                            "opaque": {
                                "driver": "d.example.com",
                                "parameters": {"any": {"nested": [1]}},
                            }
                        }
                    ],
                }
            }
        },
        [],
    ),
    ("list-attributes-new-in-1.36", "1.36", _slice("v1", copy.deepcopy(LIST_ATTRIBUTE)), []),
    (
        "list-attributes-unknown-in-1.35",
        "1.35",
        _slice("v1", copy.deepcopy(LIST_ATTRIBUTE)),
        [("spec/devices/0/attributes/cores", "additionalProperties")],
    ),
    ("list-attributes-v1beta1-1.36", "1.36", _slice("v1beta1", copy.deepcopy(LIST_ATTRIBUTE)), []),
    ("mappings-new-in-1.36-v1beta2", "1.36", _slice("v1beta2", copy.deepcopy(MAPPING)), []),
    (
        "mappings-new-in-1.36-v1beta1-under-basic",
        "1.36",
        _slice("v1beta1", copy.deepcopy(MAPPING)),
        [],
    ),
    (
        "mappings-unknown-in-1.34",
        "1.34",
        _slice("v1", copy.deepcopy(MAPPING)),
        [("spec/devices/0", "additionalProperties")],
    ),
    (
        "mapping-unknown-subfield",
        "1.36",
        _slice("v1", {"name": "d0", "nodeAllocatableResourceMappings": {"cpu": {"multiplier": 2}}}),
        [("spec/devices/0/nodeAllocatableResourceMappings/cpu", "additionalProperties")],
    ),
    (
        "quantity-string-or-number",
        "1.35",
        _slice("v1", {"name": "d0", "capacity": {"a": {"value": "1Gi"}, "b": {"value": 3}}}),
        [],
    ),
    (
        "quantity-not-bool",
        "1.35",
        _slice("v1", {"name": "d0", "capacity": {"a": {"value": True}}}),
        [("spec/devices/0/capacity/a/value", "oneOf")],
    ),
]


@pytest.mark.parametrize(
    ("release", "doc", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_schema_verdicts(
    release: str, doc: dict[str, Any], expected: list[tuple[str, str]]
) -> None:
    assert _errors(release, doc) == sorted(expected)


def test_apiversion_and_kind_are_pinned() -> None:
    validator = Draft7Validator(_schema("1.35", "v1", "ResourceClaim"))
    doc = {**_claim("v1", EXACT), "apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceClass"}
    assert sorted((list(e.absolute_path), e.validator) for e in validator.iter_errors(doc)) == [
        (["apiVersion"], "enum"),
        (["kind"], "enum"),
    ]


def test_int_or_string_is_either_json_type() -> None:
    generator = _generator()
    node = generator.strict({"type": "string", "format": "int-or-string", "description": "port"})
    assert node == {
        "description": "port",
        "anyOf": [{"type": "integer"}, {"type": "string"}],
        "x-kubernetes-int-or-string": True,
    }
    validator = Draft7Validator(node)
    assert validator.is_valid(8080) and validator.is_valid("http") and not validator.is_valid(1.5)


def test_patch_refuses_to_overwrite_an_existing_field() -> None:
    generator = _generator()
    source = ROOT / "scripts" / "openapi" / "1.35" / "resource.k8s.io_v1.json"
    definitions = json.loads(source.read_text())["components"]["schemas"]
    patch = copy.deepcopy(generator.RELEASE_PATCHES["1.36"])
    patch["new_properties"][0]["properties"]["int"] = {"type": "integer"}
    with pytest.raises(SystemExit, match=r"DeviceAttribute\.int already exists"):
        generator.apply_patch(definitions, "v1", patch)


def _dispatch_validator(release: str) -> Draft7Validator:
    base = SCHEMAS / release

    def retrieve(uri: str) -> Resource[Any]:
        path = base / uri.removeprefix("file:///")
        return Resource.from_contents(json.loads(path.read_text()), default_specification=DRAFT7)

    registry: Registry[Any] = Registry(retrieve=retrieve)  # type: ignore[call-arg]
    schema = json.loads((base / "all.json").read_text())
    return Draft7Validator({**schema, "$id": "file:///all.json"}, registry=registry)


@pytest.mark.parametrize(
    ("doc", "valid"),
    [
        (_claim("v1", EXACT), True),
        (_claim("v1", FLAT), False),
        (_claim("v1beta1", FLAT), True),
        ({"apiVersion": "v1", "kind": "Pod", "spec": {"anything": 1}}, True),
        (_slice("v1", copy.deepcopy(LIST_ATTRIBUTE)), True),
    ],
)
def test_all_json_picks_the_schema_by_apiversion_and_kind(doc: dict[str, Any], valid: bool) -> None:
    assert _dispatch_validator("1.36").is_valid(doc) is valid
