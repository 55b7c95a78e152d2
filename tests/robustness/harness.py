"""Run dractl commands in-process on one input and classify what happened.

In-process (dractl.cli.testing on the real command line) is a hundred times faster than a new
interpreter per input, and it sees exceptions that ``dractl.cli.main`` would have turned into an
"internal error" line, so a crash is never mistaken for a clean exit.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from dractl.cli import COMMANDS
from dractl.cli.testing import invoke
from dractl.errors import DractlError

# The commands that read manifests, each with the arguments it needs before the input ("-").
FUZZED_COMMANDS: dict[str, list[str]] = {
    "lint": ["lint", "--color", "never"],
    "select": ["select", 'device.driver == "gpu.example.com"'],
    "convert": ["convert"],
    "explain": ["explain"],
}


def fuzzed_commands() -> list[list[str]]:
    """The fuzzed commands that this build of dractl has."""
    available = {name for name, _, _ in COMMANDS}
    return [args for name, args in FUZZED_COMMANDS.items() if name in available]


@dataclass
class Outcome:
    command: str
    exit_code: int
    cpu_seconds: float
    crash: str | None = None  # the traceback of an unexpected exception
    stdout: str | None = None
    stderr: str | None = None

    @property
    def ok(self) -> bool:
        return self.crash is None and self.exit_code in (0, 1, 2)


def run_in_process(args: list[str], text: str) -> Outcome:
    start = time.process_time()
    result = invoke([*args, "-"], input=text.encode("utf-8", "surrogatepass"))
    cpu = time.process_time() - start
    exc = result.exception
    if exc is None or isinstance(exc, SystemExit):
        return Outcome(args[0], result.exit_code, cpu, None, result.stdout, result.stderr)
    if isinstance(exc, DractlError):  # dractl.cli.main prints it on one line, exit code 2
        return Outcome(args[0], 2, cpu, None, result.stdout, result.stderr + f"dractl: error: {exc}\n")
    crash = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else repr(exc)
    return Outcome(args[0], result.exit_code, cpu, crash)


def warm_up(commands: list[list[str]], seeds: list[str]) -> None:
    """Run each command once on every seed: lazy imports, schema and CEL caches are one-time
    costs of a process, not of an input."""
    for args in commands:
        for seed in seeds:
            run_in_process(args, seed)
