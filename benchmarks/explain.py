"""`dractl explain` over every node of synthetic clusters, side by side with the upstream allocator.

Clusters from `dractl.synthetic` (the shape of `../shared/oracle/bigcluster.py`): N nodes
with 8 GPUs each, one claim for 4 H100 on one PCIe root that two thirds of the nodes can take;
optionally a network-attached pool every node sees; and the same cluster as kubectl dumps it
(`kind: List`, managedFields, status) in YAML and JSON, which the upstream binary does not read
(it ignores `kind: List`): those run dractl alone.

The same clusters as a real GPU cluster has them ("Pod" in the name; `dractl.synthetic`'s `pod`):
every Node with a kubelet's status (allocatable cpu, memory, pods, and conditions, addresses,
images, nodeInfo) and the taint `nvidia.com/gpu=present:NoSchedule`, and a Pod that uses the claim,
requests cpu and memory and tolerates the taint. dractl then explains the Pod: every node goes
through the scheduler's Filter plugins (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
NodePorts, NodeResourcesFit, then DynamicResources). The upstream binary reads the same file (it
ignores the Pod, and the allocator reads no taints nor allocatable): per node, the DRA verdict
must still be upstream's, and every node the allocator can take must pass the other plugins. The
claim-only cluster of the same size runs in the same invocation, so that the two shapes compare
on the machine as it is; the last lines print the Pod shape's median CPU and wall time over the
claim-only shape's.

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
minute per run) and its kubectl dumps, in both shapes, dractl alone unless `--upstream-large` (the upstream
harness takes minutes of CPU per run there: it gathers every slice for every node); `--only
NAME` runs the cluster of that name, or those whose name contains NAME (repeatable: `--only "1,000 x 8"
--only "1,000 x 8, Pod"` runs the two shapes of 1,000 nodes); `--serial` adds dractl in one process (`-j 1`);
`--memory` one more run of each dractl command that samples the memory of all its processes
(the summed PSS: a page shared by several processes is divided among them); `--baseline DIR` the
same dractl commands from another copy of the source (a folder holding its `dractl` package, such
as a copy of the tree before a change), in the same pairs, with the ratios of their medians and
whether their answers were the same bytes; `--filters` (alone) the cost per node of the scheduler's
Filter plugins around the allocator's search (answered at once), in one process, for dractl and
the `--baseline`.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # after PYTHONPATH: --baseline's copy of dractl comes first in its runs

from dractl.synthetic import POD  # noqa: E402  (nothing else of dractl is imported here)

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


@dataclass
class Figures:
    runs: dict[str, list[Run]] = field(default_factory=dict)
    memory: dict[str, float] = field(default_factory=dict)  # label -> summed PSS peak, MB
    answer: str = ""  # the digest of dractl's -o json answer
    baseline_same: bool = True  # --baseline: its -o json answers were dractl's, byte for byte

    def add(self, name: str, run: Run) -> None:
        self.runs.setdefault(name, []).append(run)


def timed(command: list[str], out: Path, env: dict[str, str] | None = None) -> Run:
    """Wall and CPU time and peak RSS of one child process (its own rusage, from wait4); its
    output goes to ``out``."""
    with out.open("wb") as stdout:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE, cwd=ROOT, env=env or ENV)
        assert process.stderr is not None
        stderr = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)}: exit code {process.returncode}: {stderr.decode()[-2000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def isolated(function: Callable[..., str], *args: Any) -> str:
    """``function(*args)`` in a forked child, its short answer sent back. What it reads (answers
    of up to a few hundred MB as JSON) must not grow this process: a child's peak memory counts
    its parent's at the fork (Linux records the old address space's peak at exec), so every later
    run would seem to take that much more."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read)
        code = 0
        try:
            answer = function(*args)
        except BaseException as exc:  # reported by the parent
            answer, code = f"{type(exc).__name__}: {exc}", 1
        os.write(write, answer.encode())
        os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        answer = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(answer)
    return answer


def check(name: str, nodes: int, dractl_json: Path, upstream: Path | None, pod: bool = False,
          reference: str | None = None) -> str:
    """Every node evaluated, and per node the same answer as upstream's. For a Pod, the
    scheduler's status of every node agrees with its result, and a node is unschedulable only
    by DynamicResources (the synthetic Pod tolerates the taint and fits every node's allocatable).
    ``reference``: the digest of the answer for the same cluster as manifests, which a dump's must
    equal. Returns the answer's digest."""
    text = dractl_json.read_bytes()
    digest = hashlib.sha256(text).hexdigest()
    data = json.loads(text)
    results = {node["name"]: node for node in data["nodes"]}
    assert len(results) == nodes, (name, len(results))
    timed_out = [n for n, node in results.items() if node["timedOut"]]
    assert not timed_out, f"{name}: {len(timed_out)} nodes timed out"
    if pod:
        assert [u["title"] for u in data["units"]] == [f"pod {POD}"], (name, data["units"])
        wrong = [n for n, node in results.items()
                 if (node.get("status"), node.get("plugin")) not in (
                     (("schedulable", None) if node["result"] == "allocated" else
                      ("unschedulable-and-unresolvable", "DynamicResources")),)]
        assert not wrong, f"{name}: {len(wrong)} nodes decided by another plugin, e.g. {wrong[:3]}"
    if reference is not None:
        assert digest == reference, f"{name}: the answer differs from the manifests'"
    if upstream is None:
        return digest
    theirs = json.loads(upstream.read_bytes().splitlines()[0])["nodes"]
    differ = [n for n, node in results.items() if node["result"] != theirs[n]["result"]]
    assert not differ, f"{name}: {len(differ)} nodes differ from upstream, e.g. {differ[:3]}"
    return digest


def measure(name: str, path: Path, nodes: int, repeat: int, side_by_side: bool, serial: bool = False,
            memory: bool = False, pod: bool = False, reference: str | None = None,
            baseline: Path | None = None) -> Figures:
    figures = Figures()
    dractl = [sys.executable, "-m", "dractl", "explain", str(path)]
    variants = {"dractl -o json": ["-o", "json"], "dractl (text)": []}
    if serial:
        variants |= {"-o json, -j 1": ["-o", "json", "-j", "1"], "text, -j 1": ["-j", "1"]}
    commands = {label: ([*dractl, *options], ENV) for label, options in variants.items()}
    out = path.with_suffix(".out")
    their = path.with_suffix(".upstream")
    if baseline is not None:
        # The same commands run from another copy of the source, in the same pairs.
        env = {**ENV, "PYTHONPATH": str(baseline)}
        commands |= {label.replace("dractl ", "baseline ") if label.startswith("dractl ") else f"baseline {label}":
                     ([*dractl, *options], env) for label, options in variants.items()}
        timed([*dractl, "--node", "node-0"], out, env)
    timed([*dractl, "--node", "node-0"], out)  # fills the byte code cache
    for _ in range(repeat):
        upstream = None
        if side_by_side and os.access(UPSTREAM, os.X_OK):
            figures.add("upstream", timed([str(UPSTREAM), "-all-nodes", "-repeat", "1", "-per-node", str(path)], their))
            upstream = their
        for label, (command, env) in commands.items():
            run = timed(command, out, env)
            if "json" in label:
                digest = isolated(check, name, nodes, out, upstream, pod, reference)
                if label.startswith("baseline"):
                    figures.baseline_same = figures.baseline_same and digest == figures.answer
                else:
                    figures.answer = figures.answer or digest
            figures.add(label, run)
    out.unlink(missing_ok=True)
    their.unlink(missing_ok=True)
    if memory:
        for label, (command, env) in commands.items():
            figures.memory[label] = summed_memory(command, env)
    return figures


def summed_memory(command: list[str], env: dict[str, str] | None = None) -> float:
    """The peak of the summed proportional set size (PSS: a page shared by several processes is
    divided among them) of a command's processes, sampled every 20 ms, in MB: the peak RSS that
    wait4 reports is that of the largest process alone, and forked workers share pages."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT,
                               env=env or ENV)
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


FILTER_NODES = 1000


def filters_here(repeat: int = 20) -> str:
    """The scheduler's Filter plugins on every node of the 1,000 x 8 Pod shape, with the
    allocator's search answered at once (a stand-in outcome): what the plugins cost per node
    around the search (CPU time), best of ``repeat`` passes, each over fresh node states (as one
    run of explain sees them). In this process: imports the dractl of PYTHONPATH."""
    from dractl.allocator import NodeInfo
    from dractl.allocator.inputs import plan
    from dractl.api.model import build_all
    from dractl.api.releases import Features
    from dractl.api.workspace import Workspace
    from dractl.explain.run import UNREAD
    from dractl.explain.scheduling import Attempt, Cluster
    from dractl.load import load_text
    from dractl.synthetic import cluster

    objects = cluster(FILTER_NODES, 8, pod=True)
    loaded = load_text("\n---\n".join(json.dumps(o) for o in objects), "cluster.yaml", comments=False,
                       omit=UNREAD, marks=False)
    workspace = Workspace(build_all(loaded.objects, share=True))
    nodes = [NodeInfo.from_object(obj) for _, obj in sorted(workspace.nodes.items())]
    (unit,) = plan(workspace, (), [])

    class Allocated:  # what the DynamicResources plugin reads of the allocator's outcome
        status = "allocated"
        allocations: ClassVar[list[dict[str, Any]]] = [{}]
        error = trace = None

    outcome: Any = Allocated()
    features = Features()
    best = float("inf")
    for _ in range(repeat):
        attempt = Attempt(Cluster(workspace, nodes, features), unit, lambda node, claims: outcome)
        start = time.process_time()  # CPU time: steadier than wall time on a shared machine
        for node in nodes:
            attempt.filter(node)
        best = min(best, time.process_time() - start)
    return f"{best / len(nodes) * 1e6:.2f}"


def filters(baseline: Path | None) -> None:
    """``filters_here`` in a process of its own, for dractl and the baseline."""
    for label, path in (("dractl", ROOT), ("baseline", baseline)):
        if path is None:
            continue
        env = {**ENV, "PYTHONPATH": str(path)}
        per_node = subprocess.run([sys.executable, __file__, "--filters-here"], env=env, cwd=ROOT, check=True,
                                  capture_output=True, text=True).stdout.strip()
        print(f"Filter plugins around the search, {FILTER_NODES:,} x 8 Pod shape, {label}: {per_node} us per node")


def report(name: str, size_mb: float, figures: Figures) -> dict[str, tuple[float, float]]:
    print(f"{name} ({size_mb:.1f} MB)")
    print(f"  {'':<22} {'wall':>8} {'cpu':>8} {'peak':>8}   {'x upstream (wall, cpu)':>22}")
    base = figures.runs.get("upstream")
    medians = {}
    for label, runs in figures.runs.items():
        wall = statistics.median(r.wall for r in runs)
        cpu = statistics.median(r.cpu for r in runs)
        peak = max(r.peak_mb for r in runs)
        medians[label] = (wall, cpu)
        ratio = ""
        if base is not None and label != "upstream":
            wall_ratio = statistics.median(r.wall / b.wall for r, b in zip(runs, base, strict=True))
            cpu_ratio = statistics.median(r.cpu / b.cpu for r, b in zip(runs, base, strict=True))
            ratio = f"{wall_ratio:10.2f}x {cpu_ratio:8.2f}x"
        memory = f"   all processes {figures.memory[label]:.0f}MB" if label in figures.memory else ""
        print(f"  {label:<22} {wall:7.2f}s {cpu:7.2f}s {peak:6.0f}MB   {ratio}{memory}")
    if any(label.startswith("baseline") for label in figures.runs):
        print(f"  baseline's answers {'the same bytes' if figures.baseline_same else 'DIFFER'}")
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also 15,000 nodes and their kubectl dumps")
    parser.add_argument("--upstream-large", action="store_true",
                        help="also the upstream binary on 15,000 nodes (minutes of CPU per run)")
    parser.add_argument("--only", action="append", default=[],
                        help="only the cluster of this name, or those whose name contains this (repeatable)")
    parser.add_argument("--serial", action="store_true", help="also dractl in one process (-j 1)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also dractl from another copy of the source (DIR holds its dractl package, e.g. a "
                             "copy of the tree before a change), in the same pairs")
    parser.add_argument("--filters", action="store_true",
                        help="only the scheduler's Filter plugins per node around the allocator's search, in process")
    parser.add_argument("--filters-here", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true",
                        help="also the peak memory of all of dractl's processes (PSS, Linux), one more run each")
    args = parser.parse_args()
    if args.filters_here:
        print(filters_here())
        return
    if args.filters:
        filters(args.baseline)
        return
    if not os.access(UPSTREAM, os.X_OK):
        print(f"upstream binary not found ({UPSTREAM}): its columns are skipped")
    cases = [("1,000 x 8", 1000, 0, None, False), ("1,000 x 8, Pod", 1000, 0, None, True),
             ("1,000 x 8 + 1,000 network devices", 1000, 1000, None, False),
             ("1,000 x 8, kubectl -o yaml", 1000, 0, "yaml", False), ("1,000 x 8, kubectl -o json", 1000, 0, "json", False),
             ("1,000 x 8, Pod, kubectl -o yaml", 1000, 0, "yaml", True),
             ("1,000 x 8, Pod, kubectl -o json", 1000, 0, "json", True)]
    if args.large:
        cases += [("15,000 x 8", 15000, 0, None, False), ("15,000 x 8, Pod", 15000, 0, None, True),
                  ("15,000 x 8, kubectl -o yaml", 15000, 0, "yaml", False),
                  ("15,000 x 8, kubectl -o json", 15000, 0, "json", False),
                  ("15,000 x 8, Pod, kubectl -o yaml", 15000, 0, "yaml", True),
                  ("15,000 x 8, Pod, kubectl -o json", 15000, 0, "json", True)]
    names = [name for name, *_ in cases]

    def chosen(name: str) -> bool:
        # A whole name selects that cluster alone; a part of names, those that contain it.
        return not args.only or any(name == only if only in names else only in name for only in args.only)

    medians: dict[str, dict[str, tuple[float, float]]] = {}
    answers: dict[tuple[int, int, bool], str] = {}  # the digest of the manifests' answer, for their dumps
    with tempfile.TemporaryDirectory() as folder:
        for name, nodes, network, kubectl, pod in cases:
            if not chosen(name):
                continue
            path = Path(folder) / f"cluster.{kubectl or 'yaml'}"
            # Written by another process: a child's peak memory counts its parent's at the fork,
            # and a dump of 15,000 nodes takes GBs to generate.
            with path.open("w") as out:
                subprocess.run([sys.executable, "-m", "dractl.synthetic", str(nodes), "8", str(network),
                                *(["--pod"] if pod else []), *(["--kubectl", kubectl] if kubectl else [])],
                               stdout=out, check=True, env=ENV)
            side_by_side = kubectl is None and (nodes <= 1000 or args.upstream_large)
            figures = measure(name, path, nodes, args.repeat, side_by_side, args.serial, args.memory, pod,
                              answers.get((nodes, network, pod)) if kubectl else None, args.baseline)
            if kubectl is None:
                answers[(nodes, network, pod)] = figures.answer
            medians[name] = report(name, path.stat().st_size / 1e6, figures)
            path.unlink()
    labels = ("dractl -o json", "dractl (text)")
    for name, found in medians.items():
        for label in labels:
            base = label.replace("dractl ", "baseline ")
            if base in found:
                (wall, cpu), (wall0, cpu0) = found[label], found[base]
                print(f"{name}, {label} / baseline: {wall / wall0:.2f}x wall, {cpu / cpu0:.2f}x CPU")
    small, large = medians.get("1,000 x 8"), medians.get("15,000 x 8")
    if small and large:
        for label in labels:
            print(f"1,000 -> 15,000 nodes, {label}: {large[label][1] / small[label][1]:.1f}x CPU")
    for name in sorted(medians):
        if ", Pod" not in name:
            continue
        claim_only = medians.get(name.replace(", Pod", ""))
        if claim_only:
            for label in labels:
                (wall, cpu), (wall0, cpu0) = medians[name][label], claim_only[label]
                print(f"{name} / claim only, {label}: {wall / wall0:.2f}x wall, {cpu / cpu0:.2f}x CPU")
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
