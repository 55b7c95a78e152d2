"""Fixture manifests and the diagnostics `dractl lint` must report for them (rules DRA1xx, DRA4xx).

Each ``cases/<name>.yaml`` has a ``cases/<name>.expected.yaml``: the release and feature gates to
lint with, and every expected diagnostic (rule, severity, apiserver field path and error type,
line and column of the author's key). v1beta1 and v1beta2 inputs check that the field path is v1-shaped
while the position is the author's own key.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from dractl.api.releases import Features
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths

CASES_DIR = Path(__file__).parent / "cases"
MANIFESTS = sorted(p for p in CASES_DIR.glob("*.yaml") if not p.name.endswith(".expected.yaml"))


def _expected(manifest: Path) -> tuple[Features, list[dict[str, object]]]:
    data = YAML(typ="safe").load(manifest.with_name(manifest.stem + ".expected.yaml").read_text())
    features = Features(str(data["kubernetes-version"]), data.get("feature-gates") or {})
    return features, data["diagnostics"]


@pytest.mark.parametrize("manifest", MANIFESTS, ids=[p.stem for p in MANIFESTS])
def test_diagnostics(manifest: Path) -> None:
    features, expected = _expected(manifest)
    result = lint(load_paths([str(manifest)]), Settings(features=features, select=("DRA1", "DRA4")))
    got = [
        {
            "line": d.position.line if d.position else None,
            "column": d.position.column if d.position else None,
            "rule": d.rule,
            "severity": d.severity.value,
            "field": d.field,
            "type": d.type,
        }
        for d in result.diagnostics
        if d.rule.startswith(("DRA1", "DRA410"))
    ]
    key = lambda d: (d["line"], d["column"], d["rule"], d["field"], str(d["type"]))  # noqa: E731
    assert sorted(got, key=key) == sorted(expected, key=key)


def test_every_manifest_has_expectations() -> None:
    assert MANIFESTS
    for manifest in MANIFESTS:
        assert manifest.with_name(manifest.stem + ".expected.yaml").exists(), manifest.name
