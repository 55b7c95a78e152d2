"""The pre-commit hooks, run the way pre-commit runs them (`pre-commit try-repo` on a repository
with manifests and the other YAML and JSON a repository holds), and README's snippet for them.

pre-commit installs the hooks' environment from this checkout with pip, so the first run needs
the package index (PyPI or a mirror) for the dependencies; the environment is built once per
test session. Without an index the tests skip, and say so.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OTHER_FILES = Path(__file__).parent / "other-files"
GOOD_MANIFESTS = sorted((ROOT / "examples" / "good").glob("*.yaml"))
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
# pip's words for "the package index cannot be reached"
OFFLINE = re.compile(
    r"Failed to establish a new connection|Temporary failure in name resolution|"
    r"Network is unreachable|No matching distribution found|ConnectTimeoutError|ProxyError"
)
BAD_CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu-claim
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        allocationMode: Sometimes
"""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


def is_git_checkout(path: Path) -> bool:
    if shutil.which("git") is None:
        return False
    try:
        return git("rev-parse", "--show-toplevel", cwd=path) == str(path)
    except subprocess.CalledProcessError:
        return False


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not is_git_checkout(ROOT):
        pytest.skip("the hooks are installed from a git checkout; this tree is not one")
    return tmp_path_factory.mktemp("pre-commit-home")


def make_repo(path: Path, files: dict[str, str | Path]) -> Path:
    path.mkdir()
    git("init", "-q", cwd=path)
    for name, content in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, target)
        else:
            target.write_text(content)
    git("add", "-A", cwd=path)
    return path


def run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("NO_COLOR", None)
    out = subprocess.run(
        [*PRE_COMMIT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200
    )
    log = home / "pre-commit.log"
    text = out.stdout + out.stderr + (log.read_text() if log.exists() else "")
    if "Installing environment" in text and "An unexpected error has occurred" in text:
        if OFFLINE.search(text):
            pytest.skip("pre-commit could not install the hook's dependencies: no package index")
    return out


def try_repo(hook: str, repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run(["try-repo", str(ROOT), hook, "--verbose", *args], repo, home)


def other_files() -> dict[str, str | Path]:
    return {str(p.relative_to(OTHER_FILES)): p for p in OTHER_FILES.rglob("*") if p.is_file()}


def test_lint_hook_passes_a_repository_of_manifests_and_other_files(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    files = other_files()
    files.update({f"deploy/{p.name}": p for p in GOOD_MANIFESTS})
    files["README.md"] = "# not YAML: pre-commit does not pass it to the hook\n"
    repo = make_repo(tmp_path / "repo", files)
    out = try_repo("dractl-lint", repo, pre_commit_home, "--all-files")
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^dractl lint\.+Passed$", out.stdout, re.M), out.stdout
    # --verbose shows what the hook printed: summaries only, no diagnostic for any file
    summaries = re.findall(r"^(\d+) errors?, (\d+) warnings? \((\d+) objects? in (\d+) files?\)$",
                           out.stdout, re.M)
    assert summaries, out.stdout
    assert all(errors == warnings == "0" for errors, warnings, _, _ in summaries), out.stdout
    assert sum(int(n) for _, _, _, n in summaries) == len(files) - 1  # every YAML and JSON file
    assert sum(int(n) for _, _, n, _ in summaries) >= len(GOOD_MANIFESTS)
    assert "README.md" not in out.stdout


def test_lint_hook_fails_on_a_bad_manifest_and_names_it(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {**other_files(), "deploy/claim.yaml": BAD_CLAIM, "deploy/class.yaml": GOOD_MANIFESTS[0]},
    )
    out = try_repo("dractl-lint", repo, pre_commit_home, "--files", "deploy/claim.yaml")
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^dractl lint\.+Failed$", out.stdout, re.M)
    assert "- exit code: 1" in out.stdout
    assert re.search(r"^deploy/claim\.yaml:11:\d+: error DRA\d{3} ", out.stdout, re.M), out.stdout


def test_lint_hook_fails_on_broken_yaml_with_exit_code_2(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    broken = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu\n"
    repo = make_repo(tmp_path / "repo", {"class.yaml": broken, **other_files()})
    out = try_repo("dractl-lint", repo, pre_commit_home, "--all-files")
    assert out.returncode == 1  # pre-commit's own code for "a hook failed"
    assert "- exit code: 2" in out.stdout
    assert re.search(r"^class\.yaml:4:1: error DRA001 YAML syntax error", out.stdout, re.M), (
        out.stdout
    )


def readme_snippet() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", text, re.S)
    assert match, "README.md has no .pre-commit-config.yaml snippet"
    return match.group(1)


def test_readme_snippet_names_the_published_hooks(tmp_path: Path) -> None:
    manifest = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook_ids = {hook["id"] for hook in manifest}
    config = YAML(typ="safe").load(readme_snippet())
    (entry,) = config["repos"]
    assert entry["repo"] == "https://github.com/dractl/dractl"
    assert {hook["id"] for hook in entry["hooks"]} <= hook_ids
    assert "dractl-lint" in {hook["id"] for hook in entry["hooks"]}
    (tmp_path / ".pre-commit-config.yaml").write_text(readme_snippet())
    for args in (
        ["validate-config", str(tmp_path / ".pre-commit-config.yaml")],
        ["validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
    ):
        out = subprocess.run([*PRE_COMMIT, *args], capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr


def test_hooks_are_python_hooks_on_yaml_and_json() -> None:
    manifest = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    by_id = {hook["id"]: hook for hook in manifest}
    assert by_id["dractl-lint"]["entry"] == "dractl lint"
    for hook in manifest:
        assert hook["language"] == "python"
        assert hook["types_or"] == ["yaml", "json"]
