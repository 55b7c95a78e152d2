"""The loader's DRA003 and DRA004 made precise for newcomers: the first `{{`, the key written."""

from __future__ import annotations

import pytest

from dractl.api.releases import Features
from dractl.lint.engine import Settings, lint
from dractl.load import load_text

CASES = [
    pytest.param(
        "apiversion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: gpu\nspec: {}\n",
        (
            "1:1 DRA004",
            'apiVersion is missing or not a string: found "apiversion" instead of "apiVersion" '
            "(keys are case-sensitive)",
            "rename apiversion to apiVersion",
        ),
        id="apiVersion written in lower case",
    ),
    pytest.param(
        "# claim for the trainer\napiVersion: v1\nkinds: Pod\nmetadata: {name: trainer}\n",
        (
            "3:1 DRA004",
            'kind is missing or not a string: found "kinds" instead of "kind"',
            "rename kinds to kind",
        ),
        id="a typo of kind, after a comment",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVerison: v1\nKind: Pod\nmetadata: {name: b}\n",
        (
            "5:1 DRA004",
            'found "apiVerison" instead of "apiVersion"; found "Kind" instead of "kind"',
            "rename apiVerison to apiVersion",
        ),
        id="both keys of a second document",
    ),
    pytest.param(
        "metadata:\n  name: gpu\nspec: {}\n",
        ("1:1 DRA004", "apiVersion and kind are missing or not a string", None),
        id="nothing like the keys: the message as the loader wrote it",
    ),
    pytest.param(
        "# {{/* a chart's comment */}} is not where the template starts\n"
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n"
        '  name: {{ include "chart.fullname" . }}-gpu\n',
        ("1:3 DRA003", "contains Go template actions", None),
        id="template: the first {{, in a YAML comment too (Helm renders those)",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: gpu\n"
        "  labels:\n    app: {{ .Values.app }}\n",
        ("6:10 DRA003", "contains Go template actions", None),
        id="template: the line of the first action, not line 1",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_loader_diagnostics_refined(text: str, expected: tuple[str, str, str | None]) -> None:
    where, message, hint = expected
    result = lint(
        load_text(text, "manifest.yaml"), Settings(features=Features("1.36"), select=("DRA0",))
    )
    found = [d for d in result.diagnostics if d.rule in ("DRA003", "DRA004")]
    assert len(found) == 1, [d.message for d in result.diagnostics]
    d = found[0]
    assert d.position is not None
    assert f"{d.position.line}:{d.position.column} {d.rule}" == where
    assert message in d.message
    assert d.hint == hint
