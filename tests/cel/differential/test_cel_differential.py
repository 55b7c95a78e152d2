"""Each CEL engine against the stored answers of the upstream compiler, case by case.

A case is an expression on every device of a slice file in one configuration (release, gates,
NewExpressions or stored). Compared: compile verdict and message, cost (default engine), and per
device value-or-error and the error text. Known differences are listed per engine in
``known-differences-*.txt``; the test is strict both ways: a difference not listed fails, and so
does a listed case that now agrees.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import cel_harness
import pytest

from dractl.cel.engines import DEFAULT_ENGINE, ENGINES, FALLBACK_ENGINE, engine_available

MIN_CASES = 5000


@pytest.fixture(scope="module")
def corpora() -> list[cel_harness.Corpus]:
    return cel_harness.load_corpus()


def test_corpus_is_large_and_its_ids_are_stable(corpora: list[cel_harness.Corpus]) -> None:
    cases = [case for corpus in corpora for case in corpus.cases]
    assert len(cases) >= MIN_CASES
    ids = Counter(case["id"] for case in cases)
    assert not [i for i, n in ids.items() if n > 1], "case ids must be unique"
    for corpus in corpora:
        devices = len(cel_harness.devices_of(corpus.slices_file, corpus.config.release))
        for case in corpus.cases:
            assert case["id"] == cel_harness.case_id(corpus.config.name, case["expr"]), case
            assert len(case["results"]) == (0 if case["compile_error"] else devices), case["id"]
            assert case["topic"] in cel_harness.TOPIC_NAMES, case["id"]
    configs = {corpus.config.name for corpus in corpora}
    assert configs == set(cel_harness.CONFIGS), "every configuration has its corpus file"


def _opposite_values(comparisons: list[cel_harness.Comparison]) -> int:
    """Devices where the engine says true and upstream false, or the other way round."""
    return sum(
        1
        for c in comparisons
        if "value" in c.kinds
        for want, got in zip(c.case["results"], c.answer.results, strict=False)
        if type(want) is bool and type(got) is bool and want is not got
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_engine_agrees_with_upstream_except_the_ledger(engine: str, corpora: list[cel_harness.Corpus]) -> None:
    if not engine_available(engine):
        pytest.skip(f"CEL engine {engine} is not installed")
    comparisons = cel_harness.compare_corpus(engine, corpora)
    ledger_path = cel_harness.LEDGERS[engine]
    ledger = cel_harness.read_ledger(ledger_path)
    differing = {c.case["id"]: c for c in comparisons if c.kinds}
    known_ids = {c.case["id"] for c in comparisons}

    listed: Counter[str] = Counter(ledger.values())
    cel_harness.SUMMARIES.append(cel_harness.format_rates(engine, comparisons))
    cel_harness.SUMMARIES.append(
        f"  {ledger_path.name}: {len(ledger)} known differences: "
        + (", ".join(f"{cat} {n}" for cat, n in listed.most_common()) or "none")
        + f"; devices with the opposite true/false: {_opposite_values(comparisons)}"
    )

    unexpected = [c for case_id, c in differing.items() if case_id not in ledger]
    # emulated-release is a claim about upstream, not about dractl: only a case an EmulationGap
    # explains may carry it, and such a case carries nothing else.
    miscategorized = [case_id for case_id, c in differing.items() if case_id in ledger
                      and (ledger[case_id] == cel_harness.EMULATED_RELEASE) != bool(c.emulation_gap)]
    fixed = [case_id for case_id in ledger if case_id in known_ids and case_id not in differing]
    unknown = [case_id for case_id in ledger if case_id not in known_ids]
    problems: list[str] = []
    if unexpected:
        problems.append(f"{len(unexpected)} cases differ from upstream and are not in {ledger_path.name}:")
        problems += [c.describe() for c in unexpected[:40]]
    if fixed:
        problems.append(f"{len(fixed)} cases of {ledger_path.name} now agree with upstream; remove them from "
                        f"the ledger: {' '.join(fixed[:60])}")
    if miscategorized:
        problems.append(f"{len(miscategorized)} cases of {ledger_path.name} are {cel_harness.EMULATED_RELEASE} "
                        f"in the ledger or by an EmulationGap, not both; rewrite the ledger: {' '.join(miscategorized)}")
    if unknown:
        problems.append(f"{len(unknown)} ids of {ledger_path.name} are not in the corpus: {' '.join(unknown[:60])}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("engine", ENGINES)
def test_ledger_lines_have_a_category(engine: str) -> None:
    ledger = cel_harness.read_ledger(cel_harness.LEDGERS[engine])
    allowed = {*cel_harness.TOPIC_NAMES, "error-text", "cost", "crash", cel_harness.EMULATED_RELEASE}
    wrong = {case_id: cat for case_id, cat in ledger.items() if cat not in allowed}
    assert not wrong, f"unknown categories (use one of {sorted(allowed)}): {wrong}"


def test_comparison_tells_each_kind_of_difference() -> None:
    """The comparison itself: a wrong value, verdict, message, compile verdict and cost are found."""
    case: dict[str, Any] = {"id": "x", "topic": "numbers", "expr": "e", "compile_error": None, "cost": 3,
                            "results": [True, "no such key: a", False]}
    same = cel_harness.Answer(None, 3, [True, "no such key: a", False])
    assert cel_harness.compare(case, same, with_cost=True).kinds == []
    answer = cel_harness.Answer(None, 4, [False, "no such key: b", "boom"])
    found = cel_harness.compare(case, answer, with_cost=True)
    assert found.kinds == ["verdict", "value", "error-message", "cost"]
    assert found.category == "numbers"
    assert cel_harness.compare(case, cel_harness.Answer(None, 4, list(same.results)), with_cost=False).kinds == []
    assert cel_harness.compare(case, cel_harness.Answer("compilation failed", None, []), with_cost=True).kinds == [
        "compile-verdict"]
    rejected = {**case, "compile_error": "compilation failed: A", "cost": None, "results": []}
    wording = cel_harness.compare(rejected, cel_harness.Answer("compilation failed: B", None, []), with_cost=True)
    assert (wording.kinds, wording.category) == (["compile-message"], "error-text")
    assert cel_harness.compare(case, cel_harness.Answer(None, 1, [1, "no such key: a", False]), with_cost=False).kinds == [
        "value"], "1 is not true"


def test_engines_are_the_ones_compared() -> None:
    assert set(cel_harness.LEDGERS) == {DEFAULT_ENGINE, FALLBACK_ENGINE} == set(ENGINES)


def test_an_emulation_gap_explains_only_its_own_cases() -> None:
    """includes() compiles in the oracle's 1.34/1.35 (1.36 code) but not in those releases: such a
    case is counted apart from the agreement rates; the same difference at 1.36, or one with any
    other compile error as well, is a wrong answer."""
    expression = 'device.attributes["a"].b.includes(1)'
    case: dict[str, Any] = {"id": "x", "topic": "list-attributes", "expr": expression, "compile_error": None,
                            "cost": 4, "results": [True]}

    def rejected(*names: str) -> cel_harness.Answer:
        errors = "\n".join(f"ERROR: <input>:1:{25 + i}: undeclared reference to '{name}' (in container '')\n"
                           f" | {expression}\n | ^" for i, name in enumerate(names))
        return cel_harness.Answer(f"compilation failed: {errors}", None, [])

    configs = cel_harness.CONFIGS
    gap = cel_harness.compare(case, rejected("includes"), with_cost=True, config=configs["1.34-stored"])
    assert (gap.kinds, gap.emulation_gap, gap.category) == (
        ["compile-verdict"], "includes-before-1.36", cel_harness.EMULATED_RELEASE)
    assert cel_harness.compare(case, rejected("includes", "includes"), with_cost=True,
                               config=configs["1.35-stored"]).emulation_gap == "includes-before-1.36"
    for config, answer in ((configs["1.36-stored"], rejected("includes")), (configs["1.34-stored"], rejected("includes", "x")),
                           (configs["1.34-stored"], rejected("x")), (None, rejected("includes"))):
        wrong = cel_harness.compare(case, answer, with_cost=True, config=config)
        assert (wrong.emulation_gap, wrong.category) == (None, "list-attributes"), config
    compiled = cel_harness.compare(case, cel_harness.Answer(None, 4, [True]), with_cost=True, config=configs["1.34-stored"])
    rates = cel_harness.rates([gap, compiled])
    assert rates["compile verdicts"] == (1, 1), "the gap is in no rate"
    assert "not counted, the oracle emulating an older release with newer code: includes-before-1.36 1" in (
        cel_harness.format_rates("e", [gap, compiled]))
