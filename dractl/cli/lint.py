"""``dractl lint``."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from dractl.cli.options import (
    add_cel_engine,
    add_color,
    add_feature_gates,
    add_kubernetes_version,
    add_max_file_size,
    add_paths,
    env_flag,
    limits,
    positive_int,
    use_color,
)
from dractl.report import FORMATS

if TYPE_CHECKING:
    from dractl.lint.cache import StoredRun

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
    parser.add_argument(
        "--no-cache", action="store_true", default=env_flag("DRACTL_NO_CACHE"),
        help="Check again even if the inputs, settings and dractl are those of an earlier run. "
        "[env: DRACTL_NO_CACHE]",
    )
    parser.add_argument(
        "--cache-dir", metavar="DIR", default=os.environ.get("DRACTL_CACHE_DIR"),
        help="Keep the reports of earlier runs here (default: .dractl_cache beside the "
        "configuration file, else in the current folder). [env: DRACTL_CACHE_DIR]",
    )


def run(args: argparse.Namespace) -> int:
    from dractl.errors import DractlError
    from dractl.lint.cache import default_folder, open_cache
    from dractl.lint.config import config_path
    from dractl.load.sources import expand_paths, read_stdin

    found = config_path(args.config, discover=not args.no_config)
    config = str(found) if found is not None else None
    skipped: list[str] = []  # FIFOs and devices in the folders: told on every run, cached or not
    try:
        candidates: list[str] | None = list(expand_paths(args.paths, skipped))
        context_files = list(expand_paths(args.context or (), skipped))
    except DractlError:
        # a path that does not exist: no cache; _check reports it after the settings' errors
        candidates = None
    reads_stdin = "-" in args.paths or "-" in (args.context or [])
    stdin = read_stdin(args.max_file_size) if reads_stdin and candidates is not None else None
    cache = None
    if not args.no_cache and candidates is not None:
        command = {k: v for k, v in sorted(vars(args).items()) if k not in ("no_cache", "cache_dir")}
        command["color"] = _color(args)
        cache = open_cache(
            args.cache_dir or default_folder(config),
            command=command,
            files=candidates,
            context_files=context_files,
            config=config,
            stdin=stdin,
        )
    stored = cache.load() if cache is not None else None
    if stored is None and cache is not None:
        from dractl.cel.compile_store import activate
        from dractl.lint.cache import save_selectors, selector_store

        selectors = selector_store(cache)
        activate(selectors)
        try:
            stored = _check(args, config, candidates, stdin)
        finally:
            activate(None)
        save_selectors(selectors)
        cache.store(stored)
    elif stored is None:
        stored = _check(args, config, candidates, stdin)
    if args.output_file:
        _write_report(args.output_file, stored.report)
    else:
        sys.stdout.write(stored.report)
    for message in skipped:
        print(visible(f"dractl: warning: {message}"), file=sys.stderr)
    for line in stored.errors:
        print(visible(line), file=sys.stderr)
    return stored.exit_code


def visible(text: str) -> str:
    from dractl.report.escape import visible

    return visible(text)


def _color(args: argparse.Namespace) -> bool:
    return use_color(args.color, None if args.output_file is None else _A_FILE)


class _NotATerminal:
    """Where --output-file writes, for the colour decision: a file is no terminal."""

    def isatty(self) -> bool:
        return False


_A_FILE = _NotATerminal()


def _write_report(path: str, report: str) -> None:
    """All or nothing, as explain's: a failed write leaves an earlier report as it was."""
    from dractl.convert.writer import write_atomic

    write_atomic(path, report)


def _check(
    args: argparse.Namespace, config: str | None, candidates: list[str] | None, stdin: bytes | None
) -> StoredRun:
    """Lint the inputs: the report as it is to be printed, the lines for stderr, the exit code."""
    import io

    from dractl.lint.cache import StoredRun
    from dractl.lint.config import build_settings, load_config
    from dractl.lint.engine import lint as run_lint
    from dractl.lint.parallel import default_jobs, load_files
    from dractl.load import load_paths
    from dractl.load.sources import expand_paths, read_stdin
    from dractl.report import ReportContext, get_reporter
    from dractl.report.progress import Progress

    configuration = load_config(config, discover=False)
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
    if candidates is None:
        candidates = list(expand_paths(args.paths))
    files = [p for p in candidates if not configuration.excluded(p)]
    input_limits = limits(args.max_file_size)
    if stdin is None and ("-" in args.paths or "-" in (args.context or [])):
        stdin = read_stdin(input_limits.max_file_bytes)
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
    report = io.StringIO()
    get_reporter(args.format)(result, ReportContext(loaded, _color(args), args.quiet), report)
    errors = [
        f"dractl: error: {message}"
        for message in loaded.unreadable + (context_loaded.unreadable if context_loaded else [])
    ]
    if context_loaded is not None:
        # Context files are never reported on, but one that cannot be read must say why.
        for problem in context_loaded.diagnostics:
            if problem.rule in ("DRA001", "DRA002", "DRA005"):
                errors.append(f"dractl: error: --context {problem.position}: {problem.message}")
    if result.input_failed or loaded.unreadable or (context_loaded and context_loaded.failed):
        exit_code = 2
    elif result.summary["errors"] or (strict and result.summary["warnings"]):
        exit_code = 1
    else:
        exit_code = 0
    return StoredRun(report.getvalue(), errors, exit_code)
