"""Hover: what the field under the cursor is (the API schema of the chosen release), which rules
fire there and why, and what a CEL selector does on the workspace's devices (as ``dractl
select`` evaluates it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dractl.server.positions import Place, place_at, token_span

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.cel import CompiledSelector
    from dractl.diagnostics import Diagnostic
    from dractl.server.workspace import Snapshot

MAX_DEVICES_LISTED = 8


def hover_text(snapshot: Snapshot, path: str, line: int, column: int) -> str | None:
    """Markdown for 0-based (``line``, ``column``) of ``path``; None when there is nothing to say."""
    parts = [rule_text(d) for d in diagnostics_at(snapshot, path, line, column)]
    document = snapshot.document_at(path, line)
    if document is not None and document.raw is not None:
        place = place_at(snapshot.loaded, document, line, column)
        if is_selector(place) and not place.on_key:
            expression = document.node(place.path)
            if isinstance(expression, str):
                parts.insert(0, selector_text(snapshot, expression))
        field = field_text(snapshot, place)
        if field:
            parts.append(field)
    return "\n\n---\n\n".join(parts) if parts else None


# --- rules --------------------------------------------------------------------------------------


def diagnostics_at(snapshot: Snapshot, path: str, line: int, column: int) -> list[Diagnostic]:
    """Lint's diagnostics whose underlined token holds the cursor."""
    found = []
    for diagnostic in snapshot.result.diagnostics:
        position = diagnostic.position
        if position is None or position.file != path or position.line - 1 != line:
            continue
        text = _line(snapshot, path, line)
        start, end = token_span(text, position.column)
        if start <= column <= end:
            found.append(diagnostic)
    return found


def rule_text(diagnostic: Diagnostic) -> str:
    from dractl.lint.docs import rule_parts
    from dractl.lint.registry import get_rule
    from dractl.server.diagnostics import rule_url

    rule = get_rule(diagnostic.rule)
    if rule is None:
        return f"**{diagnostic.rule}** {diagnostic.message}"
    parts = rule_parts(rule)
    text = f"**[{rule.id}]({rule_url(rule.id)})** `{rule.name}` ({diagnostic.severity.value}): {parts['summary']}"
    if parts["why"]:
        text += f"\n\n**Why.** {parts['why']}"
    return text


def _line(snapshot: Snapshot, path: str, line: int) -> str:
    lines = (snapshot.text_of(path) or "").splitlines()
    return lines[line] if 0 <= line < len(lines) else ""


# --- CEL selectors ------------------------------------------------------------------------------


def is_selector(place: Place) -> bool:
    """A device selector's expression: ``...selectors[i].cel.expression`` of any DRA kind."""
    inner = place.inner
    return len(inner) >= 2 and inner[-2:] == ("cel", "expression") and place.obj is not None


def selector_text(snapshot: Snapshot, expression: str) -> str:
    """What ``dractl select EXPR`` over the workspace's slices says, in a line and a list."""
    from dractl.cel import CelCompileError

    verdict = evaluate_selector(snapshot, expression)
    if isinstance(verdict, CelCompileError):
        first = verdict.errors[0] if verdict.errors else None
        where = f" at {first.line}:{first.column}" if first else ""
        return f"**CEL selector** does not compile{where}: {first.message if first else verdict.detail}"
    rows, skipped = verdict
    release = snapshot.settings.features.release
    head = f"**CEL selector** on the devices of the workspace's ResourceSlices (Kubernetes {release}): "
    if not rows:
        return head + "no devices: the workspace has no ResourceSlice with devices"
    matched = [r for r in rows if r[1] is True]
    errors = [r for r in rows if isinstance(r[1], str)]
    text = head + f"true on {len(matched)} of {len(rows)} devices"
    if errors:
        reasons = sorted({r[1] for r in errors if isinstance(r[1], str)})
        text += f"; runtime error on {len(errors)}: {'; '.join(reasons)}"
    if skipped:
        text += f" ({skipped} slices left out: the apiserver could not decode them)"
    listed = matched[:MAX_DEVICES_LISTED]
    if listed:
        text += "\n\nmatches: " + ", ".join(f"`{name}`" for name, _ in listed)
        if len(matched) > len(listed):
            text += f" and {len(matched) - len(listed)} more"
    return text


def evaluate_selector(snapshot: Snapshot, expression: str) -> Any:
    """``([(driver/pool/device, True | False | error message)], slices left out)``, or the
    :class:`CelCompileError`: the scheduler's environment, as ``dractl select`` compiles. The
    devices are evaluated in a forked child (:mod:`dractl.server.isolated`: the CEL engine leaks
    on evaluation); the selector is compiled here, where the compilation is kept."""
    from dractl.api.decoding import decode_errors
    from dractl.cel import CelCompileError, compile_selector
    from dractl.server import isolated

    features = snapshot.settings.features
    try:
        selector = compile_selector(
            expression,
            release=features.release,
            gates=features.gates,
            purpose="stored",
            engine=snapshot.settings.cel_engine,
        )
    except CelCompileError as exc:
        return exc
    slices = [o for o in snapshot.objects if o.kind == "ResourceSlice" and o.dra]
    bad = {id(e.obj) for e in decode_errors(slices, features.release) if getattr(e, "obj", None)}
    usable = [o for o in slices if id(o) not in bad]
    rows = isolated.run(lambda: _verdicts(selector, usable, snapshot)) if usable else []
    return rows, len(slices) - len(usable)


def _verdicts(
    selector: CompiledSelector, slices: list[ApiObject], snapshot: Snapshot
) -> list[tuple[str, bool | str]]:
    from dractl.cel import CelRuntimeError
    from dractl.cel.environment import GATE_CONSUMABLE_CAPACITY
    from dractl.cel.slices import devices_of_slices

    features = snapshot.settings.features
    rows: list[tuple[str, bool | str]] = []
    devices = devices_of_slices(
        [o.data for o in slices], consumable_capacity=features.enabled(GATE_CONSUMABLE_CAPACITY)
    )
    for entry in devices:
        name = f"{entry.driver}/{entry.pool}/{entry.name}"
        try:
            rows.append((name, selector.evaluate(entry.device)))
        except CelRuntimeError as exc:
            rows.append((name, exc.message))
    return rows


# --- fields -------------------------------------------------------------------------------------


def field_text(snapshot: Snapshot, place: Place) -> str | None:
    """The field's type and description from the bundled schema of the object's version."""
    obj = place.obj
    if obj is None or not place.inner:
        return None
    from dractl.api.versions import is_dra

    if not is_dra(obj.api_version, obj.kind):
        return None
    schema = _schema(snapshot.settings.features.release, obj.version, obj.kind)
    if schema is None:
        return None
    found = field_schema(schema, place.inner)
    if found is None:
        return None
    name = next((p for p in reversed(place.inner) if isinstance(p, str)), "")
    kind = _type_text(schema, found)
    description = _description(schema, found)
    head = f"**{name}**" + (f" `{kind}`" if kind else "") + f" — {obj.kind} {obj.api_version}"
    return head + (f"\n\n{description}" if description else "")


def _schema(release: str, version: str, kind: str) -> dict[str, Any] | None:
    from dractl.api.releases import RELEASES
    from dractl.api.schemas import load_schema

    # the chosen release first; a version it no longer serves from the newest release that has it
    for candidate in (release, *reversed(RELEASES)):
        schema = load_schema(candidate, version, kind)
        if schema is not None:
            return schema
    return None


def field_schema(schema: dict[str, Any], path: Sequence[Any]) -> dict[str, Any] | None:
    """The schema node of ``path`` (fields and list indexes) inside ``schema``."""
    node: dict[str, Any] = schema
    for part in path:
        node = _resolved(schema, node)
        if isinstance(part, int):
            items = node.get("items")
            if not isinstance(items, dict):
                return None
            node = items
            continue
        properties = node.get("properties") or {}
        if part in properties:
            node = properties[part]
        elif isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return None
    return node


def _resolved(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` with its ``$ref`` (or ``allOf: [{$ref}]``) followed."""
    for _ in range(8):  # the generator nests refs one deep; a bound against cycles all the same
        ref = node.get("$ref")
        if ref is None and isinstance(node.get("allOf"), list) and len(node["allOf"]) == 1:
            ref = node["allOf"][0].get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
            return node
        node = schema.get("$defs", {}).get(ref[len("#/$defs/") :], {})
    return node


def _description(schema: dict[str, Any], node: dict[str, Any]) -> str:
    """The field's own description, else its type's."""
    own = node.get("description")
    if own:
        return str(own)
    return str(_resolved(schema, node).get("description") or "")


def _type_text(schema: dict[str, Any], node: dict[str, Any]) -> str:
    resolved = _resolved(schema, node)
    kind = resolved.get("type")
    if kind == "array":
        items = resolved.get("items")
        inner = _type_text(schema, items) if isinstance(items, dict) else ""
        return f"[]{inner}" if inner else "array"
    if kind == "object" and resolved.get("title"):
        return str(resolved["title"])
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    return str(kind or resolved.get("title") or "")
