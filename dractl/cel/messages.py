"""Turning engine messages into the texts upstream (cel-go and the Kubernetes libraries) prints."""

from __future__ import annotations

import re
import zoneinfo

from dractl.cel.errors import CelError

# Patterns as text, compiled on first use by re's cache: only runs with CEL errors need them.
_STATUS_PREFIX = r"^[A-Z_]+: "
_STATUS_SUFFIX = r"\s*\[[A-Z_]+\]$"
_ISSUE_HEAD = r"^ERROR: <input>:(\d+):(\d+): (.*)$"
_KEY_NOT_FOUND = r'''(?s)^Key not found in map ?: ?(?:"(.*)"|'(.*)'|(.*))$'''
_NO_MATCHING_OVERLOAD = r"^No matching overloads? found ?: ?(.*)$"
_INDEX_ERROR = r"^Index error: index=(-?\d+) size=(\d+)$"
_CASCADE = "'*error*'"
_UNDEFINED_FIELD = r"^undefined field '([^']*)' not found in struct '[^']*'$"
_UNDECLARED_QUALIFIED = r"^undeclared reference to '([^'.]+)((?:\.[^'.]+)+)'(.*)$"


def strip_status(message: str) -> str:
    """``INVALID_ARGUMENT: text [INVALID_ARGUMENT]`` → ``text`` (absl status decoration)."""
    message = re.sub(_STATUS_SUFFIX, "", message.strip())
    return re.sub(_STATUS_PREFIX, "", message, count=1)


def _upstream_issue_message(message: str) -> str:
    field = re.match(_UNDEFINED_FIELD, message)
    if field:
        return f"undefined field '{field.group(1)}'"
    return message


def _upstream_undeclared(err: CelError, expression: str) -> CelError:
    """cel-go's checker, failing to resolve ``a.b.c`` as one name, checks the operands and
    reports the innermost identifier at its own position (``undeclared reference to 'a'``);
    cel-cpp names the whole dotted name at the last ``.``."""
    match = re.match(_UNDECLARED_QUALIFIED, err.message)
    lines = expression.split("\n")
    if not match or not 1 <= err.line <= len(lines):
        return err
    first, rest, tail = match.groups()
    inner = rest.split(".")[1:-1]  # the parts between the first and the last
    written = re.search(
        re.escape(first) + "".join(r"\s*\.\s*" + re.escape(part) for part in inner) + r"\s*$",
        lines[err.line - 1][: err.column - 1],
    )
    if written is None:
        return err  # parts on several lines: leave cel-cpp's report
    start = written.start()
    return CelError(f"undeclared reference to '{first}'{tail}", err.line, start + 1)


_NO_OVERLOAD_APPLIED = r"^found no matching overload for '([^'.]+)' applied to '\((.*)\)'$"


def _split_types(text: str) -> list[str]:
    """``map(string, int), int`` → the two types (commas inside parentheses do not split)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(text):
        if char in "(<":
            depth += 1
        elif char in ")>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    if text.strip():
        parts.append(text[start:].strip())
    return parts


def _upstream_no_overload(err: CelError, expression: str) -> CelError:
    """cel-go writes the argument types of a member call as ``target.(args)``; cel-cpp as one list."""
    match = re.match(_NO_OVERLOAD_APPLIED, err.message)
    lines = expression.split("\n")
    if not match or not 1 <= err.line <= len(lines):
        return err
    before = lines[err.line - 1][: err.column - 1]
    if not re.search(r"\.\s*" + re.escape(match.group(1)) + r"\s*$", before):
        return err
    types = _split_types(match.group(2))
    if not types:
        return err
    return CelError(f"found no matching overload for '{match.group(1)}' applied to "
                    f"'{types[0]}.({', '.join(types[1:])})'", err.line, err.column)


def parse_issues(text: str, expression: str | None = None) -> list[tuple[CelError, list[str]]]:
    """Split a cel-cpp/cel-go issue report into positioned errors plus their snippet lines.

    With ``expression``, errors whose position or text cel-go gives differently are moved and
    reworded as cel-go would (their snippet lines are redrawn).
    """
    issues: list[tuple[CelError, list[str]]] = []
    redrawn = False  # the last issue's snippet is drawn here, not taken from the report
    for line in strip_status(text).split("\n"):
        head = re.match(_ISSUE_HEAD, line)
        if head:
            message = _upstream_issue_message(head.group(3))
            err = CelError(message, int(head.group(1)), int(head.group(2)))
            snippet: list[str] = []
            if expression is not None:
                moved = _upstream_undeclared(err, expression)
                if moved is not err:
                    err, snippet = moved, snippet_for(expression, moved.line, moved.column)
                err = _upstream_no_overload(err, expression)
            redrawn = bool(snippet)
            issues.append((err, snippet))
        elif issues and line.startswith(" | "):
            if not redrawn:
                issues[-1][1].append(line)
        elif issues:
            # A message that spans lines (rare); keep it with the issue it belongs to.
            err, snippet = issues[-1]
            issues[-1] = (CelError(err.message + "\n" + line, err.line, err.column), snippet)
    # cel-cpp goes on to report expressions whose operand failed to type-check
    # ("expression of type '*error*' ..."); cel-go's checker does not, so upstream's message
    # has only the first error.
    real = [issue for issue in issues if _CASCADE not in issue[0].message] or issues
    # cel-go prints its errors sorted by position (stably); cel-cpp in the order it found them.
    return sorted(real, key=lambda issue: (issue[0].line, issue[0].column))


def format_issues(issues: list[tuple[CelError, list[str]]]) -> str:
    """cel-go ``Issues.String()``: each error with its source line and caret."""
    blocks = []
    for err, snippet in issues:
        blocks.append("\n".join([f"ERROR: <input>:{err.line}:{err.column}: {err.message}", *snippet]))
    return "\n".join(blocks)


def snippet_for(expression: str, line: int, column: int) -> list[str]:
    """The two snippet lines cel-go prints under an error (dots up to the column, then ``^``)."""
    lines = expression.split("\n")
    if not 1 <= line <= len(lines):
        return []
    source = lines[line - 1]
    return [f" | {source}", " | " + "." * (column - 1) + "^"]


_CPP_CALL = r"^(?:\((?P<target>[^()]*)\)\.)?(?P<name>[^(]+)\((?P<args>.*)\)$"
_ORDERING_OPERATORS = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
# Conversions whose runtime dispatch names the argument type; a bytes value reaching one at run
# time is a library value (a version attribute: quantities and network values are typed).
_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bool", "bytes"})


# Extension functions cel-go declares with bindings: a call no overload takes names the function
# and the run-time types of its target and arguments (cel-go's MaybeNoSuchOverload).
_NAMED_OVERLOAD_ERRORS = frozenset({
    "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
    "join", "format", "strings.quote", "slice", "sets.contains", "sets.intersects", "sets.equivalent"})
# cel-cpp's spelling of a run-time type → cel-go's TypeName(). A bytes value reaching a function
# at run time through a dyn operand is a version attribute (quantities and network values are typed).
_GO_TYPE_NAMES = {"int64": "int", "uint64": "uint", "bytes": "kubernetes.Semver"}


def _no_such_overload(call: str) -> str:
    """cel-go's text for cel-cpp's ``No matching overloads found : NAME(TYPES)``: the standard
    library's trait-based functions name only themselves (``size``; an ordering whose left
    operand is a library value), conversions and extension functions name the argument types,
    others say nothing more."""
    match = re.match(_CPP_CALL, call.strip())
    if not match:
        return "no such overload"
    name = match.group("name")
    types = [t.strip() for t in ((match.group("target") or "") + "," + match.group("args")).split(",") if t.strip()]
    if name == "size":
        return "no such overload: size"
    if name in _ORDERING_OPERATORS and types and types[0] == "bytes":
        return f"no such overload: {name}"
    if name in _CONVERSIONS and types == ["bytes"]:
        return f"no such overload: {name}(kubernetes.Semver)"
    go_types = [_GO_TYPE_NAMES.get(t, t) for t in types]
    if name in _NAMED_OVERLOAD_ERRORS:
        return f"no such overload: {name}({', '.join(go_types)})"
    if name == "flatten" and match.group("target") is not None and go_types:
        return f"no such overload: {go_types[0]}.flatten({', '.join(go_types[1:])})"
    return "no such overload"


# cel-cpp's conversion and overflow texts → cel-go's.
_CONVERSION_FAILED = r"^cannot convert string to (int|uint|double)$"
_TYPE_CONVERSION = r"^Type conversion error from '([^']*)' to '([^']*)'$"
_FIXED_MESSAGES = {
    "String to Duration conversion failed": "type conversion error from 'string' to 'google.protobuf.Duration'",
    "String to Timestamp conversion failed": "type conversion error from 'string' to 'google.protobuf.Timestamp'",
    "double out of int64 range": "integer overflow",
    "uint64 out of int64 range": "integer overflow",
    "int64 out of uint64 range": "unsigned integer overflow",
    "double out of uint64 range": "unsigned integer overflow",
    "divide by zero": "division by zero",
    "Iteration budget exceeded": "operation cancelled: actual cost limit exceeded",
}
# String formatting (cel-go ext/formatting.go, the strings extension of version 2).
_FORMAT_CLAUSES = (
    (r"^decimal clause can only be used on numbers, was given (.*)$",
     "decimal clause can only be used on integers, was given {}"),
    (r"^octal clause can only be used on integers, was given (.*)$",
     "octal clause can only be used on integers, was given {}"),
    (r"^hex clause can only be used on integers, byte buffers, and strings, was given (.*)$",
     "only integers, byte buffers, and strings can be formatted as hex, was given {}"),
    (r"^binary clause can only be used on integers and bools, was given (.*)$",
     "only integers and bools can be formatted as binary, was given {}"),
)
#: cel-cpp's texts for a %f or %e clause given a value that is not a double; which clause it was
#: the message does not say (see ``float_clause_message``).
_FLOAT_CLAUSE = (r'(?s)^(?:expected a double but got an? (.*)|only "NaN", "Infinity", and "-Infinity" are '
                 r"supported for conversion to double: .*)$")


def float_clause_message(message: str, clause: str) -> str | None:
    """cel-go's text for cel-cpp's ``message`` about a %f (``clause`` "f") or %e ("e") clause."""
    match = re.match(_FLOAT_CLAUSE, message)
    if not match:
        return None
    given = match.group(1) or "string"
    name = "fixed-point" if clause == "f" else "scientific"
    return f"error during formatting: {name} clause can only be used on doubles, was given {given}"


def runtime_message(message: str) -> str:
    """cel-cpp runtime error → cel-go's wording where the two differ."""
    message = strip_status(message)
    key = re.match(_KEY_NOT_FOUND, message)
    if key:
        return f"no such key: {next(part for part in key.groups() if part is not None)}"
    no_overload = re.match(_NO_MATCHING_OVERLOAD, message)
    if no_overload:
        return _no_such_overload(no_overload.group(1))
    fixed = _FIXED_MESSAGES.get(message)
    if fixed is not None:
        return fixed
    index = re.match(_INDEX_ERROR, message)
    if index:
        return f"index '{index.group(1)}' out of range in list size '{index.group(2)}'"
    conversion = re.match(_CONVERSION_FAILED, message)
    if conversion:
        return f"type conversion error from 'string' to '{conversion.group(1)}'"
    conversion = re.match(_TYPE_CONVERSION, message)
    if conversion:
        return f"type conversion error from '{conversion.group(1)}' to '{conversion.group(2)}'"
    for pattern, text in _FORMAT_CLAUSES:
        clause = re.match(pattern, message)
        if clause:
            return "error during formatting: " + text.format(clause.group(1))
    return message


def time_zone_message(zone: str) -> str | None:
    """cel-go's error for a time zone argument it cannot use (``timeZone`` in
    common/types/timestamp.go): a name ``time.LoadLocation`` does not know, or an offset
    ``±HH:MM`` whose parts ``strconv.Atoi`` cannot read. ``None`` when cel-go takes it."""
    if ":" not in zone:
        if zone in ("", "UTC", "Local"):
            return None
        try:
            zoneinfo.ZoneInfo(zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            return f"unknown time zone {zone}"
        return None
    hours, _, minutes = zone.partition(":")
    for part in (hours, minutes):
        if not re.match(_GO_ATOI, part):
            return f'strconv.Atoi: parsing "{part}": invalid syntax'
    return None


_GO_ATOI = r"^[+-]?[0-9]+$"
