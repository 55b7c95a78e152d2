"""Large inputs: time and memory per MB of input for ``lint``, ``select``, ``explain`` and
``convert --check``, each in a fresh process of the installed package, against yardsticks timed
in the same run.

The families, written in YAML and in JSON (sizes at ``--scale 1``):

* ``slice``: one ResourceSlice of 16,000 devices, each with 14 attributes and 3 capacities
  (11.5 MB of YAML, 21 MB of indented JSON);
* ``stream``: 100,000 small documents (DeviceClasses, ResourceClaims, one-device
  ResourceSlices; 23 MB); in JSON, one ``kind: List`` of 100,000 items, one per line;
* ``long-string``: a ResourceClaim with an annotation of 1 MB on one line;
* ``long-flow``: a ResourceSlice whose 2,000 devices are one flow sequence on a line of 1.3 MB
  (in JSON, the whole file is one line);
* ``deep``: a ResourceClaim whose opaque parameters hold 2,000 values nested 88 levels deep, 96
  levels from the document's root, within the default limit of 100 (17 MB of YAML, most of it
  indentation; 37 MB of indented JSON).

Every command runs as a user runs it: the ``dractl`` script next to this interpreter, byte code
cached (one unmeasured run first), lint's cache cold (an empty cache folder per run), one
process (``--jobs 1`` where the command has it, so that the peak RSS is the whole run's).
``explain`` also reads a small file with a DeviceClass and a ResourceClaim (and, for the
families without devices, a ResourceSlice), so that it has a claim to explain; for the stream
it explains one claim (``--claim``).

Each process is timed (wall; CPU as user + system) and its peak RSS read from ``wait4``. The
same command on a tiny input of the same family is the baseline: the figures per MB are
``(CPU - baseline CPU) / input MB`` and ``(peak RSS - baseline peak RSS) / input MB``. Bounds are
on CPU time, which other work on a shared machine does not stretch; wall time is printed too.

Yardsticks, on the same files in the same run: PyYAML's C loader reading every document
(``yaml.load_all`` with ``CSafeLoader``, in a fresh interpreter), the floor for anything that
reads YAML from Python; yamllint, if installed (``--yamllint PATH``, else on PATH or next to this
interpreter; ``benchmarks/startup.py`` installs one in a virtual environment of its own), whose
ratio is printed too; and the upstream binary's decoding (``dra-upstream cel FILE true``: Go's
sigs.k8s.io/yaml and strict JSON decoding, then one CEL evaluation per device), if found
(``--upstream PATH``, else ``DRACTL_UPSTREAM``, else ``../shared/oracle/bin/dra-upstream``
beside the repository).

The bound (:data:`BOUNDS`), per MB of input above the baseline process: ``lint`` at most 1.5 s
of CPU and 40 MB of peak memory; ``select`` and ``explain`` at most 0.5 s and 30 MB;
``convert --check``, which reads with ruamel.yaml's round-trip parser to keep comments (pure
Python, 150 to 250 KB per CPU second, and about 100 MB of tree per MB), at most 8 s and 150 MB.
And where the C loader takes half a second or more (below that, start-up is most of any run):
``lint`` at most 6x the C loader's CPU time, ``select`` and ``explain`` 2x, ``convert`` 30x.

    python benchmarks/large_inputs.py [--scale 1.0] [--family NAME ...] [--form yaml|json]
        [--command NAME ...] [--yamllint PATH] [--upstream PATH] [--keep DIR] [--source DIR]
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DRIVER = "gpu.example.com"
SELECTOR = f'device.driver == "{DRIVER}"'

# (CPU seconds, MB of peak RSS) per MB of input above the baseline process, and the most x the
# C loader's CPU time.
BOUNDS: dict[str, tuple[float, float, float]] = {
    "lint": (1.5, 40.0, 6.0),
    "select": (0.5, 30.0, 2.0),
    "explain": (0.5, 30.0, 2.0),
    "convert": (8.0, 150.0, 30.0),
}
RATIO_MIN_SECONDS = 0.5  # the C loader's CPU below which a ratio says more about start-up

PYCACHE = tempfile.mkdtemp(prefix="dractl-bench-pycache-")
atexit.register(shutil.rmtree, PYCACHE, ignore_errors=True)
CACHES = tempfile.mkdtemp(prefix="dractl-bench-cache-")
atexit.register(shutil.rmtree, CACHES, ignore_errors=True)
ENV = {
    k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "DRACTL_NO_CACHE")
}
ENV.update(PYTHONPYCACHEPREFIX=PYCACHE, NO_COLOR="1")


# --- writing the inputs ------------------------------------------------------------------------

_PLAIN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*")
# Plain scalars kubectl (YAML 1.1) reads as booleans or null: written quoted.
_YAML11_WORDS = frozenset(
    form
    for word in ("y", "yes", "n", "no", "true", "false", "on", "off", "null")
    for form in (word, word.capitalize(), word.upper())
)


def scalar(value: Any) -> str:
    """A scalar as YAML reads it back the same (kubectl's YAML 1.1 included)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and _PLAIN_RE.fullmatch(value) and value not in _YAML11_WORDS:
        return value
    return json.dumps(value)


def flow(value: Any) -> str:
    """``value`` in YAML flow style, plain scalars where they read back the same."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def block(value: Any, indent: int = 0) -> Iterator[str]:
    """``value`` in block style as kubectl writes it (sequences not indented under their key);
    mappings of one scalar (``{string: A100}``) in flow style, as manifests write attributes."""
    pad = " " * indent
    if isinstance(value, list):
        for item in value:
            lines = list(block(item, indent + 2))
            if not lines:
                yield f"{pad}- []"
                continue
            yield f"{pad}- {lines[0][indent + 2 :]}"
            yield from lines[1:]
        return
    for key, item in value.items():
        if (
            isinstance(item, dict)
            and item
            and len(item) <= 1
            and not isinstance(next(iter(item.values())), dict | list)
        ):
            yield f"{pad}{scalar(key)}: {flow(item)}"
        elif isinstance(item, dict) and item:
            yield f"{pad}{scalar(key)}:"
            yield from block(item, indent + 2)
        elif isinstance(item, list) and item:
            yield f"{pad}{scalar(key)}:"
            yield from block(item, indent)
        else:
            yield f"{pad}{scalar(key)}: {flow(item)}"


def yaml_text(documents: list[dict[str, Any]]) -> str:
    return "".join("---\n" + "\n".join(block(doc)) + "\n" for doc in documents)


def device(i: int) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "model": {"string": "H100" if i % 3 else "A100"},
        "uuid": {"string": f"GPU-{i:08d}-0c4a-7b8e-1d2f-4f3a9b1c0a1b"},
        "driverVersion": {"version": f"1.2.{i % 7}"},
        "index": {"int": i},
        "numa": {"int": i % 2},
        "pcieRoot": {"string": f"pci-{i // 4}"},
        "healthy": {"bool": True},
    }
    for a in range(7):
        attributes[f"{DRIVER}/feature-{a}"] = {"string": f"value-{i % 50}-{a}"}
    return {
        "name": f"gpu-{i}",
        "attributes": attributes,
        "capacity": {
            "memory": {"value": "80Gi"},
            "cores": {"value": str(i % 100 + 1)},
            "bandwidth": {"value": "900G"},
        },
    }


def resource_slice(
    name: str, devices: list[dict[str, Any]], node: str = "node-1"
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def device_class(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": SELECTOR}}]},
    }


def claim(name: str, class_name: str, **extra: Any) -> dict[str, Any]:
    request: dict[str, Any] = {"name": "gpu", "exactly": {"deviceClassName": class_name}}
    out: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default", **extra.pop("metadata", {})},
        "spec": {"devices": {"requests": [request], **extra}},
    }
    return out


class Family:
    """One shape of input: ``documents(scale)``, and how the flow family writes its YAML."""

    def __init__(
        self,
        name: str,
        documents: Callable[[float], list[dict[str, Any]]],
        has_devices: bool,
        claim_name: str | None = None,
        yaml_writer: Callable[[list[dict[str, Any]]], str] = yaml_text,
    ) -> None:
        self.name = name
        self.documents = documents
        self.has_devices = has_devices
        self.claim_name = claim_name  # explain --claim (the stream holds many)
        self.yaml_writer = yaml_writer


def _slice(scale: float) -> list[dict[str, Any]]:
    return [resource_slice("big", [device(i) for i in range(max(2, int(16_000 * scale)))])]


def _stream(scale: float) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for i in range(max(3, int(100_000 * scale))):
        if i % 3 == 0:
            docs.append(device_class(f"class-{i}"))
        elif i % 3 == 1:
            docs.append(claim(f"claim-{i}", f"class-{i - 1}"))
        else:
            gpu = {
                "name": "gpu-0",
                "attributes": {"model": {"string": "H100"}, "index": {"int": i}},
                "capacity": {"memory": {"value": "80Gi"}},
            }
            docs.append(resource_slice(f"slice-{i}", [gpu], f"node-{i % 100}"))
    return docs


def _long_string(scale: float) -> list[dict[str, Any]]:
    note = "x" * max(16, int(2**20 * scale))
    return [claim("annotated", DRIVER, metadata={"annotations": {"example.com/note": note}})]


def _long_flow(scale: float) -> list[dict[str, Any]]:
    # A device in flow style is about 530 bytes.
    return [resource_slice("flow", [device(i) for i in range(max(2, int(2**20 * scale / 530)))])]


def _flow_devices(documents: list[dict[str, Any]]) -> str:
    doc = documents[0]
    devices = doc["spec"].pop("devices")
    head = "\n".join(block(doc))
    doc["spec"]["devices"] = devices
    return f"---\n{head}\n  devices: {flow(devices)}\n"


def _deep(scale: float) -> list[dict[str, Any]]:
    def nested(depth: int, leaf: int) -> Any:
        value: Any = leaf
        for _ in range(depth):
            value = {"a": value}
        return value

    parameters = {"values": [nested(88, i) for i in range(max(1, int(2_000 * scale)))]}
    config = [{"opaque": {"driver": DRIVER, "parameters": parameters}}]
    return [claim("deep", DRIVER, config=config)]


FAMILIES = [
    Family("slice", _slice, True),
    Family("stream", _stream, True, claim_name="default/claim-1"),
    Family("long-string", _long_string, False),
    Family("long-flow", _long_flow, True, yaml_writer=_flow_devices),
    Family("deep", _deep, False),
]
TINY = 0.0002  # the baseline: the same family and command on a few KB


def write(family: Family, form: str, scale: float, folder: Path) -> Path:
    """The input file, written by a forked child: Linux counts the RSS a process had when it
    started a program in that program's peak (``ru_maxrss``), so the process that times the
    commands must stay small."""
    path = folder / f"{family.name}-{scale:g}.{form}"
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child)
        code = 1
        try:
            _write(family, form, scale, path)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"could not write {path}")
    return path


def _write(family: Family, form: str, scale: float, path: Path) -> None:
    documents = family.documents(scale)
    if form == "yaml":
        path.write_text(family.yaml_writer(documents), encoding="utf-8")
    elif family.name == "long-flow":  # minified: the whole file is one line
        path.write_text(json.dumps(documents[0], separators=(",", ":")), encoding="utf-8")
    elif len(documents) == 1:
        path.write_text(json.dumps(documents[0], indent=2), encoding="utf-8")
    else:  # a List, one item per line (kubectl's indented form would be three times the size)
        items = ",\n".join(json.dumps(doc, separators=(",", ":")) for doc in documents)
        path.write_text(
            f'{{"apiVersion": "v1", "kind": "List", "items": [\n{items}\n]}}\n', encoding="utf-8"
        )


def explain_context(folder: Path) -> Path:
    path = folder / "context.yaml"
    path.write_text(
        yaml_text(
            [device_class(DRIVER), claim("one-gpu", DRIVER), resource_slice("context", [device(0)])]
        ),
        encoding="utf-8",
    )
    return path


# --- running -----------------------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mb: float
    exit_code: int
    stderr: str


def run(command: list[str], env: dict[str, str] | None = None) -> Run:
    """One process, its wall and CPU time and peak RSS (from ``wait4``)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env or ENV, cwd=ROOT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Run(
        wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, process.returncode, text
    )


def dractl_command() -> list[str]:
    """The installed ``dractl`` script next to this interpreter, as users run it."""
    script = Path(sys.executable).with_name("dractl")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dractl"]


def commands(family: Family, path: Path, context: Path) -> dict[str, list[str]]:
    dractl = dractl_command()
    out = {
        "lint": [*dractl, "lint", "--no-config", "-j", "1", str(path)],
        "select": [*dractl, "select", SELECTOR, str(path)],
        "explain": [*dractl, "explain", "-j", "1", str(path), str(context)],
        "convert": [*dractl, "convert", "--check", str(path)],
    }
    if family.claim_name:
        out["explain"] += ["--claim", family.claim_name]
    else:
        out["explain"] += ["--claim", "default/one-gpu"]
    return out


EXPECTED_EXIT = {"lint": (0, 1), "select": (0, 1), "explain": (0, 1), "convert": (0, 1)}


def lint_env() -> dict[str, str]:
    """A cold lint cache: an empty folder of its own."""
    return {**ENV, "DRACTL_CACHE_DIR": tempfile.mkdtemp(dir=CACHES)}


def yardsticks(path: Path, yamllint: list[str] | None, upstream: str | None) -> dict[str, Run]:
    loader = (
        "import sys, yaml\n"
        "with open(sys.argv[1], encoding='utf-8') as f:\n"
        "    for _ in yaml.load_all(f, Loader=yaml.CSafeLoader): pass\n"
    )
    found = {"C loader": run([sys.executable, "-c", loader, str(path)])}
    if yamllint:
        found["yamllint"] = run([*yamllint, "-d", "relaxed", str(path)])
    if upstream:
        found["upstream"] = run([upstream, "cel", str(path), "true"])
    return found


def find_yamllint(given: str | None) -> list[str] | None:
    if given:
        return [given]
    for candidate in (shutil.which("yamllint"), str(Path(sys.executable).with_name("yamllint"))):
        if candidate and os.access(candidate, os.X_OK):
            return [candidate]
    return None


def find_upstream(given: str | None) -> str | None:
    candidate = (
        given
        or os.environ.get("DRACTL_UPSTREAM")
        or str(ROOT.parent / "shared" / "oracle" / "bin" / "dra-upstream")
    )
    return candidate if os.access(candidate, os.X_OK) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--scale", type=float, default=1.0, help="input sizes (1: about 12 MB for the slice)"
    )
    parser.add_argument("--family", action="append", choices=[f.name for f in FAMILIES])
    parser.add_argument("--form", action="append", choices=["yaml", "json"])
    parser.add_argument("--command", action="append", choices=list(BOUNDS))
    parser.add_argument("--yamllint", help="a yamllint executable (default: on PATH, if installed)")
    parser.add_argument("--no-yamllint", action="store_true")
    parser.add_argument("--upstream", help="the upstream binary (default: $DRACTL_UPSTREAM)")
    parser.add_argument("--keep", type=Path, help="write the inputs here and keep them")
    parser.add_argument(
        "--source",
        type=Path,
        help="run the dractl package of this folder (e.g. a copy of the tree before a change)",
    )
    args = parser.parse_args()
    if args.source:
        ENV["PYTHONPATH"] = str(args.source.resolve())
    yamllint = None if args.no_yamllint else find_yamllint(args.yamllint)
    upstream = find_upstream(args.upstream)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="dractl-large-"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.keep is None:
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    context = explain_context(folder)
    names = args.command or list(BOUNDS)
    source = f" (PYTHONPATH={args.source})" if args.source else ""
    print(f"dractl: {' '.join(dractl_command())}{source}")
    print(
        f"yamllint: {yamllint[0] if yamllint else 'not installed'}; upstream: {upstream or 'not found'}"
    )
    print(
        "per MB: (value - the same command on a tiny input) / input MB; x: CPU / the yardstick's CPU"
    )
    header = (
        f"{'input':24} {'MB':>6} {'command':8} {'exit':>4} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} "
        f"{'CPU s/MB':>8} {'MB/MB':>6} {'x C loader':>10}"
        + (f" {'x yamllint':>10}" if yamllint else "")
        + "  bound"
    )
    failures = 0
    for family in FAMILIES:
        if args.family and family.name not in args.family:
            continue
        for form in args.form or ["yaml", "json"]:
            path = write(family, form, args.scale, folder)
            tiny = write(family, form, TINY, folder)
            size = path.stat().st_size / 2**20
            sticks = yardsticks(path, yamllint, upstream)
            print()
            print(
                f"{family.name} ({form}), {size:.1f} MB: "
                + ", ".join(
                    f"{name} {r.cpu:.2f} s CPU ({r.wall:.2f} s wall), {r.peak_mb:.0f} MB"
                    + ("" if r.exit_code in (0, 1) else f" (exit {r.exit_code})")
                    for name, r in sticks.items()
                )
            )
            print(header)
            loader = sticks["C loader"].cpu
            big, small = commands(family, path, context), commands(family, tiny, context)
            for name in names:
                env = lint_env if name == "lint" else (lambda: ENV)
                run(small[name], env())  # byte code compiled: not measured
                base = run(small[name], env())
                measured = run(big[name], env())
                per_s = (measured.cpu - base.cpu) / size
                per_mb = (measured.peak_mb - base.peak_mb) / size
                ratio = measured.cpu / loader
                limit_s, limit_mb, limit_ratio = BOUNDS[name]
                ok = (
                    measured.exit_code in EXPECTED_EXIT[name]
                    and per_s <= limit_s
                    and per_mb <= limit_mb
                )
                if loader >= RATIO_MIN_SECONDS:
                    ok = ok and ratio <= limit_ratio
                failures += not ok
                verdict = "met" if ok else "NOT met"
                if measured.exit_code not in EXPECTED_EXIT[name]:
                    verdict += f": {measured.stderr.strip().splitlines()[-1:]}"
                versus_yamllint = (
                    f" {measured.cpu / sticks['yamllint'].cpu:10.2f}"
                    if "yamllint" in sticks
                    else ""
                )
                print(
                    f"{f'{family.name} ({form})':24} {size:6.1f} {name:8} {measured.exit_code:4d} "
                    f"{measured.wall:7.2f} {measured.cpu:7.2f} {measured.peak_mb:8.0f} {per_s:8.2f} "
                    f"{per_mb:6.1f} {ratio:10.2f}{versus_yamllint}  {verdict}"
                )
    print()
    print(
        "bounds per MB of input: "
        + "; ".join(
            f"{name} {s:g} s CPU, {mb:g} MB, {r:g}x the C loader"
            for name, (s, mb, r) in BOUNDS.items()
        )
    )
    print("all met" if not failures else f"{failures} not met")


if __name__ == "__main__":
    main()
