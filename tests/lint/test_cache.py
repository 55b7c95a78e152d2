"""The lint cache: a second run with the same inputs, settings and dractl prints exactly what the
first printed (report, stderr, exit code) without checking again; anything else is checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dractl import __version__
from dractl.cli.testing import invoke
from dractl.lint import cache as lint_cache

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BAD = sorted(
    p.relative_to(EXAMPLES).as_posix()
    for p in (EXAMPLES / "bad").glob("*")
    if p.is_dir() or (p.suffix in (".yaml", ".json") and ".expected." not in p.name and ".context." not in p.name)
)
CLAIM = "good/claim-gpu-v1.yaml"


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    # the suite runs with the cache off (tests/conftest.py); these tests turn it on
    monkeypatch.delenv("DRACTL_NO_CACHE", raising=False)
    monkeypatch.delenv("DRACTL_CACHE_DIR", raising=False)


def entries(folder: Path) -> list[Path]:
    return sorted((folder / __version__).glob("*.json"))


def lint(folder: Path, *args: str, input: str | None = None):
    return invoke(["lint", "--no-config", "--color", "never", "--cache-dir", str(folder), *args], input=input)


def test_every_example_reads_the_same_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cold and warm runs of every bad example (their goldens) and of good/, in three formats."""
    monkeypatch.chdir(EXAMPLES)
    folder = tmp_path / "cache"
    for example in [*BAD, "good"]:
        context = EXAMPLES / f"{example}.context.yaml"
        options = ["--context", f"{example}.context.yaml"] if context.exists() else []
        for output in (["--format", "text"], ["--format", "json"], ["--format", "sarif"]):
            cold = lint(folder, *options, *output, example)
            assert cold.exception is None, cold.exc_info
            stored = len(entries(folder))
            warm = lint(folder, *options, *output, example)
            assert (warm.exit_code, warm.stdout, warm.stderr) == (cold.exit_code, cold.stdout, cold.stderr)
            assert len(entries(folder)) == stored
        golden = EXAMPLES / f"{example.removesuffix('.yaml').removesuffix('.json')}.expected.txt"
        if golden.exists():
            assert lint(folder, *options, example).stdout == golden.read_text(encoding="utf-8")


def test_a_warm_run_checks_nothing(tmp_path: Path) -> None:
    """A hit imports neither the rules, the validation, the YAML reader nor a CEL engine."""
    probe = (
        "import json, sys\n"
        f"sys.argv = ['dractl', 'lint', '--cache-dir', {str(tmp_path)!r}, {CLAIM!r}]\n"
        "from dractl.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.__stdout__)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DRACTL_NO_CACHE"}

    def modules() -> set[str]:
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=EXAMPLES,
                             env=env, timeout=60)
        assert out.returncode == 0, out.stderr
        return set(json.loads(out.stdout.strip().splitlines()[-1]))

    heavy = {"cel_expr_python", "yaml", "dractl.api.validation", "dractl.lint.rules",
             "dractl.lint.engine", "dractl.cel"}
    assert modules() & heavy == heavy  # the first run checks
    assert sorted(modules() & heavy) == []


def test_changed_contents_settings_or_code_are_checked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "claim.yaml"
    manifest.write_text((EXAMPLES / CLAIM).read_text(encoding="utf-8"), encoding="utf-8")
    folder = tmp_path / "cache"
    clean = lint(folder, "claim.yaml")
    assert clean.exit_code == 0
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("count: 2", "count: -1"), encoding="utf-8")
    broken = lint(folder, "claim.yaml")
    assert broken.exit_code == 1 and "DRA" in broken.stdout
    assert len(entries(folder)) == 1  # the run's slot was overwritten
    assert lint(folder, "claim.yaml").stdout == broken.stdout
    # other settings: their own entry, their own answer
    ignored = lint(folder, "--ignore", "DRA", "claim.yaml")
    assert ignored.exit_code == 0
    assert len(entries(folder)) == 2
    # an edited dractl is another dractl
    monkeypatch.setattr(lint_cache, "_code_fingerprint", lambda: [("rules.py", 1, 2)])
    lint(folder, "claim.yaml")
    assert len(entries(folder)) == 3


def test_standard_input_is_part_of_the_key(tmp_path: Path) -> None:
    text = (EXAMPLES / CLAIM).read_text(encoding="utf-8")
    first = lint(tmp_path, "-", input=text)
    other = lint(tmp_path, "-", input=text.replace("count: 2", "count: -1"))
    assert first.exit_code == 0 and other.exit_code == 1
    assert lint(tmp_path, "-", input=text).stdout == first.stdout


def test_corrupt_or_foreign_entries_are_misses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    cold = lint(tmp_path, CLAIM)
    (entry,) = entries(tmp_path)
    for text in ("", "{", "[]", json.dumps({"format": 1}), entry.read_text()[:40],
                 json.dumps({**json.loads(entry.read_text()), "exit_code": "0"})):
        entry.write_text(text)
        again = lint(tmp_path, CLAIM)
        assert (again.exit_code, again.stdout, again.stderr) == (cold.exit_code, cold.stdout, cold.stderr)
        assert json.loads(entry.read_text())["report"] == cold.stdout  # rewritten


def test_the_folder_is_made_as_ruff_makes_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / ".dractl.yaml").write_text("strict: false\n")
    (project / "sub" / "claim.yaml").write_text((EXAMPLES / CLAIM).read_text(encoding="utf-8"))
    monkeypatch.chdir(project / "sub")
    assert invoke(["lint", "claim.yaml"]).exit_code == 0
    folder = project / ".dractl_cache"  # beside the configuration file
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert len(entries(folder)) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claim.yaml").write_text((EXAMPLES / CLAIM).read_text(encoding="utf-8"))
    assert invoke(["lint", "claim.yaml"]).exit_code == 0
    assert len(entries(tmp_path / ".dractl_cache")) == 1  # no configuration: the current folder


def test_no_cache_and_unwritable_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    assert lint(tmp_path / "a", "--no-cache", CLAIM).exit_code == 0
    assert not (tmp_path / "a").exists()
    monkeypatch.setenv("DRACTL_NO_CACHE", "1")
    assert lint(tmp_path / "b", CLAIM).exit_code == 0
    assert not (tmp_path / "b").exists()
    monkeypatch.setenv("DRACTL_NO_CACHE", "0")
    assert lint(tmp_path / "c", CLAIM).exit_code == 0
    assert len(entries(tmp_path / "c")) == 1
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    out = lint(blocker / "cache", CLAIM)
    assert (out.exit_code, out.stderr) == (0, "")


def test_output_file_and_errors_are_replayed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.yaml").write_bytes(b"kind: DeviceClass\nname: \xff\n")
    runs = []
    for _ in range(2):
        out = lint(tmp_path / "cache", "-o", "report.txt", "bad.yaml")
        runs.append((out.exit_code, out.stdout, out.stderr, (tmp_path / "report.txt").read_text()))
        (tmp_path / "report.txt").unlink()
    assert runs[0] == runs[1]
    assert runs[0][0] == 2 and runs[0][1] == ""
    assert len(entries(tmp_path / "cache")) == 1


def test_concurrent_runs_share_a_slot(tmp_path: Path) -> None:
    env = {**{k: v for k, v in os.environ.items() if k != "DRACTL_NO_CACHE"}, "DRACTL_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-m", "dractl", "lint", "--no-config", "--color", "never", "bad"]
    runs = [subprocess.Popen(command, cwd=EXAMPLES, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(4)]
    answers = {(*p.communicate(timeout=120), p.returncode) for p in runs}
    after = subprocess.run(command, cwd=EXAMPLES, env=env, capture_output=True, text=True, timeout=120)
    answers.add((after.stdout, after.stderr, after.returncode))
    assert len(answers) == 1, answers
    assert len(entries(tmp_path)) == 1
    assert not list((tmp_path / __version__).glob("*.tmp"))


def test_pruning_keeps_the_recently_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint_cache, "MAX_ENTRIES", 8)
    folder = tmp_path / __version__
    folder.mkdir()
    for i in range(9):
        (folder / f"{i}.json").write_text("{}")
        os.utime(folder / f"{i}.json", ns=(i * 10**9, i * 10**9))
    lint_cache._prune(str(folder))
    assert sorted(p.name for p in folder.glob("*.json")) == [f"{i}.json" for i in range(2, 9)]


def test_a_cache_that_cannot_be_touched_still_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    cold = lint(tmp_path, CLAIM)

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError("read-only file system")

    def must_not_store(self: object, run: object) -> None:
        raise AssertionError("checked again: the entry was not used")

    monkeypatch.setattr(lint_cache.os, "utime", refuse)
    monkeypatch.setattr(lint_cache.RunCache, "store", must_not_store)
    warm = lint(tmp_path, CLAIM)
    assert warm.exception is None, warm.exc_info
    assert (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout)
