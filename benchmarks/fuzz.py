"""A long fuzzing campaign: random mutations of the example manifests through every subcommand
that reads manifests, in-process. Prints how many inputs ran, how many failed (a crash, an exit
code other than 0/1/2, or more than a second of CPU per 64 KB of input started: the round-trip
YAML parser alone reads about 60 KB per CPU second), and the slowest inputs.

    python benchmarks/fuzz.py [--seconds 300] [--seed 1] [--save failures/]
    # explain on whole inputs (nodes, slices, classes and pods together), so the allocator runs:
    python benchmarks/fuzz.py --command explain --seeds-with "kind: Node" --seeds-with "kind: Pod"

Each failure is reproducible from the printed seed and index (and is saved with --save).
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType

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

    rng = random.Random(args.seed)
    runs = inputs = 0
    failures: list[tuple[int, str, str]] = []
    kinds: dict[str, int] = {}
    slowest = (0.0, "", -1, 0)  # CPU seconds, command, input, size
    slowest_rate = (0.0, "", -1, 0)  # the same for CPU seconds per 64 KB
    stop = time.monotonic() + args.seconds
    while time.monotonic() < stop:
        text = mutations.mutate(rng.choice(seeds), rng)
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


if __name__ == "__main__":
    sys.exit(main())
