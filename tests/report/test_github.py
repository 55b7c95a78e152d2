"""GitHub Actions annotations in the exact workflow-command syntax, escaped as the toolkit does."""

from __future__ import annotations

import re

import pytest

from dractl.diagnostics import Diagnostic, ObjectRef, Position, Severity
from dractl.report.github import annotation, escape_data, escape_property

# (text, escaped as data, escaped as a property value)
ESCAPES = [
    ("plain", "plain", "plain"),
    ("100%", "100%25", "100%25"),
    ("a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"),
    ("spec.x: Invalid value", "spec.x: Invalid value", "spec.x%3A Invalid value"),
    ("a,b", "a,b", "a%2Cb"),
    ("%0A", "%250A", "%250A"),
]


@pytest.mark.parametrize(("text", "data", "prop"), ESCAPES)
def test_escaping(text: str, data: str, prop: str) -> None:
    assert escape_data(text) == data
    assert escape_property(text) == prop


def test_annotation_exact() -> None:
    d = Diagnostic(
        "DRA101",
        Severity.ERROR,
        "spec.devices.requests[0].name: Invalid value: \"GPU\": 100% wrong",
        Position("deploy/a,b:c.yaml", 12, 9),
        field="spec.devices.requests[0].name",
        type="Invalid value",
        obj=ObjectRef("ResourceClaim", "gpu"),
        hint="use lowercase",
    )
    assert annotation(d) == (
        "::error file=deploy/a%2Cb%3Ac.yaml,line=12,col=9,title=DRA101::"
        'spec.devices.requests[0].name: Invalid value: "GPU": 100%25 wrong%0Ahelp: use lowercase'
    )
    warning = Diagnostic("DRA901", Severity.WARNING, "unused", Position("<stdin>", 1, 1))
    assert annotation(warning) == "::warning title=DRA901::unused"
    info = Diagnostic("DRA401", Severity.INFO, "note", None)
    assert annotation(info) == "::notice title=DRA401::note"


COMMAND_RE = re.compile(
    r"^::(error|warning|notice) (?:file=[^,:]+,line=\d+,col=\d+,)?title=DRA\d{3}::[^\r\n]*$"
)


def test_real_output(run_dractl) -> None:
    out = run_dractl(
        "lint", "--no-config", "-f", "github", "-", stdin="kind: [\n---\nmetadata: {}  # dractl: nope\n"
    )
    assert out.returncode == 2
    lines = out.stdout.splitlines()
    assert lines and all(COMMAND_RE.match(line) for line in lines), lines
    assert lines[0].startswith("::error title=DRA001::YAML syntax error")
