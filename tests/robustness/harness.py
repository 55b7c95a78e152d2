"""Run dractl commands in-process on one input and classify what happened.

In-process (dractl.cli.testing on the real command line) is a hundred times faster than a new
interpreter per input, and it sees exceptions that ``dractl.cli.main`` would have turned into an
"internal error" line, so a crash is never mistaken for a clean exit.

:func:`unplaced` holds every message to the rule of issue 25: a message about the input names
the file and the place in it.
"""

from __future__ import annotations

import re
import time
import traceback
from dataclasses import dataclass

from dractl.cli import COMMANDS
from dractl.cli.testing import invoke
from dractl.errors import DractlError
from dractl.report.escape import visible

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
    wall_seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.crash is None and self.exit_code in (0, 1, 2)


def run_in_process(args: list[str], text: str | bytes, *, path: str = "-") -> Outcome:
    """``dractl ARGS PATH`` with ``text`` on stdin (bytes as they are: an input need not be
    UTF-8; text is written as UTF-8, lone surrogates as they are)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    start, wall = time.process_time(), time.monotonic()
    result = invoke([*args, path], input=data)
    cpu, wall = time.process_time() - start, time.monotonic() - wall
    exc = result.exception
    if exc is None or isinstance(exc, SystemExit):
        return Outcome(args[0], result.exit_code, cpu, None, result.stdout, result.stderr, wall)
    if isinstance(exc, DractlError):  # dractl.cli.main prints it on one line, exit code 2
        stderr = result.stderr + visible(f"dractl: error: {exc}", one_line=True) + "\n"
        return Outcome(args[0], 2, cpu, None, result.stdout, stderr, wall)
    crash = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else repr(exc)
    return Outcome(args[0], result.exit_code, cpu, crash, result.stdout, result.stderr, wall)


def warm_up(commands: list[list[str]], seeds: list[str]) -> None:
    """Run each command once on every seed: lazy imports, schema and CEL caches are one-time
    costs of a process, not of an input."""
    for args in commands:
        for seed in seeds:
            run_in_process(args, seed)


# -- every message names a file and a place --------------------------------------------------

# FILE:LINE:COLUMN, the form of every diagnostic (Position.__str__); <stdin> for standard input.
_PLACE = r"(?P<file>\S.*?):(?P<line>-?\d+):(?P<column>-?\d+)"
# stderr: "dractl: error: FILE:L:C: ...", "dractl: FILE:L:C: ..." (select), "FILE:L:C: lossy: ..."
# (convert's notes), "dractl: error: expression:1:C: ..." (select's own argument).
_PLACED_LINE = re.compile(rf"^(?:dractl: (?:error: |warning: )?)?{_PLACE}: ")
# The loader's form for bytes that are not UTF-8: the byte's offset, its line and its byte in the
# line (a column in characters means nothing where the characters cannot be read).
_NOT_UTF8 = re.compile(
    r"^dractl: error: \S.*: byte \d+ is not valid UTF-8 \(line [1-9]\d*, byte [1-9]\d* of the line"
)
# Lines that are about no place in an input, and rightly so:
_PLACELESS = [
    # conclusions about the inputs as a whole (explain has nothing to work on)
    re.compile(r"^dractl: error: nothing to explain: "),
    re.compile(r"^dractl: error: no nodes in the input"),
    # convert's progress, not a message about the input
    re.compile(r"^(?:converted|would convert) \S"),
    # about a whole file, before or instead of reading it (folders with FIFOs, output targets)
    re.compile(r"^dractl: warning: \S.*: an? [A-Za-z -]+, not a regular file; skipped$"),
    re.compile(
        r"^dractl: error: \S.*: (?:not written: |not a regular file; not written"
        r"|larger than the limit of \d+ bytes)"
    ),
    re.compile(r"^dractl: error: cannot write the output: "),
]
# Inside a message: a CEL error has one line per problem, as cel-go (and so the apiserver) writes
# them, with the place in the expression (-1:-1 where cel-go has none: "<<nil>> parsetree").
_CEL_LINE = re.compile(r"^ERROR: <input>:-?\d+:-?\d+: ")
_HEADER = re.compile(rf"^{_PLACE}: (?:error|warning|info) DRA\d{{3}} ")
_SUMMARY = re.compile(
    r"^\d+ errors?, \d+ warnings?(?:, \d+ infos?)? \(\d+ objects? in \d+ files?\)$"
)
# after the summary, what --fix did and would do (as ruff says it)
_TRAILER = re.compile(
    r"^(?:Fixed \d+ findings? in \d+ files?\.|\[\*\] \d+ fixable with the |No fixes available \()"
)


def _placed(match: re.Match[str] | None) -> bool:
    return match is not None and int(match["line"]) >= 1 and int(match["column"]) >= 1


def unplaced(outcome: Outcome) -> list[str]:
    """The messages of ``outcome`` that name no file and place (``FILE:LINE:COLUMN``).

    Every stderr line starts a message (a line of its own: one that starts with a space or
    ``|`` continues the one before, as a CEL error's excerpt does); lint's text report is read
    block by block: a diagnostic's header, its message's further lines, its code frame, a blank
    line; then the summary and what ``--fix`` would do. The exceptions are in ``_PLACELESS``.
    """
    found: list[str] = []
    for line in (outcome.stderr or "").splitlines():
        if not line.strip() or line[0] in " \t|" or _CEL_LINE.match(line):
            continue
        if _placed(_PLACED_LINE.match(line)) or _NOT_UTF8.match(line):
            continue
        if not any(pattern.match(line) for pattern in _PLACELESS):
            found.append(line)
    if outcome.command == "lint" and outcome.stdout:
        header = True  # the next non-blank line starts a diagnostic
        trailer = False  # past the summary line
        for line in outcome.stdout.splitlines():
            if not line.strip():
                header = True
            elif trailer:
                if not _TRAILER.match(line):
                    found.append(line)
            elif header:
                header = False
                if _SUMMARY.match(line):
                    trailer = True
                elif not _placed(_HEADER.match(line)):
                    found.append(line)
            elif (
                line[0] not in " \t|"
                and not line.split(" ", 1)[0].isdigit()
                and not _CEL_LINE.match(line)
            ):
                found.append(line)  # another message inside this one, without a place of its own
    return found


# C0 controls but tab and newline, DEL, C1 controls: what dractl writes as escapes (\x1b) so that
# text from the inputs never drives the terminal (issue 25, family 9)
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def raw_controls(outcome: Outcome) -> list[str]:
    """The lines of ``outcome`` that hold a raw control character: every stderr line, and
    stdout but convert's (which is the manifest itself, as it was written)."""
    streams = [outcome.stderr or ""]
    if outcome.command != "convert":
        streams.append(outcome.stdout or "")
    return [line for text in streams for line in text.splitlines() if _RAW_CONTROL.search(line)]


def shape(line: str) -> str:
    """A message with its numbers, quoted values and file names blurred: one kind of message."""
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line)
    line = re.sub(r"(?<![\w.])/\S*/", "…/", line)  # the folder of a file
    line = re.sub(r"\d+", "N", line)
    return line[:100]
