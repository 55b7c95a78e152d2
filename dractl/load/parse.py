"""Parse one source file into documents, within bounded time and memory."""

from __future__ import annotations

import json
import re
import warnings
from typing import TYPE_CHECKING, Any

from dractl.diagnostics import Diagnostic, Position, Severity
from dractl.load.documents import Document, SourceFile, has_content, split_documents
from dractl.load.lists import Omit, read_yaml_list
from dractl.load.objects import looks_like_object, may_hold_objects
from dractl.records import Record

if TYPE_CHECKING:
    from ruamel.yaml.error import MarkedYAMLError

_TEMPLATE_RE = r"\{\{.*?\}\}"
_BRACKET_RE = re.compile(r"[\[\]{}]")
# An escape that can write half of a UTF-16 surrogate pair: "\ud800" in JSON or double quotes.
_SURROGATE_ESCAPE_RE = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


class Limits(Record):
    """Input limits; inputs beyond them are rejected with a diagnostic, never loaded."""

    __slots__ = ("max_alias_expansion", "max_depth", "max_file_bytes", "max_nodes")
    __hash__ = Record.value_hash

    def __init__(
        self,
        max_file_bytes: int = 1024 * 1024 * 1024,
        max_depth: int = 100,
        max_nodes: int = 50_000_000,
        max_alias_expansion: int = 100_000,
    ) -> None:
        # A kubectl dump of a large cluster (`get ... -A -o json` of 15,000 Nodes with their status
        # and managedFields) is a few hundred MB and one document of some ten million nodes.
        self.max_file_bytes = max_file_bytes
        self.max_depth = max_depth
        self.max_nodes = max_nodes  # per document, with aliases expanded
        self.max_alias_expansion = max_alias_expansion  # nodes that aliases may add beyond the written ones


def is_template(text: str) -> bool:
    if "{{" not in text:
        return False
    for line in text.splitlines():
        stripped = line.lstrip()
        if stripped.startswith("#"):
            continue
        if re.search(_TEMPLATE_RE, line) or stripped.startswith("{{"):
            return True
    return False


def parse_source(
    source: SourceFile, limits: Limits, *, comments: bool = True, omit: Omit | None = None,
    marks: bool = True, jobs: int = 1,
) -> list[Diagnostic]:
    """Fill ``source.documents``; return the problems found on the way.

    ``comments=False``: nothing will edit the file (``lint``, ``explain``; ``convert`` needs the
    comments), so documents are read with libyaml where that gives the same tree, values and
    positions (see :mod:`dractl.load.fast`). ``omit`` (with ``comments=False``): parts of
    objects the caller does not read; cluster dumps are then read item by item without them
    (:mod:`dractl.load.lists`), and JSON files with the C decoder (:mod:`dractl.load.json_fast`).
    ``marks=False`` (with ``comments=False``): the fast reader's trees are plain dicts and lists,
    and a document's positions are found when first asked for, by reading it again (cheaper when
    few are asked for). ``jobs`` > 1 (with ``comments=False``): the documents of a long stream
    are read in that many processes (:mod:`dractl.load.forked`).
    """
    problems: list[Diagnostic] = []
    if omit is not None and not comments and source.format == "json" and _read_json(source, limits, omit):
        return problems
    if not _may_be_kubernetes(source):
        source.kubernetes = False
        source.documents.append(Document(source, 0, source.text, 0))
        return problems
    chunks = [(0, source.text)] if source.format == "json" else list(split_documents(source.text))
    readable: list[Document] = []
    for index, (start_line, chunk) in enumerate(chunks):
        doc = Document(source, index, chunk, start_line)
        source.documents.append(doc)
        if source.format == "json" or has_content(chunk):
            readable.append(doc)
    children = None
    if jobs > 1 and not comments:
        from dractl.load import forked

        children = forked.start(readable, limits, omit, jobs)
    found: dict[int, Diagnostic] = {}
    for doc in readable if children is None else children.own:
        problem = _parse_document(doc, limits, comments=comments, omit=omit, marks=marks)
        if problem is not None:
            found[doc.index] = problem
    if children is not None:
        for doc in children.collect():
            problem = _parse_document(doc, limits, comments=comments, omit=omit, marks=marks)
            if problem is not None:
                found[doc.index] = problem
    templates = 0
    for doc in readable:
        if _is_template_document(doc, doc.index in found):
            found[doc.index] = _template(doc)
            templates += 1
    # A file of templates only is not Kubernetes to check (no DRA004 for its documents either).
    source.template = bool(readable) and templates == len(readable)
    problems += (found[doc.index] for doc in readable if doc.index in found)
    for doc in readable:
        _replace_surrogates(doc)
    return problems


def _is_template_document(doc: Document, failed: bool) -> bool:
    """A Helm / Go template: a document with template actions that YAML cannot read, or reads
    only as a flow mapping used as a key (``name: {{ .Values.name }}``). A document that reads
    with ``{{`` inside its strings (a ConfigMap holding a Prometheus or Alertmanager template) is
    checked as any other."""
    if "{{" not in doc.text or not is_template(doc.text):
        return False
    return failed or _has_mapping_key(doc.raw)


def _has_mapping_key(node: Any, depth: int = 0) -> bool:
    if depth > 200:
        return False
    if isinstance(node, dict):
        return any(
            not isinstance(key, str | int | float | bool | type(None))
            or _has_mapping_key(value, depth + 1)
            for key, value in node.items()
        )
    if isinstance(node, list):
        return any(_has_mapping_key(item, depth + 1) for item in node)
    return False


def _template(doc: Document) -> Diagnostic:
    """DRA003 for one document, which is then left unread (neither checked nor reported)."""
    doc.raw = None
    doc.error = None
    position = Position(doc.file.path, doc.start_line + 1, 1)
    which = f"document {doc.index + 1} (line {doc.start_line + 1})" if doc.index else "this document"
    return Diagnostic(
        "DRA003",
        Severity.WARNING,
        "template, render it first (e.g. `helm template`): "
        f"{which} contains Go template actions ({{{{ ... }}}}) and was not checked",
        position,
    )


def _replace_surrogates(doc: Document) -> None:
    """Lone surrogates (``"\\ud800"``) become U+FFFD, as kubectl's decoders make them (Go's
    encoding/json and go-yaml): no later step, and no output, can encode them."""
    if doc.raw is None or _SURROGATE_ESCAPE_RE.search(doc.text) is None:
        return

    def fixed(text: str) -> str:
        return _SURROGATE_RE.sub("\ufffd", text)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if any(isinstance(k, str) and _SURROGATE_RE.search(k) for k in node):
                items = list(node.items())
                node.clear()
                for key, value in items:
                    node[fixed(key) if isinstance(key, str) else key] = value
            for key, value in node.items():
                if isinstance(value, str):
                    if _SURROGATE_RE.search(value):
                        node[key] = type(value)(fixed(value)) if type(value) is str else fixed(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, str):
                    if _SURROGATE_RE.search(value):
                        node[index] = fixed(value)
                else:
                    walk(value)

    walk(doc.raw)


def _read_json(source: SourceFile, limits: Limits, omit: Omit) -> bool:
    """A JSON file read by the C decoder (False: as any other file); a JSON value that holds no
    object is not Kubernetes, as :func:`_may_be_kubernetes` has it."""
    from dractl.load.json_fast import read_json

    if not may_hold_objects(source.text) or source.text.lstrip()[:1] not in ("{", "["):
        return False
    if is_template(source.text) or _flow_depth_exceeds(source.text, limits.max_depth):
        return False
    doc = Document(source, 0, source.text, 0)
    if not read_json(doc, limits, omit):
        return False
    _replace_surrogates(doc)
    if not looks_like_object(doc.raw):
        source.kubernetes = False
        source.documents.append(Document(source, 0, source.text, 0))
        return True
    source.documents.append(doc)
    return True


def _may_be_kubernetes(source: SourceFile) -> bool:
    """A quick look, before the (slow) round-trip parser, for files that cannot hold an object.

    JSON is checked with the standard library's parser, which reads a large package-lock.json
    a hundred times faster; JSON that it rejects (tsconfig.json's comments, trailing commas) is
    left to the text test.
    """
    if not may_hold_objects(source.text):
        return False
    if source.text.lstrip()[:1] in ("{", "["):
        try:
            value = json.loads(source.text)
        except (ValueError, RecursionError):
            return True
        return looks_like_object(value)
    return True


def _flow_depth_exceeds(text: str, limit: int) -> bool:
    """Whether brackets nest deeper than ``limit``, found before parsing.

    ruamel's scanner takes time quadratic in the depth of flow collections (a 40 KB line of
    ``[`` takes minutes), so such input is refused unread. Brackets inside quoted strings count
    too: only a string with more than ``limit`` unclosed brackets could be refused by mistake.
    """
    if text.count("[") + text.count("{") <= limit:  # no scan needed (most manifests)
        return False
    depth = 0
    for match in _BRACKET_RE.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        elif depth:
            depth -= 1
    return False


def _parse_document(
    doc: Document, limits: Limits, *, comments: bool = True, omit: Omit | None = None, marks: bool = True
) -> Diagnostic | None:
    if _flow_depth_exceeds(doc.text, limits.max_depth):
        return _fail(doc, "DRA005", f"nesting deeper than {limits.max_depth} levels", None)
    if not comments and omit is not None and read_yaml_list(doc, limits, omit):
        return None
    if not comments and _parse_fast(doc, limits, marks):
        return None
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    from dractl.load.roundtrip import round_trip_yaml

    yaml = round_trip_yaml()
    try:
        with warnings.catch_warnings():
            # ruamel warns about a reused anchor name; YAML and kubectl allow it (the latest wins)
            warnings.simplefilter("ignore")
            raw = yaml.load(doc.text)
    except DuplicateKeyError as exc:
        return _marked(doc, "DRA002", exc, "duplicate key")
    except MarkedYAMLError as exc:
        return _marked(doc, "DRA001", exc, "YAML syntax error")
    except RecursionError:
        return _fail(doc, "DRA005", f"nesting deeper than {limits.max_depth} levels", None)
    except ReaderError as exc:
        return _unacceptable(doc, exc)
    except (YAMLError, ValueError, TypeError) as exc:
        return _fail(doc, "DRA001", f"YAML syntax error: {_without_stream_name(str(exc))}", None)
    except (AttributeError, IndexError, KeyError, NotImplementedError, AssertionError) as exc:
        return _parser_failure(doc, exc)
    constructor: Any = yaml.constructor
    doc.yaml11 = {
        (doc.start_line + line + 1, col + 1): text
        for (line, col), text in getattr(constructor, "yaml11", {}).items()
    }
    problem = _check_size(raw, limits)
    if problem is not None:
        return _fail(doc, "DRA005", problem, None)
    doc.raw = raw
    return None


def _parse_fast(doc: Document, limits: Limits, marks: bool = True) -> bool:
    """Read ``doc`` with libyaml; False leaves it to the round-trip loader (which also gives any
    diagnostic, worded as for every other input). ``marks=False``: a plain tree, its positions
    read again when asked for."""
    from dractl.load.fast import load_fast

    # The fast reader keeps no aliases, so its size bounds are the whole of _check_size.
    loaded = load_fast(doc.text, limits.max_nodes, limits.max_depth, marks=marks)
    if loaded is None:
        return False
    if not marks:
        from dractl.load.forked import received

        received(doc, loaded.tree, loaded.yaml11, loaded.str_keys)
        return True
    raw, yaml11, doc.plain, _ = loaded
    doc.raw = raw
    doc.yaml11 = {(doc.start_line + line + 1, col + 1): text for (line, col), text in yaml11.items()}
    return True


def _parser_failure(doc: Document, exc: Exception) -> Diagnostic:
    """ruamel.yaml failed inside itself, as it does on some broken input (a comment it cannot
    place: "overlap in comment"). libyaml (PyYAML's C parser) names the syntax error, if any."""
    import yaml as pyyaml

    loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
    try:
        for _ in pyyaml.compose_all(doc.text, Loader=loader):  # nodes only: no tag is constructed
            pass
    except pyyaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        position = None
        if mark is not None:
            position = Position(doc.file.path, doc.start_line + mark.line + 1, mark.column + 1)
        parts = [p for p in (error.context, error.problem) if p]
        return _fail(doc, "DRA001", f"YAML syntax error: {_one_line('; '.join(parts))}", position)
    except (pyyaml.YAMLError, RecursionError):
        pass
    detail = _one_line(f"{type(exc).__name__}: {exc}")[:200]
    return _fail(doc, "DRA001", f"YAML that the round-trip parser cannot read ({detail})", None)


_CONTROL_NAMES = {0: "NUL", 8: "backspace", 12: "form feed", 0x1B: "ESC", 0x7F: "DEL"}


def _unacceptable(doc: Document, exc: Any) -> Diagnostic:
    """A character YAML does not allow (NUL, DEL, form feed, C1 controls), at its own line and
    column: the reader only gives an offset into the document's text, in its own words."""
    offset = max(0, min(int(getattr(exc, "position", 0) or 0), len(doc.text)))
    before = doc.text[:offset]
    line = before.count("\n")
    column = offset - (before.rfind("\n") + 1) + 1
    character = getattr(exc, "character", None)
    code = character if isinstance(character, int) else ord(doc.text[offset]) if offset < len(doc.text) else 0
    name = _CONTROL_NAMES.get(code)
    what = f"U+{code:04X}" + (f" ({name})" if name else "")
    position = Position(doc.file.path, doc.start_line + line + 1, column)
    message = f"YAML syntax error: the character {what} is not allowed in YAML (except escaped in a double-quoted string)"
    return _fail(doc, "DRA001", message, position)


def _without_stream_name(text: str) -> str:
    """An error's text on one line without the parser's ``in "<unicode string>", line 3`` (the
    diagnostic gives the file and line)."""
    text = re.sub(r'\s*in "<[^>]*>",? (?:line \d+, column \d+|position \d+)', "", text)
    return _one_line(text)


def _check_size(raw: Any, limits: Limits) -> str | None:
    """Reject alias bombs and deep nesting without ever expanding the tree."""
    sizes: dict[int, int] = {}
    written = 0

    def size(node: Any, depth: int) -> int:
        nonlocal written
        if depth > limits.max_depth:
            raise _TooDeep
        if not isinstance(node, dict | list):
            return 1
        key = id(node)
        if key in sizes:
            return sizes[key]
        sizes[key] = 1  # breaks cycles from recursive aliases
        children = node.values() if isinstance(node, dict) else node
        total = 1
        for item in children:
            total += size(item, depth + 1)
            if total > limits.max_nodes:
                raise _TooBig
        written += len(node) + 1
        sizes[key] = total
        return total

    try:
        total = size(raw, 0)
    except _TooDeep:
        return f"nesting deeper than {limits.max_depth} levels"
    except _TooBig:
        return (
            f"document expands to more than {limits.max_nodes} nodes; "
            "refusing a possible YAML alias bomb"
        )
    if total - written > limits.max_alias_expansion:
        return (
            f"YAML aliases expand this document to {total} nodes from {written} written "
            f"(limit {limits.max_alias_expansion} added by aliases); refusing a possible alias bomb"
        )
    return None


class _TooDeep(Exception):
    pass


class _TooBig(Exception):
    pass


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _marked(doc: Document, rule: str, exc: MarkedYAMLError, what: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    position = None
    if mark is not None:
        position = Position(doc.file.path, doc.start_line + mark.line + 1, mark.column + 1)
    parts = [p for p in (exc.context, exc.problem) if p]
    detail = _one_line("; ".join(parts)) if parts else _one_line(str(exc))
    if rule == "DRA002":
        detail = _one_line(exc.problem or "") or detail
        key = re.search(r'found duplicate key "(.*?)"', str(exc))
        detail = f'duplicate key "{key.group(1)}"' if key else detail
        message = f"{detail}: the apiserver's strict decoding rejects duplicate fields"
    else:
        message = f"{what}: {detail}"
    return _fail(doc, rule, message, position)


def _fail(doc: Document, rule: str, message: str, position: Position | None) -> Diagnostic:
    doc.error = message
    doc.error_position = position or Position(doc.file.path, doc.start_line + 1, 1)
    return Diagnostic(rule, Severity.ERROR, message, doc.error_position)
