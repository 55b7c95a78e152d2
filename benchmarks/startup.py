"""Start-up cost of the command line, against yamllint on the same files.

Each case runs in a fresh process, paired with the yardstick: dractl, then yamllint, then dractl
again, alternating, so that both see the same load on a shared machine. A pair's ratio is
dractl's time over yamllint's in that pair; the figure reported is the median of the ratios
(wall-clock and CPU, user + system). Help screens have an absolute goal in CPU seconds instead.

yamllint is installed in the benchmark's own virtual environment (created on first use under
the system's temporary folder, or given with --yamllint). Byte code is cached for both, as for
installed packages.

``dractl lint`` keeps its reports (see docs/lint.md, "The cache"), so it is timed twice: cold,
each run with an empty cache folder of its own (what a changed file costs: checked, and the
report stored); cold report cache with a warm selector cache, each run with a folder of its own
that holds the compiled selectors of an earlier run but no report (a changed file whose
selectors did not change: checked, without a CEL engine); and warm, each run answered from the
entry the first run stored (an unchanged file).

    python benchmarks/startup.py [--pairs 15] [--yamllint PATH]
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SLICE = "examples/good/resourceslice-gpu-node-v1.yaml"
CLAIM = "examples/good/claim-gpu-v1.yaml"
COLD, SELECTORS, WARM = "cold", "cold report cache, warm selector cache", "warm"
# (name, dractl arguments, yamllint arguments (the same files), goal: ("ratio", limit) or ("cpu", seconds),
#  lint cache: COLD, SELECTORS, WARM or None)
CASES: list[tuple[str, list[str], list[str], tuple[str, float], str | None]] = [
    ("dractl --help", ["--help"], ["--help"], ("cpu", 0.12), None),
    ("dractl --version", ["--version"], ["--version"], ("cpu", 0.12), None),
    ("dractl lint --help", ["lint", "--help"], ["--help"], ("cpu", 0.12), None),
    *(
        (
            f"dractl lint (one file, a CEL selector), {cache}",
            ["lint", CLAIM],
            [CLAIM],
            ("ratio", 1.0),
            cache,
        )
        for cache in (COLD, SELECTORS, WARM)
    ),
    (
        "dractl select EXPR (one slice)",
        ["select", 'device.attributes["gpu.example.com"].model == "A100"', SLICE],
        [SLICE],
        ("ratio", 1.5),
        None,
    ),
    (
        "dractl explain examples/explain/gpu-pod",
        ["explain", "examples/explain/gpu-pod"],
        ["examples/explain/gpu-pod"],
        ("ratio", 1.5),
        None,
    ),
]
PROBE = (
    "import sys, json\nsys.argv = ['dractl', '--help']\nfrom dractl.cli import main\n"
    "try:\n    main()\nexcept SystemExit:\n    pass\n"
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
)

PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)
LINT_CACHES = tempfile.mkdtemp(prefix="dractl-bench-cache-")
atexit.register(shutil.rmtree, LINT_CACHES, ignore_errors=True)
ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "DRACTL_NO_CACHE")}
ENV["PYTHONPYCACHEPREFIX"] = PYCACHE
ENV["DRACTL_CACHE_DIR"] = os.path.join(LINT_CACHES, WARM)


def cache_env(cache: str | None) -> dict[str, str]:
    """A cold run gets an empty cache folder of its own, a run with warm selectors a copy of the
    selectors an earlier run compiled; warm runs share the one filled first."""
    if cache not in (COLD, SELECTORS):
        return ENV
    folder = tempfile.mkdtemp(dir=LINT_CACHES)
    if cache == SELECTORS:
        shutil.copytree(selectors_folder(), folder, dirs_exist_ok=True)
    return {**ENV, "DRACTL_CACHE_DIR": folder}


def selectors_folder() -> str:
    """A cache folder with the selectors of the linted file and no report, made once."""
    folder = os.path.join(LINT_CACHES, "selectors")
    if not os.path.isdir(folder):
        subprocess.run([*dractl_command(), "lint", CLAIM], cwd=ROOT, capture_output=True,
                       env={**ENV, "DRACTL_CACHE_DIR": folder})
        for version in Path(folder).iterdir():
            for report in version.glob("*.json") if version.is_dir() else ():
                report.unlink()
    return folder


def dractl_command() -> list[str]:
    """The installed ``dractl`` script next to this interpreter, as users run it."""
    script = Path(sys.executable).with_name("dractl")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dractl"]


def yamllint_command(given: str | None) -> list[str]:
    if given:
        return [given]
    venv = Path(tempfile.gettempdir()) / "dractl-bench-yamllint"
    script = venv / "bin" / "yamllint"
    if not script.exists():
        print(f"installing yamllint into {venv} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "yamllint"], check=True)
    return [str(script)]


def timed(command: list[str], env: dict[str, str] = ENV) -> tuple[float, float]:
    """(wall, CPU) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--yamllint", help="a yamllint executable (default: the benchmark's own)")
    options = parser.parse_args()
    dractl, yamllint = dractl_command(), yamllint_command(options.yamllint)
    print(f"{options.pairs} pairs per case, alternating; median of the per-pair ratios")
    print(f"{'case':82s} {'dractl CPU':>10s} {'yamllint':>9s} {'CPU ×':>7s} {'wall ×':>7s}  goal")
    for name, args, files, (kind, limit), cache in CASES:
        ours, theirs = [*dractl, *args], [*yamllint, *files]
        timed(ours, cache_env(cache))  # fill the byte code caches (and, warm, the lint cache)
        timed(theirs)
        pairs = [(timed(ours, cache_env(cache)), timed(theirs)) for _ in range(options.pairs)]
        cpu = statistics.median(o[1] for o, _ in pairs)
        yardstick = statistics.median(t[1] for _, t in pairs)
        cpu_ratio = statistics.median(o[1] / t[1] for o, t in pairs)
        wall_ratio = statistics.median(o[0] / t[0] for o, t in pairs)
        if kind == "cpu":
            goal = f"≤ {limit:.2f} s CPU: {'met' if cpu <= limit else 'NOT met'}"
        else:
            met = cpu_ratio <= limit and wall_ratio <= limit
            goal = f"≤ {limit:.1f}× wall and CPU: {'met' if met else 'NOT met'}"
        print(f"{name:82s} {cpu:9.3f}s {yardstick:8.3f}s {cpu_ratio:6.2f}× {wall_ratio:6.2f}×  {goal}")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True)
    modules = json.loads(out.stderr.strip().splitlines()[-1])
    heavy = [
        m for m in ("jsonschema", "cel_expr_python", "celpy", "ruamel", "yaml", "rich", "pydantic")
        if m in modules
    ]
    print(f"top-level packages imported by --help: {len(modules)}; heavy ones: {heavy or 'none'}")


if __name__ == "__main__":
    main()
