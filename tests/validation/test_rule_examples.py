"""Each apiserver rule's documented Bad example triggers it and its Good example does not.

An example may start with a comment naming the `dractl lint` options it assumes
(`# with --kubernetes-version 1.35 --feature-gates X=true`).
"""

from __future__ import annotations

import itertools
import re
import textwrap

import pytest

from dractl.api.releases import Features, parse_feature_gates
from dractl.lint.engine import Settings, lint
from dractl.lint.registry import all_rules
from dractl.load import load_text

RULES = [r for r in all_rules() if r.module.startswith("dractl.lint.rules.apiserver")]
_OPTIONS = re.compile(r"#\s*with\s+(.*)")


def _settings(example: str, *select: str) -> Settings:
    release, gates = "1.36", ""
    match = _OPTIONS.search(example)
    if match:
        words = match.group(1).split()
        for flag, value in itertools.pairwise(words):
            if flag == "--kubernetes-version":
                release = value
            elif flag == "--feature-gates":
                gates = value
    return Settings(features=Features(release, parse_feature_gates(gates)), select=select)


def _fired(example: str, *select: str) -> list[str]:
    text = textwrap.dedent(example)
    result = lint(load_text(text, "example.yaml"), _settings(text, *select))
    return [f"{d.rule} {d.message}" for d in result.diagnostics]


def test_there_are_apiserver_rules() -> None:
    assert len(RULES) >= 20


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_bad_example_fires(rule) -> None:
    assert _fired(rule.section("Bad"), rule.id), rule.section("Bad")


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_good_example_is_clean(rule) -> None:
    """Clean for every apiserver rule, not just its own."""
    assert _fired(rule.section("Good"), "DRA1", "DRA410") == []
