"""Table-driven rule cases: ``cases/*.yaml`` hold manifests and the diagnostics they must produce.

A case file::

    rule: DRA301                      # the rule the cases are about (selected by default)
    cases:
    - name: what the case shows
      files: {claim.yaml: "<manifest>", ...}    # linted together, as one set
      context: {cluster.yaml: "<manifest>"}     # optional: --context files
      settings: {kubernetes_version: "1.34", feature_gates: "...", require_classes: true, cel_engine: cel-python}
      select: [DRA3]                            # optional: other rules or prefixes
      expect:                                   # every diagnostic, in any order
      - 'claim.yaml:9:27: warning DRA301: DeviceClass "gpu.exmaple.com"'

Each expected line is ``file:line:column: severity RULE`` and, after ``: ``, a text the message
must contain. An expectation may instead be a mapping ``{at: "<that line>", field: ..., type: ...}``
to pin the apiserver's field path and error type as well, or ``{at: ..., hint: ...}`` for a text
the diagnostic's hint must contain. A case with ``expect: []`` is a good
manifest: it must produce nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from dractl.api.releases import Features, parse_feature_gates
from dractl.diagnostics import Diagnostic
from dractl.lint.engine import LintResult, Settings, lint
from dractl.lint.registry import all_rules
from dractl.load import LoadResult, load_text

CASES_DIR = Path(__file__).parent / "cases"
EXPECT_RE = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<column>\d+): (?P<severity>error|warning|info) "
    r"(?P<rule>DRA\d{3})(?:: (?P<text>.*))?$"
)


@dataclass
class Case:
    file: str
    rule: str
    name: str
    spec: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.file}::{self.name}"


def load_cases() -> list[Case]:
    yaml = YAML(typ="safe", pure=True)
    out: list[Case] = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"))
        for spec in data["cases"]:
            out.append(Case(path.stem, data["rule"], spec["name"], spec))
    return out


CASES = load_cases()


def load_files(files: dict[str, str]) -> LoadResult:
    result = LoadResult()
    for name, text in files.items():
        result.extend(load_text(text, name))
    return result


def run_case(case: Case) -> LintResult:
    options = case.spec.get("settings") or {}
    settings = Settings(
        features=Features(
            str(options.get("kubernetes_version", "1.36")),
            parse_feature_gates(options.get("feature_gates")),
        ),
        select=tuple(case.spec.get("select") or [case.rule]),
        require_classes=bool(options.get("require_classes", False)),
        cel_engine=options.get("cel_engine"),
    )
    context = case.spec.get("context")
    return lint(load_files(case.spec["files"]), settings, load_files(context) if context else None)


def describe(d: Diagnostic) -> str:
    pos = d.position
    where = f"{pos.file}:{pos.line}:{pos.column}" if pos else "?:0:0"
    return f"{where}: {d.severity.value} {d.rule}: {d.message}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case) -> None:
    result = run_case(case)
    got = sorted(result.diagnostics, key=Diagnostic.sort_key)
    expected = []
    pinned: list[tuple[re.Match[str], dict[str, Any]]] = []
    for entry in case.spec["expect"] or []:
        line = entry["at"] if isinstance(entry, dict) else entry
        match = EXPECT_RE.match(line)
        assert match, f"bad expectation {line!r}"
        expected.append(match)
        if isinstance(entry, dict):
            pinned.append((match, entry))
    want_keys = sorted(
        (m["file"], int(m["line"]), int(m["column"]), m["severity"], m["rule"]) for m in expected
    )
    got_keys = sorted(
        (d.position.file, d.position.line, d.position.column, d.severity.value, d.rule)
        for d in got
        if d.position is not None
    )
    assert got_keys == want_keys, "\n".join(describe(d) for d in got) or "no diagnostics"
    for m in expected:
        if not m["text"]:
            continue
        at = [
            d
            for d in got
            if d.position is not None
            and (d.position.file, d.position.line, d.position.column, d.rule)
            == (m["file"], int(m["line"]), int(m["column"]), m["rule"])
        ]
        assert any(m["text"] in d.message for d in at), (
            f"no {m['rule']} message at {m['file']}:{m['line']}:{m['column']} contains "
            f"{m['text']!r}:\n" + "\n".join(describe(d) for d in at)
        )
    for m, entry in pinned:
        at = [
            d
            for d in got
            if d.position is not None
            and (d.position.file, d.position.line, d.position.column, d.rule)
            == (m["file"], int(m["line"]), int(m["column"]), m["rule"])
        ]
        if "field" in entry or "type" in entry:
            pairs = [(d.field, d.type) for d in at]
            assert (entry.get("field"), entry.get("type")) in pairs, f"{entry}: got {pairs}"
        if "hint" in entry:
            hints = [d.hint for d in at]
            assert any(entry["hint"] in (h or "") for h in hints), f"{entry}: got {hints}"


# Rules whose cases need inputs too large to write out here, with the test that has them.
CASES_ELSEWHERE = {"DRA201": "tests/lint/test_cel_rules.py (expressions of 10 KiB)"}
CROSS_OBJECT_RULES = [
    r for r in all_rules() if r.id.startswith(("DRA2", "DRA3", "DRA5")) and r.id not in CASES_ELSEWHERE
]


@pytest.mark.parametrize("rule", CROSS_OBJECT_RULES, ids=[r.id for r in CROSS_OBJECT_RULES])
def test_rule_has_bad_and_good_cases(rule) -> None:
    """Every CEL, cross-object and best-practice rule has a case that fires and one that does not."""
    mine = [c for c in CASES if c.rule == rule.id]
    assert any(any(f" {rule.id}" in str(line) for line in c.spec["expect"] or []) for c in mine), (
        f"{rule.id} has no case in which it reports"
    )
    assert any(not c.spec["expect"] for c in mine), f"{rule.id} has no clean case"
