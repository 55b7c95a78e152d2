"""Field paths as the apiserver prints them (``spec.devices.requests[0].exactly.count``).

A path is a tuple of parts: ``str`` is a field name, ``Key`` a map key (printed ``[key]``), ``int``
a list index (printed ``[i]``).
"""

from __future__ import annotations

from collections.abc import Iterable


class Key(str):
    """A map key in a field path (attribute names, capacity names, label keys)."""

    __slots__ = ()


PathPart = str | int
Path = tuple[PathPart, ...]


def format_path(path: Iterable[PathPart]) -> str:
    out: list[str] = []
    for part in path:
        if (isinstance(part, int) and not isinstance(part, bool)) or isinstance(part, Key):
            out.append(f"[{part}]")
        else:
            if out:
                out.append(".")
            out.append(str(part))
    return "".join(out)
