"""cel-go's compile-time check of ``<string>.format(<list>)`` calls.

The strings extension Kubernetes uses (``ext.Strings(ext.StringsVersion(2))``, from 1.29 on)
adds an AST validator (cel-go ``ext/formatting.go``, ``stringFormatValidator``): where the format
string is a literal and the arguments are a list literal, every clause is parsed and checked
against the static type of its argument, and unused arguments are an error. What it reports
becomes a compile error (``compilation failed: ERROR: <input>:L:C: ...``):

- a clause it cannot parse (``could not parse formatting clause: unrecognized formatting clause
  "q"``), a ``%`` at the end (``unexpected end of string``), more clauses than arguments
  (``index 1 out of range``): at the ``format`` call;
- an argument whose type the clause does not take (``error during formatting: decimal clause can
  only be used on integers, was given double``): at the argument. Only ``dyn`` passes every
  clause; an attribute value (``any`` without DRAListTypeAttributes) passes none;
- more arguments than clauses (``too many arguments supplied to string.format (expected 1, got
  2)``): at the call.

Anything else about formatting (a format string that is not a literal, arguments that are not a
list literal) is only known when the expression runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dractl.cel.ast import CelType, CheckedAst, Expr
from dractl.cel.errors import CelError
from dractl.cel.source_map import expression_line_column

# What each clause takes, by kind of the argument's static type (cel-go verifyTypeOneOf compares
# kinds only, never type parameters); ``dyn`` passes every clause.
_STRING_KINDS = frozenset({"list", "map", "int", "uint", "double", "bool", "string", "google.protobuf.Timestamp",
                           "bytes", "google.protobuf.Duration", "type", "null_type"})
_CLAUSES: dict[str, tuple[frozenset[str], str]] = {
    "d": (frozenset({"int", "uint"}), "decimal clause can only be used on integers"),
    "f": (frozenset({"double", "string"}), "fixed-point clause can only be used on doubles"),
    "e": (frozenset({"double", "string"}), "scientific clause can only be used on doubles"),
    "b": (frozenset({"int", "uint", "bool"}), "only integers and bools can be formatted as binary"),
    "x": (frozenset({"int", "uint", "string", "bytes"}),
          "only integers, byte buffers, and strings can be formatted as hex"),
    "o": (frozenset({"int", "uint"}), "octal clause can only be used on integers"),
}
_CLAUSES["X"] = _CLAUSES["x"]
_STRING_CLAUSE = ("string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
                  "types, durations, and timestamps")


def _kind(kind: CelType) -> str:
    """The kind cel-go compares; an unresolved type parameter is ``dyn`` after checking."""
    return "dyn" if kind.kind == "type_param" else kind.kind


def go_type_name(kind: CelType) -> str:
    """cel-go's ``Type.TypeName()``: ``list``/``map`` without parameters, messages by name."""
    if kind.kind == "any":
        return "google.protobuf.Any"
    if kind.kind in ("message", "opaque"):
        return kind.name
    if kind.kind == "type_param":
        return "dyn"
    return kind.kind


class FormatError(Exception):
    def __init__(self, message: str, node: Expr | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node = node


def _precision(text: str, start: int) -> int:
    """The index after an optional ``.N`` precision at ``start`` (cel-go parsePrecision)."""
    if text[start] != ".":
        return start
    index = start + 1
    while True:
        if index >= len(text):
            raise FormatError("could not parse formatting clause: error while parsing precision: "
                               "could not find end of precision specifier")
        if not ("0" <= text[index] <= "9"):
            break
        index += 1
    digits = text[start + 1:index]
    problem = "invalid syntax" if not digits else "value out of range" if int(digits) >= 1 << 63 else ""
    if problem:
        raise FormatError("could not parse formatting clause: error while parsing precision: error while "
                           f'converting precision to integer: strconv.Atoi: parsing "{digits}": {problem}')
    return index


def check_clauses(text: str, arguments: list[Any], verify: Callable[[str, Any], None]) -> int:
    """Walk the format string as cel-go's parseFormatString does; the number of clauses."""
    data = text.encode()
    # Go indexes the string by byte; a clause letter is one byte, shown as that byte's rune.
    symbols = data.decode("latin-1")
    index = 0
    used = 0
    while index < len(symbols):
        if symbols[index] != "%":
            index += 1
            continue
        if index + 1 < len(symbols) and symbols[index + 1] == "%":
            index += 2
            continue
        argument = used
        used += 1
        if index + 1 >= len(symbols):
            raise FormatError("unexpected end of string")
        if argument >= len(arguments):
            raise FormatError(f"index {argument} out of range")
        after = _precision(symbols, index + 1)
        letter = symbols[after]
        if letter != "s" and letter not in _CLAUSES:
            raise FormatError(f'could not parse formatting clause: unrecognized formatting clause "{letter}"')
        verify(letter, arguments[argument])
        index = after + 1
    return used


def verifier(type_of: Callable[[Any], tuple[str, str]],
             elements: Callable[[Any], list[Any]]) -> Callable[[str, Any], None]:
    """The clause check of cel-go's validator over any engine's tree: ``type_of(node)`` gives the
    argument's kind and Go type name (``("any", "google.protobuf.Any")``), ``elements(node)`` the
    keys and values of a list or map literal (a string clause checks them too)."""
    def string_clause(node: Any) -> None:
        kind, name = type_of(node)
        if kind != "dyn" and kind not in _STRING_KINDS:
            raise FormatError(f"error during formatting: {_STRING_CLAUSE}, was given {name}", node)
        for element in elements(node):
            string_clause(element)

    def verify(letter: str, node: Any) -> None:
        if letter == "s":
            string_clause(node)
            return
        accepted, message = _CLAUSES[letter]
        kind, name = type_of(node)
        if kind != "dyn" and kind not in accepted:
            raise FormatError(f"error during formatting: {message}, was given {name}", node)
    return verify


def _verifier(ast: CheckedAst) -> Callable[[str, Expr], None]:
    def type_of(node: Expr) -> tuple[str, str]:
        return _kind(ast.type_of(node)), go_type_name(ast.type_of(node))

    def elements(node: Expr) -> list[Expr]:
        if node.kind == "list":
            return list(node.args)
        if node.kind == "map":
            return [part for key, value in node.entries for part in (key, value) if isinstance(part, Expr)]
        return []
    return verifier(type_of, elements)


def _checked_calls(ast: CheckedAst) -> list[Expr]:
    """``"literal".format([...])`` calls, which cel-go checks (matchConstantFormatStringWithListLiteralArgs)."""
    calls = []
    for node in ast.root.walk():
        if node.kind != "call" or node.name != "format" or node.operand is None or len(node.args) != 1:
            continue
        target = node.operand
        if target.kind == "const" and isinstance(target.value, str) and node.args[0].kind == "list":
            calls.append(node)
    return calls


def call_error(text: str, arguments: list[Any], verify: Callable[[str, Any], None]) -> tuple[str, Any] | None:
    """The problem cel-go reports for one call: its text and the argument it is about (``None``:
    the call itself); ``None`` when the call is fine."""
    try:
        used = check_clauses(text, arguments, verify)
    except FormatError as failure:
        return failure.message, failure.node
    if len(arguments) > used:
        return f"too many arguments supplied to string.format (expected {used}, got {len(arguments)})", None
    return None


def format_call_errors(ast: CheckedAst, expression: str) -> list[CelError]:
    """The errors cel-go's string format validator reports for ``ast``, in tree order."""
    errors: list[CelError] = []
    verify = _verifier(ast)
    for call in _checked_calls(ast):
        problem = call_error(call.operand.value, call.args[0].args, verify)  # type: ignore[union-attr]
        if problem is not None:
            message, node = problem
            at = node if node is not None else call
            line, column = expression_line_column(expression, ast.positions.get(at.id, 0))
            errors.append(CelError(message, line, column))
    return errors
