"""Large inputs (issue 25, family 11), at sizes a test can afford: correct results (every
value, every position, the findings) for a large ResourceSlice, a long stream, a line of a
megabyte and nesting at the limit, in YAML and JSON; the reader's memory proportional to the
input; and behaviours that were quadratic staying linear, compared on two sizes with a generous
factor (never against an absolute time). ``benchmarks/large_inputs.py`` measures the full sizes
(12 MB, 100,000 documents) against its bound per MB.
"""

from __future__ import annotations

import json
import re
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from dractl.api.model import build_all
from dractl.cli.testing import invoke
from dractl.lint.engine import Settings, lint
from dractl.load import LoadResult, load_text
from dractl.load.fast import load_fast

DRIVER = "gpu.example.com"


def device(i: int) -> dict[str, Any]:
    return {
        "name": f"gpu-{i}",
        "attributes": {
            "model": {"string": "H100" if i % 3 else "A100"},
            "index": {"int": i},
            "healthy": {"bool": i % 2 == 0},
            "driverVersion": {"version": f"1.2.{i % 7}"},
        },
        "capacity": {"memory": {"value": "80Gi"}, "cores": {"value": i % 100 + 1}},
    }


def resource_slice(name: str, devices: int, node: str = "node-1") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": [device(i) for i in range(devices)],
        },
    }


def _flow(value: Any) -> str:
    """YAML flow style with plain scalars (every value here reads back as itself)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _block(value: Any, indent: int = 0) -> list[str]:
    """YAML block style as kubectl writes it; one-entry mappings of a scalar in flow style."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, list):
        for item in value:
            inner = _block(item, indent + 2)
            lines.append(f"{pad}- {inner[0].lstrip()}")
            lines += inner[1:]
        return lines
    for key, item in value.items():
        if (
            isinstance(item, dict)
            and len(item) == 1
            and not isinstance(next(iter(item.values())), dict | list)
        ):
            lines.append(f"{pad}{key}: {_flow(item)}")
        elif isinstance(item, dict):
            lines.append(f"{pad}{key}:")
            lines += _block(item, indent + 2)
        elif isinstance(item, list):
            lines.append(f"{pad}{key}:")
            lines += _block(item, indent)
        else:
            lines.append(f"{pad}{key}: {_flow(item)}")
    return lines


def yaml_text(data: dict[str, Any]) -> str:
    return "\n".join(_block(data)) + "\n"


def flow_text(data: dict[str, Any]) -> str:
    """The slice with its devices as one flow sequence: a line of ``len(devices)`` * 200 bytes."""
    head = {k: v for k, v in data["spec"].items() if k != "devices"}
    doc = {**data, "spec": head}
    return yaml_text(doc) + f"  devices: {_flow(data['spec']['devices'])}\n"


def at(text: str, token: str) -> tuple[int, int]:
    """1-based line and column of the only occurrence of ``token``."""
    offset = text.index(token)
    assert text.find(token, offset + 1) == -1, token
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


FORMS: dict[str, tuple[str, Callable[[dict[str, Any]], str], Callable[[int], str]]] = {
    # form -> (file name, writer, the text just before device i's name, which starts its value)
    "yaml": ("slice.yaml", yaml_text, lambda i: f"- name: gpu-{i}\n"),
    "json": ("slice.json", lambda d: json.dumps(d, indent=2), lambda i: f'"name": "gpu-{i}",'),
    "one line": ("slice.yaml", flow_text, lambda i: f"{{name: gpu-{i}, "),
}
VALUE_OFFSET = {"yaml": len("- name: "), "json": len('"name": '), "one line": len("{name: ")}


def _read(text: str, name: str) -> LoadResult:
    loaded = load_text(text, name, comments=False)
    assert loaded.diagnostics == []
    return loaded


@pytest.mark.parametrize("form", list(FORMS))
def test_a_large_slice_reads_whole_with_every_position(form: str) -> None:
    name, write, token = FORMS[form]
    data = resource_slice("big", 2_000)
    text = write(data)
    loaded = _read(text, name)
    (obj,) = loaded.objects
    assert json.loads(json.dumps(obj.raw)) == data
    for i in range(0, 2_000, 7):
        line, column = at(text, token(i))
        assert obj.position(("spec", "devices", i, "name")) == obj.position(()).__class__(
            name, line, column + VALUE_OFFSET[form]
        )
    if form == "one line":
        assert max(len(line) for line in text.splitlines()) > 300_000


@pytest.mark.parametrize("form", list(FORMS))
def test_lint_and_select_answer_on_a_large_slice(tmp_path: Any, form: str) -> None:
    name, write, _ = FORMS[form]
    path = tmp_path / name
    text = write(resource_slice("big", 2_000))
    path.write_text(text)
    result = invoke(["lint", "--no-config", "-f", "json", str(path)])
    assert result.exception is None, result.exc_info
    report = json.loads(result.stdout)
    # the apiserver's one refusal: a slice has at most 128 devices
    assert [(d["rule"], d["message"]) for d in report["diagnostics"]] == [
        ("DRA113", "spec.devices: Too many: 2000: must have at most 128 items")
    ]
    where = at(text, '"devices"' if form == "json" else "devices")  # a key's place: its quote
    assert (report["diagnostics"][0]["line"], report["diagnostics"][0]["column"]) == where
    selected = invoke(
        ["select", "-o", "json", 'device.attributes["gpu.example.com"].model == "A100"', str(path)]
    )
    assert selected.exit_code == 0, selected.stderr
    rows = json.loads(selected.stdout)
    assert [row["device"] for row in rows] == [f"gpu-{i}" for i in range(2_000)]
    assert [row["result"] for row in rows] == [i % 3 == 0 for i in range(2_000)]


def stream(count: int) -> list[dict[str, Any]]:
    """DeviceClasses, claims and one-device slices, in turn; all valid."""
    docs: list[dict[str, Any]] = []
    for i in range(count):
        if i % 3 == 0:
            docs.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "DeviceClass",
                    "metadata": {"name": f"class-{i}"},
                    "spec": {
                        "selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]
                    },
                }
            )
        elif i % 3 == 1:
            docs.append(
                {
                    "apiVersion": "resource.k8s.io/v1",
                    "kind": "ResourceClaim",
                    "metadata": {"name": f"claim-{i}", "namespace": "default"},
                    "spec": {
                        "devices": {
                            "requests": [
                                {"name": "gpu", "exactly": {"deviceClassName": f"class-{i - 1}"}}
                            ]
                        }
                    },
                }
            )
        else:
            docs.append(resource_slice(f"slice-{i}", 1, f"node-{i % 50}"))
    return docs


@pytest.mark.parametrize("form", ["yaml", "json"])
def test_a_long_stream_reads_every_object_in_place(form: str) -> None:
    docs = stream(3_000)
    if form == "yaml":
        text, name = "".join("---\n" + yaml_text(d) for d in docs), "stream.yaml"
    else:
        items = ",\n".join(json.dumps(d) for d in docs)
        text, name = (
            '{"apiVersion": "v1", "kind": "List", "items": [\n' + items + "\n]}\n",
            "stream.json",
        )
    loaded = _read(text, name)
    assert [o.raw for o in loaded.objects] == docs
    if form == "yaml":
        starts = [m.start() for m in re.finditer(r"^---$", text, re.MULTILINE)]
    else:  # one item per line after the first
        starts = [m.start() for m in re.finditer(r"\n", text)]
    for i in range(0, 3_000, 11):
        obj = loaded.objects[i]
        # the i-th document (YAML) or item line (JSON), its metadata, its name's value
        start = starts[i] if form == "yaml" else text.index("\n", starts[i]) + 1
        metadata = text.index('"metadata"' if form == "json" else "metadata:", start)
        value = (
            text.index('"name": ' if form == "json" else "name: ", metadata)
            + len("name: ")
            + 2 * (form == "json")
        )
        position = obj.position(("metadata", "name"))
        line = text.count("\n", 0, value) + 1
        assert (position.line, position.column) == (line, value - text.rfind("\n", 0, value))
    result = lint(loaded, Settings(), jobs=1)
    assert result.summary["objects"] == 3_000
    assert [d for d in result.diagnostics if d.severity.value == "error"] == []


@pytest.mark.parametrize("form", ["yaml", "json"])
def test_a_megabyte_string_on_one_line(tmp_path: Any, form: str) -> None:
    note = "x" * 2**20
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {
            "name": "noted",
            "namespace": "default",
            "annotations": {"example.com/note": note},
        },
        "spec": {
            "devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}]}
        },
    }
    text = yaml_text(claim) if form == "yaml" else json.dumps(claim)
    name = f"claim.{form}"
    loaded = _read(text, name)
    (obj,) = loaded.objects
    assert obj.raw["metadata"]["annotations"]["example.com/note"] == note
    start = text.index("x" * 64) - (1 if form == "json" else 0)  # the value: its quote in JSON
    line, column = text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
    assert obj.position(("metadata", "annotations", "example.com/note")) == obj.position(
        ()
    ).__class__(name, line, column)
    path = tmp_path / name
    path.write_text(text)
    result = invoke(["lint", "--no-config", "-f", "json", str(path)])
    messages = [d["message"] for d in json.loads(result.stdout)["diagnostics"]]
    assert messages == ["metadata.annotations: Too long: may not be more than 262144 bytes"]


def _nested(levels: int, form: str) -> str:
    """An object whose ``data`` holds ``levels`` mappings one in another, around a 1."""
    if form == "json":
        value: Any = 1
        for _ in range(levels):
            value = {"a": value}
        return json.dumps(
            {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "x"}, "data": value}
        )
    if form == "flow":
        return (
            "kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\ndata: "
            + "{a: " * levels
            + "1"
            + "}" * levels
            + "\n"
        )
    lines = ["kind: ConfigMap", "apiVersion: v1", "metadata: {name: x}", "data:"]
    lines += ["  " * depth + "a:" for depth in range(1, levels)]
    lines.append("  " * levels + "a: 1")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("form", ["block", "flow", "json"])
@pytest.mark.parametrize("comments", [False, True], ids=["libyaml", "round-trip"])
def test_nesting_to_the_limit_and_one_level_beyond(form: str, comments: bool) -> None:
    name = "deep.json" if form == "json" else "deep.yaml"
    # the innermost value is 1 + levels deep: at most 100 levels (Limits.max_depth)
    inside = load_text(_nested(99, form), name, comments=comments)
    assert inside.diagnostics == [] and len(inside.objects) == 1
    node = inside.objects[0].raw["data"]
    for _ in range(99):
        node = node["a"]
    assert node == 1
    beyond = load_text(_nested(100, form), name, comments=comments)
    assert [(d.rule, d.message, str(d.position)) for d in beyond.diagnostics] == [
        ("DRA005", "nesting deeper than 100 levels", f"{name}:1:1")
    ]
    assert beyond.objects == []


def _peak(read: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        kept = read()
        assert kept is not None
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("form", "factor"),
    # Python objects allocated while reading, over the text's size: the tree with its
    # positions is about 12x YAML (6x its larger JSON); libyaml's composed node graph, which
    # the reader no longer builds, made it 60x (30x)
    [("yaml", 25), ("json", 15)],
)
def test_the_reader_takes_memory_in_proportion_to_the_input(form: str, factor: int) -> None:
    write = FORMS[form][1]
    small, large = write(resource_slice("big", 500)), write(resource_slice("big", 2_000))
    load_fast(small)  # the process's caches of keys and scalars, filled once
    peaks = [_peak(lambda text=text: load_fast(text)) for text in (small, large)]
    assert peaks[1] <= factor * len(large)
    assert 3 <= peaks[1] / peaks[0] <= 5  # four times the input, four times the memory


def _cpu(run: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def test_positions_of_every_key_of_a_large_mapping_stay_linear() -> None:
    """A diagnostic per key of a mapping of thousands (labels, attributes) asks each key's
    position: one search of the mapping's keys per question would be quadratic."""

    def keys(count: int) -> Callable[[], Any]:
        mapping = load_fast("".join(f"key-{i}: {i}\n" for i in range(count))).tree  # type: ignore[union-attr]
        return lambda: [mapping.lc.key(f"key-{i}") for i in range(count)]

    small, large = _cpu(keys(5_000)), _cpu(keys(40_000))
    assert large <= 14 * max(small, 1e-3)  # 8x the keys: linear is 8x, quadratic 64x


def test_lint_of_a_stream_of_slices_stays_linear() -> None:
    """100,000 documents took 192 s to lint: every pool gathered the ids of every slice."""

    def run(count: int) -> Callable[[], Any]:
        text = "".join(
            "---\n" + yaml_text(resource_slice(f"slice-{i}", 1, f"node-{i % 50}"))
            for i in range(count)
        )
        loaded = _read(text, "slices.yaml")
        build_all(loaded.objects)
        return lambda: lint(loaded, Settings(), jobs=1)

    small, large = _cpu(run(1_000)), _cpu(run(8_000))
    assert large <= 14 * small  # 8x the slices: linear is about 8x, quadratic 30x
