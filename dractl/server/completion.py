"""Completion: ``apiVersion`` and ``kind`` of resource.k8s.io, ``deviceClassName`` from the
workspace's DeviceClasses and, inside a CEL selector, what the workspace's ResourceSlices publish
(attribute and capacity domains and names) and the functions of the release's environment.

The context is read from the buffer's text as it is now (a line being typed is seldom valid YAML),
the names from the last lint run of the workspace.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

if TYPE_CHECKING:
    from dractl.server.workspace import Snapshot

Kind = types.CompletionItemKind
# A value being typed after one of these keys ("- " for the first key of a list item).
_VALUE_RE = re.compile(r"^\s*(?:-\s+)?(?P<key>[A-Za-z]+):\s*(?P<typed>[\w./-]*)$")
_BLOCK_SCALAR_RE = re.compile(r"^\s*(?:-\s+)?expression:\s*[|>][-+0-9]*\s*(?:#.*)?$")
_INLINE_EXPRESSION_RE = re.compile(r"^\s*(?:-\s+)?expression:\s*(?P<cel>.*)$")
_DOMAIN_RE = re.compile(r'device\.(?P<map>attributes|capacity)\[\s*"(?P<typed>[^"]*)$')
_NAME_RE = re.compile(
    r'device\.(?P<map>attributes|capacity)\[\s*"(?P<domain>[^"]+)"\s*\]\s*\.(?P<typed>\w*)$'
)
_DEVICE_FIELD_RE = re.compile(r"(?<![\w.])device\.(?P<typed>\w*)$")
_IDENTIFIER_RE = re.compile(r"(?<![\w.\"'])(?P<typed>[A-Za-z_]\w*)$")

Position = Callable[[int], types.Position]  # 0-based character column of the line -> position


def complete(
    snapshot: Snapshot | None, lines: Sequence[str], line: int, column: int, position: Position
) -> list[types.CompletionItem]:
    """Items for 0-based (``line``, ``column``) of a buffer's ``lines``."""
    text = lines[line] if 0 <= line < len(lines) else ""
    prefix = text[:column]
    cel = _cel_prefix(lines, line, prefix)
    if cel is not None:
        return _cel_items(snapshot, cel, column, position)
    match = _VALUE_RE.match(prefix)
    if match is None:
        return []
    typed = match["typed"]
    start = column - len(typed)
    key = match["key"]
    if key == "apiVersion":
        return _items(_api_versions(snapshot), start, column, position)
    if key == "kind":
        from dractl.api.versions import KINDS

        return _items([(k, Kind.Class, "resource.k8s.io") for k in KINDS], start, column, position)
    if key == "deviceClassName" and snapshot is not None:
        classes = [
            (o.name, Kind.Value, f"DeviceClass in {o.source.document.file.path}")
            for o in snapshot.objects
            if o.kind == "DeviceClass" and o.dra and o.name
        ]
        return _items(classes, start, column, position)
    return []


def _cel_prefix(lines: Sequence[str], line: int, prefix: str) -> str | None:
    """The part of a CEL expression before the cursor, or None outside of one."""
    inline = _INLINE_EXPRESSION_RE.match(prefix)
    if inline is not None:
        return inline["cel"].lstrip("\"'")
    indent = len(prefix) - len(prefix.lstrip())
    if not prefix.strip():
        indent = len(prefix)
    for above in range(line - 1, -1, -1):
        text = lines[above]
        if not text.strip():
            continue
        if len(text) - len(text.lstrip()) < indent:
            return prefix.strip() if _BLOCK_SCALAR_RE.match(text) else None
    return None


def _cel_items(
    snapshot: Snapshot | None, cel: str, column: int, position: Position
) -> list[types.CompletionItem]:
    published = _published(snapshot) if snapshot is not None else {}
    match = _NAME_RE.search(cel)
    if match is not None:
        names = published.get((match["map"], match["domain"]), {})
        items = [(name, Kind.Field, detail) for name, detail in sorted(names.items())]
        return _items(items, column - len(match["typed"]), column, position)
    match = _DOMAIN_RE.search(cel)
    if match is not None:
        domains = sorted({domain for (kind, domain) in published if kind == match["map"]})
        items = [(d, Kind.Module, f"{match['map']} domain") for d in domains]
        return _items(items, column - len(match["typed"]), column, position)
    match = _DEVICE_FIELD_RE.search(cel)
    if match is not None:
        fields = [
            ("driver", Kind.Field, "string: the device's driver"),
            ("attributes", Kind.Field, "map of domain to attributes"),
            ("capacity", Kind.Field, "map of domain to quantities"),
            ("allowMultipleAllocations", Kind.Field, "bool (DRAConsumableCapacity)"),
        ]
        return _items(fields, column - len(match["typed"]), column, position)
    match = _IDENTIFIER_RE.search(cel)
    typed = match["typed"] if match is not None else ""
    if cel and not cel[-1:].isalnum() and cel[-1:] not in "_. (!&|,":
        return []
    items = [("device", Kind.Variable, "the device being checked")]
    items += [(name, Kind.Function, "CEL function") for name in _functions(snapshot)]
    return _items(items, column - len(typed), column, position)


def _published(snapshot: Snapshot) -> dict[tuple[str, str], dict[str, str]]:
    """(attributes | capacity, domain) -> name -> an example value, over the workspace's slices."""
    from dractl.cel.device import split_qualified_name

    out: dict[tuple[str, str], dict[str, str]] = {}
    for obj in snapshot.objects:
        if obj.kind != "ResourceSlice" or not obj.dra:
            continue
        spec = obj.data.get("spec")
        if not isinstance(spec, dict) or not isinstance(spec.get("devices"), list):
            continue
        driver = str(spec.get("driver") or "")
        for device in spec["devices"]:
            if not isinstance(device, dict):
                continue
            for map_name in ("attributes", "capacity"):
                values = device.get(map_name)
                if not isinstance(values, dict):
                    continue
                for qualified, value in values.items():
                    domain, name = split_qualified_name(str(qualified), driver)
                    names = out.setdefault((map_name, domain), {})
                    names.setdefault(name, _example(value))
    return out


def _example(value: Any) -> str:
    """``string: A100``, ``quantity: 80Gi``: the type and a value a slice publishes."""
    if isinstance(value, dict):
        for kind, inner in value.items():
            return f"{kind}: {inner}"
    return str(value)


def _functions(snapshot: Snapshot | None) -> list[str]:
    from dractl.api.releases import DEFAULT_RELEASE
    from dractl.cel.environment import environment_for
    from dractl.cel.functions import declared_functions

    features = snapshot.settings.features if snapshot is not None else None
    release = features.release if features is not None else DEFAULT_RELEASE
    gates = features.gates if features is not None else None
    return sorted(declared_functions(environment_for(release, gates, "stored")))


def _api_versions(snapshot: Snapshot | None) -> list[tuple[str, types.CompletionItemKind, str]]:
    from dractl.api.releases import DEFAULT_RELEASE, Serving, api_version_status
    from dractl.api.versions import GROUP, KINDS, VERSIONS

    release = snapshot.settings.features.release if snapshot is not None else DEFAULT_RELEASE
    out = []
    for version in VERSIONS:
        statuses = [api_version_status(version, kind, release) for kind in KINDS]
        served = [s for s in statuses if s.serving in (Serving.SERVED, Serving.OPT_IN)]
        if not served:
            continue
        notes = [f"Kubernetes {release}"]
        if all(s.serving is Serving.OPT_IN for s in served):
            notes.append("opt-in (--runtime-config)")
        if any(s.deprecated for s in served):
            notes.append("deprecated")
        out.append((f"{GROUP}/{version}", Kind.EnumMember, ", ".join(notes)))
    return out


def _items(
    entries: Sequence[tuple[str, types.CompletionItemKind, str]],
    start: int,
    end: int,
    position: Position,
) -> list[types.CompletionItem]:
    replaced = types.Range(start=position(start), end=position(end))
    return [
        types.CompletionItem(
            label=label,
            kind=kind,
            detail=detail,
            sort_text=f"{i:04d}",
            text_edit=types.TextEdit(range=replaced, new_text=label),
        )
        for i, (label, kind, detail) in enumerate(entries)
    ]
