"""JUnit XML parses back: a suite per file, a case per object, failures only for errors."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

FILE_A = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: team-a
---
foo: bar  # dractl: ignore[DRA001]
"""
FILE_B = "kind: [\n"


def test_parses_back(tmp_path: Path, run_dractl) -> None:
    (tmp_path / "a.yaml").write_text(FILE_A)
    (tmp_path / "b.yaml").write_text(FILE_B)
    out = run_dractl("lint", "--no-config", "-f", "junit", "a.yaml", "b.yaml", cwd=tmp_path)
    assert out.returncode == 2  # b.yaml does not parse
    root = ET.fromstring(out.stdout)
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == ["a.yaml", "b.yaml"]
    a = suites["a.yaml"]
    cases = {c.get("name"): c for c in a.findall("testcase")}
    assert list(cases) == ["DeviceClass gpu.example.com", "ConfigMap team-a/settings", "(file)"]
    assert a.get("tests") == "3" and a.get("failures") == "1"
    assert cases["DeviceClass gpu.example.com"].find("failure") is None
    assert cases["DeviceClass gpu.example.com"].get("line") == "1"
    failure = cases["(file)"].find("failure")
    assert failure is not None and failure.get("type") == "DRA004"
    assert "a.yaml:12:1: error DRA004" in (failure.text or "")
    system_out = cases["(file)"].find("system-out")
    assert system_out is not None and "warning DRA901" in (system_out.text or "")
    b = suites["b.yaml"]
    assert b.get("failures") == "1"
    assert b.find("testcase/failure").get("type") == "DRA001"
    assert root.get("tests") == "4" and root.get("failures") == "2"


def test_control_characters_stay_valid_xml() -> None:
    import io

    from dractl.diagnostics import Diagnostic, Position, Severity
    from dractl.lint.engine import LintResult
    from dractl.report import ReportContext
    from dractl.report.junit import report

    d = Diagnostic("DRA001", Severity.ERROR, "bad \x01 byte\x1b[0m", Position("x.yaml", 1, 1))
    out = io.StringIO()
    report(LintResult([d], 1, 0, False), ReportContext(None), out)
    failure = ET.fromstring(out.getvalue()).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == "bad \\x01 byte\\x1b[0m"  # visible, as in the text report
