"""`dractl explain` over every node of synthetic clusters, side by side with the upstream allocator.

Clusters from `dractl.synthetic` (the shape of `../shared/oracle/bigcluster.py`): N nodes
with 8 GPUs each, one claim for 4 H100 on one PCIe root that two thirds of the nodes can take;
optionally a network-attached pool every node sees; and the same cluster as kubectl dumps it
(`kind: List`, managedFields, status) in YAML and JSON, which the upstream binary does not read
(it ignores `kind: List`): those run dractl alone.

For each file, runs alternate pair by pair: the upstream binary's whole process
(`dra-upstream -all-nodes -repeat 1 -per-node FILE`: parse, a fresh allocator per node, one JSON
line per node), then `dractl explain -o json FILE` and `dractl explain FILE` (text), with dractl's
default `--jobs` (one process per CPU). It prints the median wall and CPU seconds (user + system
of the process and of the processes it forked and waited for) and the peak memory of each (that
of its largest process), and the median of the per-pair ratios dractl / upstream, which is what
to compare on a shared machine.
Every run's answer is checked: every node evaluated (none timed out), and per node the same
result as upstream's. Columns of the upstream binary are skipped where it is absent (found at
`../shared/oracle/bin/dra-upstream` beside the repository or through `DRACTL_UPSTREAM`).

Run: `python benchmarks/explain.py [--repeat 3] [--large]`; `--large` adds 15,000 nodes (about a
minute per run) and its kubectl dumps, dractl alone unless `--upstream-large` (the upstream
harness takes minutes of CPU per run there: it gathers every slice for every node); `--only
NAME` runs the cluster of that name, or those whose name contains NAME; `--serial` adds dractl in one process (`-j 1`);
`--memory` one more run of each dractl command that samples the memory of all its processes
(the summed PSS: a page shared by several processes is divided among them).
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = Path(os.environ.get("DRACTL_UPSTREAM") or ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream")
PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)
# Byte code cached (in a temporary folder), as for an installed package: compiling dractl's
# modules would otherwise be counted in every run.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV.update(PYTHONPYCACHEPREFIX=PYCACHE, PYTHONPATH=str(ROOT))


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mb: float
    stdout: bytes


@dataclass
class Figures:
    runs: dict[str, list[Run]] = field(default_factory=dict)
    memory: dict[str, float] = field(default_factory=dict)  # label -> summed PSS peak, MB

    def add(self, name: str, run: Run) -> None:
        self.runs.setdefault(name, []).append(run)


def timed(command: list[str]) -> Run:
    """Wall and CPU time and peak RSS of one child process (its own rusage, from wait4)."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE, cwd=ROOT, env=ENV)
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(command)}: exit code {process.returncode}: {stderr.decode()[-2000:]}")
        out.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read())


def check(name: str, nodes: int, dractl_json: bytes, upstream: bytes | None) -> None:
    """Every node evaluated, and per node the same answer as upstream's."""
    data = json.loads(dractl_json)
    results = {node["name"]: node for node in data["nodes"]}
    assert len(results) == nodes, (name, len(results))
    timed_out = [n for n, node in results.items() if node["timedOut"]]
    assert not timed_out, f"{name}: {len(timed_out)} nodes timed out"
    if upstream is None:
        return
    theirs = json.loads(upstream.splitlines()[0])["nodes"]
    differ = [n for n, node in results.items() if node["result"] != theirs[n]["result"]]
    assert not differ, f"{name}: {len(differ)} nodes differ from upstream, e.g. {differ[:3]}"


def measure(name: str, path: Path, nodes: int, repeat: int, side_by_side: bool, serial: bool = False,
            memory: bool = False) -> Figures:
    figures = Figures()
    dractl = [sys.executable, "-m", "dractl", "explain", str(path)]
    timed([*dractl, "--node", "node-0"])  # fills the byte code cache
    commands = {"dractl -o json": [*dractl, "-o", "json"], "dractl (text)": dractl}
    if serial:
        commands |= {"-o json, -j 1": [*dractl, "-o", "json", "-j", "1"], "text, -j 1": [*dractl, "-j", "1"]}
    for _ in range(repeat):
        upstream = None
        if side_by_side and os.access(UPSTREAM, os.X_OK):
            run = timed([str(UPSTREAM), "-all-nodes", "-repeat", "1", "-per-node", str(path)])
            figures.add("upstream", run)
            upstream = run.stdout
        for label, command in commands.items():
            run = timed(command)
            if "json" in label:
                check(name, nodes, run.stdout, upstream)
            figures.add(label, run)
    if memory:
        for label, command in commands.items():
            figures.memory[label] = summed_memory(command)
    return figures


def summed_memory(command: list[str]) -> float:
    """The peak of the summed proportional set size (PSS: a page shared by several processes is
    divided among them) of a command's processes, sampled every 20 ms, in MB: the peak RSS that
    wait4 reports is that of the largest process alone, and forked workers share pages."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=ENV)
    peak = 0
    while process.poll() is None:
        peak = max(peak, sum(_pss(pid) for pid in _tree(process.pid)))
        time.sleep(0.02)
    return peak / 1e6


def _tree(pid: int) -> list[int]:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(p for child in children for p in _tree(int(child)))]


def _pss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def report(name: str, size_mb: float, figures: Figures) -> dict[str, float]:
    print(f"{name} ({size_mb:.1f} MB)")
    print(f"  {'':<16} {'wall':>8} {'cpu':>8} {'peak':>8}   {'x upstream (wall, cpu)':>22}")
    base = figures.runs.get("upstream")
    medians = {}
    for label, runs in figures.runs.items():
        wall = statistics.median(r.wall for r in runs)
        cpu = statistics.median(r.cpu for r in runs)
        peak = max(r.peak_mb for r in runs)
        medians[label] = cpu
        ratio = ""
        if base is not None and label != "upstream":
            wall_ratio = statistics.median(r.wall / b.wall for r, b in zip(runs, base, strict=True))
            cpu_ratio = statistics.median(r.cpu / b.cpu for r, b in zip(runs, base, strict=True))
            ratio = f"{wall_ratio:10.2f}x {cpu_ratio:8.2f}x"
        memory = f"   all processes {figures.memory[label]:.0f}MB" if label in figures.memory else ""
        print(f"  {label:<16} {wall:7.2f}s {cpu:7.2f}s {peak:6.0f}MB   {ratio}{memory}")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also 15,000 nodes and their kubectl dumps")
    parser.add_argument("--upstream-large", action="store_true",
                        help="also the upstream binary on 15,000 nodes (minutes of CPU per run)")
    parser.add_argument("--only", default="", help="only the cluster of this name, or those whose name contains this")
    parser.add_argument("--serial", action="store_true", help="also dractl in one process (-j 1)")
    parser.add_argument("--memory", action="store_true",
                        help="also the peak memory of all of dractl's processes (PSS, Linux), one more run each")
    args = parser.parse_args()
    if not os.access(UPSTREAM, os.X_OK):
        print(f"upstream binary not found ({UPSTREAM}): its columns are skipped")
    cases = [("1,000 x 8", 1000, 0, None), ("1,000 x 8 + 1,000 network devices", 1000, 1000, None),
             ("1,000 x 8, kubectl -o yaml", 1000, 0, "yaml"), ("1,000 x 8, kubectl -o json", 1000, 0, "json")]
    if args.large:
        cases += [("15,000 x 8", 15000, 0, None), ("15,000 x 8, kubectl -o yaml", 15000, 0, "yaml"),
                  ("15,000 x 8, kubectl -o json", 15000, 0, "json")]
    exact = any(name == args.only for name, *_ in cases)  # a whole name: that cluster alone
    medians: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, nodes, network, kubectl in cases:
            if args.only not in name or (exact and name != args.only):
                continue
            path = Path(folder) / f"cluster.{kubectl or 'yaml'}"
            # Written by another process: a child's peak memory counts its parent's at the fork,
            # and a dump of 15,000 nodes takes GBs to generate.
            with path.open("w") as out:
                subprocess.run([sys.executable, "-m", "dractl.synthetic", str(nodes), "8", str(network),
                                *(["--kubectl", kubectl] if kubectl else [])], stdout=out, check=True, env=ENV)
            side_by_side = kubectl is None and (nodes <= 1000 or args.upstream_large)
            figures = measure(name, path, nodes, args.repeat, side_by_side, args.serial, args.memory)
            medians[name] = report(name, path.stat().st_size / 1e6, figures)
            path.unlink()
    small, large = medians.get("1,000 x 8"), medians.get("15,000 x 8")
    if small and large:
        for label in ("dractl -o json", "dractl (text)"):
            print(f"1,000 -> 15,000 nodes, {label}: {large[label] / small[label]:.1f}x CPU")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
