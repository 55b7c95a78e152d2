"""The schema (DRA01x) and API-version (DRA40x) rules on fixture manifests with golden output.

Each ``lint/NAME.yaml`` is linted for the release its first line names, with only these rule
families selected; ``lint/NAME.expected.txt`` is the expected report, one diagnostic per line
(``line:column severity rule [field] message``, then its help line). Regenerate the goldens with
``DRACTL_UPDATE_GOLDEN=1`` and review the diff by eye.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from dractl.api.releases import Features
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths

CASES = Path(__file__).parent / "lint"
VERSION_RE = re.compile(r"^# kubernetes-version: (\S+)$", re.M)


def render(path: Path) -> str:
    text = path.read_text()
    match = VERSION_RE.search(text)
    release = match.group(1) if match else "1.36"
    settings = Settings(features=Features(release), select=("DRA01", "DRA40"))
    result = lint(load_paths([str(path)]), settings)
    lines = []
    for d in result.diagnostics:
        assert d.position is not None and d.position.file == str(path)
        field = f" [{d.field}]" if d.field else ""
        lines.append(f"{d.position.line}:{d.position.column} {d.severity.value} {d.rule}{field} {d.message}")
        if d.hint:
            lines.append(f"  help: {d.hint}")
    return "\n".join(lines) + "\n" if lines else ""


@pytest.mark.parametrize("case", sorted(CASES.glob("*.yaml")), ids=lambda p: p.stem)
def test_golden(case: Path) -> None:
    expected_file = case.with_suffix(".expected.txt")
    actual = render(case)
    if os.environ.get("DRACTL_UPDATE_GOLDEN"):
        expected_file.write_text(actual)
    assert actual == expected_file.read_text()
