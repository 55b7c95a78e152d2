"""Options shared by several subcommands, and their parsing.

A command declares an option with argparse, in its ``arguments(parser)`` function: a
``metavar`` that names the value (``NAME``, ``FORMAT``, ``SECONDS``), or ``action="store_true"``
for a flag, which then shows no value; ``choices`` for a closed list. Shared options are added
with the ``add_*`` helpers below, so every command spells them, their help and their
environment variables the same way.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import IO, TYPE_CHECKING

from dractl.api.releases import (
    DEFAULT_RELEASE,
    RELEASES,
    Features,
    normalize_release,
    parse_feature_gates,
)

if TYPE_CHECKING:
    from dractl.load.parse import Limits

COLORS = ("auto", "always", "never")
DEFAULT_KUBERNETES_VERSION = DEFAULT_RELEASE
DEFAULT_MAX_FILE_SIZE = 1024 * 1024 * 1024  # dractl.load.Limits().max_file_bytes


def add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="Files, folders (searched recursively for *.yaml, *.yml, *.json) or - for stdin.",
    )


def add_kubernetes_version(parser: argparse.ArgumentParser, *, from_config: bool = False) -> None:
    """``from_config``: no default of its own (the configuration file's, else the newest)."""
    default = None if from_config else DEFAULT_KUBERNETES_VERSION
    parser.add_argument(
        "-k",
        "--kubernetes-version",
        metavar="VERSION",
        default=os.environ.get("DRACTL_KUBERNETES_VERSION", default),
        help=f"Kubernetes release to check against ({', '.join(RELEASES)}"
        + ("; default: the configuration's, else the newest)." if from_config else ").")
        + " [env: DRACTL_KUBERNETES_VERSION]",
    )


def add_feature_gates(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--feature-gates",
        metavar="GATES",
        help="Feature gates as the kube components take them: "
        "DRADeviceTaints=true,DRAAdminAccess=false.",
    )


def add_cel_engine(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cel-engine",
        metavar="ENGINE",
        help="CEL engine: cel-expr-python (default) or cel-python (portable fallback).",
    )


def add_color(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--color",
        metavar="WHEN",
        choices=COLORS,
        default="auto",
        help="Colour output: auto (on a terminal, unless NO_COLOR), always, never.",
    )


def add_max_file_size(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-file-size",
        metavar="SIZE",
        type=parse_size,
        default=os.environ.get("DRACTL_MAX_FILE_SIZE", f"{DEFAULT_MAX_FILE_SIZE // 1024**3}G"),
        help="Refuse input files (and stdin) larger than this: bytes, or with k, M, G. "
        "[env: DRACTL_MAX_FILE_SIZE]",
    )


def env_flag(name: str) -> bool:
    """A yes/no environment variable: set to anything but ``0``, ``false`` or ``no`` is yes."""
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def parse_size(text: str | int) -> int:
    """``1000``, ``512k``, ``64M``, ``64MiB``, ``1.5G``: binary multiples, as ``ulimit`` and ``du``."""
    if isinstance(text, int):
        return text
    match = re.match(_SIZE, text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a size; write e.g. 1000000, 512k, 64M or 1G"
        )
    number, unit = match.groups()
    size = float(number) * 1024 ** _POWERS.get((unit or "b")[0].lower(), 0)
    if size < 1:
        raise argparse.ArgumentTypeError("must be at least one byte")
    # More than any file can hold is no limit; it is kept where reads can still be asked for
    # one byte more (a larger count overflows the C integers that reads take; inf is no int).
    return MAX_SIZE if not size < MAX_SIZE else int(size)


_SIZE = r"^(\d+(?:\.\d+)?)\s*([kKmMgG](?:i?[bB])?|[bB])?$"  # compiled when an option gives a size
_POWERS = {"b": 0, "k": 1, "m": 2, "g": 3}
MAX_SIZE = 2**62  # bytes: 4 EiB


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def features(kubernetes_version: str, feature_gates: str | None) -> Features:
    return Features(normalize_release(kubernetes_version), parse_feature_gates(feature_gates))


def cel_engine_name(name: str | None) -> str | None:
    from dractl.cel.engines import validate_engine_name

    return validate_engine_name(name, "--cel-engine")


def limits(max_file_size: int) -> Limits:
    from dractl.load.parse import Limits

    return Limits(max_file_bytes=max_file_size)


def use_color(choice: str, stream: IO[str] | None = None) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())
