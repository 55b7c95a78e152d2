"""The command line as users run it: exit codes, stdin, errors on stderr, no tracebacks."""

from __future__ import annotations

import json

GOOD = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"


def test_version_names_releases(run_dractl) -> None:
    out = run_dractl("--version")
    assert out.returncode == 0
    assert "dractl " in out.stdout and "1.34, 1.35, 1.36" in out.stdout


def test_lint_stdin_clean(run_dractl) -> None:
    out = run_dractl("lint", "-", stdin=GOOD)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 errors" in out.stdout


def test_lint_syntax_error_exits_2_with_position(run_dractl) -> None:
    out = run_dractl("lint", "-", stdin="kind: [1\n")
    assert out.returncode == 2
    assert out.stdout.startswith("<stdin>:2:1: error DRA001 YAML syntax error")
    assert "Traceback" not in out.stderr


def test_missing_file_is_one_line_on_stderr(run_dractl) -> None:
    out = run_dractl("lint", "nope.yaml")
    assert out.returncode == 2
    assert out.stderr.strip() == "dractl: error: nope.yaml: no such file or directory"


def test_unknown_feature_gate_is_a_usage_error(run_dractl) -> None:
    out = run_dractl("lint", "--feature-gates", "DRANope=true", "-", stdin=GOOD)
    assert out.returncode == 2
    assert "unknown feature gate 'DRANope'" in out.stderr
    assert "Traceback" not in out.stderr


def test_unknown_release_is_a_usage_error(run_dractl) -> None:
    out = run_dractl("lint", "-k", "1.20", "-", stdin=GOOD)
    assert out.returncode == 2
    assert "unknown Kubernetes version '1.20'" in out.stderr


def test_json_contract(run_dractl) -> None:
    out = run_dractl("lint", "--format", "json", "-", stdin="kind: [\n")
    payload = json.loads(out.stdout)
    assert set(payload) >= {"diagnostics", "summary"}
    (diag,) = payload["diagnostics"]
    for key in (
        "file",
        "line",
        "column",
        "rule",
        "severity",
        "message",
        "field",
        "type",
        "kind",
        "name",
        "apiVersion",
    ):
        assert key in diag
    assert payload["summary"]["errors"] == 1
