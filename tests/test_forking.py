"""dractl.forking: how many processes a piece of work gets, and what a child's answer is."""

from __future__ import annotations

import os

import pytest

from dractl import forking


@pytest.fixture(autouse=True)
def _however_much_memory_the_test_process_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forking, "MAX_RESIDENT", 1 << 62)


@pytest.mark.parametrize(
    ("jobs", "size", "least", "expected"),
    [
        (2, 1000, 100, 2),
        (8, 1000, 100, 8),
        (64, 1000, 100, 10),  # no process with less than `least`
        (4, 150, 100, 1),
        (4, 0, 100, 1),
        (1, 10**6, 100, 1),
        (3, 5, 0, 3),  # no least: as asked
    ],
)
def test_processes(jobs: int, size: int, least: int, expected: int) -> None:
    assert forking.processes(jobs, size, least) == expected


needs_fork = pytest.mark.skipif(not forking.can_fork(), reason="no fork here")


@needs_fork
def test_a_child_answers_with_plain_data_from_its_own_process() -> None:
    child = forking.fork(lambda: {"pid": os.getpid(), "values": [1, "two", None, True, 2.5]})
    assert child is not None
    answer = child.answer()
    assert answer["values"] == [1, "two", None, True, 2.5] and answer["pid"] != os.getpid()


@needs_fork
@pytest.mark.parametrize("work", [lambda: 1 / 0, lambda: object(), lambda: os._exit(3)],
                         ids=["raises", "not plain data", "exits"])
def test_a_child_that_fails_gives_no_answer(work) -> None:
    child = forking.fork(work)
    assert child is not None and child.answer() is forking.NO_ANSWER


@needs_fork
def test_no_child_is_forked_from_a_process_that_holds_too_much(monkeypatch: pytest.MonkeyPatch) -> None:
    assert forking.resident_bytes() > 1_000_000
    monkeypatch.setattr(forking, "MAX_RESIDENT", 1_000_000)
    assert forking.fork(lambda: 1) is None
