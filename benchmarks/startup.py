"""Start-up cost of the command line: CPU time of `dractl --help`, `--version` and a lint of one
small file, each in a fresh interpreter, and the modules `--help` imports.

    python benchmarks/startup.py [--runs 10]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = {
    "dractl --help": ["--help"],
    "dractl --version": ["--version"],
    "dractl lint (one small file)": ["lint", "examples/good/deviceclass-gpu-v1.yaml"],
}
PROBE = (
    "import sys, json\nsys.argv = ['dractl', '--help']\nfrom dractl.cli import app\n"
    "try:\n    app(prog_name='dractl')\nexcept SystemExit:\n    pass\n"
    "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
)


PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)
# Byte code cached (in a temporary folder), as for an installed package: compiling dractl's
# modules would otherwise be counted in every run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = PYCACHE


def cpu_of(args: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "dractl", *args], cwd=ROOT, capture_output=True, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs
    print(f"CPU seconds per run, median of {runs} (user + system, fresh interpreter each):")
    for name, args in CASES.items():
        cpu_of(args)  # fills the byte code cache
        times = [cpu_of(args) for _ in range(runs)]
        print(f"  {name:32s} {statistics.median(times):.3f} s")
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True)
    modules = json.loads(out.stderr.strip().splitlines()[-1])
    heavy = [
        m for m in ("jsonschema", "cel_expr_python", "celpy", "ruamel", "pydantic") if m in modules
    ]
    print(f"top-level packages imported by --help: {len(modules)}; heavy ones: {heavy or 'none'}")


if __name__ == "__main__":
    main()
