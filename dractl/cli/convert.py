"""``dractl convert``."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from typing import TYPE_CHECKING

from dractl.cli.options import add_max_file_size, add_paths, limits

if TYPE_CHECKING:
    from dractl.load import SourceFile

TARGETS = ("v1", "v1beta2", "v1beta1")

DESCRIPTION = """\
Convert resource.k8s.io manifests between v1beta1, v1beta2 and v1, keeping comments and layout.

Rewrites DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice objects (also in
Lists) as the apiserver converts them: v1beta1 request fields move into exactly, v1beta1 device
fields come out of basic (and back with --to v1beta1); v1beta2 and v1 differ only in apiVersion.
Comments, key order, quoting, flow style, indentation and line breaks are kept, and other
documents are left byte for byte.

No defaults are added: the apiserver fills in allocationMode and count when it stores an
object, not when it converts one. --apply-defaults writes them as it would store them.
"""

EPILOG = """
Examples:
  dractl convert examples/good/claim-gpu-v1beta1.yaml
  dractl convert --check --diff examples/good/deviceclass-gpu-v1.yaml
  dractl convert -w examples/good/
  cat examples/good/claim-template-v1beta2.yaml | dractl convert -

Exit codes: 0 done (or nothing to convert), 1 conversion needed with --check or a field would be
lost (see --allow-lossy), 2 usage error, unreadable input or a version that cannot be converted.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument(
        "-t",
        "--to",
        metavar="VERSION",
        choices=TARGETS,
        default="v1",
        type=str.lower,
        help=f"Version to convert to: {', '.join(TARGETS)}.",
    )
    parser.add_argument(
        "-w",
        "--in-place",
        action="store_true",
        help="Rewrite the files that change, atomically, keeping their permissions.",
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="Write the converted output to this file."
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="Write nothing; list the files that would change and exit 1 if any.",
    )
    parser.add_argument(
        "--diff", action="store_true", help="Print a unified diff instead of the converted text."
    )
    parser.add_argument(
        "--allow-lossy",
        action="store_true",
        help="Drop fields the target version cannot hold (each one is reported).",
    )
    parser.add_argument(
        "--apply-defaults",
        action="store_true",
        help="Also write the defaults the apiserver stores (allocationMode, count, toleration "
        "operator).",
    )
    add_max_file_size(parser)
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="Print only errors, losses and dropped fields (on stderr).",
    )


def run(args: argparse.Namespace) -> int:
    from dractl.convert.engine import Options, Status, convert_read_fast
    from dractl.convert.output import join_outputs, unified_diff
    from dractl.convert.writer import write_atomic
    from dractl.errors import InputError, UsageError
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    if args.in_place and args.output:
        raise UsageError("--in-place and --output exclude each other")
    if args.check and (args.in_place or args.output):
        raise UsageError("--check writes nothing; leave out --in-place and --output")
    input_limits = limits(args.max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in args.paths else None
    # read for values first (fast); what has something to convert is read again with comments
    loaded = load_paths(args.paths, stdin=stdin, limits=input_limits, comments=False)
    results = convert_read_fast(
        loaded,
        Options(args.to, allow_lossy=args.allow_lossy, apply_defaults=args.apply_defaults),
        input_limits,
    )
    for message in loaded.skipped:
        print(visible(f"dractl: warning: {message}", one_line=True), file=sys.stderr)
    for message in loaded.unreadable:
        print(visible(f"dractl: error: {message}", one_line=True), file=sys.stderr)
    for result in results:
        for note in result.messages:
            if not args.quiet or note.severity.value in ("error", "lossy", "dropped"):
                print(visible(str(note), one_line=True), file=sys.stderr)

    printable_statuses = (Status.CONVERTED, Status.UNCHANGED, Status.SKIPPED)
    changed = [r for r in results if r.changed]
    write_failed = False
    if args.diff:
        for result in changed:
            diff = unified_diff(result.source.path, result.source.text, result.text)
            sys.stdout.write(visible(diff))
    if args.check:
        for result in changed:
            line = visible(f"would convert {result.source.path}", one_line=True)
            print(line, file=sys.stderr if args.diff else sys.stdout)
    elif args.in_place:
        if not args.diff:
            # stdin, a FIFO or a device has nowhere to be written back: its text goes to stdout,
            # changed or not (rewriting a FIFO would wait for a reader that never comes)
            for result in results:
                if not _rewritable(result.source) and result.status in printable_statuses:
                    sys.stdout.write(_with_bom(result.text, result.source.bom))
        for result in changed:
            if result.source.real_path is None or not _rewritable(result.source):
                continue
            try:
                written = write_atomic(
                    result.source.real_path, result.text, expected_original=result.source.text
                )
            except InputError as error:
                # One file that cannot be written does not stop the others.
                print(visible(f"dractl: error: {error}", one_line=True), file=sys.stderr)
                write_failed = True
                continue
            # not written: the same file as an input before it (a hard link, a symlink)
            if written and not args.quiet:
                print(visible(f"converted {result.source.path}", one_line=True), file=sys.stderr)
    elif not args.diff or args.output:
        printable = [r for r in results if r.status in printable_statuses]
        text = join_outputs([r.text for r in printable])
        # the byte-order mark that -w keeps, kept here too (at the start of the stream only)
        text = _with_bom(text, bool(printable) and printable[0].source.bom)
        if not args.output:
            sys.stdout.write(text)
        elif printable:
            # When no input could be converted there is nothing to write: FILE stays as it was.
            write_atomic(args.output, text)

    if write_failed or loaded.unreadable or any(r.status is Status.FAILED for r in results):
        return 2
    if any(r.status is Status.BLOCKED for r in results) or (args.check and changed):
        return 1
    return 0


def _rewritable(source: SourceFile) -> bool:
    """Whether -w can write ``source`` back: a regular file (not stdin, a FIFO or a device)."""
    if source.real_path is None:
        return False
    try:
        return stat.S_ISREG(os.stat(source.real_path).st_mode)
    except OSError:
        return True  # gone or unreadable: the writer says why


def _with_bom(text: str, bom: bool) -> str:
    return "\ufeff" + text if bom and not text.startswith("\ufeff") else text


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with its control characters escaped; ``one_line`` for a message, which a newline
    in a name from the input must not split (its second line would name no place)."""
    from dractl.report.escape import visible

    return visible(text, one_line=one_line)
