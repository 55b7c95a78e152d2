"""``dractl explain --jobs N``: the output, messages and exit code are those of one process, byte
for byte, on the examples, generated clusters and broken inputs."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from dractl import synthetic
from dractl.cli.testing import Result, invoke
from dractl.load import forked
from tests.robustness.mutations import mutate, seeds

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir())

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork here")


@pytest.fixture(autouse=True)
def _fork_for_any_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "FORK_MIN_CHARS", 0)


def _explain(*args: str, jobs: int) -> Result:
    result = invoke(["explain", "--color", "never", "--jobs", str(jobs), *args])
    assert result.exception is None, result.exc_info
    return result


def _same(*args: str) -> Result:
    one = _explain(*args, jobs=1)
    for jobs in (2, 3):
        other = _explain(*args, jobs=jobs)
        assert (other.exit_code, other.stdout, other.stderr) == (one.exit_code, one.stdout, one.stderr)
    return one


def _cluster(tmp_path: Path, nodes: int, network: int = 0, busy: bool = False) -> str:
    out = io.StringIO()
    synthetic.write(synthetic.cluster(nodes, 8, network, busy=busy), out)
    path = tmp_path / "cluster.yaml"
    path.write_text(out.getvalue())
    return str(path)


@pytest.mark.parametrize("output", ["text", "json", "yaml", "html"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_examples(scenario: Path, output: str) -> None:
    result = _same("-o", output, str(scenario))
    assert result.exit_code in (0, 1), result.stderr


@pytest.mark.parametrize(("network", "busy"), [(0, False), (20, True)])
@pytest.mark.parametrize("output", ["text", "json"])
def test_generated_clusters(tmp_path: Path, output: str, network: int, busy: bool) -> None:
    path = _cluster(tmp_path, 60, network, busy)
    result = _same("-o", output, "--claim", synthetic.CLAIM, path)
    assert result.exit_code == 0, result.stderr
    _same("-o", output, "-v", "--claim", synthetic.CLAIM, path)


def test_a_mistake_late_in_a_stream_is_reported_where_it_is(tmp_path: Path) -> None:
    """The message's position comes from a document a child read without positions."""
    path = Path(_cluster(tmp_path, 40))
    text = path.read_text()
    at = text.rindex("generation: 1")
    path.write_text(text[:at] + "generation: one" + text[at + len("generation: 1"):])
    result = _same(str(path))
    assert result.exit_code == 2
    line = text.count("\n", 0, at) + 1
    assert f"cluster.yaml:{line}:" in result.stderr, result.stderr


def test_a_syntax_error_late_in_a_stream(tmp_path: Path) -> None:
    path = Path(_cluster(tmp_path, 40))
    path.write_text(path.read_text() + "---\nkind: [\n")
    result = _same(str(path))
    assert result.exit_code == 2 and "YAML syntax error" in result.stderr


@pytest.mark.parametrize("seed", range(16))
def test_mutated_inputs(seed: int) -> None:
    rng = random.Random(seed)
    explain_seeds = [s for s in seeds() if "kind: Node" in s]
    text = mutate(rng.choice(explain_seeds), rng)
    one = invoke(["explain", "--jobs", "1", "-"], input=text)
    three = invoke(["explain", "--jobs", "3", "-"], input=text)
    assert (three.exit_code, three.stdout, three.stderr, repr(three.exception)) == (
        one.exit_code, one.stdout, one.stderr, repr(one.exception))
