"""The ``dractl`` command line: typer wiring only (options → library call → reporter → exit code)."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Annotated

import typer

from dractl import __version__
from dractl.errors import DractlError

app = typer.Typer(
    name="dractl",
    help="Lint, convert and explain Kubernetes Dynamic Resource Allocation (resource.k8s.io) manifests.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# (command name, module, function); each module imports heavy dependencies inside the function.
COMMANDS: list[tuple[str, str, str]] = [
    ("lint", "dractl.cli.lint", "lint"),
    ("select", "dractl.cli.select", "select"),
    ("schema", "dractl.cli.schema", "schema"),
    ("explain", "dractl.cli.explain", "explain"),
    ("convert", "dractl.cli.convert", "convert"),
    ("rules", "dractl.cli.rules", "rules"),
]


def _version(value: bool) -> None:
    if value:
        from dractl.api.releases import DEFAULT_RELEASE, RELEASES

        typer.echo(f"dractl {__version__}")
        typer.echo(f"Kubernetes releases: {', '.join(RELEASES)} (default {DEFAULT_RELEASE})")
        typer.echo(f"CEL engine: {_cel_engines()}")
        raise typer.Exit()


def _cel_engines() -> str:
    """The engine in use (and the other one, if installed) with their package versions."""
    from importlib.metadata import PackageNotFoundError, version

    from dractl.cel.engines import ENGINES, engine_available, resolve_engine_name

    def described(name: str) -> str:
        try:
            return f"{name} {version(name)}"
        except PackageNotFoundError:
            return name

    in_use = resolve_engine_name(None)
    others = [described(n) for n in ENGINES if n != in_use and engine_available(n)]
    return described(in_use) + (f" (also installed: {', '.join(others)})" if others else "")


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_version,
            is_eager=True,
            help="Print the version, the supported Kubernetes releases and the CEL engine.",
        ),
    ] = False,
) -> None:
    """Lint, convert and explain Kubernetes Dynamic Resource Allocation manifests."""


for _name, _module, _func in COMMANDS:
    _loaded = importlib.import_module(_module)
    app.command(_name, epilog=getattr(_loaded, "EPILOG", None))(getattr(_loaded, _func))


def main(prog_name: str = "dractl") -> None:
    # Reading manifests builds millions of small containers, almost none of them in cycles;
    # the collector's default threshold (700 allocations) makes it walk them over and over
    # (about 40% of the time to read 100,000 documents, 8% for 2,000; benchmarks/load.py).
    gc.set_threshold(100_000, 50, 100)
    try:
        app(prog_name=prog_name)
    except DractlError as exc:
        typer.echo(f"dractl: error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as exc:  # never a traceback for users; DRACTL_DEBUG=1 shows it
        if os.environ.get("DRACTL_DEBUG"):
            raise
        typer.echo(
            f"dractl: internal error: {type(exc).__name__}: {exc} "
            "(please report it; run with DRACTL_DEBUG=1 for details)",
            err=True,
        )
        sys.exit(2)


def kubectl_plugin() -> None:
    """``kubectl dra lint|convert|explain ...``: kubectl runs the ``kubectl-dra`` executable it
    finds on PATH as its ``dra`` subcommand, with the arguments that follow."""
    main("kubectl dra")
