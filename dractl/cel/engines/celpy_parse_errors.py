"""cel-go's syntax error texts for what cel-python's (lark) parser rejects.

cel-go parses with ANTLR, whose messages name what it expected (``mismatched input '<EOF>'
expecting {...}``), what it would skip (``extraneous input '*'``) or insert (``missing ')' at
'<EOF>'``), and, from its lexer, the characters no token starts with (``token recognition error
at: '= '``). The common cases are told apart here from lark's exception and the source text;
other errors keep lark's position with a shorter ``unexpected input`` text.
"""

from __future__ import annotations

from typing import Any

#: What ANTLR lists where cel-go's grammar expects an expression.
EXPRESSION_START = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
                    "STRING, BYTES, IDENTIFIER}")
_STARTS_EXPRESSION = frozenset("[{(.-!'\"_") | frozenset("0123456789")
_OPERATOR_BEFORE = frozenset("([{,?:!-+*/%<>=&|")


def _expects_expression(exc: Any) -> bool:
    expected = getattr(exc, "expected", None) or getattr(exc, "allowed", None) or set()
    return "IDENT" in expected and "INT_LIT" in expected


def _offset(lines: list[str], line: int, column: int) -> int:
    return sum(len(text) + 1 for text in lines[: line - 1]) + column - 1


def _open_parentheses(text: str) -> int:
    """``(`` not closed, outside string literals (quotes are not escaped in selectors' paths)."""
    depth, quote = 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
    return depth


def syntax_error(expression: str, exc: Any) -> tuple[str, int, int]:
    """(the text after ``Syntax error: ``, line, column) as cel-go reports ``exc``."""
    line = getattr(exc, "line", None) or 1
    column = getattr(exc, "column", None) or 1
    lines = expression.split("\n")
    token = getattr(exc, "token", None)
    if token is not None and token.type == "$END":
        end_line, end_column = len(lines), len(lines[-1]) + 1
        stripped = expression.rstrip()
        if stripped.endswith(".") and not _expects_expression(exc):
            dot_line = stripped.count("\n") + 1
            return "no viable alternative at input '.'", dot_line, len(stripped.split("\n")[-1]) + 1
        if _expects_expression(exc):
            return f"mismatched input '<EOF>' expecting {EXPRESSION_START}", end_line, end_column
        if _open_parentheses(expression) > 0:
            return "missing ')' at '<EOF>'", end_line, end_column
        return "unexpected input ''", line, column
    if token is not None:
        rest = expression[_offset(lines, line, column) + len(str(token)):].lstrip()
        if _expects_expression(exc) and rest[:1] and (rest[0] in _STARTS_EXPRESSION or rest[0].isalpha()):
            return f"extraneous input '{token}' expecting {EXPRESSION_START}", line, column
        return f"unexpected input {str(token)!r}", line, column
    char = getattr(exc, "char", None)
    if char is None:
        return "unexpected input", line, column
    source = lines[line - 1] if 1 <= line <= len(lines) else ""
    at = column - 1
    if char == "`":
        close = source.find("`", at + 1)
        before = source[:at].rstrip()
        if close > at and (not before or before[-1] in _OPERATOR_BEFORE):
            return f"mismatched input '{source[at:close + 1]}' expecting {EXPRESSION_START}", line, column
    if char in "'\"":
        return f"token recognition error at: '{source[at:]}'", line, column  # an unterminated string
    if char == "=":
        return f"token recognition error at: '{source[at:at + 2]}'", line, column  # '=' that is not '=='
    return f"token recognition error at: '{char}'", line, column
