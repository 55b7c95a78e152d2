"""``dractl server``."""

from __future__ import annotations

import argparse

from dractl.cli.options import add_max_file_size, limits

DESCRIPTION = """\
Run a Language Server on stdin and stdout: lint's diagnostics as you type, hover, completion, quick fixes and conversion to v1 in an editor.

An editor starts it (see docs/editors.md for Neovim, Helix, Emacs and VS Code) and configures it
with initializationOptions or workspace/didChangeConfiguration: kubernetesVersion, featureGates,
celEngine and configFile, as dractl lint's options. Each workspace folder is read as
'dractl lint FOLDER' reads it, its configuration file included (the innermost folder holds a
file); files outside every folder and untitled buffers are checked alone. Unsaved buffers count
as the files' content.
"""

EPILOG = """
Examples:
  dractl server < /dev/null    # what an editor runs; without a client it ends at the end of input

Exit codes: 0 the client said shutdown and exit (or closed the input), 1 exit without shutdown.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    add_max_file_size(parser)


def run(args: argparse.Namespace) -> int:
    from dractl.server.server import serve

    return serve(limits(args.max_file_size))
