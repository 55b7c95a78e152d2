"""Input limits: alias bombs, deep nesting, oversized files and long streams are refused (or read)
in bounded time and memory, with a diagnostic instead of a crash.

Time and memory are measured inside a fresh interpreter (CPU time, and the peak RSS from
``resource.getrusage`` that the input adds to a process warmed up by a lint of a small manifest),
so that neither the test process, the machine's load nor dractl's own start-up distorts them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dractl.load import Limits, load_paths, load_text

ROOT = Path(__file__).resolve().parents[2]
WARM_UP = ROOT / "examples" / "good" / "claim-gpu-v1.yaml"
HEADER = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: bomb}\n"

MEASURE = textwrap.dedent(
    """
    import json, resource, sys, time
    from dractl.lint.engine import Settings, lint
    from dractl.load import load_paths
    # warm up: imports, schemas and CEL engine of a lint run are not the input's cost
    lint(load_paths([sys.argv[2]]), Settings())
    load_paths([sys.argv[1]])
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    loaded = load_paths([sys.argv[1]])
    result = lint(loaded, Settings())
    cpu = time.process_time() - start
    print(json.dumps({
        "cpu": cpu,
        "peak_mb": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024,
        "rules": sorted({d.rule for d in result.diagnostics}),
        "messages": [d.message for d in result.diagnostics],
        "objects": len(loaded.objects),
    }))
    """
)


def measure(path: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path), str(WARM_UP)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def billion_laughs(width: int, levels: int, flow: bool = True) -> str:
    lines = [f"lol0: &l0 [{', '.join(['lol'] * width)}]"]
    for i in range(1, levels):
        items = [f"*l{i - 1}"] * width
        if flow:
            lines.append(f"lol{i}: &l{i} [{', '.join(items)}]")
        else:
            lines.append(f"lol{i}: &l{i}\n" + "".join(f"  - {item}\n" for item in items).rstrip())
    return "\n".join(lines) + "\n"


BOMBS = {
    # the classic: 10^9 strings from 90 aliases
    "billion-laughs": HEADER + "spec:\n" + textwrap.indent(billion_laughs(10, 9), "  "),
    "billion-laughs-block": HEADER + billion_laughs(10, 9, flow=False),
    "narrow-and-deep": HEADER + billion_laughs(2, 40),
    "wide-and-shallow": HEADER + billion_laughs(1000, 3),
    "merge-keys": HEADER
    + "a0: &a0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v, k9: v}\n"
    + "".join(
        f"a{i}: &a{i} {{{', '.join(f'x{j}: *a{i - 1}' for j in range(10))}}}\n" for i in range(1, 9)
    ),
    "after-a-good-document": (ROOT / "examples/good/deviceclass-gpu-v1.yaml").read_text()
    + "---\n"
    + HEADER
    + billion_laughs(10, 9),
}


# A duplicate key whose value aliases expand: ruamel's own duplicate-key message would print
# the expanded value (2**39 items).
BOMBS["through-a-duplicate-key"] = HEADER + billion_laughs(2, 40) + "lol39: again\n"


@pytest.mark.parametrize("name", sorted(BOMBS))
def test_alias_bombs_are_refused_within_a_second_and_200_mb(name: str, tmp_path: Path) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_text(BOMBS[name])
    got = measure(path)
    if name == "through-a-duplicate-key":
        assert got["messages"] == [
            'duplicate key "lol39": the apiserver\'s strict decoding rejects duplicate fields'
        ]
    else:
        assert "DRA005" in got["rules"], got
        assert any("alias" in m for m in got["messages"]), got["messages"]
    assert got["cpu"] < 1.0, got
    assert got["peak_mb"] < 200, got


def test_a_bomb_does_not_hide_the_good_document_before_it() -> None:
    loaded = load_text(BOMBS["after-a-good-document"], "bomb.yaml")
    assert [o.kind for o in loaded.objects] == ["DeviceClass"]


def test_alias_bomb_through_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMBS["billion-laughs"])
    wrapper = textwrap.dedent(
        """
        import json, resource, subprocess, sys, time
        start = time.monotonic()
        out = subprocess.run([sys.executable, "-m", "dractl", "lint", sys.argv[1]],
                             capture_output=True, text=True)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(json.dumps({"code": out.returncode, "stdout": out.stdout, "stderr": out.stderr,
                          "peak_mb": children.ru_maxrss / 1024}))
        """
    )

    def run(target: Path) -> dict:
        out = subprocess.run(
            [sys.executable, "-c", wrapper, str(target)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=300,
        )
        return json.loads(out.stdout)

    baseline = run(WARM_UP)  # a dractl lint process's own peak, on a small good manifest
    got = run(path)
    assert got["code"] == 2 and got["stderr"] == "", got
    assert "error DRA005" in got["stdout"] and "alias bomb" in got["stdout"]
    assert got["peak_mb"] - baseline["peak_mb"] < 200, (got["peak_mb"], baseline["peak_mb"])


@pytest.mark.parametrize(
    ("body", "anchor", "line", "column"),
    [
        ("spec: &s {devices: {requests: [*s]}}\n", "s", 4, 32),
        ("loop: &l [*l]\n", "l", 4, 11),
        ("loop: &l {self: *l}\n", "l", 4, 17),
        ("loop: &l\n  - a\n  - *l\n", "l", 6, 5),
        # the anchor name is reused: the alias names the newest anchor, which is still open
        ("a: &x [1]\nb: &x [*x]\n", "x", 5, 8),
        # a merge key that merges the mapping into itself
        ("base: &b {x: 1}\nm: &m\n  <<: *b\n  y: *m\n", "m", 7, 6),
    ],
)
def test_recursive_aliases_are_refused_where_the_alias_is(
    body: str, anchor: str, line: int, column: int
) -> None:
    # go-yaml (v2, which kubectl reads with, and v3) fails with this message
    loaded = load_text(HEADER + body, "loop.yaml")
    assert loaded.objects == []
    (diagnostic,) = loaded.diagnostics
    assert diagnostic.rule == "DRA001"
    assert diagnostic.message.endswith(f"anchor '{anchor}' value contains itself")
    assert (diagnostic.position.line, diagnostic.position.column) == (line, column)


@pytest.mark.parametrize(
    "body",
    [
        "a: &x [1]\nb: [*x, *x]\n",  # an alias after its anchor's node ended
        "a: &x {k: v}\nb: &y {c: *x}\nd: *y\n",  # aliases in aliases, no cycle
        "a: &x [1]\nb: &x [2]\nc: *x\n",  # a reused name: the newest anchor
    ],
)
def test_aliases_that_are_not_recursive_load(body: str) -> None:
    loaded = load_text(HEADER + body, "aliases.yaml")
    assert loaded.diagnostics == [] and len(loaded.objects) == 1


@pytest.mark.parametrize("command", ["lint", "convert", "explain", "select"])
def test_recursive_alias_through_every_command(run_dractl, command: str) -> None:
    args = {"select": ["select", "true"]}.get(command, [command])
    text = HEADER.replace("v1\n", "v1beta1\n", 1) + "spec: &s {devices: {requests: [*s]}}\n"
    out = run_dractl(*args, "-", stdin=text)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "<stdin>:4:32:" in out.stdout + out.stderr
    assert "anchor 's' value contains itself" in out.stdout + out.stderr
    assert "Traceback" not in out.stderr


def test_reused_anchor_names_are_allowed_silently(run_dractl) -> None:
    out = run_dractl("lint", "-", stdin=HEADER + "a: &x 1\nb: &x 2\nc: *x\n")
    assert out.stderr == "" and out.returncode in (0, 1)


def nested(kind: str, depth: int) -> str:
    if kind == "flow":
        return HEADER + "spec: " + "[" * depth + "]" * depth + "\n"
    if kind == "block":
        return HEADER + "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "v\n"
    value = '{"k": ' * depth + '"leaf"' + "}" * depth
    return f'{{"apiVersion": "v1", "kind": "ConfigMap", "data": {value}}}'


@pytest.mark.parametrize(
    ("kind", "depth"),
    [
        ("flow", 101),
        ("flow", 1_000),
        ("flow", 1_000_000),  # 2 MB of brackets: refused before the parser sees them
        ("json", 101),
        ("json", 100_000),
        ("block", 101),
        ("block", 2_000),  # 4 MB: indentation grows with the square of the depth
    ],
)
def test_nesting_beyond_the_limit_is_refused(kind: str, depth: int, tmp_path: Path) -> None:
    path = tmp_path / ("deep.json" if kind == "json" else "deep.yaml")
    path.write_text(nested(kind, depth))
    got = measure(path)
    assert got["rules"] == ["DRA005"], got
    assert got["messages"] == ["nesting deeper than 100 levels"]
    assert got["cpu"] < 1.0, got
    assert got["peak_mb"] < 200, got


def test_brackets_in_strings_do_not_count_as_nesting() -> None:
    text = HEADER + 'spec:\n  expression: \'device.attributes["a"].matches("[[[[")\'\n'
    assert load_text(text, "ok.yaml").diagnostics == []


def test_nesting_up_to_the_limit_is_read() -> None:
    loaded = load_text(nested("flow", 95), "ok.yaml")
    assert [d.rule for d in loaded.diagnostics] == [] and len(loaded.objects) == 1


def test_files_over_the_size_limit_are_not_read(tmp_path: Path) -> None:
    limit = Limits().max_file_bytes
    path = tmp_path / "huge.yaml"
    with path.open("wb") as fh:
        fh.write(HEADER.encode())
        fh.truncate(limit + 1)  # sparse: no need to write a GiB (and it is refused unread)
    loaded = load_paths([str(path)])
    assert loaded.unreadable == [
        f"{path}: larger than the limit of {limit} bytes (raise it with --max-file-size SIZE)"
    ]
    assert loaded.files == []


DEVICE_CLASS = (
    "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu-{i}.example.com\n"
    'spec:\n  selectors:\n  - cel:\n      expression: device.driver == "gpu-{i}.example.com"\n'
)


@pytest.mark.slow
def test_memory_grows_linearly_with_documents(tmp_path: Path) -> None:
    """A stream is held in memory (cross-object rules need all of it): ~10 KB per small object.

    benchmarks/load.py measures 100,000 documents; here two sizes show the growth is linear.
    """
    peaks = {}
    for count in (500, 2_500):
        path = tmp_path / f"many-{count}.yaml"
        path.write_text("".join(DEVICE_CLASS.format(i=i) for i in range(count)))
        got = measure(path)
        assert got["objects"] == count and got["rules"] == [], got
        peaks[count] = got["peak_mb"]
    per_document_kb = (peaks[2_500] - peaks[500]) * 1024 / 2_000
    assert per_document_kb < 30, peaks


def test_a_hundred_thousand_documents_of_other_yaml_cost_little(tmp_path: Path) -> None:
    path = tmp_path / "stream.yaml"
    path.write_text("".join(f"---\nstep: {i}\nrun: make test\n" for i in range(100_000)))
    got = measure(path)
    assert got["objects"] == 0 and got["rules"] == [], got
    assert got["cpu"] < 5.0 and got["peak_mb"] < 200, got
