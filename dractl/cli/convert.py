"""``dractl convert``."""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from dractl.cli.options import (
    DEFAULT_MAX_FILE_SIZE,
    MaxFileSize,
    Paths,
    limits,
)


class Target(StrEnum):
    v1 = "v1"
    v1beta2 = "v1beta2"
    v1beta1 = "v1beta1"


EPILOG = """
Rewrites DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice objects (also in Lists) as the apiserver converts them: v1beta1 request fields move into [b]exactly[/b], v1beta1 device fields come out of [b]basic[/b] (and back with --to v1beta1); v1beta2 and v1 differ only in apiVersion. Comments, key order, quoting, flow style, indentation and line breaks are kept, and other documents are left byte for byte.

[b]No defaults are added[/b]: the apiserver fills in allocationMode and count when it stores an object, not when it converts one. --apply-defaults writes them as it would store them.

[b]Examples[/b]

  dractl convert claim.yaml
  dractl convert -w manifests/
  dractl convert --check --diff manifests/
  kubectl get resourceclaims -o yaml | dractl convert -

Exit codes: 0 done (or nothing to convert), 1 conversion needed with --check or a field would be lost (see --allow-lossy), 2 usage error, unreadable input or a version that cannot be converted.
"""


def convert(
    paths: Paths,
    to: Annotated[
        Target, typer.Option("--to", "-t", help="Version to convert to.", case_sensitive=False)
    ] = Target.v1,
    in_place: Annotated[
        bool,
        typer.Option(
            "--in-place",
            "-w",
            help="Rewrite the files that change, atomically, keeping their permissions.",
        ),
    ] = False,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", help="Write the converted output to this file."),
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; list the files that would change and exit 1 if any."
        ),
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print a unified diff instead of the converted text.")
    ] = False,
    allow_lossy: Annotated[
        bool,
        typer.Option(
            "--allow-lossy",
            help="Drop fields the target version cannot hold (each one is reported).",
        ),
    ] = False,
    apply_defaults: Annotated[
        bool,
        typer.Option(
            "--apply-defaults",
            help="Also write the defaults the apiserver stores (allocationMode, count, "
            "toleration operator).",
        ),
    ] = False,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_SIZE,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="Print only errors, losses and dropped fields (on stderr)."
        ),
    ] = False,
) -> None:
    """Convert resource.k8s.io manifests between v1beta1, v1beta2 and v1, keeping comments and layout."""
    from dractl.convert.engine import Options, Status, convert_loaded
    from dractl.convert.output import join_outputs, unified_diff
    from dractl.convert.writer import write_atomic
    from dractl.errors import InputError, UsageError
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    if in_place and output:
        raise UsageError("--in-place and --output exclude each other")
    if check and (in_place or output):
        raise UsageError("--check writes nothing; leave out --in-place and --output")
    input_limits = limits(max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in paths else None
    loaded = load_paths(paths, stdin=stdin, limits=input_limits)
    results = convert_loaded(
        loaded, Options(to.value, allow_lossy=allow_lossy, apply_defaults=apply_defaults)
    )
    for message in loaded.unreadable:
        typer.echo(f"dractl: error: {message}", err=True)
    for result in results:
        for note in result.messages:
            if not quiet or note.severity.value in ("error", "lossy", "dropped"):
                typer.echo(str(note), err=True)

    printable_statuses = (Status.CONVERTED, Status.UNCHANGED, Status.SKIPPED)
    changed = [r for r in results if r.changed]
    write_failed = False
    if diff:
        for result in changed:
            sys.stdout.write(unified_diff(result.source.path, result.source.text, result.text))
    if check:
        for result in changed:
            typer.echo(f"would convert {result.source.path}", err=diff)
    elif in_place:
        if not diff:
            # stdin has nowhere to be written back: its text goes to stdout, changed or not
            for result in results:
                if result.source.real_path is None and result.status in printable_statuses:
                    sys.stdout.write(result.text)
        for result in changed:
            if result.source.real_path is None:
                continue
            try:
                write_atomic(
                    result.source.real_path, result.text, expected_original=result.source.text
                )
            except InputError as error:
                # One file that cannot be written does not stop the others.
                typer.echo(f"dractl: error: {error}", err=True)
                write_failed = True
                continue
            if not quiet:
                typer.echo(f"converted {result.source.path}", err=True)
    elif not diff or output:
        printable = [r for r in results if r.status in printable_statuses]
        text = join_outputs([r.text for r in printable])
        if not output:
            sys.stdout.write(text)
        elif printable:
            # When no input could be converted there is nothing to write: FILE stays as it was.
            write_atomic(output, text)

    if write_failed or loaded.unreadable or any(r.status is Status.FAILED for r in results):
        raise typer.Exit(2)
    if any(r.status is Status.BLOCKED for r in results) or (check and changed):
        raise typer.Exit(1)
