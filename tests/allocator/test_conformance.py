"""Every upstream allocator scenario of tests/conformance/allocator/ must agree with the solver."""

from __future__ import annotations

from pathlib import Path

import pytest
from allocator_scenarios import all_scenarios, disagreement, load_scenario

# Scenario name -> why dractl disagrees on purpose (with the upstream source that shows it).
KNOWN_DISAGREEMENTS: dict[str, str] = {}


def test_all_scenarios_are_there() -> None:
    assert len(all_scenarios()) == 108


@pytest.mark.parametrize("path", all_scenarios(), ids=lambda p: p.stem)
def test_scenario_agrees_with_upstream(path: Path) -> None:
    scenario = load_scenario(path)
    if scenario.uses_cel():
        pytest.importorskip("dractl.cel")
    if scenario.name in KNOWN_DISAGREEMENTS:
        pytest.xfail(KNOWN_DISAGREEMENTS[scenario.name])
    problem = disagreement(scenario, scenario.run())
    assert problem is None, problem


@pytest.mark.parametrize("path", all_scenarios(), ids=lambda p: p.stem)
def test_tracing_does_not_change_the_outcome(path: Path) -> None:
    scenario = load_scenario(path)
    if scenario.uses_cel():
        pytest.importorskip("dractl.cel")
    plain, traced = scenario.run(), scenario.run(trace=True)
    assert (plain.status, plain.allocations, plain.error) == (traced.status, traced.allocations, traced.error)
    assert plain.trace is None and traced.trace is not None
    for request in traced.trace.requests:
        for _device, rejection in request.rejections():
            assert rejection.message()
