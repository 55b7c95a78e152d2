"""A long fuzzing campaign: random mutations of the example manifests through every subcommand
that reads manifests, in-process, in worker processes that a supervisor watches. Prints how many
inputs and command runs there were, the failures by kind, the slowest inputs and the time taken.

    python benchmarks/fuzz.py [--seconds 300] [--seed 1] [--save /tmp/failures]
    # issue 25's campaign: 100,000 inputs in two processes
    nice -n 10 python benchmarks/fuzz.py --inputs 100000 --jobs 2 --save /tmp/fuzz-failures
    # one input again, every command's output shown (seed and index from a failure)
    python benchmarks/fuzz.py --seed 1 --only 4711
    # explain on whole inputs (nodes, slices, classes and pods together), so the allocator runs:
    python benchmarks/fuzz.py --command explain --seeds-with "kind: Node" --seeds-with "kind: Pod"
    # only the hostile families (issue 25): encodings, numbers at limits, control characters,
    # CEL selectors that grow at run time, rule selection over broken files, FIFOs and devices
    python benchmarks/fuzz.py --hostile-only

Input N of a campaign comes from its own random generator, seeded with "SEED:N", so it is the
same whatever --jobs, --seconds or --inputs say; process J of --jobs K takes inputs J, J+K, ...

A failure is one of these kinds:

- crash: an exception dractl.cli.main would print as "internal error ... please report it";
- exit code: other than 0, 1 or 2;
- slow: more than --cpu-limit seconds of CPU per 64 KB of input started (the round-trip YAML
  parser alone reads about 60 KB per CPU second);
- hang: no answer after --hang-seconds (10) of wall time per MB of input started; a run that
  has not answered at 1.5 times that is killed (the supervisor writes the worker's stack to the
  failure and starts a new worker at the next input);
- died: the worker ended (a signal, an abort in a C library, the memory limit);
- unplaced message: a line on stderr, or a diagnostic of lint's text report, that names no
  FILE:LINE:COLUMN (see tests/robustness/harness.py for the form and the few exceptions:
  conclusions about the whole input, progress lines, messages about a whole file);
- silent: lint passes (exit code 0 or 1) a manifest whose text holds NUL characters (UTF-16
  without its byte-order mark, UTF-32): as if it held no Kubernetes object (a document told as
  an unrendered template, DRA003, is not checked and says so: no failure);
- raw control character: a line of stderr, or of stdout but convert's, holds a C0 or C1 control
  (tab and newline aside) that dractl should have written as an escape (issue 25, family 9);
- malformed report: lint's report in a format drawn for the input (json, sarif, github, junit)
  is not what its readers read (JSON, XML, one workflow command a line without raw controls);
- selection: an input that plain lint cannot read (exit code 2) must give exit code 2 and a
  DRA00x finding under a selection drawn for the input (--select DRA1, --ignore DRA0,
  --select DRA9, --ignore DRA001; issue 25, family 8);
- files: every --files-every inputs, the input is written (under a name that is sometimes full
  of control characters) into a folder beside a FIFO, a socket and symlinks to /dev/zero and
  /dev/null; each command runs on the folder (the odd files must be told as skipped) and, but
  `convert -w`, must leave it as it was (content, inode, mtime, links), and lint writes its
  report to /dev/null, /dev/full and a FIFO, which must stay what they were.

Besides tests/robustness/mutations.py's MUTATIONS, HOSTILE_MUTATIONS (unless --no-hostile) are
drawn as often as a third of them (cel_memory half as often), and every --cel-every inputs
`select` also evaluates one of its CEL_MEMORY_SELECTORS on the input. Workers run with an address-space limit (--memory-mb
above what they hold when they start), so that a selector that grows without bound fails in its
worker instead of taking the machine's memory.

With --save, every failing input is written to the folder as SEED-INDEX.yaml (its bytes as they
were given to dractl) and each failure is a line of failures.txt.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import importlib.util
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 64 * 1024  # the CPU limit is per 64 KB of input started
MB = 1024 * 1024  # the hang limit is per MB of input started
sys.path.insert(0, str(ROOT))

SELECTIONS = (
    ("--select", "DRA1"),
    ("--ignore", "DRA0"),
    ("--select", "DRA9"),
    ("--ignore", "DRA001"),
)
FUZZED_LINT = ["lint", "--color", "never"]  # as tests/robustness/harness.py runs it
INPUT_ERRORS = ("DRA001", "DRA002", "DRA005")


def _load(name: str) -> ModuleType:
    path = ROOT / "tests" / "robustness" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"dractl_robustness_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, help="wall-clock budget (default: 300, or none with --inputs)"
    )
    parser.add_argument("--inputs", type=int, help="stop after this many inputs")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only",
        type=int,
        action="append",
        metavar="INDEX",
        help="run only this input (repeatable), here, showing every output",
    )
    parser.add_argument(
        "--cpu-limit", type=float, default=1.0, help="seconds of CPU per input (per 64 KB started)"
    )
    parser.add_argument(
        "--hang-seconds",
        type=float,
        default=10.0,
        help="wall-clock seconds per run (per MB of input started)",
    )
    parser.add_argument(
        "--memory-mb",
        type=int,
        default=1536,
        help="address space a worker may add to what it holds at its start",
    )
    parser.add_argument("--save", type=Path, help="write failing inputs to this folder")
    parser.add_argument(
        "--command", action="append", help="only this subcommand (repeatable; default: all)"
    )
    parser.add_argument(
        "--seeds-with",
        metavar="TEXT",
        action="append",
        default=[],
        help="only seed manifests containing TEXT (repeatable: all of them)",
    )
    parser.add_argument("--no-hostile", action="store_true", help="the ordinary mutations only")
    parser.add_argument("--hostile-only", action="store_true", help="the hostile families only")
    parser.add_argument(
        "--files-every",
        type=int,
        default=10,
        metavar="N",
        help="run on a folder with a FIFO and devices every N inputs (0: never)",
    )
    parser.add_argument(
        "--cel-every",
        type=int,
        default=10,
        metavar="N",
        help="select a growing CEL selector every N inputs (0: never)",
    )
    args = parser.parse_args()
    if args.seconds is None:
        args.seconds = float("inf") if args.inputs is not None else 300.0
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


class Campaign:
    """What every process of a campaign shares: the seeds, the commands, the mutations, and how
    input N is made and checked."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.mutations = _load("mutations")
        self.harness = _load("harness")
        self.seeds = [s for s in self.mutations.seeds() if all(t in s for t in args.seeds_with)]
        self.commands = [
            c for c in self.harness.fuzzed_commands() if not args.command or c[0] in args.command
        ]
        pool = list(self.mutations.MUTATIONS)
        if args.hostile_only:
            pool = list(self.mutations.HOSTILE_MUTATIONS)
        elif not args.no_hostile:
            # as often as a third of the ordinary ones; the CEL selectors half as often, since an
            # evaluation that is not bounded spends seconds on each (memory, then MemoryError)
            for mutation in self.mutations.HOSTILE_MUTATIONS:
                pool += [mutation] * (1 if mutation is self.mutations.cel_memory else 2)
        self.pool: list[Callable[..., str | bytes]] = pool
        self.hostile = not args.no_hostile
        self.lints = "lint" in [c[0] for c in self.commands]
        self.selects = "select" in [c[0] for c in self.commands]

    def generate(self, index: int) -> tuple[str | bytes, random.Random]:
        """Input ``index`` and its generator (for the choices its checks make)."""
        rng = random.Random(f"{self.args.seed}:{index}")
        return self.mutations.mutate(rng.choice(self.seeds), rng, mutations=self.pool), rng

    def hang_limit(self, size: int) -> float:
        return self.args.hang_seconds * max(1, -(-size // MB))


class Beat:
    """Where each worker is, in memory shared with the supervisor: its input, its run's label,
    when the run started (0: between runs) and the run's time limit."""

    FIELDS = 4
    LABEL = 80  # bytes of a run's label

    def __init__(self, jobs: int) -> None:
        context = multiprocessing.get_context("fork")
        self.array = context.RawArray("d", jobs * self.FIELDS)
        self.labels = context.RawArray("c", jobs * self.LABEL)

    def enter(self, job: int, index: int) -> None:
        """Input ``index`` is being made or checked (a worker that dies is restarted past it)."""
        base = job * self.FIELDS
        self.array[base], self.array[base + 2] = index, 0.0

    def start(self, job: int, label: str, limit: float) -> None:
        base = job * self.FIELDS
        raw = label.encode("utf-8", "replace")[: self.LABEL].ljust(self.LABEL, b"\0")
        self.labels[job * self.LABEL : (job + 1) * self.LABEL] = raw
        self.array[base + 3] = limit
        self.array[base + 2] = time.monotonic()

    def stop(self, job: int) -> None:
        self.array[job * self.FIELDS + 2] = 0.0

    def read(self, job: int) -> tuple[int, str, float, float]:
        """The input, the run (empty between runs), its start and its limit."""
        base = job * self.FIELDS
        index, _, since, limit = self.array[base : base + self.FIELDS]
        label = bytes(self.labels[job * self.LABEL : (job + 1) * self.LABEL]).rstrip(b"\0")
        return int(index), label.decode("utf-8", "replace") if since else "", since, limit


# -- one input ----------------------------------------------------------------------------------

Failure = tuple[str, str]  # (command, problem)


class Checker:
    """Runs every check of one input in this process; ``beat`` tells the supervisor."""

    def __init__(self, campaign: Campaign, workdir: Path, beat: Beat | None, job: int) -> None:
        self.campaign = campaign
        self.harness = campaign.harness
        self.workdir = workdir
        self.beat = beat
        self.job = job
        self.runs = 0
        self.times: list[tuple[str, float, float]] = []  # (run, CPU seconds, wall seconds)

    def run(
        self, label: str, args: list[str], data: str | bytes, limit: float, path: str = "-"
    ) -> Any:
        self.runs += 1
        if self.beat is not None:
            self.beat.start(self.job, label, limit)
        try:
            outcome = self.harness.run_in_process(args, data, path=path)
        finally:
            if self.beat is not None:
                self.beat.stop(self.job)
        self.times.append((label, outcome.cpu_seconds, outcome.wall_seconds))
        return outcome

    def check(self, index: int, data: str | bytes, rng: random.Random) -> list[Failure]:
        campaign, args = self.campaign, self.campaign.args
        size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
        limit = campaign.hang_limit(size)
        cpu_limit = args.cpu_limit * max(1, -(-size // CHUNK))
        found: list[Failure] = []
        plain = None  # lint's outcome
        for command in campaign.commands:
            outcome = self.run(command[0], command, data, limit)
            found += self._judge(command[0], outcome, cpu_limit, limit)
            if command[0] == "lint":
                plain = outcome
                # a template document is told as not checked (DRA003): not a silent pass
                told = "DRA003" in (outcome.stdout or "")
                if outcome.exit_code in (0, 1) and _hidden_nul(data) and not told:
                    found.append(("lint", "silent: NUL characters in a manifest, and no DRA001"))
        if plain is not None:
            selection = rng.choice(SELECTIONS)
            found += self._selection(plain, selection, data, limit, cpu_limit)
            report_format = rng.choice(REPORT_FORMATS)
            label = f"lint -f {report_format}"
            outcome = self.run(label, ["lint", "--no-cache", "-f", report_format], data, limit)
            found += [
                f
                for f in self._judge(label, outcome, cpu_limit, limit)
                if not f[1].startswith("unplaced")
            ]  # as plain lint's
            if outcome.crash is None and outcome.exit_code in (0, 1, 2) and outcome.stdout:
                problem = _malformed(report_format, outcome.stdout)
                if problem:
                    found.append((label, f"malformed report: {problem}"))
        if campaign.selects and campaign.hostile and args.cel_every and index % args.cel_every == 0:
            expression = rng.choice(campaign.mutations.CEL_MEMORY_SELECTORS)
            outcome = self.run("select CEL", ["select", expression], data, limit)
            found += self._judge("select CEL", outcome, cpu_limit, limit)
        if args.files_every and index % args.files_every == 0:
            found += self._files(data, limit, rng.choice(INPUT_NAMES))
        return found

    def _judge(self, label: str, outcome: Any, cpu_limit: float, limit: float) -> list[Failure]:
        found: list[Failure] = []
        if outcome.crash is not None:
            found.append((label, "crash: " + outcome.crash.strip().splitlines()[-1][:300]))
        elif outcome.exit_code not in (0, 1, 2):
            found.append((label, f"exit code {outcome.exit_code}"))
        if outcome.wall_seconds > limit:
            found.append((label, f"hang: {outcome.wall_seconds:.0f} s before it answered"))
        elif outcome.cpu_seconds > cpu_limit:
            found.append((label, f"slow: {outcome.cpu_seconds:.2f} s of CPU"))
        if outcome.crash is None:
            for line in dict.fromkeys(self.harness.unplaced(outcome)):
                found.append((label, "unplaced message: " + self.harness.shape(line)))
            for line in self.harness.raw_controls(outcome)[:1]:
                found.append((label, "raw control character: " + self.harness.shape(ascii(line))))
        return found

    def _selection(
        self,
        plain: Any,
        selection: tuple[str, str],
        data: str | bytes,
        limit: float,
        cpu_limit: float,
    ) -> list[Failure]:
        """Rule selection never hides an input that cannot be read (issue 25, family 8): where
        plain lint says exit code 2, lint with ``selection`` (one of SELECTIONS, drawn for the
        input) says so too, and shows the input error."""
        if plain.crash is not None or plain.exit_code != 2:
            return []
        label = "lint " + " ".join(selection)
        selected = self.run(label, [*FUZZED_LINT, *selection], data, limit)
        found = [
            f
            for f in self._judge(label, selected, cpu_limit, limit)
            if not f[1].startswith("unplaced")  # the same messages as plain lint's
        ]
        if selected.crash is not None:
            return found
        if selected.exit_code != 2:
            found.append(
                (label, f"selection: exit code {selected.exit_code} where plain lint gives 2")
            )
        elif not any(
            r in (selected.stdout or "") for r in INPUT_ERRORS
        ) and "dractl: error:" not in (selected.stderr or ""):
            found.append((label, "selection: exit code 2 with no input error shown"))
        return found

    def _files(self, data: str | bytes, limit: float, name: str) -> list[Failure]:
        """The input in a folder beside a FIFO, a socket and devices, and lint's report onto odd
        targets: no hang, no crash, the odd files told as skipped, nothing written by the
        commands that must not write, no target replaced (issue 25, families 1, 2 and 7)."""
        folder = self.workdir / "tree"
        folder.mkdir(exist_ok=True)
        for previous in INPUT_NAMES:
            with contextlib.suppress(FileNotFoundError):
                (folder / previous).unlink()
        source = folder / name
        source.write_bytes(
            data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        )
        os.utime(source, ns=(1_000_000_000, 1_000_000_000))
        odd = {
            "fifo.yaml": "a FIFO",
            "sock.yaml": "a socket",
            "zero.yaml": "a character device",
            "null.yaml": "a character device",
        }
        if not os.path.lexists(folder / "fifo.yaml"):
            os.mkfifo(folder / "fifo.yaml")
            with socket.socket(socket.AF_UNIX) as listener:
                listener.bind(str(folder / "sock.yaml"))
            os.symlink("/dev/zero", folder / "zero.yaml")
            os.symlink("/dev/null", folder / "null.yaml")
        fifo_out = self.workdir / "report.fifo"
        if not fifo_out.exists():
            os.mkfifo(fifo_out)
        cases: list[tuple[str, list[str], str]] = [
            (f"files: {c[0]}", c, str(folder)) for c in self.campaign.commands
        ]
        cases += [
            ("files: convert --check", ["convert", "--check"], str(folder)),
            ("files: convert -w", ["convert", "-w"], str(folder)),
        ]
        if self.campaign.lints:
            cases += [
                (
                    f"files: lint -o {os.path.basename(t)}",
                    ["lint", "--no-cache", "-o", t],
                    str(source),
                )
                for t in ("/dev/null", "/dev/full", str(fifo_out))
                if os.path.exists(t)
            ]
        found: list[Failure] = []
        for label, args, path in cases:
            reader = None
            if args[-1] == str(fifo_out):
                reader = threading.Thread(target=fifo_out.read_bytes, daemon=True)
                reader.start()
            before = _snapshot(folder)
            devices = {t: os.stat(t) for t in ("/dev/null", "/dev/full") if os.path.exists(t)}
            try:
                with _watchdog(limit):
                    outcome = self.run(label, args, b"", limit * 2, path=path)
            except _Hang:
                found.append((label, f"hang: no answer after {limit:g} s"))
                continue
            finally:
                if reader is not None:
                    # a run that did not open the FIFO leaves the reader waiting for a writer
                    with contextlib.suppress(OSError):
                        os.close(os.open(fifo_out, os.O_WRONLY | os.O_NONBLOCK))
                    reader.join(5)
            if outcome.crash is not None:
                found.append((label, "crash: " + outcome.crash.strip().splitlines()[-1][:300]))
                continue
            if outcome.exit_code not in (0, 1, 2):
                found.append((label, f"exit code {outcome.exit_code}"))
            for line in dict.fromkeys(self.harness.unplaced(outcome)):
                found.append((label, "unplaced message: " + self.harness.shape(line)))
            if path == str(folder):
                for name, kind in odd.items():
                    if f"{name}: {kind}, not a regular file; skipped" not in (outcome.stderr or ""):
                        found.append(
                            (label, f"files: {kind} in the folder was not told as skipped")
                        )
            if args[:2] != ["convert", "-w"]:
                after = _snapshot(folder)
                for name in sorted(set(before) | set(after)):
                    if before.get(name) != after.get(name):
                        found.append((label, f"files: {name} in the folder changed"))
            for target, info in devices.items():
                now = os.stat(target)
                if (now.st_ino, now.st_mode) != (info.st_ino, info.st_mode):
                    found.append((label, f"files: {target} was replaced"))
        return found


REPORT_FORMATS = ("json", "sarif", "github", "junit")
# the input's name in the folder of the file checks: control characters, a bidirectional
# override, a line separator and spaces reach every message that names the file
INPUT_NAMES = (
    "input.yaml",
    "in\x1b]0;title\x07put.yaml",
    "in\x1b[2J\x9bput.yaml",
    "in\u202eput.yaml",
    "in\u2028put.yaml",
    "in\x08 put.yaml",
    "ïnpüt ①.yaml",
)


def _malformed(report_format: str, text: str) -> str | None:
    """What makes lint's report in ``report_format`` unreadable to the tools that read it."""
    if report_format in ("json", "sarif"):
        try:
            json.loads(text)
        except ValueError as error:
            return f"not JSON: {error}"[:200]
    elif report_format == "junit":
        try:
            ElementTree.fromstring(text)
        except ElementTree.ParseError as error:
            return f"not XML: {error}"[:200]
    else:
        for line in text.splitlines():
            if not line.startswith(("::error ", "::warning ", "::notice ")):
                return f"not a workflow command: {line[:100]!r}"
            if any(ch in line for ch in "\r\x1b\x9b\x00"):
                return f"a control character in {line[:100]!r}"
    return None


def _hidden_nul(data: str | bytes) -> bool:
    """Whether the text, decoded as dractl decodes it (UTF-16 after its byte-order mark, else
    UTF-8), holds NUL, which YAML and JSON refuse anywhere, and a manifest once the NULs are
    gone: UTF-16 without its mark, UTF-32 taken for UTF-16. Lint must not pass it (exit 0 or
    1) as if it held no Kubernetes object."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = raw[2:].decode("utf-16-le" if raw[0] == 0xFF else "utf-16-be", "replace")
    else:
        text = raw.decode("utf-8", "replace")
    return "\x00" in text and "apiVersion" in text.replace("\x00", "")


def _snapshot(folder: Path) -> dict[str, tuple[int, int, int, int, bytes | None]]:
    """Each entry: type and mode, inode, mtime, links, and a regular file's content."""
    entries = {}
    for entry in os.scandir(folder):
        info = entry.stat(follow_symlinks=False)
        content = Path(entry.path).read_bytes() if stat.S_ISREG(info.st_mode) else None
        entries[entry.name] = (info.st_mode, info.st_ino, info.st_mtime_ns, info.st_nlink, content)
    return entries


class _Hang(BaseException):
    """Raised by the watchdog: a BaseException, so that no ``except Exception`` of the code
    under test (or of dractl.cli.testing) takes it for the command's own failure."""


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    """A blocking open or read (a FIFO with no writer) is interrupted by SIGALRM: such a hang
    is told apart, and the worker goes on."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- workers and their supervisor ---------------------------------------------------------------


def _address_space() -> int:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _limit_memory(megabytes: int) -> int:
    """Limit this process's address space to ``megabytes`` more than it holds; return what it
    holds."""
    held = _address_space()
    limit = held + megabytes * MB
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return held


RECYCLE = 75  # a worker's exit code: start a fresh one at the next input (not a failure)


def _worker(
    campaign: Campaign,
    beat: Beat,
    job: int,
    first: int,
    stop_at: float,
    workdir: Path,
    results: Path,
) -> None:
    """Inputs ``first``, ``first + jobs``, ... until the budget is spent; one JSON line per input
    in ``results`` (written whole and flushed: a worker killed mid-input loses only that one)."""
    args = campaign.args
    held = None
    with contextlib.suppress(OSError, ValueError):
        held = _limit_memory(args.memory_mb)
    stack = open(workdir / f"stack-{job}.txt", "w")  # noqa: SIM115 - open until the process ends
    faulthandler.register(signal.SIGUSR1, file=stack, all_threads=True)
    own = workdir / f"job-{job}"
    own.mkdir(exist_ok=True)
    checker = Checker(campaign, own, beat, job)
    limit = args.inputs if args.inputs is not None else sys.maxsize
    with open(results, "a", encoding="utf-8") as out:
        index = first
        while index < limit and time.monotonic() < stop_at:
            beat.enter(job, index)
            checker.runs, checker.times = 0, []
            try:
                data, rng = campaign.generate(index)
            except Exception as exc:  # the mutator's own failure: not dractl's, but seen
                data, found = b"", [("mutate", f"crash: {type(exc).__name__}: {exc}"[:300])]
            else:
                found = checker.check(index, data, rng)
            size = (
                len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
            )
            record = {
                "index": index,
                "runs": checker.runs,
                "size": size,
                "failures": found,
                "times": checker.times,
            }
            out.write(json.dumps(record) + "\n")
            out.flush()
            if found and args.save:
                _save(args.save, args.seed, index, data, found)
            index += args.jobs
            # The C++ CEL engine and the allocator keep the memory a large evaluation took: the
            # next inputs would fail for want of it (a MemoryError that is not theirs).
            if held is not None and _address_space() > held + args.memory_mb * MB // 2:
                beat.enter(job, index - args.jobs)
                os._exit(RECYCLE)
    os._exit(0)  # no teardown of what the commands left: the supervisor only needs the file


def _save(folder: Path, seed: int, index: int, data: str | bytes, found: list[Failure]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    (folder / f"{seed}-{index}.yaml").write_bytes(raw)
    with open(folder / "failures.txt", "a", encoding="utf-8") as listing:
        for command, problem in found:
            listing.write(f"{seed}-{index}\t{command}\t{problem}\n")


def _kill_after(limit: float) -> float:
    """A run past its limit has failed; it is left a little longer (the machine may be busy, and
    the file checks' own watchdog says more), then killed."""
    return max(limit * 1.5, limit + 5)


def supervise(campaign: Campaign) -> int:
    """Start the workers and watch them: a run well past its limit is a hang (its stack is
    taken, the worker killed), a worker that ends otherwise than by finishing (or recycling
    itself) died; either way a new worker goes on from the next input of the same worker."""
    args = campaign.args
    campaign.harness.warm_up(campaign.commands, campaign.seeds)
    workdir = Path(tempfile.mkdtemp(prefix="dractl-fuzz-"))
    beat = Beat(args.jobs)
    context = multiprocessing.get_context("fork")  # the warmed-up caches are shared
    started = time.monotonic()
    stop_at = started + args.seconds
    extra: list[tuple[int, str, str]] = []  # (input, run, problem) the supervisor saw
    results = [workdir / f"results-{job}.jsonl" for job in range(args.jobs)]

    def start(job: int, first: int) -> multiprocessing.process.BaseProcess:
        beat.enter(job, first)
        process = context.Process(
            target=_worker, args=(campaign, beat, job, first, stop_at, workdir, results[job])
        )
        process.start()
        return process

    deaths = 0

    def inputs_seen() -> int:
        return sum(1 for _ in _records(results))

    workers: dict[int, multiprocessing.process.BaseProcess | None] = {
        job: start(job, job) for job in range(args.jobs)
    }
    try:
        while any(w is not None for w in workers.values()):
            time.sleep(0.2)
            for job, process in workers.items():
                if process is None:
                    continue
                index, label, since, limit = beat.read(job)
                if not process.is_alive():
                    process.join()
                    if process.exitcode == 0:
                        workers[job] = None
                        continue
                    if process.exitcode == RECYCLE:
                        workers[job] = start(job, index + args.jobs)
                        continue
                    deaths += 1
                    if deaths > 20 and deaths > inputs_seen() // 10:
                        raise SystemExit("fuzz: the workers keep dying; see the failures")
                    code = process.exitcode or 0
                    problem = (
                        f"died: {signal.Signals(-code).name}"
                        if code < 0
                        else f"died: exit code {code}"
                    )
                    extra.append((index, label or "(between runs)", problem))
                elif since and time.monotonic() - since > _kill_after(limit):
                    stack = workdir / f"stack-{job}.txt"
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(process.pid, signal.SIGUSR1)  # its stack, into the file
                        time.sleep(0.5)
                        os.kill(process.pid, signal.SIGSTOP)
                    if beat.read(job)[::2] != (index, since):  # it answered meanwhile
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(process.pid, signal.SIGCONT)
                        continue
                    process.kill()
                    process.join()
                    frames = [
                        line.strip()
                        for line in stack.read_text(errors="replace").splitlines()
                        if line.strip().startswith("File ")
                    ]
                    where = " < ".join(f.split("/")[-1] for f in frames[:4])
                    after = _kill_after(limit)
                    extra.append((index, label, f"hang: killed after {after:g} s, in {where}"))
                else:
                    continue
                if args.save:
                    data, _ = campaign.generate(index)
                    _save(args.save, args.seed, index, data, [extra[-1][1:]])
                workers[job] = start(job, index + args.jobs)
    except KeyboardInterrupt:
        for process in workers.values():
            if process is not None:
                process.kill()
    elapsed = time.monotonic() - started
    failed = report(campaign, results, extra, elapsed)
    shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


def _records(results: list[Path], *, failing: bool = False) -> Iterator[dict[str, Any]]:
    for path in results:
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                try:
                    record = json.loads(line)
                except ValueError:  # the last line of a killed worker
                    continue
                if not failing or record["failures"]:
                    yield record


def report(
    campaign: Campaign, results: list[Path], extra: list[tuple[int, str, str]], elapsed: float
) -> int:
    """Print the figures; return the number of failures."""
    args = campaign.args
    inputs = runs = 0
    kinds: dict[str, list[int]] = {}
    slowest: list[tuple[float, float, str, int, int]] = []  # CPU, wall, run, input, size
    for record in _records(results):
        inputs += 1
        runs += record["runs"]
        for command, problem in record["failures"]:
            kinds.setdefault(f"{command}: {problem}", []).append(record["index"])
        for label, cpu, wall in record["times"]:
            slowest.append((cpu, wall, label, record["index"], record["size"]))
        if len(slowest) > 200:
            slowest = sorted(slowest, reverse=True)[:10]
    for index, label, problem in extra:
        inputs += 1
        kinds.setdefault(f"{label}: {problem}", []).append(index)
    failures = sum(len(v) for v in kinds.values())
    print(
        f"seed {args.seed}, {args.jobs} job(s), commands: {' '.join(c[0] for c in campaign.commands)}"
    )
    print(
        f"inputs: {inputs}, command runs: {runs}, failures: {failures} in "
        f"{len({i for v in kinds.values() for i in v})} inputs, {elapsed:.0f} s"
    )
    print("slowest runs (CPU s, wall s, run, input, KB):")
    for cpu, wall, label, index, size in sorted(slowest, reverse=True)[:5]:
        print(f"  {cpu:7.3f} {wall:7.3f}  {label:<22} {args.seed}:{index:<8} {size / 1024:.0f}")
    if kinds:
        print("failures by kind (count, kind, first inputs):")
    for key, indices in sorted(kinds.items(), key=lambda item: -len(item[1])):
        print(f"  {len(indices):6d}  {key}  [{', '.join(map(str, sorted(indices)[:5]))}]")
    return failures


def replay(campaign: Campaign) -> int:
    """--only: the inputs here, in this process, with what each command printed."""
    workdir = Path(tempfile.mkdtemp(prefix="dractl-fuzz-"))
    checker = Checker(campaign, workdir, None, 0)
    harness = campaign.harness
    with contextlib.suppress(OSError, ValueError):
        _limit_memory(campaign.args.memory_mb)  # as in a worker
    failed = False
    for index in campaign.args.only:
        data, rng = campaign.generate(index)
        shown = data if isinstance(data, str) else data.decode("utf-8", "backslashreplace")
        print(
            f"== input {campaign.args.seed}:{index}, {len(data)} {type(data).__name__}\n{shown[:3000]}"
        )
        for command in campaign.commands:
            outcome = harness.run_in_process(command, data)
            print(
                f"-- {' '.join(command)} -: exit {outcome.exit_code}, {outcome.cpu_seconds:.3f} s"
            )
            print((outcome.crash or "") + (outcome.stderr or "") + (outcome.stdout or "")[-2000:])
        found = checker.check(index, data, rng)
        failed = failed or bool(found)
        for command, problem in found:
            print(f"FAILURE {command}: {problem}")
        if campaign.args.save and found:
            _save(campaign.args.save, campaign.args.seed, index, data, found)
    shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


def main() -> int:
    args = _arguments()
    # The mutator's own YAML reader warns about reused anchor names (dractl's loader does not).
    warnings.simplefilter("ignore")
    # lint's cache is not under test, and 100,000 entries are not to be written into the project
    os.environ.setdefault("DRACTL_NO_CACHE", "1")
    campaign = Campaign(args)
    if not campaign.seeds or not campaign.commands:
        print("no seed or no command left to fuzz", file=sys.stderr)
        return 2
    if args.only:
        return replay(campaign)
    return supervise(campaign)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(3)
