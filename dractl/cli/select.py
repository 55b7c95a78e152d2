"""``dractl select``: evaluate one selector on every device of some ResourceSlices."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from dractl.cli.options import (
    add_cel_engine,
    add_feature_gates,
    add_kubernetes_version,
    add_max_file_size,
    add_paths,
    cel_engine_name,
    features,
    limits,
)
from dractl.report.escape import visible, visible_message

DESCRIPTION = """\
Evaluate a device selector on every device of the given ResourceSlices, as the scheduler does.

The selector compiles in the scheduler's environment for the chosen release and gates.
"""

EPILOG = """
Examples:
  dractl select 'device.attributes["gpu.example.com"].model == "A100"' examples/good/resourceslice-gpu-node-v1.yaml
  dractl select -o json 'device.driver == "gpu.example.com"' examples/good/resourceslice-gpu-node-v1.yaml
  cat examples/good/resourceslice-gpu-node-v1.yaml | dractl select 'device.driver == "gpu.example.com"' -

Exit codes: 0 every device evaluated, 1 some device raised a CEL runtime error, 2 the selector does
not compile or an input cannot be read.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "expression", metavar="EXPR",
        help="The CEL selector, e.g. 'device.driver == \"gpu.example.com\"'.",
    )
    add_paths(parser)
    parser.add_argument(
        "-o", "--output", metavar="FORMAT", choices=("text", "json"), default="text",
        help="Output: text (a table) or json.",
    )
    add_kubernetes_version(parser)
    add_feature_gates(parser)
    add_cel_engine(parser)
    add_max_file_size(parser)


def run(args: argparse.Namespace) -> int:
    from dractl.api.decoding import decode_errors
    from dractl.api.model import build_all
    from dractl.cel import CelCompileError, CelRuntimeError, compile_selector
    from dractl.cel.environment import GATE_CONSUMABLE_CAPACITY
    from dractl.cel.slices import devices_of_slices
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    feature_set = features(args.kubernetes_version, args.feature_gates)
    problem = _not_utf8(args.expression)
    if problem is not None:
        print(f"dractl: error: expression:1:{problem}", file=sys.stderr)
        return 2
    try:
        selector = compile_selector(
            args.expression, release=feature_set.release, gates=feature_set.gates, purpose="stored",
            engine=cel_engine_name(args.cel_engine),
        )
    except CelCompileError as exc:
        first = exc.errors[0] if exc.errors else None
        # cel-go's limits (size, nesting) have no position: line -1, as upstream reports them
        where = "expression: " if first is None or first.line < 1 else f"expression:{first.line}:{first.column}: "
        detail = first.message if first else exc.detail
        print(visible_message(f"dractl: error: {where}{detail}"), file=sys.stderr)
        return 2

    input_limits = limits(args.max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in args.paths else None
    # read for values only: no comments, so libyaml's reader, and positions found when a message
    # asks for one (see explain)
    loaded = load_paths(args.paths, stdin=stdin, limits=input_limits, comments=False, marks=False)
    for message in loaded.skipped:
        print(visible_message(f"dractl: warning: {message}"), file=sys.stderr)
    for message in loaded.unreadable:
        print(visible_message(f"dractl: error: {message}"), file=sys.stderr)
    for diagnostic in loaded.diagnostics:
        print(visible_message(f"dractl: {diagnostic.position}: {diagnostic.message}"), file=sys.stderr)
    if loaded.failed:
        return 2
    # the reader's trees as they are (read, never changed here), not copies
    slice_objects = [
        obj for obj in build_all((o for o in loaded.objects if o.kind == "ResourceSlice"), share=True)
        if obj.dra
    ]
    undecodable = decode_errors(slice_objects, feature_set.release)
    for error in undecodable:
        print(visible_message(f"dractl: error: {error}"), file=sys.stderr)
    if undecodable:
        return 2
    slices = [obj.data for obj in slice_objects]

    rows: list[dict[str, Any]] = []
    for entry in devices_of_slices(slices, consumable_capacity=feature_set.enabled(GATE_CONSUMABLE_CAPACITY)):
        row: dict[str, Any] = {"driver": entry.driver, "pool": entry.pool, "device": entry.name}
        try:
            row["result"] = selector.evaluate(entry.device)
        except CelRuntimeError as exc:
            row["error"] = exc.message
        rows.append(row)

    if args.output == "json":
        print(json.dumps(rows, indent=2))  # ASCII: control characters and surrogates escaped
    else:
        _print_table(rows)
    if any("error" in row for row in rows):
        return 1
    return 0


def _not_utf8(expression: str) -> str | None:
    """Where an argument that was not valid UTF-8 has its first bad byte (Python keeps such bytes
    as lone surrogates, which the CEL engines cannot take), as ``column: message``."""
    for index, char in enumerate(expression):
        if "\ud800" <= char <= "\udfff":
            code = ord(char)
            what = f"byte 0x{code - 0xDC00:02x}" if code >= 0xDC80 else f"\\u{code:04x}"
            return f"{index + 1}: {what} is not valid UTF-8; a selector is UTF-8 text"
    return None


def _print_table(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no devices: the inputs hold no ResourceSlice with devices")
        return
    headers = ("DRIVER", "POOL", "DEVICE", "RESULT")
    cells = [
        tuple(visible(cell, one_line=True) for cell in (
            row["driver"], row["pool"], row["device"],
            f"error: {row['error']}" if "error" in row else ("match" if row["result"] else "no match"),
        ))
        for row in rows
    ]
    widths = [max(len(headers[i]), *(len(c[i]) for c in cells)) for i in range(3)]
    print("  ".join(h.ljust(w) for h, w in zip(headers[:3], widths, strict=True)) + "  " + headers[3])
    for cell in cells:
        print("  ".join(c.ljust(w) for c, w in zip(cell[:3], widths, strict=True)) + "  " + cell[3])
    matched = sum(1 for row in rows if row.get("result") is True)
    errors = sum(1 for row in rows if "error" in row)
    print(f"{matched} of {len(rows)} devices match" + (f", {errors} raised errors" if errors else ""))
