"""``dractl schema``: write the bundled JSON Schemas of one Kubernetes release for editors."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from dractl.cli.options import add_kubernetes_version

DESCRIPTION = """\
Write the JSON Schemas of DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice.

One strict schema (unknown fields rejected, as the apiserver's strict field validation does)
per kind and API version (v1beta1, v1beta2, v1) of the chosen Kubernetes release, plus
all.json, which picks the right one by apiVersion and kind, and index.json, which lists them
with their upstream source and sha256. Files of the same name are replaced; nothing else in
the folder is touched.
"""

EPILOG = """
Then start a manifest with '# yaml-language-server: $schema=<path to all.json>' (a relative
path counts from the manifest's folder), or map the schemas to files in the editor's settings;
docs/schema.md shows both.

Examples:
  dractl schema --out .schemas
  dractl schema -k 1.34 --out schemas-1.34

Exit codes: 0 written, 2 unknown Kubernetes version or the folder cannot be written.
"""

DEFAULT_OUT = "dractl-schemas"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o", "--out", metavar="DIR", default=DEFAULT_OUT,
        help="Folder to write the schemas to (created if missing).",
    )
    add_kubernetes_version(parser)


def run(args: argparse.Namespace) -> int:
    from dractl.api.releases import normalize_release
    from dractl.api.schemas import index, release_files
    from dractl.errors import DractlError

    release = normalize_release(args.kubernetes_version)
    target = Path(args.out)
    entries = {e["file"]: e for e in index()["schemas"] if e["release"] == release}
    listing = []
    try:
        for relative, source in release_files(release):
            data = source.read_bytes()
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(data)
            entry = entries[f"{release}/{relative}"]
            listing.append(
                {
                    "file": relative,
                    "apiVersion": entry["apiVersion"],
                    "kind": entry["kind"],
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "source": entry["source"],
                    "sourceSha256": entry["sourceSha256"],
                    "patch": entry["patch"],
                }
            )
        manifest = {"kubernetesVersion": release, "draft": index()["draft"], "schemas": listing}
        (target / "index.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise DractlError(f"cannot write the schemas to {args.out}: {exc.strerror or exc}") from None

    print(f"Wrote {len(listing)} JSON Schemas for Kubernetes {release} to {target}:")
    for item in listing:
        what = item["apiVersion"] and f"{item['apiVersion']} {item['kind']}"
        print(f"  {target / item['file']}  ({what or 'any of them, by apiVersion and kind'})")
    print(
        "Use them in a manifest with the modeline "
        f"`# yaml-language-server: $schema={(target / 'all.json').resolve()}`"
        " (or a path relative to the manifest's folder)"
    )
    return 0
