"""The text reporter: header, code frame with the token underlined, field and help lines, colour."""

from __future__ import annotations

import io

import pytest

from dractl.diagnostics import Diagnostic, ObjectRef, Position, Severity
from dractl.lint.engine import LintResult
from dractl.load import load_text
from dractl.report import ReportContext
from dractl.report.text import report, token_width

MANIFEST = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: GPU_claim  # uppercase
spec:
  devices:
    requests:
    - {name: gpu, exactly: {deviceClassName: "gpu.example.com"}}
"""


def _render(diagnostics: list[Diagnostic], *, color: bool = False, quiet: bool = False) -> str:
    loaded = load_text(MANIFEST, "claim.yaml")
    out = io.StringIO()
    result = LintResult(diagnostics, files=1, objects=1, input_failed=False)
    report(result, ReportContext(loaded, color=color, quiet=quiet), out)
    return out.getvalue()


NAME = Diagnostic(
    "DRA101",
    Severity.ERROR,
    'Invalid value: "GPU_claim": a lowercase RFC 1123 subdomain must consist of ...',
    Position("claim.yaml", 4, 9),
    field="metadata.name",
    type="Invalid value",
    obj=ObjectRef("ResourceClaim", "GPU_claim"),
    hint="use lowercase letters, digits, '-' and '.'",
)
CLASS = Diagnostic(
    "DRA301",
    Severity.WARNING,
    "DeviceClass gpu.example.com is not among the inputs",
    Position("claim.yaml", 8, 46),
)


def test_frame_exact() -> None:
    assert _render([NAME, CLASS]) == (
        'claim.yaml:4:9: error DRA101 Invalid value: "GPU_claim": a lowercase RFC 1123 subdomain '
        "must consist of ...\n"
        "  |\n"
        "4 |   name: GPU_claim  # uppercase\n"
        "  |         ^^^^^^^^^\n"
        "  = field: metadata.name (Invalid value)\n"
        "  = help: use lowercase letters, digits, '-' and '.'\n"
        "\n"
        "claim.yaml:8:46: warning DRA301 DeviceClass gpu.example.com is not among the inputs\n"
        "  |\n"
        '8 |     - {name: gpu, exactly: {deviceClassName: "gpu.example.com"}}\n'
        "  |                                              ^^^^^^^^^^^^^^^^^\n"
        "\n"
        "1 error, 1 warning (1 object in 1 file)\n"
    )


def test_no_diagnostics() -> None:
    assert _render([]) == "0 errors, 0 warnings (1 object in 1 file)\n"


def test_quiet_prints_errors_only_and_nothing_when_clean() -> None:
    assert _render([CLASS], quiet=True) == ""
    assert _render([NAME, CLASS], quiet=True) == (
        'claim.yaml:4:9: error DRA101 Invalid value: "GPU_claim": a lowercase RFC 1123 subdomain '
        "must consist of ...\n"
        "1 error, 1 warning (1 object in 1 file)\n"
    )


def test_colour_only_when_asked() -> None:
    assert "\x1b[" not in _render([NAME, CLASS])
    coloured = _render([NAME, CLASS], color=True)
    assert "\x1b[1;31merror\x1b[0m" in coloured
    assert "\x1b[1;33mwarning\x1b[0m" in coloured


def test_long_line_is_cut_around_the_column() -> None:
    long_line = "x: [" + ", ".join(f"item{i}" for i in range(100)) + "]"
    loaded = load_text(long_line + "\n", "long.yaml")
    column = long_line.index("item80") + 1
    d = Diagnostic("DRA001", Severity.ERROR, "m", Position("long.yaml", 1, column))
    out = io.StringIO()
    report(LintResult([d], 1, 0, False), ReportContext(loaded), out)
    frame = out.getvalue().splitlines()
    source, underline = frame[2], frame[3]
    assert source.startswith("1 | …") and source.endswith("…")
    assert len(source) < 140
    assert source[underline.index("^") :].startswith("item80")


# (line, 1-based column, width of the token there)
TOKENS = [
    ("  name: GPU_claim  # uppercase", 9, 9),
    ("  name: GPU_claim  # uppercase", 3, 4),
    ('  name: "a \\" b"  # c', 9, 8),
    ("  name: 'it''s'", 9, 7),
    ("- {name: gpu, count: 2}", 10, 3),
    ("  - cel:", 3, 1),
    ("  expression: |", 15, 1),
    ("key: value # dractl: ignore[DRA1]", 12, 22),
    ("x: 1", 10, 1),
]


@pytest.mark.parametrize(("line", "column", "width"), TOKENS)
def test_token_width(line: str, column: int, width: int) -> None:
    assert token_width(line, column) == width


def test_no_color_env_and_color_flag(run_dractl) -> None:
    bad = "metadata: {name: x}\n"
    plain = run_dractl("lint", "--no-config", "-", stdin=bad)
    assert "\x1b[" not in plain.stdout  # not a terminal
    forced = run_dractl("lint", "--no-config", "--color", "always", "-", stdin=bad)
    assert "\x1b[1;31merror" in forced.stdout
    never = run_dractl("lint", "--no-config", "--color", "never", "-", stdin=bad)
    assert "\x1b[" not in never.stdout


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_use_color(monkeypatch: pytest.MonkeyPatch) -> None:
    from dractl.cli.options import use_color

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color("auto", _Terminal()) is True
    assert use_color("auto", io.StringIO()) is False
    assert use_color("never", _Terminal()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color("auto", _Terminal()) is False
    assert use_color("always", io.StringIO()) is True
