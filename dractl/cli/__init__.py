"""The ``dractl`` command line: argument parsing only (options → library call → reporter → exit code).

The command table is lazy: ``dractl --help`` reads the summaries below, and a command's module
(its options, then the library it calls) is imported only when that command runs or shows its
help. argparse (the standard library's) parses: it costs a few milliseconds where typer cost
tens, a third of a lint of one small file.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from dractl import __version__
from dractl.errors import DractlError

if TYPE_CHECKING:
    from types import ModuleType

    from dractl.cli.parser import CommandParser

# (command name, module, summary). Each module has DESCRIPTION (its first line is the summary
# here; a test keeps them equal), EPILOG, arguments(parser) and run(args) -> exit code.
COMMANDS: list[tuple[str, str, str]] = [
    ("lint", "dractl.cli.lint",
     "Check manifests for everything the apiserver would reject, CEL errors and likely mistakes."),
    ("select", "dractl.cli.select",
     "Evaluate a device selector on every device of the given ResourceSlices, as the scheduler does."),
    ("schema", "dractl.cli.schema",
     "Write the JSON Schemas of DeviceClass, ResourceClaim, ResourceClaimTemplate and ResourceSlice."),
    ("explain", "dractl.cli.explain",
     "Run the scheduler's allocator over the inputs: which devices each node would give the claims, and why not others."),
    ("convert", "dractl.cli.convert",
     "Convert resource.k8s.io manifests between v1beta1, v1beta2 and v1, keeping comments and layout."),
    ("rules", "dractl.cli.rules",
     "List the lint rules, or print the documentation of one rule."),
    ("server", "dractl.cli.server",
     "Run a Language Server on stdin and stdout: lint's diagnostics as you type, hover, completion, quick fixes and conversion to v1 in an editor."),
]
SHELLS = ("bash", "zsh", "fish", "powershell")

ROOT_DESCRIPTION = """\
Lint, convert and explain Kubernetes Dynamic Resource Allocation (resource.k8s.io) manifests.

Commands:
{commands}"""

ROOT_EPILOG = """
Examples:
  dractl lint examples/good/
  dractl explain examples/explain/gpu-pod/
  dractl rules DRA2

Run 'dractl COMMAND --help' for the options of a command.
"""


def command_module(name: str) -> ModuleType:
    for command, module, _ in COMMANDS:
        if command == name:
            return importlib.import_module(module)
    raise KeyError(name)


def command_parser(name: str, prog: str = "dractl") -> CommandParser:
    """The parser of one command, with its options, description and examples."""
    from dractl.cli.parser import CommandParser

    return module_arguments(name, CommandParser(f"{prog} {name}"))


def module_arguments(name: str, parser: CommandParser) -> CommandParser:
    module = command_module(name)
    parser.description, parser.epilog = module.DESCRIPTION, module.EPILOG
    module.arguments(parser)
    return parser


def root_parser(prog: str = "dractl", *, commands: bool = False) -> CommandParser:
    """``commands``: with every command as a subparser (for completion, which needs the tree)."""
    import textwrap

    from dractl.cli.parser import CommandParser, help_width

    indent = " " * (max(len(name) for name, _, _ in COMMANDS) + 4)
    table = "\n".join(
        textwrap.fill(f"  {name:<{len(indent) - 2}}{summary}", help_width(), subsequent_indent=indent)
        for name, _, summary in COMMANDS
    )
    parser = CommandParser(
        prog,
        usage="%(prog)s [OPTIONS] COMMAND [ARGS]...",
        description=ROOT_DESCRIPTION.format(commands=table),
        epilog=ROOT_EPILOG,
    )
    parser.add_argument(
        "-V", "--version", action=_VersionAction, nargs=0,
        help="Print the version, the supported Kubernetes releases and the CEL engine.",
    )
    for option, what in (("--show-completion", "Print"), ("--install-completion", "Install")):
        parser.add_argument(
            option, metavar="SHELL", nargs="?", const="", choices=("", *SHELLS),
            help=f"{what} shell completion for {', '.join(SHELLS)} (default: the login shell).",
        )
    if not commands:
        parser.add_argument("command", nargs="?", metavar="COMMAND", help=argparse.SUPPRESS)
        return parser
    subparsers = parser.add_subparsers(dest="command", parser_class=CommandParser)
    for name, _, summary in COMMANDS:
        module_arguments(name, subparsers.add_parser(name, help=summary))
    return parser


class _VersionAction(argparse.Action):
    def __call__(self, *args: object, **kwargs: object) -> None:
        from dractl.api.releases import DEFAULT_RELEASE, RELEASES

        print(f"dractl {__version__}")
        print(f"Kubernetes releases: {', '.join(RELEASES)} (default {DEFAULT_RELEASE})")
        print(f"CEL engine: {_cel_engines()}")
        sys.exit(0)


def _cel_engines() -> str:
    """The engine in use (and the other one, if installed) with their package versions."""
    from importlib.metadata import PackageNotFoundError, version

    from dractl.cel.engines import ENGINES, MODULE_PACKAGES, resolve_engine_name

    def installed(name: str) -> str | None:
        # the distribution's version: importing cel-python itself would take longer than the rest
        try:
            return version(MODULE_PACKAGES[name])
        except PackageNotFoundError:
            return None

    versions = {name: installed(name) for name in ENGINES}
    in_use = resolve_engine_name(None)
    described = {name: f"{name} {v}" if v else name for name, v in versions.items()}
    others = [described[n] for n in ENGINES if n != in_use and versions[n]]
    return described[in_use] + (f" (also installed: {', '.join(others)})" if others else "")


def run(argv: Sequence[str], prog: str = "dractl") -> int:
    """Parse ``argv`` (without the program name) and run the command; return its exit code.

    Exceptions other than ``SystemExit`` (usage errors, help) propagate: ``main`` turns them
    into one line for the user, tests see them as they are.
    """
    argv = list(argv)
    if "_ARGCOMPLETE" in os.environ:
        from dractl.cli.completion import complete

        complete()
    if not argv or argv[0].startswith("-"):
        parser = root_parser(prog)
        if not argv:
            sys.stdout.write(parser.format_help())
            return 0
        options, rest = parser.parse_known_args(argv)
        if options.show_completion is not None or options.install_completion is not None:
            from dractl.cli.completion import install, script

            if options.show_completion is not None:
                sys.stdout.write(script(options.show_completion))
            else:
                install(options.install_completion)
            return 0
        if rest or options.command is None:
            parser.error(f"unknown option {(rest or argv)[0]!r}; options go after the command")
        argv = [options.command, *rest]
    name, rest = argv[0], argv[1:]
    if name not in {command for command, _, _ in COMMANDS}:
        import difflib

        close = difflib.get_close_matches(name, [command for command, _, _ in COMMANDS], n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        root_parser(prog).error(f"unknown command {name!r}{hint}")
    args = command_parser(name, prog).parse_intermixed_args(rest)
    return command_module(name).run(args) or 0


def main(prog_name: str = "dractl", argv: Sequence[str] | None = None) -> None:
    # Reading manifests builds millions of small containers, almost none of them in cycles;
    # the collector's default threshold (700 allocations) makes it walk them over and over
    # (about 40% of the time to read 100,000 documents, 8% for 2,000; benchmarks/load.py).
    gc.set_threshold(100_000, 50, 100)
    _tolerant_streams()
    try:
        code = run(sys.argv[1:] if argv is None else argv, prog_name)
        sys.stdout.flush()  # a full disk shows here, not after main, where it can still be said
        sys.exit(code)
    except DractlError as exc:
        _say(f"dractl: error: {exc}")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # The reader went away (`dractl lint | head`): nothing to say, and nothing more to write.
        _discard_stdout()
        sys.exit(2)
    except OSError as exc:
        if exc.errno is None or not _is_stdout_error(exc):
            if os.environ.get("DRACTL_DEBUG"):
                raise
            _say(_internal(exc))
            sys.exit(2)
        _discard_stdout()
        _say(f"dractl: error: cannot write the output: {exc.strerror or exc}")
        sys.exit(2)
    except Exception as exc:  # never a traceback for users; DRACTL_DEBUG=1 shows it
        if os.environ.get("DRACTL_DEBUG"):
            raise
        _say(_internal(exc))
        sys.exit(2)


def _internal(exc: BaseException) -> str:
    return (
        f"dractl: internal error: {type(exc).__name__}: {exc} "
        "(please report it; run with DRACTL_DEBUG=1 for details)"
    )


class _Closed(io.TextIOBase):
    """A standard stream the caller closed (``>&-``; Python then has None): writing to it is an
    error to report (stdout), or nothing (stderr), instead of an AttributeError."""

    def __init__(self, fail: bool) -> None:
        self.fail = fail

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.fail and text:
            raise OSError(errno.EBADF, "standard output is closed")
        return len(text)


def _tolerant_streams() -> None:
    """Text that the terminal's encoding cannot hold (a lone surrogate from a JSON string, any
    non-ASCII with PYTHONIOENCODING=ascii) is written as a visible escape, not a crash."""
    if sys.stdout is None:
        sys.stdout = _Closed(fail=True)
    if sys.stderr is None:
        sys.stderr = _Closed(fail=False)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(errors="backslashreplace")


def _is_stdout_error(exc: OSError) -> bool:
    """Whether writing the output failed (ENOSPC, EIO, EPIPE on stdout), as opposed to some
    other OSError: those raised while writing a stream carry no file name."""
    return exc.filename is None and exc.errno in (errno.ENOSPC, errno.EIO, errno.EPIPE, errno.EDQUOT,
                                                   errno.EFBIG, errno.EBADF, errno.EROFS)


def _discard_stdout() -> None:
    """Point stdout at /dev/null so that the flush at exit does not fail a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _say(line: str) -> None:
    """One line on stderr, its control characters visible (a newline too: an error is one line,
    whatever the names from the input hold); stderr itself may be gone."""
    from dractl.report.escape import visible

    with contextlib.suppress(OSError, ValueError):
        print(visible(line, one_line=True), file=sys.stderr)


def entry_point(prog_name: str = "dractl") -> NoReturn:
    """The ``dractl`` executable (and ``python -m dractl``): :func:`main`, then the process ends
    without the interpreter's teardown.

    Freeing every module and object at exit (cel-cpp's and protobuf's among them) costs about
    15 ms, an eighth of a lint of one small file, and nothing of dractl needs it: the standard
    streams are flushed and the atexit functions run as at a normal exit. ``main`` itself raises
    SystemExit, for callers in the same process.
    """
    try:
        main(prog_name)
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:  # sys.exit("message"), as the interpreter does it
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # the interpreter's status when it cannot flush at exit
    import atexit

    atexit._run_exitfuncs()
    os._exit(status)


def kubectl_plugin() -> NoReturn:
    """``kubectl dra lint|convert|explain ...``: kubectl runs the ``kubectl-dra`` executable it
    finds on PATH as its ``dra`` subcommand, with the arguments that follow."""
    entry_point("kubectl dra")
