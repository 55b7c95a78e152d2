"""``dractl select`` on the bundled examples and on inline slices."""

from __future__ import annotations

import json

import pytest

from dractl.cel.engines import ENGINES, engine_available

SLICE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  nodeName: node-1  # not `n`: kubectl reads that as the boolean false
  devices:
  - name: a
    attributes:
      model: {string: A100}
    capacity:
      memory: {value: 40Gi}
  - name: b
    attributes:
      model: {string: H100}
  - name: c
"""


def test_table_lists_matches_and_non_matches(run_dractl) -> None:
    result = run_dractl("select", 'device.attributes["gpu.example.com"].?model.orValue("") == "H100"',
                        "examples/good")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["DRIVER", "POOL", "DEVICE", "RESULT"]
    assert any(line.split()[:3] == ["gpu.example.com", "node-1", "gpu-0"] and line.endswith("match")
               and not line.endswith("no match") for line in lines)
    assert lines[-1].endswith("devices match")


def test_json_reports_results_and_runtime_errors(run_dractl) -> None:
    result = run_dractl("select", 'device.attributes["gpu.example.com"].model == "A100"', "-", "-o", "json",
                        stdin=SLICE)
    assert result.returncode == 1  # device c has no model: a runtime error
    rows = json.loads(result.stdout)
    assert rows == [
        {"driver": "gpu.example.com", "pool": "p", "device": "a", "result": True},
        {"driver": "gpu.example.com", "pool": "p", "device": "b", "result": False},
        {"driver": "gpu.example.com", "pool": "p", "device": "c", "error": "no such key: model"},
    ]


def test_guarded_selector_has_no_errors(run_dractl) -> None:
    expression = 'device.attributes["gpu.example.com"].?model.orValue("") == "A100"'
    result = run_dractl("select", expression, "-", "-o", "json", stdin=SLICE)
    assert result.returncode == 0
    assert [row["result"] for row in json.loads(result.stdout)] == [True, False, False]


def test_compile_error_is_one_line_with_position_and_exit_2(run_dractl) -> None:
    result = run_dractl("select", "device.nosuch == 1", "examples/good")
    assert result.returncode == 2
    assert result.stderr.strip() == "dractl: error: expression:1:7: undefined field 'nosuch'"


def test_feature_gate_controls_list_attributes(run_dractl) -> None:
    slice_with_list = SLICE.replace("model: {string: A100}", "models: {strings: [A100, A30]}")
    expression = 'device.attributes["gpu.example.com"].?models.orValue([]).includes("A30")'
    on = run_dractl("select", expression, "-", "-o", "json", "-k", "1.36",
                    "--feature-gates", "DRAListTypeAttributes=true", stdin=slice_with_list)
    assert [row.get("result") for row in json.loads(on.stdout)] == [True, False, False]
    off = run_dractl("select", expression, "-", "-o", "json", "-k", "1.36", stdin=slice_with_list)
    assert json.loads(off.stdout)[0]["error"] == "attribute models: unsupported attribute value"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("release", "gates", "expected"),
    [
        ("1.35", None, [False, False, False]),  # the gate is alpha: the field never reaches CEL
        ("1.36", None, [True, False, False]),  # beta, on by default
        ("1.36", "DRAConsumableCapacity=false", [False, False, False]),
    ],
)
def test_allow_multiple_allocations_reaches_the_selector_only_with_its_gate(
    run_dractl, engine: str, release: str, gates: str | None, expected: list[bool]
) -> None:
    if not engine_available(engine):
        pytest.skip(f"CEL engine {engine} is not installed")
    shared = SLICE.replace("  - name: a\n", "  - name: a\n    allowMultipleAllocations: true\n")
    options = ["-k", release, "--cel-engine", engine] + (["--feature-gates", gates] if gates else [])
    result = run_dractl("select", "device.allowMultipleAllocations", "-", "-o", "json", *options, stdin=shared)
    assert result.returncode == 0, result.stderr
    assert [row["result"] for row in json.loads(result.stdout)] == expected


def test_both_engines_give_the_same_rows(run_dractl) -> None:
    for expression, results in (
        ('device.attributes["gpu.example.com"].model.lowerAscii() == "a100"', [True, False, None]),
        ('device.attributes["gpu.example.com"].?model.orValue("").lowerAscii() == "a100"', [True, False, False]),
    ):
        outputs = [
            json.loads(run_dractl("select", expression, "-", "-o", "json", "--cel-engine", engine, stdin=SLICE).stdout)
            for engine in ("cel-expr-python", "cel-python")
        ]
        assert outputs[0] == outputs[1]
        assert [row.get("result") for row in outputs[1]] == results


def test_unknown_engine_is_a_usage_error_on_every_command(run_dractl) -> None:
    for command in (["select", "true", "-"], ["lint", "-"], ["explain", "-"]):
        result = run_dractl(*command, "--cel-engine", "cel-go", stdin=SLICE)
        assert result.returncode == 2, command
        assert result.stderr.strip() == (
            "dractl: error: --cel-engine: unknown CEL engine 'cel-go'; choose one of cel-expr-python, cel-python"
        )


def test_explain_runs_on_the_fallback_engine(run_dractl) -> None:
    outputs = [
        run_dractl("explain", "examples/explain/gpu-pod/", "-o", "json", "--cel-engine", engine)
        for engine in ("cel-expr-python", "cel-python")
    ]
    assert outputs[0].returncode == outputs[1].returncode == 0
    assert json.loads(outputs[0].stdout) == json.loads(outputs[1].stdout)
