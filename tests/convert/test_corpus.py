"""Every v1beta1 / v1beta2 manifest of the shared real-world corpus converts without a crash,
reading the output gives the objects the model's own normalisation gives for the input, the
output lints with no finding the input did not have (the version warnings aside), and converting
it back and to v1 again gives the same text. Skipped where the corpus is not checked out next to
the repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dractl.api.model import build
from dractl.api.releases import Features
from dractl.convert.engine import Options, Status, convert_file
from dractl.lint.engine import Settings, lint
from dractl.load import LoadResult, load_paths, load_text

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"


def _files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    found = []
    for path in sorted(CORPUS.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if "resource.k8s.io/v1beta1" in text or "resource.k8s.io/v1beta2" in text:
                found.append(path)
    return found


def _without_nulls(value: Any) -> Any:
    """JSON null fields are the same as absent ones to the apiserver (omitempty)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _findings(loaded: LoadResult) -> list[tuple[str, str, str]]:
    """(rule, severity, message) of what lint reports in Kubernetes 1.36, version rules aside."""
    result = lint(loaded, Settings(features=Features("1.36")))
    return sorted(
        (d.rule, d.severity.value, d.message)
        for d in result.diagnostics
        if d.rule not in ("DRA400", "DRA401")
    )


pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared corpus not present")


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_corpus_file_converts(path: Path) -> None:
    loaded = load_paths([str(path)])
    source = loaded.files[0]
    result = convert_file(source, Options("v1"))
    if result.status is Status.FAILED:
        # only inputs that cannot be converted at all: removed versions, unparsable documents
        assert all(
            "v1alpha" in m.text or "syntax" in m.text or "duplicate" in m.text
            for m in result.messages
            if m.severity.value == "error"
        ), [str(m) for m in result.messages]
        return
    if result.status is Status.SKIPPED:
        assert source.template
        return
    assert result.status in (Status.CONVERTED, Status.UNCHANGED)

    reloaded = load_text(result.text, str(path))
    assert not reloaded.failed
    before = [build(o) for o in loaded.objects]
    after = [build(o) for o in reloaded.objects]
    assert [(o.kind, o.name) for o in after] == [(o.kind, o.name) for o in before]
    for old, new in zip(before, after, strict=True):
        if old.dra:
            assert new.version == "v1"
            old_data = {k: v for k, v in old.data.items() if k != "apiVersion"}
            new_data = {k: v for k, v in new.data.items() if k != "apiVersion"}
            assert _without_nulls(new_data) == _without_nulls(old_data)
        else:
            assert new.data == old.data

    again = convert_file(reloaded.files[0], Options("v1"))
    assert again.status is Status.UNCHANGED

    assert _findings(reloaded) == _findings(loaded)

    own = "v1beta1" if "resource.k8s.io/v1beta1" in source.text else "v1beta2"
    back = convert_file(reloaded.files[0], Options(own))
    assert back.status in (Status.CONVERTED, Status.UNCHANGED), [str(m) for m in back.messages]
    forth = convert_file(load_text(back.text, str(path)).files[0], Options("v1"))
    assert forth.text == result.text
