"""``dractl select``: evaluate one selector on every device of some ResourceSlices."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from dractl.cli.options import (
    DEFAULT_KUBERNETES_VERSION,
    DEFAULT_MAX_FILE_SIZE,
    CelEngine,
    FeatureGates,
    KubernetesVersion,
    MaxFileSize,
    Paths,
    cel_engine_name,
    features,
    limits,
)

EPILOG = """
[b]Examples[/b]

  dractl select 'device.attributes["gpu.example.com"].model == "H100"' examples/good/
  kubectl get resourceslices -o yaml | dractl select -o json 'device.driver == "gpu.example.com"' -

Exit codes: 0 every device evaluated, 1 some device raised a CEL runtime error, 2 the selector does
not compile or an input cannot be read.
"""


def select(
    expression: Annotated[str, typer.Argument(help="The CEL selector, e.g. 'device.driver == \"gpu.example.com\"'.")],
    paths: Paths,
    output: Annotated[str, typer.Option("--output", "-o", help="Output: text (a table) or json.")] = "text",
    kubernetes_version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
    feature_gates: FeatureGates = None,
    cel_engine: CelEngine = None,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_SIZE,
) -> None:
    """Evaluate a device selector on every device of the given ResourceSlices, as the scheduler does.

    The selector compiles in the scheduler's environment for the chosen release and gates.
    """
    from dractl.api.model import build_all
    from dractl.cel import CelCompileError, CelRuntimeError, compile_selector
    from dractl.cel.slices import devices_of_slices
    from dractl.explain.inputs import decode_errors
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    if output not in ("text", "json"):
        raise typer.BadParameter(f"unknown output {output!r}; choose text or json", param_hint="--output")
    feature_set = features(kubernetes_version, feature_gates)
    try:
        selector = compile_selector(
            expression, release=feature_set.release, gates=feature_set.gates, purpose="stored",
            engine=cel_engine_name(cel_engine),
        )
    except CelCompileError as exc:
        first = exc.errors[0] if exc.errors else None
        where = f"expression:{first.line}:{first.column}: " if first else ""
        typer.echo(f"dractl: error: {where}{first.message if first else exc.detail}", err=True)
        raise typer.Exit(2) from None

    input_limits = limits(max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in paths else None
    loaded = load_paths(paths, stdin=stdin, limits=input_limits)
    for message in loaded.unreadable:
        typer.echo(f"dractl: error: {message}", err=True)
    for diagnostic in loaded.diagnostics:
        typer.echo(f"dractl: {diagnostic.position}: {diagnostic.message}", err=True)
    if loaded.failed:
        raise typer.Exit(2)
    slice_objects = [obj for obj in build_all(loaded.objects) if obj.kind == "ResourceSlice" and obj.dra]
    undecodable = decode_errors(slice_objects, feature_set.release)
    for error in undecodable:
        typer.echo(f"dractl: error: {error}", err=True)
    if undecodable:
        raise typer.Exit(2)
    slices = [obj.data for obj in slice_objects]

    rows: list[dict[str, Any]] = []
    for entry in devices_of_slices(slices):
        row: dict[str, Any] = {"driver": entry.driver, "pool": entry.pool, "device": entry.name}
        try:
            row["result"] = selector.evaluate(entry.device)
        except CelRuntimeError as exc:
            row["error"] = exc.message
        rows.append(row)

    if output == "json":
        typer.echo(json.dumps(rows, indent=2))
    else:
        _print_table(rows)
    if any("error" in row for row in rows):
        raise typer.Exit(1)


def _print_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        typer.echo("no devices: the inputs hold no ResourceSlice with devices")
        return
    headers = ("DRIVER", "POOL", "DEVICE", "RESULT")
    cells = [
        (row["driver"], row["pool"], row["device"],
         f"error: {row['error']}" if "error" in row else ("match" if row["result"] else "no match"))
        for row in rows
    ]
    widths = [max(len(headers[i]), *(len(c[i]) for c in cells)) for i in range(3)]
    typer.echo("  ".join(h.ljust(w) for h, w in zip(headers[:3], widths, strict=True)) + "  " + headers[3])
    for cell in cells:
        typer.echo("  ".join(c.ljust(w) for c, w in zip(cell[:3], widths, strict=True)) + "  " + cell[3])
    matched = sum(1 for row in rows if row.get("result") is True)
    errors = sum(1 for row in rows if "error" in row)
    typer.echo(f"{matched} of {len(rows)} devices match" + (f", {errors} raised errors" if errors else ""))
