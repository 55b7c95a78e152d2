"""Inline suppressions: ``# dractl: ignore[...]`` comments, and the bookkeeping of unused ones.

Directives (codes are rule IDs or prefixes, comma-separated; without brackets: every rule)::

    key: value  # dractl: ignore[DRA101]        the diagnostics on this line
    # dractl: ignore[DRA2]                      on a line of its own: the next line with content

A line that starts a multi-line block or quoted scalar stands for all of the scalar's lines.
    # dractl: ignore-document[DRA3]             anywhere in a document: the whole document
    # dractl: ignore-file                       anywhere in a file: the whole file

Free text may follow a directive (``# dractl: ignore[DRA101] -- vendored, fixed upstream``).
Comments are found by scanning each document's exact text (kept by the loader), not by parsing
YAML again; the scanner knows quoted scalars, block scalars and ``#`` inside plain scalars.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.lint.engine import Settings
    from dractl.load import LoadResult

MARKER = "dractl:"
# Patterns as text, compiled on first use by re's cache: most files have no directive.
_DIRECTIVE_RE = r"(?i)#[ \t]*dractl[ \t]*:[ \t]*(?P<body>.*)$"
_BODY_RE = (
    r"(?i)"
    r"^(?P<kind>ignore-file|ignore-document|ignore)"
    r"(?:[ \t]*\[(?P<codes>[^\]]*)\])?"
    r"(?P<rest>.*)$"
)
_CODE_RE = r"^DRA\d{0,3}$"
_BLOCK_SCALAR_RE = r"(?:^|:|(?:^|[ \t])[-?])(?:[ \t]+[&!]\S*)*[ \t]*[|>](?P<indicators>[-+1-9]{0,2})$"

UNUSED = "DRA901"
UNKNOWN_CODE = "DRA902"
INVALID = "DRA903"


class Comment(Record):
    __slots__ = ("column", "line", "own_line", "text")
    __hash__ = Record.value_hash

    def __init__(self, line: int, column: int, text: str, own_line: bool) -> None:
        self.line = line  # 1-based line in the file
        self.column = column  # 1-based column of the ``#``
        self.text = text
        self.own_line = own_line  # nothing but whitespace before it


class Suppression:
    """One directive; ``codes`` is None for a directive without brackets (every rule)."""

    __slots__ = ("codes", "first_line", "last_line", "position", "scope", "used")

    def __init__(
        self,
        scope: str,
        codes: tuple[str, ...] | None,
        position: Position,
        first_line: int,
        last_line: int,
        used: set[str | None] | None = None,
    ) -> None:
        self.scope = scope  # "line" | "document" | "file"
        self.codes = codes
        self.position = position
        self.first_line = first_line  # the lines it covers (1-based, inclusive)
        self.last_line = last_line
        self.used = set() if used is None else used

    def matching(self, rule: str) -> list[str | None]:
        if self.codes is None:
            return [None]
        return [code for code in self.codes if rule.startswith(code)]

    def covers(self, line: int) -> bool:
        return self.first_line <= line <= self.last_line


# --- finding comments ----------------------------------------------------------------------


def comments(text: str, first_line: int = 1) -> Iterator[Comment]:
    """Every YAML comment of ``text`` (line numbers counted from ``first_line``)."""
    quote: str | None = None  # an open multi-line flow scalar: "'" or '"'
    block_indent: int | None = None  # inside a block scalar: content is indented deeper
    for offset, line in enumerate(text.splitlines()):
        number = first_line + offset
        if block_indent is not None:
            stripped = line.strip()
            indent = len(line) - len(line.lstrip(" "))
            if not stripped or indent > block_indent:
                continue
            block_indent = None
        hash_at, quote = _comment_start(line, quote)
        code = line if hash_at is None else line[:hash_at]
        if hash_at is not None:
            yield Comment(number, hash_at + 1, line[hash_at:], not code.strip())
        if quote is None:
            block_indent = _block_scalar_parent(code.rstrip())
    return


def multiline_scalar_ends(text: str, first_line: int = 1) -> dict[int, int]:
    """Line that starts a multi-line block or quoted scalar → the scalar's last line.

    A diagnostic inside a CEL expression is placed on the line of the expression it is about;
    a directive for the line that starts the scalar covers all of the scalar's lines.
    """
    ends: dict[int, int] = {}
    quote: str | None = None
    opened: int | None = None  # the line that started the scalar now open
    block_indent: int | None = None
    for offset, line in enumerate(text.splitlines()):
        number = first_line + offset
        if block_indent is not None:
            stripped = line.strip()
            indent = len(line) - len(line.lstrip(" "))
            if not stripped or indent > block_indent:
                if stripped and opened is not None:
                    ends[opened] = number
                continue
            block_indent = None
            opened = None
        was_open = quote is not None
        hash_at, quote = _comment_start(line, quote)
        if was_open and opened is not None:
            ends[opened] = number
        code = line if hash_at is None else line[:hash_at]
        if quote is not None and not was_open:
            opened = number
        elif quote is None:
            opened = None
            block_indent = _block_scalar_parent(code.rstrip())
            if block_indent is not None:
                opened = number
    return ends


def _comment_start(line: str, quote: str | None) -> tuple[int | None, str | None]:
    """Where the comment of ``line`` starts, and the quote left open at its end."""
    i, n = 0, len(line)
    prev_significant = ""  # last non-blank character outside a scalar: decides if a quote opens
    while i < n:
        ch = line[i]
        if quote == "'":
            if ch == "'":
                if i + 1 < n and line[i + 1] == "'":
                    i += 2
                    continue
                quote = None
                prev_significant = "'"
        elif quote == '"':
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                quote = None
                prev_significant = '"'
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i, None
        elif ch in "'\"" and prev_significant in ("", ":", "-", "[", "{", ",", "?"):
            quote = ch
        elif ch not in " \t":
            # Inside a plain scalar (e.g. ``it's``) a quote does not open anything.
            prev_significant = ch if ch in ":-[{,?" and _indicator(line, i) else "x"
        i += 1
    return None, quote


def _indicator(line: str, i: int) -> bool:
    """Whether ``line[i]`` (one of ``:-[{,?``) is YAML syntax rather than part of a scalar."""
    ch = line[i]
    after = line[i + 1] if i + 1 < len(line) else " "
    if ch in ":-?":
        return after in " \t"
    return True


def _block_scalar_parent(code: str) -> int | None:
    """For a line that opens a block scalar (``key: |``), the indent its content must exceed."""
    match = re.search(_BLOCK_SCALAR_RE, code)
    if match is None:
        return None
    indent = len(code) - len(code.lstrip(" "))
    body = code[indent:]
    # ``- - key: |``: each sequence indicator moves the parent node two columns right
    while body.startswith(("- ", "-\t")):
        indent += 2
        body = body[2:].lstrip(" ")
    explicit = next((int(c) for c in match.group("indicators") if c.isdigit()), 0)
    if body.startswith(("|", ">")):  # ``- |``: the sequence item is the parent
        indent = indent - 2 if indent >= 2 else -1
    return indent + max(explicit - 1, 0)


# --- parsing directives --------------------------------------------------------------------


class ParsedDirectives(Record):
    __slots__ = ("problems", "suppressions")

    def __init__(
        self,
        suppressions: list[Suppression] | None = None,
        problems: list[Diagnostic] | None = None,
    ) -> None:
        self.suppressions = [] if suppressions is None else suppressions
        self.problems = [] if problems is None else problems  # DRA902 / DRA903


def directives(loaded: LoadResult, known: Iterable[str]) -> ParsedDirectives:
    """Every suppression directive of every loaded file."""
    known_ids = tuple(known)
    out = ParsedDirectives()
    for source in loaded.files:
        if source.format == "json" or not source.kubernetes or MARKER not in source.text.lower():
            continue  # no comments in JSON; other YAML (not Kubernetes) is never reported on
        total_lines = max(len(source.text.splitlines()), 1)
        regions = [(d.start_line, d.text) for d in source.documents] or [(0, source.text)]
        for start, text in regions:
            if MARKER not in text.lower():
                continue
            last = start + max(len(text.splitlines()), 1)
            _parse_region(source.path, text, start + 1, last, total_lines, known_ids, out)
    return out


def _parse_region(
    path: str,
    text: str,
    first: int,
    last: int,
    total_lines: int,
    known: Sequence[str],
    out: ParsedDirectives,
) -> None:
    found = list(comments(text, first))
    content_lines = _content_lines(text, first, found)
    scalar_ends = multiline_scalar_ends(text, first)
    for comment in found:
        match = re.match(_DIRECTIVE_RE, comment.text)
        if match is None:
            continue
        position = Position(path, comment.line, comment.column)
        body = match.group("body").strip()
        parsed = re.match(_BODY_RE, body)
        if parsed is None or (parsed.group("rest") and not parsed.group("rest")[0].isspace()):
            out.problems.append(
                Diagnostic(
                    INVALID,
                    Severity.WARNING,
                    f"not a dractl directive: {body!r}; expected ignore[CODES], "
                    "ignore-document[CODES] or ignore-file[CODES]",
                    position,
                )
            )
            continue
        kind = parsed.group("kind").lower()
        codes = _codes(parsed.group("codes"), position, known, out)
        if codes == ():
            continue  # every code was unknown: it suppresses nothing, already reported
        if kind == "ignore-file":
            scope, lo, hi = "file", 1, total_lines
        elif kind == "ignore-document":
            scope, lo, hi = "document", first, last
        elif comment.own_line:
            target = next((n for n in content_lines if n > comment.line), None)
            if target is None:
                target = 0  # covers nothing; reported as unused
            scope, lo, hi = "line", target, scalar_ends.get(target, target)
        else:
            scope, lo, hi = "line", comment.line, scalar_ends.get(comment.line, comment.line)
        out.suppressions.append(Suppression(scope, codes, position, lo, hi))


def _content_lines(text: str, first: int, found: list[Comment]) -> list[int]:
    own_comment_lines = {c.line for c in found if c.own_line}
    return [
        first + i
        for i, line in enumerate(text.splitlines())
        if line.strip() and first + i not in own_comment_lines and not _is_marker(line)
    ]


def _is_marker(line: str) -> bool:
    return line.startswith(("---", "...")) and not line[3:].split("#", 1)[0].strip()


def _codes(
    spec: str | None, position: Position, known: Sequence[str], out: ParsedDirectives
) -> tuple[str, ...] | None:
    if spec is None:
        return None
    codes: list[str] = []
    for raw in spec.split(","):
        code = raw.strip().upper()
        if not code:
            continue
        if re.match(_CODE_RE, code) and any(rule_id.startswith(code) for rule_id in known):
            codes.append(code)
            continue
        out.problems.append(
            Diagnostic(
                UNKNOWN_CODE,
                Severity.WARNING,
                f"unknown rule {raw.strip()!r} in suppression: no rule ID starts with it "
                "(see `dractl rules`)",
                position,
            )
        )
    return tuple(codes)


# --- applying them -------------------------------------------------------------------------


def apply_suppressions(
    diagnostics: list[Diagnostic], loaded: LoadResult, settings: Settings
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add DRA901-DRA903 for directives that are wrong or idle.

    Per-file ignores from the configuration apply first, so an inline suppression of a rule
    that is ignored for its file suppresses nothing (but is not reported as unused either).
    """
    from dractl.lint.registry import all_rules

    known = [r.id for r in all_rules()]
    kept = [d for d in diagnostics if not _ignored_for_file(d, settings)]
    parsed = directives(loaded, known)
    if not parsed.suppressions and not parsed.problems:
        return kept

    by_file: dict[str, list[Suppression]] = {}
    for suppression in parsed.suppressions:
        by_file.setdefault(suppression.position.file, []).append(suppression)

    remaining: list[Diagnostic] = []
    for diagnostic in kept:
        if not _suppress(diagnostic, by_file, record=True):
            remaining.append(diagnostic)

    meta = list(parsed.problems)
    for suppression in parsed.suppressions:
        meta.extend(_unused(suppression, known, settings))
    for diagnostic in meta:
        if not settings.enabled(diagnostic.rule) or _ignored_for_file(diagnostic, settings):
            continue
        if _suppress(diagnostic, by_file, record=False, explicit_only=True):
            continue
        override = settings.severity_overrides.get(diagnostic.rule)
        if override is not None and override != diagnostic.severity:
            from dractl.records import replace

            diagnostic = replace(diagnostic, severity=override)
        remaining.append(diagnostic)
    return remaining


def _ignored_for_file(diagnostic: Diagnostic, settings: Settings) -> bool:
    if not settings.per_file_ignores or diagnostic.position is None:
        return False
    path = diagnostic.position.file
    return any(
        diagnostic.rule.startswith(code)
        for pattern, codes in settings.per_file_ignores
        if pattern.matches(path)
        for code in codes
    )


def _suppress(
    diagnostic: Diagnostic,
    by_file: dict[str, list[Suppression]],
    *,
    record: bool,
    explicit_only: bool = False,
) -> bool:
    position = diagnostic.position
    if position is None:
        return False
    hit = False
    for suppression in by_file.get(position.file, ()):
        if not suppression.covers(position.line) or suppression.position == position:
            continue
        matching = suppression.matching(diagnostic.rule)
        if explicit_only:
            # Meta diagnostics yield only to a directive that names their family (DRA9...).
            matching = [m for m in matching if m is not None and len(m) >= 4]
        if matching:
            hit = True
            if record:
                suppression.used.update(matching)
    return hit


def _unused(suppression: Suppression, known: Sequence[str], settings: Settings) -> list[Diagnostic]:
    where = {"line": "on this line", "document": "in this document", "file": "in this file"}[
        suppression.scope
    ]
    if suppression.scope == "line" and suppression.first_line != suppression.position.line:
        where = "on the next line" if suppression.first_line else "after it"
    out = []
    if suppression.codes is None:
        if not suppression.used:
            out.append(f"unused suppression: no diagnostic {where} to suppress")
    else:
        for code in suppression.codes:
            if code in suppression.used or code.startswith("DRA9"):
                continue
            if not _any_enabled(code, known, settings, suppression.position.file):
                continue  # the rule is off in this run; the directive may matter in another
            out.append(f"unused suppression: no {code} diagnostic {where} to suppress")
    return [Diagnostic(UNUSED, Severity.WARNING, m, suppression.position) for m in out]


def _any_enabled(code: str, known: Sequence[str], settings: Settings, path: str) -> bool:
    probe = Position(path, 0, 0)
    return any(
        rule_id.startswith(code)
        and settings.enabled(rule_id)
        and not _ignored_for_file(Diagnostic(rule_id, Severity.INFO, "", probe), settings)
        for rule_id in known
    )
