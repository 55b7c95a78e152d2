"""A long fuzzing campaign: random mutations of the example manifests through every subcommand
that reads manifests, in-process. Prints how many inputs ran, how many failed (a crash, an exit
code other than 0/1/2, or more than a second of CPU per 64 KB of input started: the round-trip
YAML parser alone reads about 60 KB per CPU second), and the slowest inputs.

    python benchmarks/fuzz.py [--seconds 300] [--seed 1] [--save failures/]
    # explain on whole inputs (nodes, slices, classes and pods together), so the allocator runs:
    python benchmarks/fuzz.py --command explain --seeds-with "kind: Node" --seeds-with "kind: Pod"
    # only the hostile families (issue 25): encodings, numbers at limits, control characters,
    # rule selection over broken files, inputs beside FIFOs and devices, odd output targets
    python benchmarks/fuzz.py --hostile-only

Besides the mutations of tests/robustness/mutations.py (MUTATIONS, and HOSTILE_MUTATIONS unless
--no-hostile), every input is also linted with rule selections (--select DRA1, --ignore DRA0):
an input that plain lint cannot read (exit code 2) must give exit code 2 and a DRA00x finding
under every selection. Every --files-every inputs, the input is also written into a folder
beside a FIFO and a symlink to /dev/zero and each command runs on that folder (more than
--hang-seconds is a hang), and lint writes its report to /dev/null, /dev/full and a FIFO.

Each failure is reproducible from the printed seed and index (and is saved with --save).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import random
import signal
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import FrameType, ModuleType

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 64 * 1024  # the CPU limit is per 64 KB of input started
sys.path.insert(0, str(ROOT))


def _load(name: str) -> ModuleType:
    path = ROOT / "tests" / "robustness" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"dractl_robustness_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="wall-clock budget")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cpu-limit", type=float, default=1.0, help="seconds of CPU per input (per 64 KB started)"
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
    parser.add_argument("--files-every", type=int, default=10, metavar="N",
                        help="run on a folder with a FIFO and a device every N inputs (0: never)")
    parser.add_argument("--hang-seconds", type=float, default=20.0)
    args = parser.parse_args()

    # The mutator's own YAML reader warns about reused anchor names (dractl's loader does not).
    warnings.simplefilter("ignore")
    mutations = _load("mutations")
    harness = _load("harness")
    seeds = [seed for seed in mutations.seeds() if all(text in seed for text in args.seeds_with)]
    commands = [c for c in harness.fuzzed_commands() if not args.command or c[0] in args.command]
    if not seeds or not commands:
        parser.error("no seed or no command left to fuzz")
    harness.warm_up(commands, seeds)

    pool = list(mutations.MUTATIONS)
    if args.hostile_only:
        pool = list(mutations.HOSTILE_MUTATIONS)
    elif not args.no_hostile:
        pool += mutations.HOSTILE_MUTATIONS * 2  # as often as a third of the ordinary ones
    lints = "lint" in [c[0] for c in commands]
    workdir = Path(tempfile.mkdtemp(prefix="dractl-fuzz-"))

    rng = random.Random(args.seed)
    runs = inputs = 0
    failures: list[tuple[int, str, str]] = []
    kinds: dict[str, int] = {}
    slowest = (0.0, "", -1, 0)  # CPU seconds, command, input, size
    slowest_rate = (0.0, "", -1, 0)  # the same for CPU seconds per 64 KB
    stop = time.monotonic() + args.seconds
    while time.monotonic() < stop:
        text = mutations.mutate(rng.choice(seeds), rng, mutations=pool)
        extra: list[tuple[str, str]] = []  # (command, problem) from the hostile checks
        if lints:
            runs += len(SELECTIONS) + 1
            extra += [("lint " + " ".join(s), p) for s, p in _selection_problems(harness, text)]
        if args.files_every and inputs % args.files_every == 0:
            found, count = _file_problems(harness, commands, text, workdir, args.hang_seconds)
            runs += count
            extra += found
        for command_name, problem in extra:
            key = f"{command_name}: {problem}"
            kinds[key] = kinds.get(key, 0) + 1
            failures.append((inputs, command_name, problem))
            if args.save:
                args.save.mkdir(parents=True, exist_ok=True)
                (args.save / f"{args.seed}-{inputs}-hostile.yaml").write_text(
                    text, encoding="utf-8", errors="surrogatepass"
                )
        for command in commands:
            outcome = harness.run_in_process(command, text)
            runs += 1
            size = len(text.encode("utf-8", "surrogatepass"))
            blocks = max(1, -(-size // CHUNK))
            if outcome.cpu_seconds > slowest[0]:
                slowest = (outcome.cpu_seconds, outcome.command, inputs, size)
            if outcome.cpu_seconds / blocks > slowest_rate[0]:
                slowest_rate = (outcome.cpu_seconds / blocks, outcome.command, inputs, size)
            problem = None
            if outcome.crash is not None:
                problem = "crash: " + outcome.crash.strip().splitlines()[-1]
            elif outcome.exit_code not in (0, 1, 2):
                problem = f"exit code {outcome.exit_code}"
            elif outcome.cpu_seconds > args.cpu_limit * blocks:
                problem = f"{outcome.cpu_seconds:.2f}s of CPU for {size / 1024:.0f} KB"
            if problem is not None:
                key = f"{outcome.command}: {problem}"
                kinds[key] = kinds.get(key, 0) + 1
                failures.append((inputs, outcome.command, problem))
                if args.save:
                    args.save.mkdir(parents=True, exist_ok=True)
                    (args.save / f"{args.seed}-{inputs}-{outcome.command}.yaml").write_text(
                        text, encoding="utf-8", errors="surrogatepass"
                    )
        inputs += 1

    print(f"seed {args.seed}, {args.seconds:g} s, commands: {' '.join(c[0] for c in commands)}")
    print(f"inputs: {inputs}, command runs: {runs}, failures: {len(failures)}")
    print(
        f"slowest: {slowest[0]:.3f} s of CPU (dractl {slowest[1]}, input {slowest[2]}, "
        f"{slowest[3] / 1024:.0f} KB)"
    )
    print(
        f"slowest per 64 KB: {slowest_rate[0]:.3f} s of CPU (dractl {slowest_rate[1]}, "
        f"input {slowest_rate[2]}, {slowest_rate[3] / 1024:.0f} KB)"
    )
    for key, count in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"  {count:5d}  {key}")
    return 1 if failures else 0


SELECTIONS = (("--select", "DRA1"), ("--ignore", "DRA0"), ("--select", "DRA9"))
INPUT_ERRORS = ("DRA001", "DRA002", "DRA005")


def _selection_problems(harness: ModuleType, text: str) -> Iterator[tuple[tuple[str, ...], str]]:
    """Rule selection never hides an input that cannot be read (issue 25, family 8)."""
    base = ["lint", "--color", "never", "--no-cache"]
    plain = harness.run_in_process(base, text)
    if plain.crash is not None or plain.exit_code != 2:
        return
    for selection in SELECTIONS:
        selected = harness.run_in_process([*base, *selection], text)
        if selected.crash is not None:
            continue  # counted by the plain runs of the same input
        if selected.exit_code != 2:
            yield selection, f"exit code {selected.exit_code} where plain lint gives 2"
        elif selected.stdout is not None and not any(r in selected.stdout for r in INPUT_ERRORS) \
                and "dractl: error:" not in (selected.stderr or ""):
            yield selection, "exit code 2 with no input error shown"


class _Hang(Exception):
    pass


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _file_problems(
    harness: ModuleType, commands: list[list[str]], text: str, workdir: Path, hang: float
) -> tuple[list[tuple[str, str]], int]:
    """The input in a folder beside a FIFO and a device, and lint's report onto odd targets:
    no hang, no crash, no target replaced (issue 25, families 1, 2 and 7)."""
    from dractl.cli.testing import invoke

    folder = workdir / "tree"
    folder.mkdir(exist_ok=True)
    (folder / "input.yaml").write_bytes(text.encode("utf-8", "surrogatepass"))
    for name, make in (("fifo.yaml", os.mkfifo), ("zero.yaml", lambda p: os.symlink("/dev/zero", p))):
        if not os.path.lexists(folder / name):
            make(folder / name)
    fifo_out = workdir / "report.fifo"
    if not fifo_out.exists():
        os.mkfifo(fifo_out)
    cases = [[*c, str(folder)] for c in commands]
    cases += [[*c[:1], "-w", str(folder)] for c in commands if c[0] == "convert"]
    for target in ("/dev/null", "/dev/full", str(fifo_out)):
        if os.path.exists(target):
            cases.append(["lint", "--no-cache", "-o", target, str(folder / "input.yaml")])
    found: list[tuple[str, str]] = []
    for case in cases:
        if case[-2:-1] == [str(fifo_out)]:
            threading.Thread(target=fifo_out.read_bytes, daemon=True).start()
        before = {t: os.stat(t).st_mode for t in ("/dev/null", "/dev/full") if os.path.exists(t)}
        try:
            with _watchdog(hang):
                result = invoke(case)
        except _Hang:
            found.append((" ".join(case[:2]), f"no answer after {hang:g} s (a hang)"))
            continue
        exc = result.exception
        if exc is not None and type(exc).__name__ not in ("InputError", "UsageError", "DractlError"):
            last = "".join(traceback.format_exception(*result.exc_info)).strip().splitlines()[-1] \
                if result.exc_info else repr(exc)
            found.append((" ".join(case[:2]), f"crash: {last}"))
        elif result.exit_code not in (0, 1, 2):
            found.append((" ".join(case[:2]), f"exit code {result.exit_code}"))
        elif case[-1] == str(folder) and "fifo.yaml: a FIFO, not a regular file; skipped" \
                not in result.stderr:
            found.append((" ".join(case[:2]), "the FIFO in the folder was not told as skipped"))
        for target, mode in before.items():
            if os.stat(target).st_mode != mode:
                found.append((" ".join(case[:2]), f"{target} was replaced"))
    # convert -w may have rewritten the input: the next input starts from its own text anyway
    return found, len(cases)


if __name__ == "__main__":
    sys.exit(main())
