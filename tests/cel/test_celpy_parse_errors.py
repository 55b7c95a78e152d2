"""The cel-python engine's syntax errors read as cel-go's (ANTLR's) texts, positions included.

Every expected line is the upstream DRA compiler's answer (Kubernetes 1.36).
"""

from __future__ import annotations

import pytest

from dractl.cel import CelCompileError, compile_selector
from dractl.cel.engines.celpy_parse_errors import EXPRESSION_START

A = 'device.attributes["gpu.example.com"]'

ROWS = [
    (f"{A}.numa ==", f"1:45: Syntax error: mismatched input '<EOF>' expecting {EXPRESSION_START}"),
    (f"({A}.model", "1:44: Syntax error: missing ')' at '<EOF>'"),
    (f"{A}.model.", "1:44: Syntax error: no viable alternative at input '.'"),
    ("1 +* 2", f"1:4: Syntax error: extraneous input '*' expecting {EXPRESSION_START}"),
    ("device.driver == 'a' && || true", f"1:25: Syntax error: extraneous input '||' expecting {EXPRESSION_START}"),
    ("`a` == 1", f"1:1: Syntax error: mismatched input '`a`' expecting {EXPRESSION_START}"),
    (f"{A}.label = 1", "1:44: Syntax error: token recognition error at: '= '"),
    ("'unterminated", "1:1: Syntax error: token recognition error at: ''unterminated'"),
    ("é == 1", "1:1: Syntax error: token recognition error at: 'é'"),
]


@pytest.mark.parametrize(("expression", "expected"), ROWS, ids=[row[0] for row in ROWS])
def test_syntax_error_text(expression: str, expected: str) -> None:
    with pytest.raises(CelCompileError) as caught:
        compile_selector(expression, release="1.36", purpose="new", engine="cel-python")
    assert caught.value.detail.split("\n")[0] == f"compilation failed: ERROR: <input>:{expected}"
