#!/usr/bin/env python3
"""Generate the bundled JSON Schemas under ``schemas/`` from the upstream OpenAPI documents.

Inputs are the per-group-version OpenAPI v3 documents that Kubernetes publishes as
``api/openapi-spec/v3/apis__resource.k8s.io__<version>_openapi.json``, vendored byte for byte
under ``scripts/openapi/<release>/`` (see the README there for their origin and checksums).
Kubernetes 1.36 has no vendored document: it is built from the 1.35 one plus the field
additions in ``RELEASE_PATCHES`` below, each taken from ``kubernetes/api`` at tag ``v0.36.3``.

Every output file is a self-contained JSON Schema (draft-07, the newest draft that
yaml-language-server validates) for one kind in one API version of one release:

* every ``$ref`` is resolved into the file's own ``$defs``;
* every object that declares ``properties`` rejects unknown fields
  (``additionalProperties: false``), as the apiserver's strict field validation does;
* ``apiVersion`` and ``kind`` are pinned to the file's group-version and kind;
* titles and descriptions are the upstream documentation.

Usage::

    python scripts/generate_schemas.py           # (re)write schemas/
    python scripts/generate_schemas.py --check   # exit 1 if schemas/ is not what this generates
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
OPENAPI_DIR = REPO_ROOT / "scripts" / "openapi"
SCHEMAS_DIR = REPO_ROOT / "schemas"

GROUP = "resource.k8s.io"
VERSIONS = ("v1beta1", "v1beta2", "v1")
KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")
JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#"

OPENAPI_REF_PREFIX = "#/components/schemas/"
DEFS_REF_PREFIX = "#/$defs/"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

Json = dict[str, Any]


@dataclass(frozen=True)
class Release:
    name: str
    openapi_release: str  # which vendored documents the release starts from
    patch: str | None = None  # key into RELEASE_PATCHES


RELEASES = (
    Release("1.34", "1.34"),
    Release("1.35", "1.35"),
    Release("1.36", "1.35", patch="1.36"),
)


# --- 1.36: the 1.35 documents plus the fields 1.36 added ------------------------------------
#
# Source: kubernetes/api at tag v0.36.3 (Kubernetes 1.36), resource/{v1,v1beta2,v1beta1}/types.go
# and types_swagger_doc_generated.go, diffed against v0.35.7: the only field changes in these
# three versions are the list-typed attribute values (gate DRAListTypeAttributes, alpha) and the
# per-device node-allocatable resource mappings (gate DRANodeAllocatableResources, alpha).
# v1beta1 carries the device fields on BasicDevice (under `basic:`), the other two on Device.
# Descriptions are shortened from the upstream doc comments.

_LIST_ATTRIBUTE_NOTE = (
    "\n\nThis is an alpha field and requires enabling the DRAListTypeAttributes feature gate."
)


def _list_of(item: Json, description: str) -> Json:
    return {
        "description": description,
        "items": item,
        "type": "array",
        "x-kubernetes-list-type": "atomic",
    }


RELEASE_PATCHES: dict[str, Json] = {
    "1.36": {
        "base": "1.35",
        "source": "kubernetes/api@v0.36.3 resource/{v1,v1beta2,v1beta1}/types.go (Kubernetes 1.36)",
        "new_definitions": {
            "NodeAllocatableResourceMapping": {
                "description": (
                    "NodeAllocatableResourceMapping defines the translation between the DRA "
                    "device/capacity units requested to the corresponding quantity of the node "
                    "allocatable resource."
                ),
                "properties": {
                    "allocationMultiplier": {
                        "allOf": [{"$ref": OPENAPI_REF_PREFIX + QUANTITY}],
                        "description": (
                            "AllocationMultiplier is used as a multiplier for the allocated device "
                            "count or the allocated capacity in the claim. It defaults to 1 if not "
                            "specified. Without `capacityKey` it multiplies the number of devices "
                            "allocated to the claim; with `capacityKey` it multiplies the amount of "
                            "that capacity the claim consumes."
                        ),
                    },
                    "capacityKey": {
                        "description": (
                            "CapacityKey references a capacity name defined as a key in the "
                            "`spec.devices[*].capacity` map. When set, the value consumed from that "
                            "capacity by a claim allocation is the base quantity for the node "
                            "allocatable resource, multiplied by `allocationMultiplier` if that is set."
                        ),
                        "type": "string",
                    },
                },
                "type": "object",
            },
        },
        "new_properties": [
            {
                "definition": "DeviceAttribute",
                "properties": {
                    "bools": _list_of(
                        {"default": False, "type": "boolean"},
                        "BoolValues is a non-empty list of true/false values."
                        + _LIST_ATTRIBUTE_NOTE,
                    ),
                    "ints": _list_of(
                        {"default": 0, "format": "int64", "type": "integer"},
                        "IntValues is a non-empty list of numbers." + _LIST_ATTRIBUTE_NOTE,
                    ),
                    "strings": _list_of(
                        {"default": "", "type": "string"},
                        "StringValues is a non-empty list of strings. Each string must not be "
                        "longer than 64 characters." + _LIST_ATTRIBUTE_NOTE,
                    ),
                    "versions": _list_of(
                        {"default": "", "type": "string"},
                        "VersionValues is a non-empty list of semantic versions according to "
                        "semver.org spec 2.0.0. Each version string must not be longer than 64 "
                        "characters." + _LIST_ATTRIBUTE_NOTE,
                    ),
                },
            },
            {
                "definition": {"v1": "Device", "v1beta2": "Device", "v1beta1": "BasicDevice"},
                "properties": {
                    "nodeAllocatableResourceMappings": {
                        "additionalProperties": {
                            "allOf": [{"$ref": "NodeAllocatableResourceMapping"}],
                            "default": {},
                        },
                        "description": (
                            "NodeAllocatableResourceMappings defines the mapping of node resources "
                            "that are managed by the DRA driver exposing this device: resources "
                            "reported in the Node's `status.allocatable` that are not extended "
                            'resources, such as "cpu", "memory", "ephemeral-storage" and '
                            "hugepages. The keys of this map are those resource names; extended "
                            "resource names are not permitted as keys.\n\nThis is an alpha field and "
                            "requires enabling the DRANodeAllocatableResources feature gate."
                        ),
                        "type": "object",
                    },
                },
            },
        ],
    },
}


# --- reading the inputs ------------------------------------------------------------------------


def openapi_path(openapi_release: str, version: str, openapi_dir: Path = OPENAPI_DIR) -> Path:
    return openapi_dir / openapi_release / f"{GROUP}_{version}.json"


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def definition_prefix(version: str) -> str:
    return f"io.k8s.api.resource.{version}."


def apply_patch(definitions: dict[str, Json], version: str, patch: Json) -> None:
    """Add a release's new definitions and properties to a copy of its base release's definitions."""
    prefix = definition_prefix(version)

    def local_refs(node: Any) -> Any:
        # Patch data names definitions of its own version without the package prefix.
        if isinstance(node, dict):
            out = {k: local_refs(v) for k, v in node.items()}
            ref = out.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                out["$ref"] = OPENAPI_REF_PREFIX + prefix + ref
            return out
        if isinstance(node, list):
            return [local_refs(v) for v in node]
        return node

    for name, schema in patch["new_definitions"].items():
        if prefix + name in definitions:
            raise SystemExit(f"patch {patch['source']}: {prefix + name} already exists")
        definitions[prefix + name] = local_refs(schema)
    for change in patch["new_properties"]:
        target = change["definition"]
        name = target[version] if isinstance(target, dict) else target
        properties = definitions[prefix + name]["properties"]
        for field, schema in change["properties"].items():
            if field in properties:
                raise SystemExit(f"patch {patch['source']}: {prefix + name}.{field} already exists")
            properties[field] = local_refs(schema)
        definitions[prefix + name]["properties"] = dict(sorted(properties.items()))


# --- building one schema -----------------------------------------------------------------------


def referenced_names(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(OPENAPI_REF_PREFIX):
            yield ref[len(OPENAPI_REF_PREFIX) :]
        for key, value in node.items():
            if key != "$ref":
                yield from referenced_names(value)
    elif isinstance(node, list):
        for value in node:
            yield from referenced_names(value)


def reachable_definitions(definitions: dict[str, Json], root: str) -> list[str]:
    seen: set[str] = set()
    pending = [root]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        if name not in definitions:
            raise SystemExit(f"unresolved $ref to {name}")
        seen.add(name)
        pending.extend(referenced_names(definitions[name]))
    return sorted(seen)


def strict(node: Any) -> Any:
    """Upstream schema node → strict JSON Schema node (refs into $defs, unknown fields rejected)."""
    if isinstance(node, list):
        return [strict(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {key: strict(value) for key, value in node.items() if key != "properties"}
    if "properties" in node:
        out["properties"] = {name: strict(value) for name, value in node["properties"].items()}
        out.setdefault("additionalProperties", False)
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(OPENAPI_REF_PREFIX):
        out["$ref"] = DEFS_REF_PREFIX + ref[len(OPENAPI_REF_PREFIX) :]
    if out.get("format") == "int-or-string" or out.get("x-kubernetes-int-or-string"):
        # The apiserver decodes IntOrString from either JSON type; the structural form of that
        # is what apiextensions uses for x-kubernetes-int-or-string.
        out.pop("type", None)
        out.pop("format", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
        out["x-kubernetes-int-or-string"] = True
    return out


def short_name(definition: str) -> str:
    return definition.rsplit(".", 1)[-1]


def kind_schema(definitions: dict[str, Json], version: str, kind: str, release: str) -> Json:
    root_name = definition_prefix(version) + kind
    root = strict(definitions[root_name])
    api_version = f"{GROUP}/{version}"
    properties = root["properties"]
    properties["apiVersion"] = {**properties["apiVersion"], "enum": [api_version]}
    properties["kind"] = {**properties["kind"], "enum": [kind]}
    required = list(root.get("required", []))
    root["required"] = [
        "apiVersion",
        "kind",
        *[r for r in required if r not in ("apiVersion", "kind")],
    ]

    defs: Json = {}
    for name in reachable_definitions(definitions, root_name):
        if name == root_name:
            continue
        defs[name] = {"title": short_name(name), **strict(definitions[name])}
    schema: Json = {
        "$schema": JSON_SCHEMA_DRAFT,
        "title": f"{kind} ({api_version}, Kubernetes {release})",
        **root,
        "$defs": defs,
    }
    return schema


# --- the whole tree ----------------------------------------------------------------------------


def schema_file(release: str, version: str, kind: str) -> str:
    return f"{release}/{version}/{kind.lower()}.json"


def dispatch_schema(release: str) -> Json:
    """One schema per release that picks the kind schema by apiVersion and kind (for editors)."""
    branches = []
    for version in VERSIONS:
        for kind in KINDS:
            branches.append(
                {
                    "if": {
                        "properties": {
                            "apiVersion": {"const": f"{GROUP}/{version}"},
                            "kind": {"const": kind},
                        },
                        "required": ["apiVersion", "kind"],
                    },
                    "then": {"$ref": f"{version}/{kind.lower()}.json"},
                }
            )
    return {
        "$schema": JSON_SCHEMA_DRAFT,
        "title": f"{GROUP} objects (Kubernetes {release})",
        "description": (
            "Selects the schema of a DeviceClass, ResourceClaim, ResourceClaimTemplate or "
            "ResourceSlice by its apiVersion and kind; other objects are not checked."
        ),
        "type": "object",
        "allOf": branches,
    }


def dump(schema: Json) -> bytes:
    return (json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


def generate(openapi_dir: Path = OPENAPI_DIR) -> dict[str, bytes]:
    """Return every file of schemas/ as relative path → bytes."""
    files: dict[str, bytes] = {}
    index_entries = []
    inputs: dict[str, Json] = {}
    for release in RELEASES:
        patch = RELEASE_PATCHES[release.patch] if release.patch else None
        for version in VERSIONS:
            source = openapi_path(release.openapi_release, version, openapi_dir)
            raw = source.read_bytes()
            source_rel = f"scripts/openapi/{release.openapi_release}/{source.name}"
            inputs[source_rel] = {"sha256": sha256_of(raw), "release": release.openapi_release}
            definitions = copy.deepcopy(json.loads(raw)["components"]["schemas"])
            if patch is not None:
                apply_patch(definitions, version, patch)
            for kind in KINDS:
                path = schema_file(release.name, version, kind)
                files[path] = dump(kind_schema(definitions, version, kind, release.name))
                index_entries.append(
                    {
                        "file": path,
                        "release": release.name,
                        "apiVersion": f"{GROUP}/{version}",
                        "kind": kind,
                        "source": source_rel,
                        "sourceRelease": release.openapi_release,
                        "sourceSha256": inputs[source_rel]["sha256"],
                        "patch": patch["source"] if patch else None,
                        "sha256": sha256_of(files[path]),
                    }
                )
        path = f"{release.name}/all.json"
        files[path] = dump(dispatch_schema(release.name))
        index_entries.append(
            {
                "file": path,
                "release": release.name,
                "apiVersion": None,
                "kind": None,
                "source": None,
                "sourceRelease": None,
                "sourceSha256": None,
                "patch": None,
                "sha256": sha256_of(files[path]),
            }
        )
    index = {
        "generator": "scripts/generate_schemas.py",
        "draft": JSON_SCHEMA_DRAFT,
        "releases": [r.name for r in RELEASES],
        "versions": list(VERSIONS),
        "kinds": list(KINDS),
        "inputs": inputs,
        "patches": {
            name: {"base": p["base"], "source": p["source"]} for name, p in RELEASE_PATCHES.items()
        },
        "schemas": index_entries,
    }
    files["index.json"] = dump(index)
    files["PROVENANCE.md"] = provenance_markdown(index).encode()
    files["README.md"] = README.encode()
    return files


README = """\
# Bundled JSON Schemas

Strict JSON Schemas (draft-07) of the `resource.k8s.io` kinds DeviceClass, ResourceClaim,
ResourceClaimTemplate and ResourceSlice, generated from the upstream OpenAPI documents by
`scripts/generate_schemas.py`. Do not edit them by hand: regenerate. The wheel ships this folder
as `dractl/schemas`, and `dractl schema` writes one release of it for editors.

* `<release>/<version>/<kind>.json`: one self-contained schema per kind, API version and
  Kubernetes release (1.34, 1.35, 1.36); unknown fields are rejected.
* `<release>/all.json`: picks the schema by `apiVersion` and `kind`; other objects pass.
* `index.json`, `PROVENANCE.md`: the source document, release and sha256 of every file.
"""


def provenance_markdown(index: Json) -> str:
    lines = [
        "# Provenance of the bundled JSON Schemas",
        "",
        "Generated by `scripts/generate_schemas.py` (do not edit by hand; run it again, and",
        "`python scripts/generate_schemas.py --check` verifies the files are current).",
        "`index.json` holds the same facts in machine-readable form.",
        "",
        "## Inputs",
        "",
        "Upstream OpenAPI v3 documents (`kubernetes/kubernetes:api/openapi-spec/v3/`), vendored",
        "unchanged; see `scripts/openapi/README.md`.",
        "",
        "| input | release | sha256 |",
        "|---|---|---|",
    ]
    for source, facts in index["inputs"].items():
        lines.append(f"| `{source}` | {facts['release']} | `{facts['sha256']}` |")
    lines += ["", "## Patches", ""]
    for name, patch in index["patches"].items():
        lines.append(
            f"* Kubernetes {name}: the {patch['base']} documents plus the fields added in "
            f"{patch['source']} (data in `RELEASE_PATCHES` of the generator)."
        )
    lines += [
        "",
        "## Outputs",
        "",
        "| file | release | apiVersion | kind | source | sha256 |",
        "|---|---|---|---|---|---|",
    ]
    for entry in index["schemas"]:
        source = (
            f"`{entry['source']}`" + (" + patch" if entry["patch"] else "")
            if entry["source"]
            else "(dispatcher)"
        )
        lines.append(
            f"| `{entry['file']}` | {entry['release']} | {entry['apiVersion'] or '*'} | "
            f"{entry['kind'] or '*'} | {source} | `{entry['sha256']}` |"
        )
    return "\n".join(lines) + "\n"


def stale_files(expected: dict[str, bytes], out_dir: Path) -> list[str]:
    stale = [
        path
        for path, data in expected.items()
        if not (out_dir / path).is_file() or (out_dir / path).read_bytes() != data
    ]
    if out_dir.is_dir():
        present = {p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*") if p.is_file()}
        stale += sorted(present - set(expected))
    return sorted(stale)


def write(expected: dict[str, bytes], out_dir: Path) -> None:
    for path in stale_files(expected, out_dir):
        target = out_dir / path
        if path in expected:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(expected[path])
        else:
            target.unlink()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="report stale files and exit 1 instead of writing"
    )
    parser.add_argument(
        "--openapi", type=Path, default=OPENAPI_DIR, help="folder of the vendored OpenAPI documents"
    )
    parser.add_argument(
        "--out", type=Path, default=SCHEMAS_DIR, help="output folder (default: schemas/)"
    )
    args = parser.parse_args(argv)
    expected = generate(args.openapi)
    if args.check:
        stale = stale_files(expected, args.out)
        for path in stale:
            print(f"stale: {args.out.name}/{path}", file=sys.stderr)
        if stale:
            print("run: python scripts/generate_schemas.py", file=sys.stderr)
            return 1
        return 0
    write(expected, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
