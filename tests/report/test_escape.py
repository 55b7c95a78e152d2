"""Control characters from the inputs are shown, never obeyed, by every human and XML report."""

from __future__ import annotations

import io

import pytest

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.lint.engine import LintResult
from dractl.load import load_text
from dractl.report import ReportContext
from dractl.report.escape import visible, visible_but_colors
from dractl.report.text import report


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain", "plain"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
        ("\x1b[2J", "\\x1b[2J"),
        ("\x9b2J", "\\x9b2J"),
        ("a\x08b\x00c\x07", "a\\x08b\\x00c\\x07"),
        ("\x7f", "\\x7f"),
        ("\ud800", "\\ud800"),
        ("right\u202eleft", "right\\u202eleft"),
        ("é, ü, 💥", "é, ü, 💥"),
    ],
)
def test_visible(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_colours_kept_but_nothing_else() -> None:
    assert visible_but_colors("\x1b[1mbold\x1b[0m \x1b[2J\x1b]0;t\x07") == (
        "\x1b[1mbold\x1b[0m \\x1b[2J\\x1b]0;t\\x07"
    )


def test_the_underline_follows_the_escapes() -> None:
    text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "a\\e"\n'
    loaded = load_text(text, "x\x1b.yaml")
    loaded.files[0].text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  x\x1b: bad\n'
    d = Diagnostic("DRA101", Severity.ERROR, "name \x1b[31m", Position("x\x1b.yaml", 4, 7))
    out = io.StringIO()
    report(LintResult([d], 1, 1, False), ReportContext(loaded), out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "x\\x1b.yaml:4:7: error DRA101 name \\x1b[31m"
    source, underline = lines[2], lines[3]
    assert source.endswith("  x\\x1b: bad")
    assert underline.index("^") == source.index("bad") and underline.endswith("^^^")
