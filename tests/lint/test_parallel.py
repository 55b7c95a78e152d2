"""Several processes give the same diagnostics, in the same order, as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from dractl.lint import parallel
from dractl.lint.engine import Settings, lint

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="processes are forked on Linux only")


def _corpus(folder: Path, copies: int) -> list[str]:
    """Every example (good and bad) ``copies`` times, renamed, one file each."""
    files = []
    sources = sorted((ROOT / "examples" / "good").glob("*.yaml")) + sorted(
        (ROOT / "examples" / "bad").glob("*.yaml")
    )
    for i in range(copies):
        for source in sources:
            text = source.read_text(encoding="utf-8").replace("  name: ", f"  name: c{i}-", 1)
            path = folder / f"{i:02d}-{source.name}"
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
    return files


@pytest.fixture
def low_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "LOAD_MIN_FILES", 2)
    monkeypatch.setattr(parallel, "RULES_MIN_OBJECTS", 2)


def test_same_result_in_several_processes(tmp_path: Path, low_thresholds: None) -> None:
    files = _corpus(tmp_path, 3)
    seen: list[tuple[int, int]] = []
    one = parallel.load_files(files, jobs=1)
    several = parallel.load_files(files, jobs=2, progress=lambda done, total: seen.append((done, total)))
    assert [f.path for f in several.files] == [f.path for f in one.files] == files
    assert [(o.kind, o.name, o.position()) for o in several.objects] == [
        (o.kind, o.name, o.position()) for o in one.objects
    ]
    assert several.diagnostics == one.diagnostics
    assert seen[-1] == (len(files), len(files))
    expected = lint(one, Settings(), jobs=1).diagnostics
    assert expected, "the corpus has bad examples: there must be findings"
    assert lint(several, Settings(), jobs=2).diagnostics == expected
    assert lint(one, Settings(), jobs=3).diagnostics == expected


def test_cli_output_does_not_depend_on_jobs(tmp_path: Path, run_dractl) -> None:
    _corpus(tmp_path, 5)  # above LOAD_MIN_FILES, so -j 2 really forks
    assert len(list(tmp_path.iterdir())) >= parallel.LOAD_MIN_FILES
    single = run_dractl("lint", "--no-config", "-j", "1", "-f", "json", ".", cwd=tmp_path)
    double = run_dractl("lint", "--no-config", "-j", "2", "-f", "json", ".", cwd=tmp_path)
    assert single.returncode == double.returncode == 1
    assert single.stdout == double.stdout
