"""``dractl server``: keystroke-to-diagnostics latency on one manifest, and memory on a large
workspace.

Run from the repository root: ``python benchmarks/server.py [--lines 300] [--rounds 20]
[--files 500] [--devices 32] [--keystrokes 10]``. The server is the ``dractl`` script installed
beside this interpreter (``python -m dractl`` without one), started over stdio as an editor
starts it, with byte code cached as for an installed package; nothing else is cached. The
numbers are wall-clock times: on a shared machine, run it twice.

Latency: a folder with one manifest of about ``--lines`` lines (a DeviceClass, a ResourceClaim
with a CEL selector, a ResourceSlice with as many devices as it takes) is opened (with no
debounce); after a first check, each round changes one character of the claim (``count: 1`` <->
``count: 2``) and waits for the diagnostics. It prints the median and the slowest round end to
end, and the same for the check alone (the server's check, forked as the server forks it, called
in this process without the protocol). Goal: diagnostics within 100 ms for 300 lines.

Memory: a workspace of ``--files`` manifests as a team's repository holds them (DeviceClasses
with selectors, ResourceSlices of ``--devices`` GPUs or NICs each, ResourceClaims,
ResourceClaimTemplates and Pods that use them, a namespace file; a few of them with mistakes) is
opened as a folder; a claim is opened and, once its diagnostics are in, hovered on its selector
(which evaluates it on every device of the workspace) and changed ``--keystrokes`` times, each
change waiting for its diagnostics. It prints the times, the server's resident memory after the
first check, after the first and the last keystroke, its peak (``VmHWM``) and the peak of the
server and the checks it forks together (the server's resident memory plus the pages the
children do not share with it, sampled every 50 ms; Linux). Goal: under 300 MB for 500 manifests.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)

HEAD = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpus
  namespace: ml
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.example.com
        count: 1
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
"""
COUNT_LINE = HEAD.splitlines().index("        count: 1")


def manifest(lines: int) -> str:
    devices = []
    for i in range(max((lines - HEAD.count("\n")) // 7, 1)):
        devices.append(
            f"  - name: gpu-{i}\n"
            "    attributes:\n"
            f"      model: {{string: {'A100' if i % 2 else 'H100'}}}\n"
            f"      dra.example.com/numa: {{int: {i % 2}}}\n"
            f"      uuid: {{string: GPU-{i:08d}}}\n"
            "    capacity:\n"
            f"      memory: {{value: {40 if i % 3 else 80}Gi}}\n"
        )
    return HEAD + "".join(devices)


# --- a large workspace --------------------------------------------------------------------------

GPU, NIC = "gpu.example.com", "nic.example.com"
NAMESPACES = ("ml", "inference", "research", "batch")
CLASSES = {
    # name: (driver, selector)
    GPU: (GPU, f'device.driver == "{GPU}"'),
    "a100.gpu.example.com": (
        GPU,
        f'device.driver == "{GPU}" && device.attributes["{GPU}"].model == "A100"',
    ),
    "h100.gpu.example.com": (
        GPU,
        f'device.driver == "{GPU}" && device.attributes["{GPU}"].model == "H100"',
    ),
    "large.gpu.example.com": (
        GPU,
        f'device.driver == "{GPU}" && device.capacity["{GPU}"].memory.compareTo(quantity("64Gi")) >= 0',
    ),
    NIC: (NIC, f'device.driver == "{NIC}"'),
    "rdma.nic.example.com": (NIC, f'device.driver == "{NIC}" && device.attributes["{NIC}"].rdma'),
}
CLAIM_SELECTORS = (
    f'device.attributes["{GPU}"].model == "H100"',
    f'device.capacity["{GPU}"].memory.compareTo(quantity("40Gi")) >= 0',
    f'device.attributes["{GPU}"].driverVersion.isGreaterThan(semver("1.2.0"))',
    'device.attributes["dra.example.com"].numa == 0',
    f'device.attributes["{GPU}"].index < 4',
    f'device.attributes["{NIC}"].speed >= 100',
)


def class_doc(name: str) -> str:
    driver, selector = CLASSES[name]
    return (
        f"# Devices of {driver}{' that ' + name.split('.')[0] + ' jobs ask for' if name != driver else ''}.\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        f"metadata:\n  name: {name}\nspec:\n  selectors:\n  - cel:\n      expression: '{selector}'\n"
    )


def slice_doc(node: int, devices: int) -> str:
    """A node's GPUs (two nodes in three) or NICs, as a driver publishes them."""
    if node % 3 == 2:
        head = f"# NICs of node-{node}.\n"
        driver, kind = NIC, "nic"
    else:
        head = (
            f"# GPUs of node-{node}: {devices} {'A100' if node % 3 else 'H100'}, two NUMA nodes.\n"
        )
        driver, kind = GPU, "gpu"
    out = [
        head,
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\n",
        f"metadata:\n  name: node-{node}-{driver}-{node * 7919 % 100000:05d}\n",
        f"spec:\n  driver: {driver}\n  nodeName: node-{node}\n",
        f"  pool:\n    name: node-{node}\n    generation: 1\n    resourceSliceCount: 1\n  devices:\n",
    ]
    for i in range(devices):
        out.append(f"  - name: {kind}-{i}\n    attributes:\n")
        if kind == "gpu":
            out.append(
                f"      model: {{string: {'A100' if node % 3 else 'H100'}}}\n"
                f"      index: {{int: {i}}}\n"
                f"      driverVersion: {{version: 1.{node % 4}.{i % 3}}}\n"
                f"      dra.example.com/numa: {{int: {i * 2 // devices}}}\n"
                f"      pcieRoot: {{string: pci-{node:04d}-{i // 4}}}\n"
                f"      uuid: {{string: GPU-{node:08x}-{i:04x}-4f3a-9b1c-0a1b2c3d4e5f}}\n"
                f"    capacity:\n      memory: {{value: {'40Gi' if node % 3 else '80Gi'}}}\n"
                f"      multiprocessors: {{value: {108 if node % 3 else 132}}}\n"
            )
        else:
            out.append(
                f"      speed: {{int: {100 if i % 2 else 200}}}\n"
                f"      rdma: {{bool: {'true' if i % 2 else 'false'}}}\n"
                f"      dra.example.com/numa: {{int: {i * 2 // devices}}}\n"
                f"      mac: {{string: '02:00:{node // 256:02x}:{node % 256:02x}:00:{i:02x}'}}\n"
            )
    return "".join(out)


def request(name: str, n: int, indent: str) -> str:
    """A request for GPUs (or NICs), with a selector most of the time; one in 25 asks for a class
    nobody defined (DRA301), one in 40 for -1 devices (DRA120)."""
    klass = list(CLASSES)[n % len(CLASSES)]
    if n % 25 == 24:
        klass = "tpu.example.com"
    count = -1 if n % 40 == 39 else 1 + n % 4
    text = f"{indent}- name: {name}\n{indent}  exactly:\n{indent}    deviceClassName: {klass}\n{indent}    count: {count}\n"
    if n % 5:
        driver = CLASSES.get(klass, (GPU, ""))[0]
        choices = [
            s for s in CLAIM_SELECTORS if (NIC in s) == (driver == NIC) or "dra.example.com" in s
        ]
        text += (
            f"{indent}    selectors:\n{indent}    - cel:\n"
            f"{indent}        expression: '{choices[n % len(choices)]}'\n"
        )
    return text


def claim_doc(n: int) -> str:
    return (
        f"# Shared devices of team {n % 12}.\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
        f"metadata:\n  name: shared-{n}\n  namespace: {NAMESPACES[n % len(NAMESPACES)]}\n"
        "spec:\n  devices:\n    requests:\n" + request("devices", n, "    ")
    )


def template_doc(n: int) -> str:
    return (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
        f"metadata:\n  name: job-{n}\n  namespace: {NAMESPACES[n % len(NAMESPACES)]}\n"
        "spec:\n  spec:\n    devices:\n      requests:\n" + request("devices", n + 7, "      ")
    )


def pod_doc(n: int, claims: int, templates: int) -> str:
    namespace = NAMESPACES[n % len(NAMESPACES)]
    # a Pod uses a template or a claim of its own namespace
    if n % 2:
        ref = f"resourceClaimTemplateName: job-{(n * 4 + NAMESPACES.index(namespace)) % templates}"
    else:
        ref = f"resourceClaimName: shared-{(n * 4 + NAMESPACES.index(namespace)) % claims}"
    return (
        "apiVersion: v1\nkind: Pod\n"
        f"metadata:\n  name: worker-{n}\n  namespace: {namespace}\n  labels:\n    app: trainer\n"
        f"spec:\n  resourceClaims:\n  - name: devices\n    {ref}\n"
        "  containers:\n  - name: main\n    image: registry.example.com/trainer:2.1\n"
        "    command: [python, train.py]\n    resources:\n      requests:\n        cpu: '4'\n"
        "        memory: 16Gi\n      claims:\n      - name: devices\n"
    )


def write_workspace(folder: Path, files: int, devices: int) -> dict[str, int]:
    """``files`` manifests under ``folder`` in team folders; returns the count of each kind."""
    slices = files * 2 // 5
    claims = templates = files // 5
    pods = files - 1 - len(CLASSES) - slices - claims - templates
    (folder / "cluster").mkdir(parents=True)
    (folder / "cluster" / "namespaces.yaml").write_text(
        "---\n".join(
            f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n" for ns in NAMESPACES
        )
    )
    for name in CLASSES:
        (folder / "cluster" / f"class-{name}.yaml").write_text(class_doc(name))
    (folder / "slices").mkdir()
    for n in range(slices):
        (folder / "slices" / f"node-{n:03d}.yaml").write_text(slice_doc(n, devices))
    for n in range(claims):
        team = folder / f"team-{n % 12:02d}"
        team.mkdir(exist_ok=True)
        (team / f"claim-{n}.yaml").write_text(claim_doc(n))
    for n in range(templates):
        team = folder / f"team-{n % 12:02d}"
        (team / f"template-{n}.yaml").write_text(template_doc(n))
    for n in range(pods):
        team = folder / f"team-{n % 12:02d}"
        (team / f"pod-{n}.yaml").write_text(pod_doc(n, claims, templates))
    return {
        "Namespace files": 1,
        "DeviceClass": len(CLASSES),
        "ResourceSlice": slices,
        "ResourceClaim": claims,
        "ResourceClaimTemplate": templates,
        "Pod": pods,
    }


# --- the client ---------------------------------------------------------------------------------


def server_command() -> list[str]:
    """The installed ``dractl`` script next to this interpreter, as editors run it."""
    script = Path(sys.executable).with_name("dractl")
    return (
        [str(script), "server"] if script.exists() else [sys.executable, "-m", "dractl", "server"]
    )


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=PYCACHE)
    return env


class Session:
    """A language client over stdio to a server rooted in ``folder``, which collects what the
    server publishes."""

    def __init__(self, folder: Path) -> None:
        from lsprotocol import types
        from pygls.lsp.client import LanguageClient

        self.folder = folder
        self.client = LanguageClient("benchmark", "1")
        self.published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

        def published(params: types.PublishDiagnosticsParams) -> None:
            self.published.put_nowait(params)

        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(published)

    async def start(self) -> None:
        from lsprotocol import types

        command = server_command()
        await self.client.start_io(command[0], *command[1:], env=server_env())
        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=self.folder.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=self.folder.as_uri(), name="bench")],
                initialization_options={"debounceMs": 0},
            )
        )
        self.client.initialized(types.InitializedParams())

    def open(self, path: Path) -> str:
        from lsprotocol import types

        uri = path.as_uri()
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="yaml", version=1, text=path.read_text()
                )
            )
        )
        return uri

    def change(self, uri: str, version: int, line: int, start: int, end: int, text: str) -> None:
        from lsprotocol import types

        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=line, character=start),
                            end=types.Position(line=line, character=end),
                        ),
                        text=text,
                    )
                ],
            )
        )

    async def diagnostics_of(self, uri: str, version: int | None = None) -> Any:
        """The next diagnostics published for ``uri`` (of ``version`` if given)."""
        while True:
            found = await self.published.get()
            if found.uri == uri and (version is None or found.version == version):
                return found

    def peak_rss_mb(self) -> float | None:
        """The server process's peak resident set size (Linux), in MB."""
        server = self.client._server  # pygls keeps the process it started here
        if server is None:
            return None
        try:
            status = Path(f"/proc/{server.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return None

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()


async def end_to_end(path: Path, rounds: int) -> list[float]:
    session = Session(path.parent)
    await session.start()
    uri = session.open(path)
    await session.diagnostics_of(uri)  # the first check: imports, CEL compilation
    times = []
    for n in range(rounds):
        start = time.perf_counter()
        session.change(uri, n + 2, COUNT_LINE, 15, 16, "2" if n % 2 == 0 else "1")
        await session.diagnostics_of(uri, n + 2)
        times.append(time.perf_counter() - start)
    await session.stop()
    return times


def in_process(path: Path, rounds: int) -> list[float]:
    import gc

    from dractl.server.workspace import WorkspaceState

    gc.set_threshold(100_000, 50, 100)  # as dractl.cli.main sets it for every command

    state = WorkspaceState(str(path.parent))
    text = path.read_text()
    state.check({str(path): text})
    times = []
    for n in range(rounds):
        changed = text.replace("count: 1", "count: 2") if n % 2 == 0 else text
        start = time.perf_counter()
        state.check({str(path): changed})
        times.append(time.perf_counter() - start)
    return times


class Sampler:
    """The largest memory of the server and the check it forked, sampled while it works: the
    server's resident set plus what its children hold of their own (private pages; the rest they
    share with the server)."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self.pid = pid
        self.every = every
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            total = _status_kb(self.pid, "VmRSS")
            children = Path(f"/proc/{self.pid}/task/{self.pid}/children")
            try:
                pids = children.read_text().split()
            except OSError:
                pids = []
            for child in pids:
                total += _private_kb(int(child))
            self.peak_kb = max(self.peak_kb, total)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_kb / 1024


def _status_kb(pid: int, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _private_kb(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("Private_"))


async def large_workspace(folder: Path, keystrokes: int) -> dict[str, Any]:
    """Seconds to the first diagnostics of an opened claim, to a hover on its selector and from
    each of ``keystrokes`` keystrokes to its diagnostics; the server's memory on the way."""
    from lsprotocol import types

    claim = folder / "team-01" / "claim-1.yaml"
    lines = claim.read_text().splitlines()
    selector_line = next(i for i, line in enumerate(lines) if "expression:" in line)
    count_line = next(i for i, line in enumerate(lines) if "count:" in line)
    column = lines[count_line].index(":") + 2
    session = Session(folder)
    start = time.perf_counter()
    await session.start()
    server = session.client._server  # pygls keeps the process it started here
    assert server is not None
    sampler = Sampler(server.pid)
    uri = session.open(claim)
    await session.diagnostics_of(uri)
    out: dict[str, Any] = {"first": time.perf_counter() - start}
    out["rss_first"] = _status_kb(server.pid, "VmRSS") / 1024
    start = time.perf_counter()
    await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(
                line=selector_line, character=lines[selector_line].index(":") + 4
            ),
        )
    )
    out["hover"] = time.perf_counter() - start
    times = []
    for n in range(keystrokes):
        start = time.perf_counter()
        session.change(uri, n + 2, count_line, column, column + 1, "3" if n % 2 == 0 else "2")
        await session.diagnostics_of(uri, n + 2)
        times.append(time.perf_counter() - start)
        if n == 0:
            out["rss_keystroke"] = _status_kb(server.pid, "VmRSS") / 1024
    out["keystrokes"] = times
    out["rss_last"] = _status_kb(server.pid, "VmRSS") / 1024
    out["peak"] = session.peak_rss_mb()
    out["peak_with_children"] = sampler.stop()
    await session.stop()
    return out


def show(name: str, times: list[float]) -> None:
    print(
        f"{name:<36} median {statistics.median(times) * 1000:7.1f} ms   slowest {max(times) * 1000:7.1f} ms"
    )


def timed(name: str, seconds: float) -> None:
    print(f"{name:<36} {seconds * 1000:7.0f} ms")


def megabytes(name: str, value: float | None) -> None:
    print(f"{name:<36} {value if value is not None else float('nan'):7.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300, help="lines of the latency manifest")
    parser.add_argument("--rounds", type=int, default=20, help="keystrokes timed")
    parser.add_argument(
        "--files", type=int, default=500, help="manifests of the large workspace (0: skip)"
    )
    parser.add_argument("--devices", type=int, default=32, help="devices per ResourceSlice there")
    parser.add_argument("--keystrokes", type=int, default=10, help="keystrokes timed there")
    args = parser.parse_args()
    # one unmeasured start, as after installation: byte code is compiled once
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "manifest.yaml"
        path.write_text(manifest(args.lines))
        asyncio.run(end_to_end(path, 1))
        print(f"{path.read_text().count(chr(10))} lines, {args.rounds} keystrokes")
        show("keystroke to diagnostics (stdio)", asyncio.run(end_to_end(path, args.rounds)))
        show("the check alone (no protocol)", in_process(path, args.rounds))
    if args.files:
        with tempfile.TemporaryDirectory() as folder:
            counts = write_workspace(Path(folder), args.files, args.devices)
            size = sum(p.stat().st_size for p in Path(folder).rglob("*.yaml"))
            lines = sum(p.read_text().count("\n") for p in Path(folder).rglob("*.yaml"))
            print(
                f"\n{args.files} manifests ({', '.join(f'{v} {k}' for k, v in counts.items())}; "
                f"{args.devices} devices a slice), {lines} lines, {size / 1e6:.1f} MB"
            )
            found = asyncio.run(large_workspace(Path(folder), args.keystrokes))
            timed("open a claim, first diagnostics", found["first"])
            timed("hover on its selector", found["hover"])
            show(f"{args.keystrokes} keystrokes to diagnostics", found["keystrokes"])
            megabytes("server RSS after the first check", found["rss_first"])
            megabytes("... after the first keystroke", found["rss_keystroke"])
            megabytes(f"... after keystroke {args.keystrokes}", found["rss_last"])
            megabytes("server peak RSS (VmHWM)", found["peak"])
            megabytes("peak with its forked checks", found["peak_with_children"])


if __name__ == "__main__":
    main()
