"""Field errors as the apiserver reports them (``k8s.io/apimachinery/pkg/util/validation/field``).

A :class:`FieldError` carries the v1 field path, the error type, the value and the detail, and
renders itself exactly as the apiserver prints it:
``<path>: <Type>[: <value>][: <detail>]``. Each error also names the :class:`Topic` of the rule
that produced it, so lint rules can be selected and suppressed by topic.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable, Sequence
from typing import Any

from dractl.api.paths import Path, format_path
from dractl.records import Record


class ErrorType(enum.StrEnum):
    REQUIRED = "Required value"
    INVALID = "Invalid value"
    DUPLICATE = "Duplicate value"
    NOT_SUPPORTED = "Unsupported value"
    FORBIDDEN = "Forbidden"
    TOO_LONG = "Too long"
    TOO_MANY = "Too many"
    NOT_FOUND = "Not found"
    INTERNAL = "Internal error"


class Topic(enum.StrEnum):
    """What a check is about; each topic is one lint rule."""

    METADATA = "metadata"
    NAME_FORMAT = "name-format"
    QUALIFIED_NAME = "qualified-name"
    REQUIRED = "required"
    ONE_OF = "one-of"
    DUPLICATE = "duplicate"
    LIMIT = "limit"
    ALLOCATION_MODE = "allocation-mode"
    REQUEST_REFERENCE = "request-reference"
    CONSTRAINT = "constraint"
    ATTRIBUTE_VALUE = "attribute-value"
    CAPACITY_POLICY = "capacity-policy"
    TOLERATION = "toleration"
    TAINT = "taint"
    COUNTERS = "counters"
    NODE_SELECTION = "node-selection"
    OPAQUE_CONFIG = "opaque-config"
    BINDING_CONDITIONS = "binding-conditions"
    EXTENDED_RESOURCE = "extended-resource"
    # Findings the apiserver may or may not turn into an error, or only warns about.
    ADMIN_ACCESS = "admin-access"
    STATUS_ON_CREATE = "status-on-create"
    DRIVER_CASE = "driver-case"


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


#: The error has no value to print (``field.Required``, ``TooLong`` ...).
OMITTED: Any = _Omitted()

# Types whose value upstream never prints.
_VALUELESS = frozenset(
    {ErrorType.REQUIRED, ErrorType.FORBIDDEN, ErrorType.TOO_LONG, ErrorType.INTERNAL}
)


class FieldError(Record):
    """One error of the apiserver's ErrorList.

    ``path`` is the field path as upstream builds it (v1 shape; map keys truncated like upstream
    when very long). ``locate`` is the path of the author's node when it differs from ``path``
    (an invalid map key is reported at the map but lives at the key).
    """

    __slots__ = ("detail", "locate", "path", "topic", "type", "value")
    __hash__ = Record.value_hash

    def __init__(
        self,
        path: Path,
        type: ErrorType,
        topic: Topic,
        detail: str = "",
        value: Any = OMITTED,
        locate: Path | None = None,
    ) -> None:
        self.path = path
        self.type = type
        self.topic = topic
        self.detail = detail
        self.value = value
        self.locate = locate

    @property
    def field(self) -> str:
        return format_path(self.path)

    @property
    def where(self) -> Path:
        return self.locate if self.locate is not None else self.path

    @property
    def body(self) -> str:
        """The error without its path, as ``field.Error.ErrorBody`` renders it."""
        text = str(self.type)
        if self.type not in _VALUELESS and self.value is not OMITTED:
            text += ": " + render_value(self.value)
        if self.detail:
            text += ": " + self.detail
        return text

    def __str__(self) -> str:
        return f"{self.field}: {self.body}"


def render_value(value: Any) -> str:
    """A bad value the way the apiserver prints it: strings Go-quoted, scalars plain, else JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def go_quote(text: str) -> str:
    """Go's ``%q`` for a string (``strconv.Quote``)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\a":
            out.append("\\a")
        elif ch == "\b":
            out.append("\\b")
        elif ch == "\f":
            out.append("\\f")
        elif ch == "\v":
            out.append("\\v")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# Constructors named like upstream's ``field.Required`` & co. ``topic`` is always explicit.


def required(
    path: Sequence[Any], topic: Topic, detail: str = "", locate: Path | None = None
) -> FieldError:
    return FieldError(tuple(path), ErrorType.REQUIRED, topic, detail, OMITTED, locate)


def invalid(
    path: Sequence[Any], value: Any, detail: str, topic: Topic, locate: Path | None = None
) -> FieldError:
    return FieldError(tuple(path), ErrorType.INVALID, topic, detail, value, locate)


def duplicate(path: Sequence[Any], value: Any, topic: Topic = Topic.DUPLICATE) -> FieldError:
    return FieldError(tuple(path), ErrorType.DUPLICATE, topic, "", value)


def forbidden(
    path: Sequence[Any], detail: str, topic: Topic, locate: Path | None = None
) -> FieldError:
    return FieldError(tuple(path), ErrorType.FORBIDDEN, topic, detail, OMITTED, locate)


def too_long(
    path: Sequence[Any], limit: int, topic: Topic = Topic.LIMIT, locate: Path | None = None
) -> FieldError:
    unit = "byte" if limit == 1 else "bytes"
    detail = f"may not be more than {limit} {unit}"
    return FieldError(tuple(path), ErrorType.TOO_LONG, topic, detail, OMITTED, locate)


def too_many(
    path: Sequence[Any], actual: int, limit: int, topic: Topic = Topic.LIMIT
) -> FieldError:
    unit = "item" if limit == 1 else "items"
    return FieldError(
        tuple(path), ErrorType.TOO_MANY, topic, f"must have at most {limit} {unit}", actual
    )


def not_supported(
    path: Sequence[Any], value: Any, supported: Iterable[str], topic: Topic
) -> FieldError:
    values = ", ".join(go_quote(v) for v in supported)
    return FieldError(
        tuple(path), ErrorType.NOT_SUPPORTED, topic, f"supported values: {values}", value
    )
