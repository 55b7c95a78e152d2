"""Size and time of `dractl explain -o html` next to `-o json` on the same synthetic cluster.

Cluster (`dractl.synthetic`): N nodes with one ResourceSlice of D GPUs each (every third node
has A100s with 40Gi, the others H100s with 80Gi; four GPUs per PCIe root), one claim for 4 H100s
of 64Gi or more on one PCIe root: two thirds of the nodes can take it. With `--busy`, the first
GPU of every H100 node is in use by a claim of its own, so that no two nodes read alike (the
page's worst case for grouping).

Run: `python benchmarks/explain_html.py [--nodes 15000] [--devices 8] [--repeat 1] [--busy]`.
Prints the page's size (the goal: under 10 MB for 15,000 x 8) and the whole command's wall time
for HTML and for JSON, run alternately, with their ratio (the JSON run is the yardstick).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from dractl.synthetic import cluster

ROOT = Path(__file__).resolve().parents[1]


def timed(*args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dractl", "explain", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"dractl explain {' '.join(args)} failed: {done.stderr}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=15000)
    parser.add_argument("--devices", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--busy", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "cluster.yaml")
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        source.write_text(yaml.dump_all(cluster(options.nodes, options.devices, busy=options.busy), Dumper=dumper, sort_keys=False))
        page = Path(folder, "report.html")
        html, json = [], []
        for _ in range(options.repeat):
            html.append(timed(str(source), "-o", "html", "--output-file", str(page)))
            json.append(timed(str(source), "-o", "json", "--output-file", str(Path(folder, "out.json"))))
        size = page.stat().st_size
    print(f"cluster: {options.nodes} nodes x {options.devices} devices{' (busy)' if options.busy else ''}")
    print(f"page size: {size / 1e6:.2f} MB ({size} bytes; goal < 10 MB for 15,000 x 8)")
    print(f"-o html: {statistics.median(html):.1f} s   -o json: {statistics.median(json):.1f} s   "
          f"ratio html/json: {statistics.median(h / j for h, j in zip(html, json, strict=True)):.2f}")


if __name__ == "__main__":
    main()
