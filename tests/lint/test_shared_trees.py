"""lint works on the reader's trees themselves (no copy of each object): no rule, no defaulting
and no kustomization may change them. Every rule runs, with every feature gate of every release,
over every example and every real manifest; each tree must read the same afterwards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dractl.api.releases import GATES, Features, gate_stage
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths
from dractl.load.documents import Document

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"
FOLDERS = [ROOT / "examples", *([CORPUS] if CORPUS.is_dir() else [])]


def frozen(documents: list[Document]) -> list[str]:
    """What each document's tree holds, as text (dict order, types and values)."""

    def encode(value: Any) -> Any:
        if isinstance(value, dict):
            return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
        if isinstance(value, list):
            return {"list": [encode(v) for v in value]}
        return {type(value).__name__: repr(value)}

    return [json.dumps(encode(d.raw)) for d in documents]


@pytest.mark.parametrize("release", ["1.34", "1.35", "1.36"])
@pytest.mark.parametrize("gates", ["default", "all on"])
def test_no_rule_changes_what_it_reads(release: str, gates: str) -> None:
    loaded = load_paths([str(f) for f in FOLDERS], comments=False)
    documents = [d for f in loaded.files for d in f.documents]
    before = frozen(documents)
    on = {}
    if gates == "all on":  # every gate the release has and does not lock off
        for gate in GATES:
            stage = gate_stage(gate, release)
            if stage is not None and not (stage.locked and not stage.default):
                on[gate] = True
    features = Features(release, on)
    result = lint(loaded, Settings(features=features))
    assert result.diagnostics  # the rules ran and found something
    after = frozen(documents)
    changed = [str(d.position(())) for d, a, b in zip(documents, before, after, strict=True) if a != b]
    assert not changed, f"changed by lint: {changed[:10]}"
