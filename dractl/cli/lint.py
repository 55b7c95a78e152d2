"""``dractl lint``."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
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
    from dractl.lint.engine import DocumentConverter, LintResult
    from dractl.lint.fix import FixRun
    from dractl.load import Document, LoadResult

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
  dractl lint --diff examples/bad/yaml11-pitfalls-v1.yaml    # exit code 1: what --fix would change
  dractl lint --fix examples/bad/best-practice-v1.yaml       # writes the safe fixes, reports the rest

Exit codes: 0 no errors, 1 errors found (or warnings with --strict), 2 usage error or unreadable input.
With --fix, what is left after fixing decides; with --diff, 1 when there is a diff.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument(
        "-f",
        "--format",
        metavar="FORMAT",
        choices=list(FORMATS),
        default="text",
        help=f"Output format: {', '.join(FORMATS)}.",
    )
    parser.add_argument(
        "-o",
        "--output-file",
        metavar="FILE",
        help="Write the report to this file instead of stdout.",
    )
    add_kubernetes_version(parser, from_config=True)
    add_feature_gates(parser)
    parser.add_argument(
        "--select",
        metavar="RULE",
        action="append",
        help="Only these rules (IDs or prefixes, e.g. DRA1). Repeatable.",
    )
    parser.add_argument(
        "--ignore",
        metavar="RULE",
        action="append",
        help="Skip these rules (IDs or prefixes). Repeatable.",
    )
    parser.add_argument(
        "--strict", action=argparse.BooleanOptionalAction, help="Exit 1 on warnings too."
    )
    parser.add_argument(
        "--context",
        metavar="PATH",
        action="append",
        help="Files read for reference (e.g. a cluster dump) but not reported on. Repeatable.",
    )
    parser.add_argument(
        "--require-classes",
        action="store_true",
        default=None,
        help="Report requests whose DeviceClass is not among the inputs.",
    )
    add_cel_engine(parser)
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="Print only errors and the summary line."
    )
    add_color(parser)
    add_max_file_size(parser)
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="Read this configuration file instead of looking for .dractl.yaml or "
        "[tool.dractl] in pyproject.toml from the current folder upwards.",
    )
    parser.add_argument("--no-config", action="store_true", help="Ignore configuration files.")
    parser.add_argument(
        "--fix",
        action="store_true",
        help="Apply the safe fixes (the rules' documentation says which rules have one), write "
        "the files atomically and report what is left. With -, print the fixed text (the report "
        "goes to stderr).",
    )
    parser.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="Also apply (and mark) the fixes that change what the cluster grants or selects.",
    )
    parser.add_argument(
        "--diff",
        action="store_true",
        help="Print what --fix would change as a unified diff and write nothing (exit 1 when "
        "there is a diff).",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=positive_int,
        help="Processes for many files (default: one per CPU; used only when it pays).",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        default=env_flag("DRACTL_NO_CACHE"),
        help="Check again even if the inputs, settings and dractl are those of an earlier run. "
        "[env: DRACTL_NO_CACHE]",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=os.environ.get("DRACTL_CACHE_DIR"),
        help="Keep the reports of earlier runs here (default: .dractl_cache beside the "
        "configuration file, else in the current folder). [env: DRACTL_CACHE_DIR]",
    )


def run(args: argparse.Namespace) -> int:
    from dractl.errors import DractlError
    from dractl.lint.cache import default_folder, open_cache
    from dractl.lint.config import config_path
    from dractl.load.sources import expand_paths, read_stdin

    fixing = args.fix or args.diff
    if fixing and "-" in args.paths and len(args.paths) > 1 and not args.diff:
        from dractl.errors import UsageError

        raise UsageError(
            "--fix with - prints the fixed standard input: name no other paths (or use --diff)"
        )
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
    if fixing:
        # Fixes write files (or print them): never answered from the cache, never stored in it.
        return _fix(args, config, candidates, stdin, skipped)
    cache = None
    if not args.no_cache and candidates is not None:
        command = {
            k: v for k, v in sorted(vars(args).items()) if k not in ("no_cache", "cache_dir")
        }
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
        print(visible_message(f"dractl: warning: {message}"), file=sys.stderr)
    for line in stored.errors:
        print(visible_message(line), file=sys.stderr)
    return stored.exit_code


def visible(text: str) -> str:
    from dractl.report.escape import visible

    return visible(text)


def visible_message(text: str) -> str:
    """A message for stderr: escapes, and a newline only where a CEL error's excerpt starts."""
    from dractl.report.escape import visible_message

    return visible_message(text)


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


class _Checked:
    """A lint run before it is reported: what was read, the settings, how to lint it again."""

    def __init__(
        self,
        loaded: LoadResult,
        context: LoadResult | None,
        result: LintResult,
        strict: bool,
        lint_again: Callable[[LoadResult], LintResult],
    ) -> None:
        self.loaded = loaded
        self.context = context
        self.result = result
        self.strict = strict
        self.lint_again = lint_again  # LoadResult -> LintResult, with the run's settings


def _lint(
    args: argparse.Namespace,
    config: str | None,
    candidates: list[str] | None,
    stdin: bytes | None,
    converter: DocumentConverter | None = None,
) -> _Checked:
    from dractl.lint.config import build_settings, load_config
    from dractl.lint.engine import lint as run_lint
    from dractl.lint.parallel import default_jobs, load_files
    from dractl.load import load_paths
    from dractl.load.sources import expand_paths, read_stdin
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

    def lint_again(loaded: LoadResult) -> LintResult:
        return run_lint(loaded, settings, context_loaded, jobs=jobs, converter=converter)

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
        result = lint_again(loaded)
    finally:
        progress.done()
    return _Checked(loaded, context_loaded, result, strict, lint_again)


def _check(
    args: argparse.Namespace, config: str | None, candidates: list[str] | None, stdin: bytes | None
) -> StoredRun:
    """Lint the inputs: the report as it is to be printed, the lines for stderr, the exit code."""
    from dractl.lint.cache import StoredRun

    checked = _lint(args, config, candidates, stdin)
    checked.result.unsafe_fixes = args.unsafe_fixes
    report = _report(args, checked.loaded, checked.result)
    errors = _input_errors(checked.loaded, checked.context)
    return StoredRun(report, errors, _exit_code(checked, checked.result))


def _report(args: argparse.Namespace, loaded: LoadResult, result: LintResult) -> str:
    import io

    from dractl.report import ReportContext, get_reporter

    report = io.StringIO()
    get_reporter(args.format)(result, ReportContext(loaded, _color(args), args.quiet), report)
    return report.getvalue()


def _input_errors(loaded: LoadResult, context_loaded: LoadResult | None) -> list[str]:
    errors = [
        f"dractl: error: {message}"
        for message in loaded.unreadable + (context_loaded.unreadable if context_loaded else [])
    ]
    if context_loaded is not None:
        # Context files are never reported on, but one that cannot be read must say why.
        for problem in context_loaded.diagnostics:
            if problem.rule in ("DRA001", "DRA002", "DRA005"):
                errors.append(f"dractl: error: --context {problem.position}: {problem.message}")
    return errors


def _exit_code(checked: _Checked, result: LintResult) -> int:
    context_loaded = checked.context
    if (
        result.input_failed
        or checked.loaded.unreadable
        or (context_loaded and context_loaded.failed)
    ):
        return 2
    if result.summary["errors"] or (checked.strict and result.summary["warnings"]):
        return 1
    return 0


# --- --fix and --diff ------------------------------------------------------------------------------


def _fix(
    args: argparse.Namespace,
    config: str | None,
    candidates: list[str] | None,
    stdin: bytes | None,
    skipped: list[str],
) -> int:
    """``--fix``: write the fixed files (standard input: print its fixed text) and report what is
    left; ``--diff``: print what would change, write nothing, report nothing."""
    from dractl.lint.fix import fix_run

    checked = _lint(args, config, candidates, stdin, converter=_to_v1)
    run = fix_run(
        checked.loaded,
        checked.result,
        checked.lint_again,
        unsafe=args.unsafe_fixes,
        limits=limits(args.max_file_size),
    )
    for message in skipped:
        print(visible_message(f"dractl: warning: {message}"), file=sys.stderr)
    errors = _input_errors(checked.loaded, checked.context)
    if not run.converged:
        errors.append(
            f"dractl: warning: fixes were still left after {len(run.fixed)} were applied; "
            "they are reported below (please report this)"
        )
    if args.diff:
        return _show_diff(checked, run, errors)
    failed = _write_fixes(run, errors)
    result = run.result
    result.unsafe_fixes = args.unsafe_fixes
    written = {f.path for f in run.files} - failed
    result.fixed = sum(
        1 for d in run.fixed if d.position is not None and d.position.file in written
    )
    result.fixed_files = len(written)
    report = _report(args, run.loaded, result)
    stdin_fixed = "-" in args.paths
    for source in run.loaded.files if stdin_fixed else ():
        if source.real_path is None:  # standard input: printed, fixed or not, as a filter does
            sys.stdout.write(("\ufeff" if source.bom else "") + source.text)
    if args.output_file:
        _write_report(args.output_file, report)
    else:
        (sys.stderr if stdin_fixed else sys.stdout).write(report)
    for line in errors:
        print(visible_message(line), file=sys.stderr)
    return 2 if failed else _exit_code(checked, result)


def _write_fixes(run: FixRun, errors: list[str]) -> set[str]:
    """Write each fixed file atomically, unless it changed on disk since it was read; the paths
    of those that could not be written (the others are written all the same)."""
    from dractl.convert.writer import write_atomic
    from dractl.errors import InputError

    failed = set()
    for fixed in run.files:
        if fixed.real_path is None:
            continue  # standard input: printed
        try:
            write_atomic(fixed.real_path, fixed.text, expected_original=fixed.original)
        except InputError as error:
            errors.append(f"dractl: error: {error}")
            failed.add(fixed.path)
    return failed


def _show_diff(checked: _Checked, run: FixRun, errors: list[str]) -> int:
    """As ruff's --diff: the diff on stdout, how many findings it fixes on stderr; exit 1 when
    there is a diff."""
    from dractl.convert.output import unified_diff

    for fixed in run.files:
        sys.stdout.write(visible(unified_diff(fixed.path, fixed.original, fixed.text)))
    files = len(run.files)
    if run.fixed:
        count = len(run.fixed)
        noun = "finding" if count == 1 else "findings"
        errors.insert(0, f"Would fix {count} {noun} in {files} file{'s' if files != 1 else ''}.")
    else:
        errors.insert(0, "No fixes to apply.")
    for line in errors:
        print(visible_message(line), file=sys.stderr)
    if checked.result.input_failed or checked.loaded.unreadable:
        return 2
    return 1 if files else 0


def _to_v1(document: Document) -> str | None:
    from dractl.convert.engine import convert_document  # convert's machinery only when fixing

    return convert_document(document)
