"""``dractl lint``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from dractl.cli.options import (
    DEFAULT_KUBERNETES_VERSION,
    DEFAULT_MAX_FILE_SIZE,
    CelEngine,
    Color,
    ColorOption,
    FeatureGates,
    KubernetesVersion,
    MaxFileSize,
    Paths,
    Quiet,
    features,
    limits,
    use_color,
)

EPILOG = """
[b]Examples[/b]

  dractl lint examples/
  kubectl get resourceslices,deviceclasses -o yaml | dractl lint --context - claims/
  dractl lint -k 1.34 --feature-gates DRADeviceTaints=true claim.yaml
  dractl lint --format sarif -o dractl.sarif manifests/

Exit codes: 0 no errors, 1 errors found (or warnings with --strict), 2 usage error or unreadable input.
"""


def lint(
    paths: Paths,
    format: Annotated[
        str, typer.Option("--format", "-f", help="Output format: text, json, sarif, github, junit.")
    ] = "text",
    output_file: Annotated[
        str | None,
        typer.Option(
            "--output-file", "-o", help="Write the report to this file instead of stdout."
        ),
    ] = None,
    kubernetes_version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
    feature_gates: FeatureGates = None,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Only these rules (IDs or prefixes, e.g. DRA1). Repeatable."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Skip these rules (IDs or prefixes). Repeatable."),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 on warnings too.")] = False,
    context: Annotated[
        list[str] | None,
        typer.Option(
            "--context",
            help="Files read for reference (e.g. a cluster dump) but not reported on. Repeatable.",
        ),
    ] = None,
    require_classes: Annotated[
        bool,
        typer.Option(
            "--require-classes", help="Report requests whose DeviceClass is not among the inputs."
        ),
    ] = False,
    cel_engine: CelEngine = None,
    quiet: Quiet = False,
    color: ColorOption = Color.auto,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_SIZE,
) -> None:
    """Check manifests for everything the apiserver would reject, CEL errors and likely mistakes."""
    from dractl.lint.engine import Settings
    from dractl.lint.engine import lint as run_lint
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin
    from dractl.report import FORMATS, ReportContext, get_reporter

    if format not in FORMATS:
        raise typer.BadParameter(
            f"unknown format {format!r}; choose from {', '.join(FORMATS)}", param_hint="--format"
        )
    settings = Settings(
        features=features(kubernetes_version, feature_gates),
        select=tuple(s.upper() for s in select or ()),
        ignore=tuple(s.upper() for s in ignore or ()),
        require_classes=require_classes,
        cel_engine=cel_engine,
    )
    input_limits = limits(max_file_size)
    reads_stdin = "-" in paths or "-" in (context or [])
    stdin = read_stdin(input_limits.max_file_bytes) if reads_stdin else None
    loaded = load_paths(paths, stdin=stdin, limits=input_limits)
    context_loaded = load_paths(context, stdin=stdin, limits=input_limits) if context else None
    result = run_lint(loaded, settings, context_loaded)
    out = open(output_file, "w", encoding="utf-8") if output_file else sys.stdout  # noqa: SIM115
    try:
        get_reporter(format)(result, ReportContext(loaded, use_color(color, out), quiet), out)
    finally:
        if output_file:
            out.close()
    for message in loaded.unreadable + (context_loaded.unreadable if context_loaded else []):
        typer.echo(f"dractl: error: {message}", err=True)
    if context_loaded is not None:
        # Context files are never reported on, but one that cannot be read must say why.
        for problem in context_loaded.diagnostics:
            if problem.rule in ("DRA001", "DRA002", "DRA005"):
                typer.echo(
                    f"dractl: error: --context {problem.position}: {problem.message}", err=True
                )
    if result.input_failed or loaded.unreadable or (context_loaded and context_loaded.failed):
        raise typer.Exit(2)
    summary = result.summary
    if summary["errors"] or (strict and summary["warnings"]):
        raise typer.Exit(1)
