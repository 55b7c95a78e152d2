"""Milliseconds from a keystroke to its diagnostics in ``dractl server``, warm.

Run from the repository root: ``python benchmarks/server.py [--lines 300] [--rounds 20]``. A
folder with one manifest of about ``--lines`` lines (a DeviceClass, a ResourceClaim with a CEL
selector, a ResourceSlice with as many devices as it takes) is opened in a server started over
stdio (with no debounce); after a first check, each round changes one character of the claim
(``count: 1`` <-> ``count: 2``) and waits for the diagnostics. It prints the median and the
slowest round end to end, and the same for the check alone (the lint run inside the server's
process, without the protocol).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


async def end_to_end(path: Path, rounds: int) -> list[float]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("benchmark", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "dractl", "server")
    uri = path.as_uri()
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=path.parent.as_uri(),
            initialization_options={"debounceMs": 0},
        )
    )
    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=path.read_text())
        )
    )
    await published.get()  # the first check: imports, CEL compilation
    times = []
    for n in range(rounds):
        value = "2" if n % 2 == 0 else "1"
        start = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=n + 2),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=COUNT_LINE, character=15),
                            end=types.Position(line=COUNT_LINE, character=16),
                        ),
                        text=value,
                    )
                ],
            )
        )
        await published.get()
        times.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
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


def show(name: str, times: list[float]) -> None:
    print(f"{name:<36} median {statistics.median(times) * 1000:7.1f} ms   slowest {max(times) * 1000:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "manifest.yaml"
        path.write_text(manifest(args.lines))
        print(f"{path.read_text().count(chr(10))} lines, {args.rounds} keystrokes")
        show("keystroke to diagnostics (stdio)", asyncio.run(end_to_end(path, args.rounds)))
        show("the check alone (in process)", in_process(path, args.rounds))


if __name__ == "__main__":
    main()
