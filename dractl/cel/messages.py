"""Turning engine messages into the texts upstream (cel-go and the Kubernetes libraries) prints."""

from __future__ import annotations

import re

from dractl.cel.errors import CelError

# Patterns as text, compiled on first use by re's cache: only runs with CEL errors need them.
_STATUS_PREFIX = r"^[A-Z_]+: "
_STATUS_CODE = r"[A-Z_]+"
#: The first line of one error of a cel-go or cel-cpp issue report.
ISSUE_HEAD = r"^ERROR: <input>:(\d+):(\d+): (.*)$"
_KEY_NOT_FOUND = r'''(?s)^Key not found in map ?: ?(?:"(.*)"|'(.*)'|(.*))$'''
_NO_MATCHING_OVERLOAD = r"^No matching overloads? found ?: ?(.*)$"
_INDEX_ERROR = r"^Index error: index=(-?\d+) size=(\d+)$"
#: A double as cel-cpp writes a map key it did not find (``1.5``, ``100.0``, ``1e+300.0``, ``inf``).
_DOUBLE_KEY = r"-?(\d+\.\d+|\d+(\.\d+)?e[+-]\d+(\.0)?|inf|nan)"
DOUBLE_KEY_NOT_FOUND = rf"^Key not found in map ?: ?{_DOUBLE_KEY}$"


def strip_status(message: str) -> str:
    """``INVALID_ARGUMENT: text [INVALID_ARGUMENT]`` → ``text`` (absl status decoration).

    The suffix is found from the end rather than by a pattern starting with ``\\s*``: a report
    quotes the expression, and a run of n spaces in it made such a search take n² steps."""
    message = message.strip()
    if message.endswith("]"):
        start = message.rfind("[")
        if start >= 0 and re.fullmatch(_STATUS_CODE, message[start + 1 : -1]):
            message = message[:start].rstrip()
    return re.sub(_STATUS_PREFIX, "", message, count=1)


def format_issues(issues: list[tuple[CelError, list[str]]]) -> str:
    """cel-go ``Issues.String()``: each error with its source line and caret."""
    blocks = []
    for err, snippet in issues:
        blocks.append("\n".join([f"ERROR: <input>:{err.line}:{err.column}: {err.message}", *snippet]))
    return "\n".join(blocks)


_MAX_SNIPPET_BYTES = 16384  # cel-go prints no snippet for a longer line


def snippet_for(expression: str, line: int, column: int) -> list[str]:
    """The two snippet lines cel-go prints under an error (``common.Error.ToDisplayString``): the
    source line with tabs as spaces, then a dot per character up to the column and ``^``; a
    character of more than one UTF-8 byte is drawn as a full-width dot or caret."""
    lines = expression.split("\n")
    if not 1 <= line <= len(lines):
        return []
    source = lines[line - 1].replace("\t", " ")
    if len(source.encode("utf-8", "surrogatepass")) > _MAX_SNIPPET_BYTES:
        return []
    marks = ["\uff0e" if ord(char) > 0x7F else "." for char in source[: max(column - 1, 0)]]
    under = source[column - 1 : column] if column >= 1 else ""
    marks.append("\uff3e" if under and ord(under) > 0x7F else "^")
    return [f" | {source}", " | " + "".join(marks)]


_CPP_CALL = r"^(?:\((?P<target>[^()]*)\)\.)?(?P<name>[^(]+)\((?P<args>.*)\)$"
# Conversions whose runtime dispatch names the argument type; a bytes value reaching one at run
# time is a library value (a version attribute: quantities and network values are typed).
_CONVERSIONS = frozenset({"int", "uint", "double", "string", "bool", "bytes"})
_TIME_CONVERSIONS = frozenset({"duration", "timestamp"})


# Extension functions cel-go declares with bindings: a call no overload takes names the function
# and the run-time types of its target and arguments (cel-go's MaybeNoSuchOverload).
_NAMED_OVERLOAD_ERRORS = frozenset({
    "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
    "join", "format", "strings.quote", "slice", "sets.contains", "sets.intersects", "sets.equivalent",
    # the time getters (their receiver's type among the arguments)
    "getFullYear", "getMonth", "getDayOfYear", "getDayOfMonth", "getDate", "getDayOfWeek", "getHours", "getMinutes",
    "getSeconds", "getMilliseconds"})
# cel-cpp's spelling of a run-time type → cel-go's TypeName(). A bytes value reaching a function
# at run time through a dyn operand is a version attribute (quantities and network values are typed).
_GO_TYPE_NAMES = {"int64": "int", "uint64": "uint", "bytes": "kubernetes.Semver", "duration": "google.protobuf.Duration",
                  "timestamp": "google.protobuf.Timestamp"}


#: Library types upstream declares as object types its type provider cannot resolve (selecting a
#: field of one is ``unexpected failed resolution of 'T'``); the network library's are opaque
#: types, which ``do not support field selection`` (k8s.io/apiserver pkg/cel/library).
UNRESOLVED_OBJECT_TYPES = frozenset({"kubernetes.Quantity", "kubernetes.Semver", "kubernetes.URL",
                                     "kubernetes.NamedFormat"})


# cel-go dispatches an operator on a dyn operand by the left operand's traits (common/types):
# where the left operand lacks the operator's trait and is no receiver (strings, durations and
# timestamps are), the error names the operator; where the right operand is of the wrong type,
# it does not. The left operand types answered without the name, by operator (read off the
# upstream binary over every pair of types):
_ARITHMETIC = frozenset({"int", "uint", "double", "string", "google.protobuf.Duration", "google.protobuf.Timestamp"})
_ORDERED = _ARITHMETIC | {"bytes", "bool"}
_OPERATOR_TRAITS = {
    "_+_": _ARITHMETIC | {"bytes", "list"}, "_-_": _ARITHMETIC, "_*_": _ARITHMETIC, "_/_": _ARITHMETIC,
    "_%_": _ARITHMETIC - {"double"}, "-_": _ARITHMETIC - {"uint"} | {"bool"},
    **dict.fromkeys(("_<_", "_<=_", "_>_", "_>=_"), _ORDERED),
}
#: cel-cpp's spelling of a runtime type in its no-overload texts → CEL's name.
_CPP_RUNTIME_TYPES = {"int64": "int", "uint64": "uint", "duration": "google.protobuf.Duration",
                      "timestamp": "google.protobuf.Timestamp", "*opaque*": "optional_type"}


def operator_error(operator: str, left_type: str) -> str:
    """cel-go's runtime error for ``operator`` whose left operand is of CEL type ``left_type``
    (``int``, ``list``, ``kubernetes.Semver``, ...) and which no overload takes."""
    plain = _OPERATOR_TRAITS.get(operator)
    return "no such overload" if plain is None or left_type in plain else f"no such overload: {operator}"


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
    if name in _OPERATOR_TRAITS and types:
        # a bytes operand is mostly a library value (cel-cpp carries those as bytes); the default
        # engine asks cel-python where the two differ (see cel_expr_fallback)
        left = "kubernetes.Semver" if types[0] == "bytes" else _CPP_RUNTIME_TYPES.get(types[0], types[0])
        return operator_error(name, left)
    if name in _CONVERSIONS and types == ["bytes"]:
        return f"no such overload: {name}(kubernetes.Semver)"
    go_types = [_GO_TYPE_NAMES.get(t, t) for t in types]
    if name == "duration" and go_types == ["int"]:  # declared, but cel-go's Int converts to no duration
        return "type conversion error from 'int' to 'google.protobuf.Duration'"
    if name in _NAMED_OVERLOAD_ERRORS or (name in _TIME_CONVERSIONS | _CONVERSIONS and len(go_types) == 1):
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
_SORT_ERROR = r"^[@\w]+\(\): (?:unsupported type .*|(list elements must have the same type))$"
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


def go_key_text(text: str) -> str:
    """cel-go's ``%v`` of a map key that cel-cpp wrote unquoted: a uint without its ``u``, a
    double in Go's shortest form (from cel-cpp's six digits: the default engine hands such a
    device to cel-python, see ``cel_expr_fallback``, and this is the text where it cannot)."""
    if re.fullmatch(r"\d+u", text):
        return text[:-1]
    if re.fullmatch(_DOUBLE_KEY, text):
        return go_float_text(float(text.removesuffix(".0") if "e" in text else text))
    return text


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
        quoted = key.group(1) if key.group(1) is not None else key.group(2)
        return f"no such key: {quoted if quoted is not None else go_key_text(key.group(3))}"
    no_overload = re.match(_NO_MATCHING_OVERLOAD, message)
    if no_overload:
        return _no_such_overload(no_overload.group(1))
    fixed = _FIXED_MESSAGES.get(message)
    if fixed is not None:
        return fixed
    index = re.match(_INDEX_ERROR, message)
    if index:
        return f"index out of bounds: {index.group(1)}"  # cel-go's missingIndex
    conversion = re.match(_CONVERSION_FAILED, message)
    if conversion:
        return f"type conversion error from 'string' to '{conversion.group(1)}'"
    conversion = re.match(_TYPE_CONVERSION, message)
    if conversion:
        return f"type conversion error from '{conversion.group(1)}' to '{conversion.group(2)}'"
    sort = re.match(_SORT_ERROR, message)
    if sort:  # cel-go's sortListByAssociatedKeys
        return "list elements must have the same type" if sort.group(1) else "list elements must be comparable"
    for pattern, text in _FORMAT_CLAUSES:
        clause = re.match(pattern, message)
        if clause:
            return "error during formatting: " + text.format(clause.group(1))
    return message


def go_float_text(value: float) -> str:
    """Go's ``strconv.FormatFloat(value, 'g', -1, 64)``, as cel-go's ``string(double)`` writes it."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "-0" if str(value).startswith("-") else "0"
    digits, exponent = _shortest_digits(abs(value))
    sign = "-" if value < 0 else ""
    if exponent < -4 or exponent >= 6:  # Go uses precision 6 for this decision in the shortest form
        mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    if exponent + 1 >= len(digits):
        return sign + digits + "0" * (exponent + 1 - len(digits))
    return f"{sign}{digits[:exponent + 1]}.{digits[exponent + 1:]}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as ``value`` and the exponent of the first."""
    mantissa, _, exponent = f"{value:.17e}".partition("e")
    for precision in range(1, 18):
        text = f"{value:.{precision - 1}e}"
        if float(text) == value:
            mantissa, _, exponent = text.partition("e")
            break
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    return digits, int(exponent)


def time_zone_message(zone: str) -> str | None:
    """cel-go's error for a time zone argument it cannot use (``timeZone`` in
    common/types/timestamp.go): a name ``time.LoadLocation`` does not know, or an offset
    ``±HH:MM`` whose parts ``strconv.Atoi`` cannot read. ``None`` when cel-go takes it."""
    if ":" not in zone:
        if zone in ("", "UTC", "Local"):
            return None
        import zoneinfo  # (with sysconfig) only for a time zone argument

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
