"""Every registered rule is complete: id, name, summary, rationale, bad and good example."""

from __future__ import annotations

import re

import pytest

from dractl.lint.registry import all_rules, doc_sections

RULE_ID_RE = re.compile(r"^DRA\d{3}$")
RULE_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")  # kebab-case

RULES = all_rules()


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_is_documented(rule) -> None:
    assert RULE_ID_RE.match(rule.id)
    assert RULE_NAME_RE.match(rule.name)
    sections = doc_sections(rule.doc)
    summary = sections["Summary"]
    assert summary.endswith("."), f"{rule.id}: summary must be one sentence ending in a period"
    assert "\n" not in summary
    for name in ("Why", "Bad", "Good"):
        assert sections.get(name, "").strip(), f"{rule.id}: docstring lacks a '{name}:' section"
    assert sections["Bad"] != sections["Good"]


def test_ids_and_names_are_unique() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
