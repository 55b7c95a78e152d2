"""The conversion's field map covers every field of every served version.

Every field path of the bundled schemas (one per release, API version and kind, generated from
upstream's OpenAPI) is mapped onto v1 the way ``dractl convert`` moves fields: v1beta1 request
fields under ``exactly``, v1beta1 ``basic`` fields onto the device. The mapped v1beta1 and v1beta2
paths must be exactly v1's: a field that one version has and another lacks (a new release adding
it to v1 only, say) would be lost by a conversion, and this test then says which.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dractl.api.releases import RELEASES
from dractl.api.versions import V1BETA1_REQUEST_FIELDS

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
KINDS = ("deviceclass", "resourceclaim", "resourceclaimtemplate", "resourceslice")


def field_paths(schema: dict[str, Any]) -> set[str]:
    """``.spec.devices.requests[].name``-style paths of every field the schema allows."""
    definitions = schema.get("$defs", {})
    paths: set[str] = set()

    def walk(node: Any, path: str, seen: frozenset[str]) -> None:
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if name not in seen:  # recursive types (JSON values) stop at the first repeat
                walk(definitions[name], path, seen | {name})
        for key, value in node.get("properties", {}).items():
            paths.add(f"{path}.{key}")
            walk(value, f"{path}.{key}", seen)
        if "items" in node:
            walk(node["items"], f"{path}[]", seen)
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], f"{path}{{}}", seen)
        for keyword in ("allOf", "anyOf", "oneOf"):
            for branch in node.get(keyword, []):
                walk(branch, path, seen)

    walk(schema, "", frozenset())
    return paths


def as_v1(path: str, version: str) -> str | None:
    """Where the field at ``path`` of ``version`` goes in v1 (None: it has no place of its own)."""
    if version != "v1beta1":
        return path
    for requests in (".spec.devices.requests[]", ".spec.spec.devices.requests[]"):
        for name in V1BETA1_REQUEST_FIELDS:
            field = f"{requests}.{name}"
            if path == field or path.startswith((f"{field}.", f"{field}[", f"{field}{{")):
                return f"{requests}.exactly.{name}{path[len(field) :]}"
    if path == ".spec.devices[].basic":
        return None
    return path.replace(".spec.devices[].basic.", ".spec.devices[].", 1)


def schema_paths(release: str, version: str, kind: str) -> set[str] | None:
    path = SCHEMAS / release / version / f"{kind}.json"
    if not path.is_file():
        return None
    return field_paths(json.loads(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("release", RELEASES)
def test_every_field_has_its_place_in_v1(release: str, version: str, kind: str) -> None:
    v1 = schema_paths(release, "v1", kind)
    older = schema_paths(release, version, kind)
    assert v1, f"no v1 {kind} schema for {release}"
    if older is None:
        pytest.skip(f"Kubernetes {release} has no {version} {kind} schema")
    mapped = {p for p in (as_v1(path, version) for path in older) if p is not None}
    v1_fields = {p for p in v1 if not p.endswith("requests[].exactly")}
    assert sorted(v1_fields - mapped) == [], f"v1 fields that {version} cannot hold"
    assert sorted(mapped - v1) == [], f"{version} fields that v1 cannot hold"
