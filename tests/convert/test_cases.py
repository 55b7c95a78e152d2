"""Text fixtures: ``cases/<name>@<target>/input.*`` converted must give ``expected.*`` byte for
byte, with the messages of ``messages.txt``; layouts, comments and other documents are kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.convert.engine import Options, Status, convert_file
from dractl.convert.textedit import count_comments
from dractl.load import load_text

CASES = Path(__file__).parent / "cases"


def _cases() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir())


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_case(case: Path) -> None:
    target = case.name.partition("@")[2]
    (source,) = case.glob("input.*")
    text = _read(source)
    loaded = load_text(text, source.name)
    result = convert_file(loaded.files[0], Options(target))

    assert result.text == _read(case / f"expected{source.suffix}")
    assert [str(m) for m in result.messages] == _read(case / "messages.txt").splitlines()
    if any(m.severity.value == "error" for m in result.messages):
        assert result.status is Status.FAILED
        assert result.text == text
    else:
        assert result.status is Status.CONVERTED
        # comments removed with zero-valued fields stay as comment lines
        assert count_comments(result.text) == count_comments(text)


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_converted_case_converts_to_itself(case: Path) -> None:
    """Converting the expected output again changes nothing (``--check`` is idempotent)."""
    target = case.name.partition("@")[2]
    (expected,) = case.glob("expected.*")
    text = _read(expected)
    result = convert_file(load_text(text, expected.name).files[0], Options(target))
    assert result.text == text
    assert result.status in (Status.UNCHANGED, Status.FAILED)


def test_crlf_case_keeps_crlf_and_missing_final_newline() -> None:
    text = _read(CASES / "crlf-no-final-newline@v1" / "expected.yaml")
    assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    assert not text.endswith(("\n", "\r"))
