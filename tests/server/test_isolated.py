"""Work that evaluates CEL runs in a forked child: its answer comes back, its garbage does not."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dractl import forking
from dractl.cel.compiler import CompiledSelector
from dractl.server import isolated
from dractl.server.workspace import WorkspaceState
from tests.server.conftest import CLAIM, DEVICE_CLASS, SLICE

FORKS = forking.can_fork()
PARENT = os.getpid()
touched: list[str] = []


@pytest.fixture(autouse=True)
def _any_size_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    # The test process may have grown past the limit under which a child is forked (a whole
    # suite's caches): these tests are about what runs in the child, not about that limit.
    monkeypatch.setattr(forking, "MAX_RESIDENT", 1 << 62)


def pid() -> int:
    touched.append("here")
    return os.getpid()


def fails_in_a_child() -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("only in the child")
    return pid()


@pytest.mark.parametrize(
    ("work", "can_fork", "in_child"),
    [
        (pid, True, FORKS),  # forked where the system forks
        (pid, False, False),  # no fork: here
        (fails_in_a_child, True, False),  # the child failed: done again here
    ],
)
def test_run(
    monkeypatch: pytest.MonkeyPatch, work: Callable[[], int], can_fork: bool, in_child: bool
) -> None:
    if not can_fork:
        monkeypatch.setattr(forking, "can_fork", lambda: False)
    touched.clear()
    answer = isolated.run(work)
    assert (answer != PARENT) is in_child
    # what the work changed stays in the child
    assert touched == ([] if in_child else ["here"])


def test_the_answer_comes_back_whole() -> None:
    from dractl.diagnostics import Diagnostic, Position, Severity

    found = Diagnostic("DRA120", Severity.ERROR, "count", Position("a.yaml", 12, 16))
    assert isolated.run(lambda: [found, {"k": (1, None)}]) == [found, {"k": (1, None)}]


@pytest.mark.skipif(not FORKS, reason="checks are forked on Linux only")
def test_a_check_evaluates_no_selector_of_the_workspace_in_the_servers_process(
    monkeypatch: pytest.MonkeyPatch, folder: Path
) -> None:
    evaluated: list[str] = []
    original = CompiledSelector.evaluate

    def counting(self: CompiledSelector, device: Any) -> bool:
        evaluated.append(self.expression)
        return original(self, device)

    monkeypatch.setattr(CompiledSelector, "evaluate", counting)
    state = WorkspaceState(str(folder))
    claim = str(folder / "claim.yaml")
    for text in (CLAIM, CLAIM.replace("count: -1", "count: 2")):
        snapshot = state.check({claim: text})
        # the selector failed on a device (DRA210): it was evaluated, in the child
        assert "DRA210" in [d.rule for d in snapshot.result.diagnostics]
    workspace_selector = CLAIM.split("expression: ")[1].strip()
    assert workspace_selector not in evaluated
    # here: only the warm-up's sample, once
    first = len(evaluated)
    state.check({claim: CLAIM})
    assert len(evaluated) == first


def test_a_folder_is_checked_the_same_forked_or_not(
    monkeypatch: pytest.MonkeyPatch, folder: Path, tmp_path: Path
) -> None:
    shutil.copy(
        Path(__file__).resolve().parents[2] / "examples/bad/admin-access-namespace-v1.yaml", folder
    )
    forked = WorkspaceState(str(folder)).check({}).result
    monkeypatch.setattr(forking, "can_fork", lambda: False)
    here = WorkspaceState(str(folder)).check({}).result
    assert forked == here
    assert forked.diagnostics


@pytest.mark.parametrize(
    ("files", "forked"),
    [
        (
            {"claim.yaml": CLAIM, "deviceclass.yaml": DEVICE_CLASS},
            False,
        ),  # no device: no evaluation
        ({"claim.yaml": CLAIM, "slice.yaml": SLICE}, True),
    ],
)
def test_only_a_set_with_devices_is_checked_in_a_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, files: dict[str, str], forked: bool
) -> None:
    runs: list[object] = []
    original = isolated.run

    def recording(work: Callable[[], Any]) -> Any:
        runs.append(work)
        return original(work)

    monkeypatch.setattr(isolated, "run", recording)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    snapshot = WorkspaceState(str(tmp_path)).check({})
    assert bool(runs) is forked
    assert "DRA120" in [d.rule for d in snapshot.result.diagnostics]
