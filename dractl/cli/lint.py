"""``dractl lint``."""

from __future__ import annotations

import argparse
import sys

from dractl.cli.options import (
    add_cel_engine,
    add_color,
    add_feature_gates,
    add_kubernetes_version,
    add_max_file_size,
    add_paths,
    limits,
    positive_int,
    use_color,
)
from dractl.report import FORMATS

DESCRIPTION = """\
Check manifests for everything the apiserver would reject, CEL errors and likely mistakes.

Every diagnostic has a rule ID (see 'dractl rules'), the apiserver's field path and
file:line:column. Settings come from .dractl.yaml or [tool.dractl] in pyproject.toml, from the
current folder upwards, unless --config or --no-config says otherwise.
"""

EPILOG = """
Examples:
  dractl lint examples/good/
  dractl lint examples/bad/claim-gpu-request-mistakes-v1.yaml    # exit code 1: errors found
  dractl lint --context examples/explain/gpu-pod/ examples/good/claim-gpu-v1.yaml
  dractl lint -k 1.34 --feature-gates DRADeviceTaints=true examples/good/
  dractl lint --format sarif --output-file dractl.sarif examples/good/
  cat examples/good/claim-gpu-v1.yaml | dractl lint -

Exit codes: 0 no errors, 1 errors found (or warnings with --strict), 2 usage error or unreadable input.
"""

def arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument(
        "-f", "--format", metavar="FORMAT", choices=list(FORMATS), default="text",
        help=f"Output format: {', '.join(FORMATS)}.",
    )
    parser.add_argument(
        "-o", "--output-file", metavar="FILE", help="Write the report to this file instead of stdout."
    )
    add_kubernetes_version(parser, from_config=True)
    add_feature_gates(parser)
    parser.add_argument(
        "--select", metavar="RULE", action="append",
        help="Only these rules (IDs or prefixes, e.g. DRA1). Repeatable.",
    )
    parser.add_argument(
        "--ignore", metavar="RULE", action="append",
        help="Skip these rules (IDs or prefixes). Repeatable.",
    )
    parser.add_argument(
        "--strict", action=argparse.BooleanOptionalAction, help="Exit 1 on warnings too."
    )
    parser.add_argument(
        "--context", metavar="PATH", action="append",
        help="Files read for reference (e.g. a cluster dump) but not reported on. Repeatable.",
    )
    parser.add_argument(
        "--require-classes", action="store_true", default=None,
        help="Report requests whose DeviceClass is not among the inputs.",
    )
    add_cel_engine(parser)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="Print only errors and the summary line."
    )
    add_color(parser)
    add_max_file_size(parser)
    parser.add_argument(
        "--config", metavar="FILE",
        help="Read this configuration file instead of looking for .dractl.yaml or "
        "[tool.dractl] in pyproject.toml from the current folder upwards.",
    )
    parser.add_argument("--no-config", action="store_true", help="Ignore configuration files.")
    parser.add_argument(
        "-j", "--jobs", metavar="N", type=positive_int,
        help="Processes for many files (default: one per CPU; used only when it pays).",
    )


def run(args: argparse.Namespace) -> int:
    from dractl.errors import UsageError
    from dractl.lint.config import build_settings, load_config
    from dractl.lint.engine import lint as run_lint
    from dractl.lint.parallel import default_jobs, load_files
    from dractl.load import load_paths
    from dractl.load.sources import expand_paths, read_stdin
    from dractl.report import ReportContext, get_reporter
    from dractl.report.progress import Progress

    configuration = load_config(args.config, discover=not args.no_config)
    settings = build_settings(
        configuration,
        kubernetes_version=args.kubernetes_version,
        feature_gates=args.feature_gates,
        select=args.select or (),
        ignore=args.ignore or (),
        require_classes=args.require_classes,
        cel_engine=args.cel_engine,
    )
    strict = bool(configuration.strict) if args.strict is None else args.strict
    files = [p for p in expand_paths(args.paths) if not configuration.excluded(p)]
    input_limits = limits(args.max_file_size)
    reads_stdin = "-" in args.paths or "-" in (args.context or [])
    stdin = read_stdin(input_limits.max_file_bytes) if reads_stdin else None
    jobs = args.jobs or default_jobs()
    progress = Progress(len(files))
    try:
        loaded = load_files(
            files, stdin=stdin, limits=input_limits, jobs=jobs, progress=progress.files
        )
        context_loaded = (
            load_paths(args.context, stdin=stdin, limits=input_limits, comments=False)
            if args.context
            else None
        )
        progress.stage(f"checking {len(loaded.objects):,} objects")
        result = run_lint(loaded, settings, context_loaded, jobs=jobs)
    finally:
        progress.done()
    try:
        out = open(args.output_file, "w", encoding="utf-8") if args.output_file else sys.stdout  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"{args.output_file}: cannot write the report: {exc.strerror}") from None
    try:
        context = ReportContext(loaded, use_color(args.color, out), args.quiet)
        get_reporter(args.format)(result, context, out)
    finally:
        if args.output_file:
            out.close()
    for message in loaded.unreadable + (context_loaded.unreadable if context_loaded else []):
        print(f"dractl: error: {message}", file=sys.stderr)
    if context_loaded is not None:
        # Context files are never reported on, but one that cannot be read must say why.
        for problem in context_loaded.diagnostics:
            if problem.rule in ("DRA001", "DRA002", "DRA005"):
                print(f"dractl: error: --context {problem.position}: {problem.message}", file=sys.stderr)
    if result.input_failed or loaded.unreadable or (context_loaded and context_loaded.failed):
        return 2
    summary = result.summary
    if summary["errors"] or (strict and summary["warnings"]):
        return 1
    return 0
