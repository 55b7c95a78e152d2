"""``dractl lint``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from dractl.api.releases import RELEASES
from dractl.cli.options import (
    DEFAULT_MAX_FILE_SIZE,
    CelEngine,
    Color,
    ColorOption,
    FeatureGates,
    MaxFileSize,
    Paths,
    Quiet,
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
    kubernetes_version: Annotated[
        str | None,
        typer.Option(
            "--kubernetes-version",
            "-k",
            help=f"Kubernetes release to check against ({', '.join(RELEASES)}; default: the "
            "configuration's, else the newest).",
            envvar="DRACTL_KUBERNETES_VERSION",
            show_default=False,
        ),
    ] = None,
    feature_gates: FeatureGates = None,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Only these rules (IDs or prefixes, e.g. DRA1). Repeatable."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Skip these rules (IDs or prefixes). Repeatable."),
    ] = None,
    strict: Annotated[
        bool | None, typer.Option("--strict/--no-strict", help="Exit 1 on warnings too.")
    ] = None,
    context: Annotated[
        list[str] | None,
        typer.Option(
            "--context",
            help="Files read for reference (e.g. a cluster dump) but not reported on. Repeatable.",
        ),
    ] = None,
    require_classes: Annotated[
        bool | None,
        typer.Option(
            "--require-classes", help="Report requests whose DeviceClass is not among the inputs."
        ),
    ] = None,
    cel_engine: CelEngine = None,
    quiet: Quiet = False,
    color: ColorOption = Color.auto,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_SIZE,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            help="Read this configuration file instead of looking for .dractl.yaml or "
            "[tool.dractl] in pyproject.toml from the current folder upwards.",
        ),
    ] = None,
    no_config: Annotated[
        bool, typer.Option("--no-config", help="Ignore configuration files.")
    ] = False,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            help="Processes for many files (default: one per CPU; used only when it pays).",
            min=1,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Check manifests for everything the apiserver would reject, CEL errors and likely mistakes."""
    from dractl.errors import UsageError
    from dractl.lint.config import build_settings, load_config
    from dractl.lint.engine import lint as run_lint
    from dractl.lint.parallel import default_jobs, load_files
    from dractl.load import load_paths
    from dractl.load.sources import expand_paths, read_stdin
    from dractl.report import FORMATS, ReportContext, get_reporter
    from dractl.report.progress import Progress

    if format not in FORMATS:
        raise typer.BadParameter(
            f"unknown format {format!r}; choose from {', '.join(FORMATS)}", param_hint="--format"
        )
    configuration = load_config(config, discover=not no_config)
    settings = build_settings(
        configuration,
        kubernetes_version=kubernetes_version,
        feature_gates=feature_gates,
        select=select or (),
        ignore=ignore or (),
        require_classes=require_classes,
        cel_engine=cel_engine,
    )
    if strict is None:
        strict = bool(configuration.strict)
    files = [p for p in expand_paths(paths) if not configuration.excluded(p)]
    input_limits = limits(max_file_size)
    reads_stdin = "-" in paths or "-" in (context or [])
    stdin = read_stdin(input_limits.max_file_bytes) if reads_stdin else None
    jobs = jobs or default_jobs()
    progress = Progress(len(files))
    try:
        loaded = load_files(
            files, stdin=stdin, limits=input_limits, jobs=jobs, progress=progress.files
        )
        context_loaded = (
            load_paths(context, stdin=stdin, limits=input_limits, comments=False) if context else None
        )
        progress.stage(f"checking {len(loaded.objects):,} objects")
        result = run_lint(loaded, settings, context_loaded, jobs=jobs)
    finally:
        progress.done()
    try:
        out = open(output_file, "w", encoding="utf-8") if output_file else sys.stdout  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"{output_file}: cannot write the report: {exc.strerror}") from None
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
