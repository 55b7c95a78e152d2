"""Options shared by every subcommand (typer ``Annotated`` types) and their parsing."""

from __future__ import annotations

import os
import re
import sys
from enum import StrEnum
from typing import IO, TYPE_CHECKING, Annotated

import typer

from dractl.api.releases import (
    DEFAULT_RELEASE,
    RELEASES,
    Features,
    normalize_release,
    parse_feature_gates,
)

if TYPE_CHECKING:
    from dractl.load.parse import Limits


class Color(StrEnum):
    auto = "auto"
    always = "always"
    never = "never"


KubernetesVersion = Annotated[
    str,
    typer.Option(
        "--kubernetes-version",
        "-k",
        help=f"Kubernetes release to check against ({', '.join(RELEASES)}).",
        envvar="DRACTL_KUBERNETES_VERSION",
    ),
]
FeatureGates = Annotated[
    str | None,
    typer.Option(
        "--feature-gates",
        help="Feature gates as the kube components take them: [i]DRADeviceTaints=true,DRAAdminAccess=false[/].",
    ),
]
CelEngine = Annotated[
    str | None,
    typer.Option(
        "--cel-engine",
        help="CEL engine: [i]cel-expr-python[/] (default) or [i]cel-python[/] (portable fallback).",
    ),
]
ColorOption = Annotated[
    Color,
    typer.Option(
        "--color", help="Colour output: auto (on a terminal, unless NO_COLOR), always, never."
    ),
]
Quiet = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print only errors and the summary line.")
]


def parse_size(text: str | int) -> int:
    """``1000``, ``512k``, ``64M``, ``64MiB``, ``1.5G``: binary multiples, as ``ulimit`` and ``du``."""
    if isinstance(text, int):  # the default
        return text
    match = _SIZE_RE.match(text.strip())
    if match is None:
        raise typer.BadParameter(f"{text!r} is not a size; write e.g. 1000000, 512k, 64M or 1G")
    number, unit = match.groups()
    size = int(float(number) * 1024 ** _POWERS.get((unit or "b")[0].lower(), 0))
    if size < 1:
        raise typer.BadParameter("must be at least one byte")
    return size


_SIZE_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*([kKmMgG](?:i?[bB])?|[bB])?$")
_POWERS = {"b": 0, "k": 1, "m": 2, "g": 3}

DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024  # dractl.load.Limits().max_file_bytes
MaxFileSize = Annotated[
    int,
    typer.Option(
        "--max-file-size",
        parser=parse_size,
        metavar="SIZE",
        help="Refuse input files (and stdin) larger than this: bytes, or with k, M, G.",
        show_default=f"{DEFAULT_MAX_FILE_SIZE // 1024**2}M",
        envvar="DRACTL_MAX_FILE_SIZE",
    ),
]
Paths = Annotated[
    list[str],
    typer.Argument(
        help="Files, folders (searched recursively for *.yaml, *.yml, *.json) or - for stdin.",
        metavar="PATH",
        show_default=False,
    ),
]

DEFAULT_KUBERNETES_VERSION = DEFAULT_RELEASE


def features(kubernetes_version: str, feature_gates: str | None) -> Features:
    return Features(normalize_release(kubernetes_version), parse_feature_gates(feature_gates))


def cel_engine_name(name: str | None) -> str | None:
    from dractl.cel.engines import validate_engine_name

    return validate_engine_name(name, "--cel-engine")


def limits(max_file_size: int) -> Limits:
    from dractl.load.parse import Limits

    return Limits(max_file_bytes=max_file_size)


def use_color(choice: Color, stream: IO[str] | None = None) -> bool:
    if choice is Color.always:
        return True
    if choice is Color.never or os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())
