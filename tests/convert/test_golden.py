"""Golden conversions of every v1beta1 / v1beta2 example of examples/ (``golden/NAME.v1.*``
and ``golden/NAME.diff``, with as many comments as the input; regenerate with
``python tests/convert/update_golden.py`` and check them by eye), and for each: the v1 output
lints clean (good examples) or with no error the input did not have (bad ones) and converts to
itself."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from dractl.api.releases import Features
from dractl.convert.engine import Options, Status, convert_file
from dractl.convert.output import unified_diff
from dractl.convert.textedit import count_comments
from dractl.lint.engine import Settings, lint
from dractl.load import load_paths, load_text

sys.path.insert(0, str(Path(__file__).parent))
from update_golden import example_of, golden_stem

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = ROOT / "examples"


def _read(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:
        return fh.read()


def _goldens() -> list[Path]:
    return sorted(GOLDEN.glob("*.diff"))


def _old_version_examples() -> list[Path]:
    return sorted(
        p
        for p in EXAMPLES.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json")
        and ("resource.k8s.io/v1beta1" in _read(p) or "resource.k8s.io/v1beta2" in _read(p))
        and not _only_device_taint_rules(p)
    )


def _only_device_taint_rules(path: Path) -> bool:
    """DeviceTaintRule has no v1: a file of nothing else has nothing to convert."""
    import re

    kinds = re.findall(r"(?m)^kind: *(\S+)", _read(path))
    return bool(kinds) and set(kinds) == {"DeviceTaintRule"}


@pytest.mark.parametrize("diff", _goldens(), ids=lambda p: p.stem)
def test_golden(diff: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    example = example_of(diff)
    relative = example.relative_to(ROOT).as_posix()
    source = load_paths([relative]).files[0]
    result = convert_file(source, Options("v1"))

    assert result.status is Status.CONVERTED
    assert result.text == _read(GOLDEN / f"{golden_stem(example)}.v1{example.suffix}")
    assert unified_diff(relative, source.text, result.text) == _read(diff)
    assert count_comments(result.text) == count_comments(source.text)


def test_every_golden_example_exists() -> None:
    assert _goldens()
    for diff in _goldens():
        assert example_of(diff).is_file()


def test_every_v1beta1_and_v1beta2_example_has_golden_files() -> None:
    missing = [
        example.relative_to(ROOT).as_posix()
        for example in _old_version_examples()
        if not (GOLDEN / f"{golden_stem(example)}.diff").is_file()
    ]
    assert missing == [], "run tests/convert/update_golden.py on them and check the result"


def _errors(path: Path) -> list[tuple[str, str | None, str]]:
    linted = lint(load_paths([str(path)]), Settings(features=Features()))
    assert not linted.input_failed
    return sorted(
        (d.rule, d.field, d.message) for d in linted.diagnostics if d.severity.value == "error"
    )


@pytest.mark.parametrize(
    "example", _old_version_examples(), ids=lambda p: p.relative_to(EXAMPLES).as_posix()
)
def test_example_converts_to_v1_with_the_same_lint_errors(example: Path, tmp_path: Path) -> None:
    """Good examples convert to v1 that lints clean; bad ones keep their errors, except those
    that only v1beta1's defaulting causes (it skips requests without a deviceClassName)."""
    source = load_paths([str(example)]).files[0]
    result = convert_file(source, Options("v1"))
    assert result.status is Status.CONVERTED, [str(m) for m in result.messages]
    assert "resource.k8s.io/v1beta" not in result.text

    converted = tmp_path / example.name
    converted.write_text(result.text, encoding="utf-8", newline="")
    after, before = _errors(converted), _errors(example)
    assert set(after) <= set(before)
    if example.parent.name == "good":
        assert after == []
    if "v1beta1" not in source.text:
        assert after == before

    again = convert_file(load_text(result.text, os.fspath(converted)).files[0], Options("v1"))
    assert again.status is Status.UNCHANGED
