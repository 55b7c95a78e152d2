"""Selectors that pass the cost estimate but build large values at run time (issue 25, family 6),
and expressions past cel-go's parser limits, through the real commands.

The evaluations run in a subprocess whose address space is limited to 1 GiB: before dractl bounded
them, the issue's lists of lists (``l.map(x, l)`` on 3,000 elements, nested three times) took
1.8 GB and ended in ``std::bad_alloc``. Upstream (the scheduler) answers them, or cancels them
with cel-go's ``operation cancelled: actual cost limit exceeded``, and so does dractl: in
``select``, in ``lint``'s runtime checks and in ``explain``'s allocator.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from dractl.cli.testing import invoke

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ["cel-expr-python", "cel-python"]
CANCELLED = "operation cancelled: actual cost limit exceeded"
ADDRESS_SPACE = 1 << 30

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
""" + "".join(
    f"""\
  - name: gpu-{i}
    attributes:
      model: {{string: H100}}
      numa: {{int: {i % 2}}}
"""
    for i in range(6)
)
NODE = """\
apiVersion: v1
kind: Node
metadata: {name: node-1}
"""

L = "lists.range(3000)"
LISTS_OF_LISTS = [
    f"cel.bind(l, {L}, l.map(x, l).size() > 0)",
    f"cel.bind(l, {L}, cel.bind(m, l.map(x, l), m.map(y, m).size() > 0))",
    f"cel.bind(l, {L}, cel.bind(m, l.map(x, l), cel.bind(n, m.map(y, m), n.map(z, n).size() > 0)))",
]
PAST_THE_LIMIT = [
    f"cel.bind(l, {L}, l.map(x, l.map(y, l)).size() > 0)",
    f"{L}.map(x, {L}).size() > 0",
    # a string doubled 25 times by `+`: charged by length, cancelled long before
    "".join(f"cel.bind(v{i + 1}, v{i} + v{i}, " for i in range(25)).join(
        ["cel.bind(v0, 'xxxxxxxx', ", ""]
    )
    + "v25.size() > 0"
    + ")" * 26,
]
# doubled 30 times by `+` on lists: a concatenation costs 1, upstream holds it lazily
TOO_LARGE = (
    "".join(f"cel.bind(v{i + 1}, v{i} + v{i}, " for i in range(30)).join(
        ["cel.bind(v0, [1, 2], ", ""]
    )
    + "v30.size() > 0"
    + ")" * 31
)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def select(engine: str, expression: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "dractl",
            "select",
            "--cel-engine",
            engine,
            "-o",
            "json",
            expression,
            "-",
        ],
        input=SLICE,
        capture_output=True,
        text=True,
        cwd=ROOT,
        preexec_fn=_limited,
        check=False,
    )


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "expression", LISTS_OF_LISTS, ids=["map", "map-of-map", "map-of-map-of-map"]
)
def test_lists_of_lists_answer_within_bounded_memory(engine: str, expression: str) -> None:
    done = select(engine, expression)
    assert done.returncode == 0, done.stderr
    assert [row["result"] for row in json.loads(done.stdout)] == [True] * 6


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    "expression", PAST_THE_LIMIT, ids=["nested-map", "range-map", "string-doubling"]
)
def test_selectors_past_the_actual_cost_limit_are_cancelled(engine: str, expression: str) -> None:
    done = select(engine, expression)
    assert done.returncode == 1, done.stderr
    assert [row["error"] for row in json.loads(done.stdout)] == [CANCELLED] * 6


@pytest.mark.parametrize("engine", ENGINES)
def test_a_value_past_what_dractl_holds_is_a_clear_error(engine: str) -> None:
    done = select(engine, TOO_LARGE)
    assert done.returncode == 1, done.stderr
    errors = {row["error"] for row in json.loads(done.stdout)}
    assert len(errors) == 1
    (error,) = errors
    assert error.startswith("not supported by dractl: this evaluation builds a list of "), error
    assert "Traceback" not in done.stderr


# -- lint and explain ----------------------------------------------------------------------------------


def _class(name: str, expression: str) -> str:
    return f"""\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {name}}}
spec:
  selectors:
  - cel:
      expression: '{expression}'
"""


CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c1, namespace: default}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: heavy}
"""


def test_lint_reports_the_cancellation_as_a_runtime_failure() -> None:
    manifest = "---\n".join([_class("heavy", PAST_THE_LIMIT[0]), SLICE])
    result = invoke(["lint", "-"], input=manifest)
    assert result.exit_code == 1
    failures = [line for line in result.stdout.splitlines() if " DRA210 " in line]
    assert len(failures) == 1
    assert f"CEL runtime error on 6 of 6 devices it is evaluated on: {CANCELLED}" in failures[0]


def test_explain_fails_the_node_as_the_allocator_does() -> None:
    # upstream's allocator (dra-upstream, scenario mode) on these objects:
    # "class heavy: selector #0: CEL runtime error: operation cancelled: actual cost limit exceeded"
    manifest = "---\n".join([_class("heavy", PAST_THE_LIMIT[0]), CLAIM, SLICE, NODE])
    result = invoke(["explain", "-o", "json", "-"], input=manifest)
    assert f"class heavy: selector #0: CEL runtime error: {CANCELLED}" in result.stdout


# -- the parser's limits -----------------------------------------------------------------------------

TOO_BIG = [
    (" " * 100_001, "expression code point size exceeds limit: size: 100001, limit 100000"),
    (
        "1 + " * 25_000 + "1 == 1",
        "expression code point size exceeds limit: size: 100006, limit 100000",
    ),
    ("(" * 300 + "true" + ")" * 300, "expression recursion limit exceeded: 250"),
    (" + ".join(["1"] * 300) + " == 300", "max recursion depth exceeded"),
    ("device" + ".a" * 300 + " == 1", "max recursion depth exceeded"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("expression", "message"), TOO_BIG, ids=["spaces", "sum", "parentheses", "terms", "fields"]
)
def test_expressions_past_the_parser_limits_are_one_line_errors(
    engine: str, expression: str, message: str
) -> None:
    result = invoke(["select", "--cel-engine", engine, expression, "-"], input=SLICE)
    assert result.exit_code == 2
    assert result.stderr == f"dractl: error: expression: {message}\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_one_hundred_thousand_spaces_are_a_syntax_error_at_the_end(engine: str) -> None:
    result = invoke(["select", "--cel-engine", engine, " " * 100_000, "-"], input=SLICE)
    assert result.exit_code == 2
    assert result.stderr.startswith("dractl: error: expression:1:100001: Syntax error: ")
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_nesting_cel_cpp_cannot_parse_but_upstream_can_is_evaluated(engine: str) -> None:
    # 100 levels: past cel-cpp's parser (32), within cel-go's (250)
    result = invoke(
        ["select", "--cel-engine", engine, "-o", "json", "(" * 100 + "true" + ")" * 100, "-"],
        input=SLICE,
    )
    assert result.exit_code == 0, result.stderr
    assert [row["result"] for row in json.loads(result.stdout)] == [True] * 6
