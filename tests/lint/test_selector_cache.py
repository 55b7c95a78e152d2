"""Selectors compiled by an earlier lint are read back from the cache folder: a run whose report
is not cached but whose selectors are prints what a run without any cache prints, and loads no
CEL engine unless a selector is evaluated on a device."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dractl import __version__
from dractl.cel import compiler
from dractl.cel.ast import decode_checked
from dractl.cli.testing import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
EXAMPLE_RUNS = sorted(
    p.relative_to(EXAMPLES).as_posix()
    for p in (*(EXAMPLES / "bad").glob("*"), *(EXAMPLES / "good").glob("*"))
    if p.is_dir() or (p.suffix in (".yaml", ".json") and ".expected." not in p.name and ".context." not in p.name)
)
CLAIM = "good/claim-gpu-v1.yaml"
MISTAKES = "bad/cel-selector-mistakes-v1.yaml"


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # the suite runs with the cache off (tests/conftest.py); these tests turn it on
    monkeypatch.delenv("DRACTL_NO_CACHE", raising=False)
    monkeypatch.delenv("DRACTL_CACHE_DIR", raising=False)


def lint(*args: str):
    compiler.clear_cache()  # as a new process: nothing compiled in memory
    return invoke(["lint", "--no-config", "--color", "never", *args])


def selector_entries(folder: Path) -> list[Path]:
    return sorted((folder / __version__ / "cel").glob("*.json"))


def meaning(text: str) -> dict[str, Any]:
    """An entry with its tree decoded (the engine writes a tree's maps in no fixed order)."""
    entry = json.loads(text)
    if entry.get("compiled", {}).get("ast"):
        entry["compiled"]["ast"] = decode_checked(bytes.fromhex(entry["compiled"]["ast"]))
    return dict(entry)


def forget_reports(folder: Path) -> None:
    for report in (folder / __version__).glob("*.json"):
        report.unlink()


def test_every_example_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    folder = tmp_path / "cache"
    compiled: list[str] = []
    real = compiler._compile_uncached

    def counted(expression: str, *args: object):
        compiled.append(expression)
        return real(expression, *args)

    monkeypatch.setattr(compiler, "_compile_uncached", counted)
    with_selectors = 0
    for example in EXAMPLE_RUNS:
        context = EXAMPLES / f"{example}.context.yaml"
        options = ["--context", str(context)] if context.exists() else []
        for output in ("text", "json"):
            arguments = [*options, "--format", output, example]
            plain = lint("--no-cache", *arguments)
            assert plain.exception is None, plain.exc_info
            lint("--cache-dir", str(folder), *arguments)  # compiles and keeps the selectors
            forget_reports(folder)
            compiled.clear()
            again = lint("--cache-dir", str(folder), *arguments)
            assert (again.exit_code, again.stdout, again.stderr) == (plain.exit_code, plain.stdout, plain.stderr)
            assert compiled == [], example
        with_selectors += bool(selector_entries(folder))
    assert with_selectors > 10


def test_a_changed_file_with_known_selectors_loads_no_engine(tmp_path: Path) -> None:
    manifest = tmp_path / "claim.yaml"
    manifest.write_text((EXAMPLES / CLAIM).read_text(encoding="utf-8"), encoding="utf-8")
    probe = (
        "import json, sys\n"
        f"sys.argv = ['dractl', 'lint', '--no-config', '--cache-dir', {str(tmp_path / 'cache')!r}, 'claim.yaml']\n"
        "from dractl.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stdout__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DRACTL_NO_CACHE"}

    def modules() -> set[str]:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                             env=env, timeout=60)
        assert out.returncode == 0, out.stderr
        return set(json.loads(out.stdout.strip().splitlines()[-1]))

    engine = {"cel_expr_python.cel", "dractl.cel.engines.cel_expr"}
    assert modules() & engine == engine  # the first run compiles
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("two-gpus", "three-gpus"), encoding="utf-8")
    found = modules()
    assert "dractl.lint.rules.cel" in found  # checked, not answered from the report cache
    assert sorted(found & engine) == []


def test_corrupt_entries_are_misses_and_no_cache_keeps_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    folder = tmp_path / "cache"
    plain = lint("--no-cache", MISTAKES)
    lint("--cache-dir", str(folder), MISTAKES)
    stored = selector_entries(folder)
    originals = [entry.read_text() for entry in stored]
    assert {"compiled" in json.loads(text) for text in originals} == {True, False}  # both verdicts

    def altered(text: str) -> str:
        entry = json.loads(text)
        if "compiled" in entry:
            entry["compiled"]["cost"] = str(entry["compiled"]["cost"])
        else:
            entry["error"]["kind"] = 1
        return json.dumps(entry)

    for change in (lambda _: "", lambda _: "{", lambda _: "[]", lambda _: json.dumps({"key": "other"}),
                   lambda text: text[:40], altered):
        for entry, text in zip(stored, originals, strict=True):
            entry.write_text(change(text))
        forget_reports(folder)
        again = lint("--cache-dir", str(folder), MISTAKES)
        assert (again.exit_code, again.stdout, again.stderr) == (plain.exit_code, plain.stdout, plain.stderr)
        assert [meaning(entry.read_text()) for entry in stored] == [meaning(text) for text in originals]
    out = lint("--no-cache", "--cache-dir", str(tmp_path / "none"), MISTAKES)
    assert out.exit_code == plain.exit_code and not (tmp_path / "none").exists()
