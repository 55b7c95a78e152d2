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
        allocationMode: ExactCount
        colour: blue
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
    installing = "Installing environment" in text
    if installing and "An unexpected error has occurred" in text and OFFLINE.search(text):
        pytest.skip("pre-commit could not install the hook's dependencies: no package index")
    return out


def other_files() -> dict[str, str | Path]:
    return {str(p.relative_to(OTHER_FILES)): p for p in OTHER_FILES.rglob("*") if p.is_file()}


def good_manifests() -> dict[str, str | Path]:
    return {f"deploy/{p.name}": p for p in GOOD_MANIFESTS if p.stem.endswith("-v1")}


SUMMARY = re.compile(r"^(\d+) errors?, (\d+) warnings? \((\d+) objects? in (\d+) files?\)$", re.M)


def test_try_repo_reports_bad_manifests_and_nothing_else(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    broken = "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: gpu\n"
    files = {**other_files(), **good_manifests(), "deploy/claim.yaml": BAD_CLAIM}
    files["deploy/broken.yaml"] = broken
    files["README.md"] = "# not YAML: pre-commit does not pass it to the hook\n"
    repo = make_repo(tmp_path / "repo", files)
    # try-repo installs the hook from this checkout (with uncommitted changes) into a fresh store
    out = run(
        ["try-repo", str(ROOT), "dractl-lint", "--verbose", "--all-files"], repo, pre_commit_home
    )
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^dractl lint\.+Failed$", out.stdout, re.M), out.stdout
    reported = set(re.findall(r"^(\S+?):\d+:\d+: (?:error|warning|info) ", out.stdout, re.M))
    assert reported == {"deploy/claim.yaml", "deploy/broken.yaml"}, out.stdout
    assert re.search(r"^deploy/claim\.yaml:12:9: error DRA010 ", out.stdout, re.M)
    assert re.search(r"^deploy/broken\.yaml:4:1: error DRA001 YAML syntax error", out.stdout, re.M)
    checked = sum(int(files_) for *_, files_ in SUMMARY.findall(out.stdout))
    assert checked == len(files) - 1  # every YAML and JSON file, not README.md


@pytest.fixture(scope="module")
def configured_repo(tmp_path_factory: pytest.TempPathFactory, pre_commit_home: Path) -> Path:
    """A repository whose .pre-commit-config.yaml is README's snippet pointed at this checkout."""
    if git("status", "--porcelain", "--", ".pre-commit-hooks.yaml", cwd=ROOT):
        pytest.skip(".pre-commit-hooks.yaml has uncommitted changes; pre-commit reads HEAD")
    config = readme_snippet().replace("https://github.com/dractl/dractl", str(ROOT))
    config = re.sub(r"rev: \S+", f"rev: {git('rev-parse', 'HEAD', cwd=ROOT)}", config)
    files = {**other_files(), **good_manifests(), ".pre-commit-config.yaml": config}
    return make_repo(tmp_path_factory.mktemp("configured") / "repo", files)


def test_readme_configuration_passes_manifests_and_other_files(
    configured_repo: Path, pre_commit_home: Path
) -> None:
    out = run(["run", "--all-files", "--verbose"], configured_repo, pre_commit_home)
    assert out.returncode == 0, out.stdout + out.stderr
    assert re.search(r"^dractl lint\.+Passed$", out.stdout, re.M), out.stdout
    assert re.search(r"^dractl convert --check\.+Passed$", out.stdout, re.M), out.stdout
    summaries = SUMMARY.findall(out.stdout)
    assert summaries and all(e == w == "0" for e, w, _, _ in summaries), out.stdout
    assert sum(int(n) for *_, n in summaries) == len(other_files()) + len(good_manifests()) + 1
    assert sum(int(n) for _, _, n, _ in summaries) >= len(good_manifests())


def test_readme_configuration_fails_a_commit_with_a_bad_manifest(
    configured_repo: Path, pre_commit_home: Path
) -> None:
    (configured_repo / "deploy" / "claim.yaml").write_text(BAD_CLAIM)
    git("add", "deploy/claim.yaml", cwd=configured_repo)
    try:
        out = run(["run"], configured_repo, pre_commit_home)  # the staged files, as on commit
    finally:
        git("rm", "-q", "--cached", "deploy/claim.yaml", cwd=configured_repo)
        (configured_repo / "deploy" / "claim.yaml").unlink()
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^dractl lint\.+Failed$", out.stdout, re.M)
    assert "- exit code: 1" in out.stdout
    assert re.search(r"^deploy/claim\.yaml:12:9: error DRA010 ", out.stdout, re.M), out.stdout


def test_convert_check_hook_fails_on_a_beta_manifest(
    configured_repo: Path, pre_commit_home: Path
) -> None:
    beta = ROOT / "examples" / "good" / "claim-gpu-v1beta1.yaml"
    target = configured_repo / "deploy" / "claim-beta.yaml"
    target.write_bytes(beta.read_bytes())
    git("add", "deploy/claim-beta.yaml", cwd=configured_repo)
    try:
        out = run(["run", "dractl-convert-check"], configured_repo, pre_commit_home)
        after = target.read_bytes()
    finally:
        git("rm", "-q", "--cached", "deploy/claim-beta.yaml", cwd=configured_repo)
        target.unlink()
    assert out.returncode == 1, out.stdout + out.stderr
    assert re.search(r"^dractl convert --check\.+Failed$", out.stdout, re.M), out.stdout
    assert "would convert deploy/claim-beta.yaml" in out.stdout
    assert after == beta.read_bytes()  # --check writes nothing


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
    assert {hook["id"] for hook in entry["hooks"]} == {"dractl-lint", "dractl-convert-check"}
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
    assert by_id["dractl-convert-check"]["entry"] == "dractl convert --check"
    for hook in manifest:
        assert hook["language"] == "python"
        assert hook["types_or"] == ["yaml", "json"]
