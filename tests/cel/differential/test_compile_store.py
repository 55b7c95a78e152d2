"""Compile results read back from the store (:mod:`dractl.cel.compile_store`) answer as a fresh
compilation does: a sample of the differential corpus, verdict, message, cost and the value or
error on every device, for each engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cel_harness
import pytest

from dractl.cel import compile_store, compiler
from dractl.cel.engines import ENGINES, engine_available

# every n-th case of each corpus file, per engine (cel-python is about a hundred times slower)
SAMPLE_EVERY = {"cel-expr-python": 4, "cel-python": 25}


def answers(engine: str, cases: list[tuple[Any, Path, str]]) -> list[Any]:
    compiler.clear_cache()
    return [cel_harness.dractl_answer(config, slices, expression, engine) for config, slices, expression in cases]


@pytest.mark.parametrize("engine", ENGINES)
def test_read_back_answers_as_compiled(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not engine_available(engine):
        pytest.skip(f"{engine} is not installed")
    monkeypatch.setattr(compile_store, "MAX_NEW_PER_RUN", 100_000)
    every = SAMPLE_EVERY[engine]
    cases = [(corpus.config, corpus.slices_file, case["expr"])
             for corpus in cel_harness.load_corpus() for case in corpus.cases[::every]]
    errors = sum(1 for c in cel_harness.load_corpus() for case in c.cases[::every] if case["compile_error"])
    assert len(cases) > 200 and 20 < errors < len(cases) - 20  # both verdicts are in the sample

    fresh = answers(engine, cases)
    store = compile_store.CompileStore(str(tmp_path / "cel"), "identity", lambda: None)
    compile_store.activate(store)
    try:
        assert answers(engine, cases) == fresh  # compiled, and remembered
        assert store.flush() > len(cases) // 2
        compiled = []
        monkeypatch.setattr(compiler, "_compile_uncached", lambda *args: compiled.append(args))
        read_back = answers(engine, cases)
    finally:
        compile_store.activate(None)
        compiler.clear_cache()
    assert compiled == []  # every verdict came from the store
    assert read_back == fresh
