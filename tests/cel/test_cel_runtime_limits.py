"""cel-go's runtime cost limit and parser limits, against the upstream compiler's stored answers
(runtime_limits_corpus.py, data/runtime-limits.json).

- Each engine cancels an evaluation where cel-go's cost tracker does: an expression padded up to
  the limit with steps of known cost still runs with upstream's actual cost, and is cancelled with
  one more.
- Selectors that pass the estimate (or are not estimated: the scheduler does not) but build large
  values answer as upstream does, within bounded memory; where upstream's own evaluation is not
  stopped by the cost limit and outgrows what dractl holds, dractl says so instead.
- Expressions at cel-go's parser limits (100,000 code points, nesting 250 deep) get upstream's
  compile error, and those within them compile, in both engines.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from dractl.cel import CelCompileError, CelRuntimeError, compile_selector
from dractl.cel.engines import ENGINES, engine_available
from dractl.cel.evaluation_bound import MAX_VALUE_SIZE, EvaluationBound
from dractl.cel.slices import devices_of_slices

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the corpus module beside this one
from runtime_limits_corpus import (
    CANCELLED,
    CORPUS,
    COSTS,
    EVALUATIONS,
    LIMIT,
    ORACLE,
    PARSE,
    SHAPES,
    SLICES,
    measure_cost,
    padded,
)

STORED = json.loads(Path(CORPUS).read_text())
DEVICES = list(
    devices_of_slices(list(yaml.safe_load_all(Path(SLICES).read_text())), consumable_capacity=True)
)
AVAILABLE = [engine for engine in ENGINES if engine_available(engine)]
TOO_LARGE = "not supported by dractl: this evaluation builds"

# Where dractl deliberately answers otherwise than the upstream binary: its evaluation is not
# stopped by the cost limit before it builds a value past what dractl holds (MAX_VALUE_SIZE: a list
# concatenation costs 1, format and replace cost by their inputs); upstream answers, slowly, or runs
# out of memory; dractl stops and says so. And a range cel-go builds before it charges it: upstream
# runs out of memory first, dractl cancels it as upstream would once it had built it.
BEYOND_DRACTL = {
    "v24.size()": (TOO_LARGE, "a list of 8 × 2^24 elements (upstream: a lazy concatenation)"),
    "format([v19, v19]), v20.size() > 0": (TOO_LARGE, "a string of 16 × 2^20 characters"),
    "format([v29, v29]), v30.size() > 0": (
        TOO_LARGE,
        "16 × 2^30 characters: upstream runs out of memory",
    ),
    'replace("x", v2), v3.size() > 0': (
        TOO_LARGE,
        "16^4 × 2^16 characters: upstream runs out of memory",
    ),
    'replace("x", v19), v20.size() > 0': (TOO_LARGE, "upstream runs out of memory"),
    "lists.range(1000000000)": (
        CANCELLED,
        "upstream runs out of memory building the list it then charges",
    ),
}


def _beyond(expression: str) -> tuple[str, str] | None:
    for marker, (answer, why) in BEYOND_DRACTL.items():
        if marker in expression:
            return answer, why
    return None


def answers(expression: str, engine: str) -> list[Any]:
    selector = compile_selector(expression, release="1.36", purpose="stored", engine=engine)
    found: list[Any] = []
    for entry in DEVICES:
        try:
            found.append(selector.evaluate(entry.device))
        except CelRuntimeError as exc:
            found.append(exc.message)
    return found


def test_the_stored_corpus_has_every_case() -> None:
    assert set(STORED["costs"]) == set(COSTS)
    assert set(STORED["evaluations"]) == set(EVALUATIONS)
    assert set(STORED["parse"]) == {f"{shape} {n}" for shape, n in PARSE}


# -- actual cost ---------------------------------------------------------------------------------


def _cost_cases() -> list[Any]:
    cases = []
    for index, expression in enumerate(COSTS):
        for engine in AVAILABLE:
            # cel-python runs every case; the default engine hands a selector whose cost may pass the
            # limit to the same tracker, checked on every fifth case
            if engine == "cel-python" or index % 5 == 0:
                cases.append(
                    pytest.param(
                        engine, expression, STORED["costs"][expression], id=f"{engine}-{expression}"
                    )
                )
    return cases


@pytest.mark.parametrize(("engine", "expression", "cost"), _cost_cases())
def test_an_evaluation_is_cancelled_where_upstream_cancels_it(
    engine: str, expression: str, cost: int
) -> None:
    device = DEVICES[0].device
    within = compile_selector(
        padded(expression, LIMIT - cost), release="1.36", purpose="stored", engine=engine
    )
    assert within.evaluate(device) is True
    beyond = compile_selector(
        padded(expression, LIMIT - cost + 1), release="1.36", purpose="stored", engine=engine
    )
    with pytest.raises(CelRuntimeError) as raised:
        beyond.evaluate(device)
    assert raised.value.message == CANCELLED


def test_the_pad_costs_what_the_corpus_says_upstream() -> None:
    """The measure the stored costs rest on: the pad alone costs what it is built to cost."""
    if not (ORACLE.is_file() and os.access(ORACLE, os.X_OK)):
        pytest.skip(f"no upstream oracle at {ORACLE} (set DRA_UPSTREAM)")
    assert measure_cost("true") == 0
    assert measure_cost("!false") == 1


# -- large values --------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", AVAILABLE)
@pytest.mark.parametrize("expression", EVALUATIONS, ids=[e[:120] for e in EVALUATIONS])
def test_large_values_answer_as_upstream(engine: str, expression: str) -> None:
    upstream = STORED["evaluations"][expression]
    found = answers(expression, engine)
    beyond = _beyond(expression)
    if beyond is not None:
        answer, why = beyond
        assert all(isinstance(a, str) and a.startswith(answer) for a in found), (why, found)
        return
    assert found == upstream


def test_what_dractl_refuses_is_past_its_limit_and_not_cancelled_upstream() -> None:
    for expression in EVALUATIONS:
        beyond = _beyond(expression)
        if beyond is None or beyond[0] != TOO_LARGE:
            continue
        upstream = STORED["evaluations"][expression]
        assert CANCELLED not in (upstream if isinstance(upstream, list) else []), expression
        message = answers(expression, AVAILABLE[0])[0]
        built = int(message.split(" of ", 1)[1].split(" ", 1)[0].replace(",", ""))
        assert built > MAX_VALUE_SIZE


# -- the parser's limits -------------------------------------------------------------------------


@pytest.mark.parametrize("engine", AVAILABLE)
@pytest.mark.parametrize(("shape", "n"), PARSE, ids=[f"{shape}-{n}" for shape, n in PARSE])
def test_parser_limits_are_upstreams(engine: str, shape: str, n: int) -> None:
    upstream = STORED["parse"][f"{shape} {n}"]
    expression = SHAPES[shape](n)
    try:
        compile_selector(expression, release="1.36", purpose="stored", engine=engine)
        error = None
    except CelCompileError as exc:
        error = exc
    if isinstance(upstream, list):
        assert error is None, error.detail if error else ""
        return
    expected = upstream["compile_error"]
    assert error is not None
    if "<input>:-1:0:" in expected:  # the limits: the whole text, without a position
        assert error.detail == expected
        assert (error.errors[0].line, error.errors[0].column) == (-1, 0)
    else:  # another compile error (a syntax or type error further in)
        assert "<input>:-1:0:" not in error.detail


# -- the bound that decides how the default engine runs a selector -------------------------------------


@pytest.mark.parametrize(
    ("expression", "small"),
    [
        ('device.driver == "gpu.example.com"', True),
        ('device.attributes["gpu.example.com"].model.lowerAscii() == "h100"', True),
        (
            'device.attributes["gpu.example.com"].exists(k, device.attributes["gpu.example.com"][k] == 1)',
            True,
        ),
        ('string(device.attributes["dra.example.com"].numa) == "0"', True),
        ('[string(device.attributes["gpu.example.com"].model), "a"].join(",").size() > 0', True),
        # the map whose elements are the list itself: cel-cpp copies its growing result
        ("cel.bind(l, lists.range(3000), l.map(x, l).size() > 0)", False),
        ('"%s".format([string(device.attributes["gpu.example.com"].model)]).size() > 0', True),
        ('"%s".format(device.attributes["gpu.example.com"].model) != ""', False),
        ('lists.range(device.attributes["dra.example.com"].numa).size() >= 0', False),
    ],
)
def test_evaluation_bound_tells_ordinary_selectors_from_large_ones(
    expression: str, small: bool
) -> None:
    selector = compile_selector(
        expression, release="1.36", purpose="stored", engine="cel-expr-python"
    )
    assert selector.ast is not None
    estimate, units = EvaluationBound(selector.ast, False).measure()
    assert (units <= 1_024 and estimate.max <= LIMIT) is small
