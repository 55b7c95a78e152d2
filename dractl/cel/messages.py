"""Turning engine messages into the texts upstream (cel-go and the Kubernetes libraries) prints."""

from __future__ import annotations

import re

from dractl.cel.errors import CelError

_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r"\s*\[[A-Z_]+\]$")
_ISSUE_HEAD = re.compile(r"^ERROR: <input>:(\d+):(\d+): (.*)$")
_KEY_NOT_FOUND = re.compile(r'^Key not found in map ?: ?"?(.*?)"?$')
_NO_MATCHING_OVERLOAD = re.compile(r"^No matching overloads? found ?: ?(.*)$")
_INDEX_ERROR = re.compile(r"^Index error: index=(-?\d+) size=(\d+)$")
_CASCADE = "'*error*'"
_UNDEFINED_FIELD = re.compile(r"^undefined field '([^']*)' not found in struct '[^']*'$")


def strip_status(message: str) -> str:
    """``INVALID_ARGUMENT: text [INVALID_ARGUMENT]`` → ``text`` (absl status decoration)."""
    message = _STATUS_SUFFIX.sub("", message.strip())
    return _STATUS_PREFIX.sub("", message, count=1)


def _upstream_issue_message(message: str) -> str:
    field = _UNDEFINED_FIELD.match(message)
    if field:
        return f"undefined field '{field.group(1)}'"
    return message


def parse_issues(text: str) -> list[tuple[CelError, list[str]]]:
    """Split a cel-cpp/cel-go issue report into positioned errors plus their snippet lines."""
    issues: list[tuple[CelError, list[str]]] = []
    for line in strip_status(text).split("\n"):
        head = _ISSUE_HEAD.match(line)
        if head:
            message = _upstream_issue_message(head.group(3))
            issues.append((CelError(message, int(head.group(1)), int(head.group(2))), []))
        elif issues and line.startswith(" | "):
            issues[-1][1].append(line)
        elif issues:
            # A message that spans lines (rare); keep it with the issue it belongs to.
            err, snippet = issues[-1]
            issues[-1] = (CelError(err.message + "\n" + line, err.line, err.column), snippet)
    # cel-cpp goes on to report expressions whose operand failed to type-check
    # ("expression of type '*error*' ..."); cel-go's checker does not, so upstream's message
    # has only the first error.
    real = [issue for issue in issues if _CASCADE not in issue[0].message]
    return real or issues


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


def runtime_message(message: str) -> str:
    """cel-cpp runtime error → cel-go's wording where the two differ."""
    message = strip_status(message)
    key = _KEY_NOT_FOUND.match(message)
    if key:
        return f"no such key: {key.group(1)}"
    if _NO_MATCHING_OVERLOAD.match(message):
        return "no such overload"
    if message == "divide by zero":
        return "division by zero"
    index = _INDEX_ERROR.match(message)
    if index:
        return f"index '{index.group(1)}' out of range in list size '{index.group(2)}'"
    if message == "Iteration budget exceeded":
        return "operation cancelled: actual cost limit exceeded"
    return message
