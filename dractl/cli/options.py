"""Options shared by every subcommand (typer ``Annotated`` types) and their parsing."""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from typing import IO, Annotated

import typer

from dractl.api.releases import (
    DEFAULT_RELEASE,
    RELEASES,
    Features,
    normalize_release,
    parse_feature_gates,
)


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
Paths = Annotated[
    list[str],
    typer.Argument(
        help="Files, folders (searched recursively for *.yaml, *.yml, *.json) or - for stdin.",
        show_default=False,
    ),
]

DEFAULT_KUBERNETES_VERSION = DEFAULT_RELEASE


def features(kubernetes_version: str, feature_gates: str | None) -> Features:
    return Features(normalize_release(kubernetes_version), parse_feature_gates(feature_gates))


def use_color(choice: Color, stream: IO[str] | None = None) -> bool:
    if choice is Color.always:
        return True
    if choice is Color.never or os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())
