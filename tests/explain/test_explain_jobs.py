"""``dractl explain --jobs N``: the output, messages and exit code are those of one process, byte
for byte, on the examples, generated clusters and broken inputs."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from dractl import forking, synthetic
from dractl.cli.testing import Result, invoke
from dractl.explain import run
from dractl.load import forked
from tests.robustness.mutations import mutate, seeds

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(p for p in (ROOT / "examples" / "explain").iterdir() if p.is_dir())

pytestmark = pytest.mark.skipif(not forked.can_fork(), reason="no fork here")


@pytest.fixture(autouse=True)
def _fork_for_any_length(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "FORK_MIN_CHARS", 0)
    monkeypatch.setattr(run, "FORK_MIN_NODES", 0)
    # however large the test process has grown
    monkeypatch.setattr(forking, "MAX_RESIDENT", 1 << 62)


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


@pytest.mark.parametrize("where", ["rindex", "index"])
def test_mistakes_in_a_stream_are_reported_where_they_are(tmp_path: Path, where: str) -> None:
    """The messages' positions come from documents read without positions, in this process and
    in others; in the order of one process."""
    path = Path(_cluster(tmp_path, 40))
    text = path.read_text()
    lines = []
    for find in (where, "rindex" if where == "index" else "index"):
        at = getattr(text, find)("generation: 1")
        text = text[:at] + "generation: one" + text[at + len("generation: 1"):]
        lines.append(text.count("\n", 0, at) + 1)
    path.write_text(text)
    result = _same(str(path))
    assert result.exit_code == 2
    assert [f"cluster.yaml:{line}:" in result.stderr for line in sorted(lines)] == [True, True], result.stderr
    first, second = sorted(lines)
    assert result.stderr.index(f"cluster.yaml:{first}:") < result.stderr.index(f"cluster.yaml:{second}:")


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


@pytest.mark.parametrize("output", ["text", "json"])
def test_the_nodes_are_searched_in_other_processes(tmp_path: Path, output: str) -> None:
    """The parts of the children come back rendered; the first part is searched here."""
    from dractl.api.model import build_all
    from dractl.api.workspace import Workspace
    from dractl.explain.render import to_data
    from dractl.load import load_paths

    objects = build_all(load_paths([_cluster(tmp_path, 30, busy=True)], comments=False).objects, share=True)
    settings = {"claims": (synthetic.CLAIM,), "output": output}
    one = run.explain(Workspace(objects), run.ExplainSettings(**settings))
    three = run.explain(Workspace(objects), run.ExplainSettings(**settings, jobs=3))
    (nodes,) = (unit.nodes for unit in three.units)
    assert [n.outcome is not None for n in nodes] == [True] * 10 + [False] * 20  # searched here or not
    assert all(n.rendered is not None for n in nodes)
    assert [n.node for n in nodes] == [n.node for n in one.units[0].nodes]
    if output == "json":
        assert to_data(three) == to_data(one)
    else:
        assert all(n.rendered.data is None for n in nodes)
        assert any(n.rendered.text for n in nodes[10:]) and not all(n.rendered.text for n in nodes[10:])


def test_a_budget_for_the_whole_run_searches_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Which nodes a --run-timeout leaves unsearched must not depend on how the work was shared."""
    def forked_search(*args: object) -> None:
        raise AssertionError("the nodes were searched in several processes")

    monkeypatch.setattr(run, "_evaluate_forked", forked_search)
    result = _explain("--run-timeout", "100", _cluster(tmp_path, 20), jobs=3)
    assert result.exit_code == 0, result.stderr
