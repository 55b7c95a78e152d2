"""The default engine reports compile errors with cel-go's texts and positions, as upstream does.

Each row of ``data/compile-messages.yaml`` is an expression with the upstream DRA compiler's
whole error (Kubernetes 1.36, NewExpressions): a pattern where cel-cpp's own report differs in
wording, position, type names or number of errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from dractl.cel import CelCompileError, compile_selector
from dractl.cel.engines import cel_expr_errors
from dractl.cel.errors import CelError
from dractl.cel.messages import snippet_for

ROWS = yaml.safe_load((Path(__file__).parent / "data" / "compile-messages.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("row", ROWS, ids=[row["expr"] for row in ROWS])
def test_compile_error_is_upstreams(row: dict[str, str]) -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector(row["expr"], release="1.36", purpose="new", engine="cel-expr-python")
    assert caught.value.detail == row["upstream"]


@pytest.mark.parametrize("row", [row for row in ROWS if row["upstream"].startswith("compilation failed: ")],
                         ids=lambda row: row["expr"])
def test_each_error_carries_upstreams_position(row: dict[str, str]) -> None:
    """Diagnostics point into the YAML at the errors' own line and column."""
    with pytest.raises(CelCompileError) as caught:
        compile_selector(row["expr"], release="1.36", purpose="new", engine="cel-expr-python")
    heads = [line for line in row["upstream"].removeprefix("compilation failed: ").split("\n")
             if line.startswith("ERROR: ")]
    assert [f"ERROR: <input>:{e.line}:{e.column}: {e.message}" for e in caught.value.errors] == heads


SNIPPETS = [
    # (expression, line, column, the two lines cel-go draws)
    ("a == 1", 1, 3, [" | a == 1", " | ..^"]),
    ('"é" == 1', 1, 5, [' | "é" == 1', " | .\uff0e..^"]),
    ('"é" == 1', 1, 2, [' | "é" == 1', " | .\uff3e"]),
    ("a\n\tb == 1", 2, 4, [" |  b == 1", " | ...^"]),  # a tab is drawn as a space
    ("a", 1, 5, [" | a", " | .^"]),  # past the end: the dots stop at the line's end
    ("a", 2, 1, []),
    ("x" * 16385, 1, 1, []),  # cel-go draws no snippet for a line over 16384 bytes
]


@pytest.mark.parametrize(("expression", "line", "column", "expected"), SNIPPETS)
def test_snippet_is_drawn_as_cel_go_draws_it(expression: str, line: int, column: int, expected: list[str]) -> None:
    assert snippet_for(expression, line, column) == expected


TYPE_SPELLINGS = [
    ("null_type", "null"),
    ("google.protobuf.Timestamp", "timestamp"),
    ("list(google.protobuf.Duration)", "list(duration)"),
    ("map(T%1, T%2)", "map(dyn, dyn)"),
    ("optional_type(any)", "optional_type(any)"),
    ("map(string, map(string, kubernetes.Quantity))", "map(string, map(string, kubernetes.Quantity))"),
]


@pytest.mark.parametrize(("cpp", "go"), TYPE_SPELLINGS)
def test_cel_cpp_type_names_are_spelled_as_cel_go_spells_them(cpp: str, go: str) -> None:
    assert cel_expr_errors.go_type_spelling(cpp) == go


def test_without_a_second_check_the_report_keeps_cel_cpps_words() -> None:
    """When the expression cannot be checked again, no argument types are made up."""
    from dractl.cel.ast import decode_parsed
    from dractl.cel.engines.cel_expr import CelExprEngine
    from dractl.cel.environment import environment_for

    environment = environment_for("1.36", None, "new")
    parsed = decode_parsed(CelExprEngine()._checker(environment).compile("size()", disable_check=True).serialize())
    report = ("INVALID_ARGUMENT: ERROR: <input>:1:5: undeclared reference to 'size' (in container '')\n"
              " | size()\n | ....^ [INVALID_ARGUMENT]")
    errors = cel_expr_errors.upstream_errors(report, "size()", parsed, frozenset({"size"}),
                                             lambda probes, variables: None)
    assert errors == [CelError("undeclared reference to 'size' (in container '')", 1, 5)]
