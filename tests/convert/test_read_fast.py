"""convert reads its inputs without comments first: a file with nothing to convert is answered
from that reading, any other file is read again with its comments. The answers are those of
reading every file with comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.convert import engine
from dractl.convert.engine import Options, convert_loaded, convert_read_fast
from dractl.load import Limits, load_paths

ROOT = Path(__file__).resolve().parents[2]
INPUTS = sorted(
    p for p in (ROOT / "examples").rglob("*") if p.suffix in (".yaml", ".yml", ".json")
)
OPTIONS = [
    Options("v1"),
    Options("v1beta1"),
    Options("v1", allow_lossy=True),
    Options("v1", apply_defaults=True),
]


def answers(results: list[engine.FileConversion]) -> list[tuple[object, ...]]:
    return [(r.source.path, r.text, r.status, [str(m) for m in r.messages]) for r in results]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: repr(o))
def test_the_same_answers_as_reading_with_comments(options: Options) -> None:
    paths = [str(p) for p in INPUTS]
    with_comments = convert_loaded(load_paths(paths), options)
    fast = convert_read_fast(load_paths(paths, comments=False), options, Limits())
    assert answers(fast) == answers(with_comments)


@pytest.mark.parametrize(
    ("name", "read_again"),
    [
        ("good/claim-gpu-v1.yaml", False),  # v1 already: nothing to convert
        ("good/pod-with-claim-template-v1.yaml", False),
        ("good/claim-gpu-v1beta1.yaml", True),  # converted, its comments kept
        ("good/claims-list-v1beta2.json", True),
    ],
)
def test_only_what_changes_is_read_again(
    monkeypatch: pytest.MonkeyPatch, name: str, read_again: bool
) -> None:
    again: list[str] = []
    original = engine.load_source

    def recording(source, limits, result, **kwargs):  # type: ignore[no-untyped-def]
        if kwargs.get("comments", True) and not source.path.startswith("<"):  # not a check
            again.append(source.path)
        return original(source, limits, result, **kwargs)

    path = str(ROOT / "examples" / name)
    loaded = load_paths([path], comments=False)
    monkeypatch.setattr(engine, "load_source", recording)
    (result,) = convert_read_fast(loaded, Options("v1"), Limits())
    assert again == ([path] if read_again else [])
    assert result.changed is read_again
