"""The loader on long streams: CPU time and peak memory to read (and lint) N small DeviceClass
documents in one file, in a fresh interpreter per size.

    python benchmarks/load.py [--documents 1000 10000 100000]
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
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.process_time()
loaded = load_paths([sys.argv[1]])
loaded_at = time.process_time()
after_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = lint(loaded, Settings())
done = time.process_time()
print(json.dumps({"load": loaded_at - start, "lint": done - loaded_at, "base_mb": base / 1024,
                  "load_mb": after_load / 1024,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "objects": len(loaded.objects), "errors": result.summary["errors"]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    sizes = parser.parse_args().documents
    print("documents  file MB  load s  lint s  peak RSS MB  RSS per document")
    with tempfile.TemporaryDirectory() as tmp:
        for count in sizes:
            path = Path(tmp, f"stream-{count}.yaml")
            path.write_text("".join(DOCUMENT.format(i=i) for i in range(count)))
            out = subprocess.run(
                [sys.executable, "-c", MEASURE, str(path)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            got = json.loads(out.stdout)
            per_doc = (got["peak_mb"] - got["base_mb"]) * 1024 / count
            print(
                f"{count:9d}  {path.stat().st_size / 2**20:7.1f}  {got['load']:6.1f}  "
                f"{got['lint']:6.1f}  {got['peak_mb']:11.0f}  {per_doc:6.1f} KB"
            )


if __name__ == "__main__":
    main()
