"""The loader on long streams: CPU time and peak memory to read (and lint) N small DeviceClass
documents in one file, in a fresh interpreter per size and loader.

Two loaders: the round-trip one (ruamel.yaml, comments kept: files that lint reports on,
``convert``, ``select``) and the reference one (libyaml, values and positions: ``--context``
files and ``explain``'s inputs). The round-trip loader takes about 3 ms per document, so it is
run only up to ``--round-trip-max`` documents (default 10,000).

    python benchmarks/load.py [--documents 1000 10000 100000] [--round-trip-max 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = (
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu-{i}.example.com\n"
    'spec:\n  selectors:\n  - cel:\n      expression: device.driver == "gpu-{i}.example.com"\n'
)
MEASURE = """
import json, resource, sys, time
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths
reference = sys.argv[2] == "reference"
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
loaded = load_paths([sys.argv[1]], comments=not reference)
loaded_at = time.process_time()
after_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = lint(loaded, Settings())
done = time.process_time()
print(json.dumps({"load": loaded_at - start, "lint": done - loaded_at, "base_mb": base / 1024,
                  "load_mb": after_load / 1024,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "objects": len(loaded.objects), "errors": result.summary["errors"]}))
"""


def measure(path: Path, loader: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), loader],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--round-trip-max", type=int, default=10_000)
    args = parser.parse_args()
    print("CPU seconds; lint and memory of the reference-loader run")
    print("documents  file MB  round-trip load  reference load  speed-up  lint s  peak RSS MB  per document")
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.documents:
            path = Path(tmp, f"stream-{count}.yaml")
            path.write_text("".join(DOCUMENT.format(i=i) for i in range(count)))
            fast = measure(path, "reference")
            if count <= args.round_trip_max:
                slow = measure(path, "round-trip")
                assert slow["objects"] == fast["objects"] and slow["errors"] == fast["errors"]
                round_trip, speed_up = f"{slow['load']:13.1f} s", f"{slow['load'] / fast['load']:7.0f}x"
            else:
                round_trip, speed_up = f"{'not run':>15}", f"{'':>8}"
            per_doc = (fast["peak_mb"] - fast["base_mb"]) * 1024 / count
            print(
                f"{count:9d}  {path.stat().st_size / 2**20:7.1f}  {round_trip}  "
                f"{fast['load']:12.2f} s  {speed_up}  {fast['lint']:6.1f}  {fast['peak_mb']:11.0f}  "
                f"{per_doc:6.1f} KB"
            )


if __name__ == "__main__":
    main()
