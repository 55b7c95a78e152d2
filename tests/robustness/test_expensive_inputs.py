"""Inputs that would make a naive implementation run for hours finish in bounded CPU time:
regular expressions that backtrack catastrophically, CEL selectors over the cost limit, and an
allocation search with an astronomical number of combinations.

Each runs in-process on the real command line (dractl.cli.testing) after a warm-up, so the CPU time
measured is the input's own, not start-up's.
"""

from __future__ import annotations

import json
import time

import pytest

from dractl.cli.testing import invoke

CEL_ENGINES = ["cel-expr-python", "cel-python"]
# 63 × "a" then "!": `^(a+)+$` takes 2**63 steps in a backtracking engine (Python's re).
HOSTILE_TEXT = "a" * 63 + "!"
SLICE = f"""\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: node-1-gpus}}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {{name: node-1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      model: {{string: "{HOSTILE_TEXT}"}}
"""
MODEL = 'device.attributes["gpu.example.com"].model'
# Ten nested loops over ten elements: 10**10 iterations, far over the cost limit of 1,000,000.
TEN = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]"
TOO_COSTLY = "".join(f"{TEN}.all(x{i}, " for i in range(10)) + "true" + ")" * 10


def run(*args: str, stdin: str) -> tuple[int, str, str, float]:
    start = time.process_time()
    result = invoke([*args, "-"], input=stdin)
    cpu = time.process_time() - start
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr, cpu


@pytest.fixture(scope="module", autouse=True)
def warm_up() -> None:
    for engine in CEL_ENGINES:
        run("select", "--cel-engine", engine, "true", stdin=SLICE)


@pytest.mark.parametrize("engine", CEL_ENGINES)
@pytest.mark.parametrize(
    ("expression", "result"),
    [
        (f'{MODEL}.matches("^(a+)+$")', False),
        (f'{MODEL}.matches("^(a|a)*$")', False),
        (f'{MODEL}.matches("^(a|aa)+$")', False),
        (f'{MODEL}.find("(a+)+$") == ""', True),
        (f'size({MODEL}.findAll("(a*)*!")) == 1', True),
    ],
)
def test_regular_expressions_run_in_linear_time(engine: str, expression: str, result: bool) -> None:
    code, stdout, stderr, cpu = run("select", "--cel-engine", engine, "-o", "json", expression, stdin=SLICE)
    assert code == 0, stderr
    assert json.loads(stdout)[0]["result"] is result
    assert cpu < 1.0, f"{cpu:.2f}s of CPU"


@pytest.mark.parametrize("engine", CEL_ENGINES)
def test_selectors_over_the_cost_limit_are_refused_before_they_run(engine: str) -> None:
    code, stdout, stderr, cpu = run("select", "--cel-engine", engine, "-o", "json", TOO_COSTLY, stdin=SLICE)
    assert code == 1, stderr
    assert json.loads(stdout)[0]["error"] == "operation cancelled: actual cost limit exceeded"
    assert cpu < 1.0, f"{cpu:.2f}s of CPU"


CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
"""
# 30 interchangeable GPUs, a request for 15 of them and one that no GPU satisfies: the search
# tries every one of the C(30, 15) = 155 million ways to pick the 15 before it gives up.
HOPELESS = (
    CLASS
    + """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 1, resourceSliceCount: 1}
  devices:
"""
    + "".join(f"  - {{name: gpu-{i}}}\n" for i in range(30))
    + """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: hopeless}
spec:
  devices:
    requests:
    - {name: many, exactly: {deviceClassName: gpu.example.com, count: 15}}
    - name: one
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel: {expression: 'has(device.attributes["gpu.example.com"].model)'}
"""
)


# A second node whose GPUs all have a model: the same claim fits there at once.
EASY_NODE = """\
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-2-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-2
  pool: {name: node-2, generation: 1, resourceSliceCount: 1}
  devices:
""" + "".join(f"  - {{name: gpu-{i}, attributes: {{model: {{string: h100}}}}}}\n" for i in range(16))


def test_explain_timeout_is_per_node_and_every_other_node_is_evaluated() -> None:
    start = time.monotonic()
    code, stdout, stderr, cpu = run("explain", "--timeout", "0.5", "-o", "json", stdin=HOPELESS + EASY_NODE)
    wall = time.monotonic() - start
    assert code == 0, stderr
    nodes = {node["name"]: node for node in json.loads(stdout)["nodes"]}
    hopeless, easy = nodes["node-1"], nodes["node-2"]
    # As the scheduler's filterTimeout: that node is unschedulable, the search ran up to the limit.
    assert (hopeless["result"], hopeless["timedOut"]) == ("unschedulable", True)
    assert hopeless["error"].startswith("timed out trying to allocate devices")
    assert hopeless["explanation"]["steps"] > 1000
    assert (easy["result"], easy["timedOut"], easy["error"]) == ("allocated", False, None)
    assert cpu < 3.0 and wall < 30, (cpu, wall)


def test_explain_run_timeout_is_a_budget_for_the_whole_run() -> None:
    code, stdout, stderr, _ = run("explain", "--run-timeout", "0.5", "-o", "json", stdin=HOPELESS + EASY_NODE)
    assert code == 1, stderr
    nodes = {node["name"]: node for node in json.loads(stdout)["nodes"]}
    for name in ("node-1", "node-2"):  # node-1's search spent the budget; node-2 was not reached
        assert (nodes[name]["result"], nodes[name]["timedOut"]) == ("error", True)
        assert nodes[name]["error"] == "not evaluated: the run's time limit of 0.5s (--run-timeout) was reached"
    assert nodes["node-1"]["explanation"] is not None and nodes["node-2"]["explanation"] is None
    code, stdout, stderr, _ = run("explain", "--run-timeout", "0", "-o", "json", stdin=HOPELESS)
    assert code == 2 and "--run-timeout" in stderr


def test_lint_gives_up_on_the_search_within_its_budget() -> None:
    start = time.monotonic()
    code, stdout, stderr, cpu = run("lint", "--color", "never", stdin=HOPELESS)
    wall = time.monotonic() - start
    assert code == 0, stdout + stderr
    assert "DRA341" not in stdout  # out of time: the rule says nothing rather than guess
    assert cpu < 10.0 and wall < 60, (cpu, wall)


def test_explain_with_a_class_selector_over_the_cost_limit() -> None:
    costly = CLASS.replace('{expression: device.driver == "gpu.example.com"}', f"{{expression: '{TOO_COSTLY}'}}")
    claim = (
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: one}\n"
        "spec:\n  devices:\n    requests:\n"
        "    - {name: gpu, exactly: {deviceClassName: gpu.example.com}}\n"
    )
    code, stdout, stderr, cpu = run("explain", "-o", "json", stdin=costly + "---\n" + SLICE + claim)
    assert code == 1, stderr
    (node,) = json.loads(stdout)["nodes"]
    assert node["result"] in ("unschedulable", "error")
    assert "actual cost limit exceeded" in json.dumps(node)
    assert cpu < 2.0, f"{cpu:.2f}s of CPU"
