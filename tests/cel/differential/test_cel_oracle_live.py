"""Live comparison with the upstream compiler (``dra-upstream cel``), skipped where it cannot run.

The oracle sits beside the repository (``../shared/oracle/bin/dra-upstream``) or at
``$DRA_UPSTREAM``; it is a linux x86_64 binary, so a fresh clone, macOS or an ARM machine skips.
"""

from __future__ import annotations

import random
from pathlib import Path

import cel_generator
import cel_harness
import pytest

from dractl.cel.engines import ENGINES, engine_available

reason = cel_harness.oracle_unavailable()
pytestmark = pytest.mark.skipif(reason is not None, reason=reason or "")

LIVE_SEED = cel_harness.SEED + 1
LIVE_CONFIGS = ("1.36-new", "1.36-stored", "1.36-lists-new", "1.34-new")


def test_stored_corpus_is_what_the_oracle_answers() -> None:
    """A sample of every corpus file, asked again: the stored answers are the oracle's."""
    for corpus in cel_harness.load_corpus():
        sample = random.Random(corpus.config.name).sample(corpus.cases, k=min(40, len(corpus.cases)))
        answers = cel_harness.run_oracle(corpus.config, corpus.slices_file, [case["expr"] for case in sample])
        for case, answer in zip(sample, answers, strict=True):
            assert cel_harness.record_of(corpus.config, case["topic"], answer) == case, case["id"]


@pytest.mark.parametrize("engine", ENGINES)
def test_fresh_cases_differ_only_in_known_ways(engine: str, tmp_path: Path) -> None:
    """Freshly generated cases: every difference falls in a category the engine's ledger already
    has (so a new kind of wrong answer fails here before it reaches the corpus)."""
    if not engine_available(engine):
        pytest.skip(f"CEL engine {engine} is not installed")
    known_categories = set(cel_harness.read_ledger(cel_harness.LEDGERS[engine]).values())
    with_cost = engine == "cel-expr-python"
    new: list[str] = []
    for name in LIVE_CONFIGS:
        config = cel_harness.CONFIGS[name]
        slices_file = tmp_path / f"{config.slices}.yaml"
        slices_file.write_text(cel_generator.slices_yaml(LIVE_SEED, config.slices), encoding="utf-8")
        cases = [(topic, expr) for topic in (config.topics or cel_generator.TOPICS)
                 for expr in cel_generator.expressions(f"{LIVE_SEED}:{name}", topic, 2)]
        answers = cel_harness.run_oracle(config, slices_file, [expr for _, expr in cases])
        for (topic, _), answer in zip(cases, answers, strict=True):
            record = cel_harness.record_of(config, topic, answer)
            mine = cel_harness.dractl_answer(config, slices_file, answer["expr"], engine)
            found = cel_harness.compare(record, mine, with_cost=with_cost, config=config)
            if found.kinds and found.category not in known_categories:
                new.append(f"{name}: {found.describe()}")
    assert not new, f"{len(new)} fresh cases differ in a new way:\n" + "\n".join(new)
