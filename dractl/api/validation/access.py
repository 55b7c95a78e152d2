"""Reading decoded object data the way Go's JSON decoding fills the typed structs.

A missing key and ``null`` are the zero value. A value of the wrong JSON type would make the
apiserver reject the request while decoding (the schema check reports it), so validation skips
such a field entirely: the getters return :data:`WRONG` and the checks leave it alone.
"""

from __future__ import annotations

from typing import Any, Final


class _Wrong:
    def __repr__(self) -> str:
        return "WRONG"

    def __bool__(self) -> bool:
        return False


#: The field has a value of the wrong type.
WRONG: Final[Any] = _Wrong()


def mapping(data: Any, key: str) -> dict[str, Any] | None:
    """A nested object: ``None`` when absent or null, :data:`WRONG` when not an object."""
    value = data.get(key) if isinstance(data, dict) else None
    if value is None:
        return None
    return value if isinstance(value, dict) else WRONG


def items(data: Any, key: str) -> list[Any] | None:
    value = data.get(key) if isinstance(data, dict) else None
    if value is None:
        return None
    return value if isinstance(value, list) else WRONG


def string(data: Any, key: str) -> str | None:
    """A string field: ``None`` when absent or null (Go: "" for a plain, nil for a pointer)."""
    value = data.get(key) if isinstance(data, dict) else None
    if value is None:
        return None
    return value if isinstance(value, str) else WRONG


def integer(data: Any, key: str) -> int | None:
    value = data.get(key) if isinstance(data, dict) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        return WRONG
    return value


def boolean(data: Any, key: str) -> bool | None:
    value = data.get(key) if isinstance(data, dict) else None
    if value is None:
        return None
    return value if isinstance(value, bool) else WRONG


def string_list(value: Any) -> list[str] | None:
    """A list of strings, or WRONG when any element is not a string."""
    if value is None or value is WRONG:
        return value
    if not all(isinstance(v, str) for v in value):
        return WRONG
    return value
