"""Shared by the CEL rules: find every selector of an object, compile it once, place positions.

Selectors are read from the object as the apiserver validates it on create (v1 shape, defaulted,
fields of disabled gates dropped). Compilation goes through :func:`dractl.cel.compile_selector`
in the NewExpressions environment (``purpose="new"``) of the run's release and gates; its cache
compiles each distinct expression once per environment and process.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dractl.api.paths import format_path
from dractl.api.validation.gates import drop_disabled_fields
from dractl.api.validation.limits import limits_for
from dractl.api.versions import REQUEST_LISTS
from dractl.diagnostics import Position
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.cel import CelCompileError, CompiledSelector
    from dractl.lint.engine import LintContext

_CACHE_KEY = "dractl.lint.rules.cel"
SELECTOR_KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate")
#: ``resource.CELSelectorExpressionMaxCost``: the estimated cost the apiserver accepts.
MAX_COST = 1_000_000


class Selector(Record):
    """One ``cel.expression`` of a DeviceClass or of a (sub)request."""

    __slots__ = ("device_class", "earlier", "expression", "obj", "path")
    __hash__ = Record.value_hash

    def __init__(
        self,
        obj: ApiObject,
        path: tuple[Any, ...],
        expression: str,
        device_class: str | None,
        earlier: tuple[str, ...],
    ) -> None:
        self.obj = obj
        self.path = path  # v1 path of the expression string
        self.expression = expression
        #: The request's ``deviceClassName`` (None for a DeviceClass's own selectors).
        self.device_class = device_class
        #: The expressions evaluated before this one on the same device (earlier selectors).
        self.earlier = earlier

    @property
    def field(self) -> str:
        return format_path(self.path)


class Checked(Record):
    """A selector and what compiling it gave: ``compiled`` or ``error``, or ``too_long``."""

    __slots__ = ("compiled", "engine_missing", "error", "selector", "too_long")

    def __init__(
        self,
        selector: Selector,
        compiled: CompiledSelector | None = None,
        error: CelCompileError | None = None,
        too_long: int | None = None,
        engine_missing: str | None = None,
    ) -> None:
        self.selector = selector
        self.compiled = compiled
        self.error = error
        self.too_long = too_long  # the limit exceeded
        self.engine_missing = engine_missing


def _selector_lists(kind: str, data: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Any, str | None]]:
    """(path of a ``selectors`` list, the list, the device class it narrows)."""
    if kind == "DeviceClass":
        spec = data.get("spec")
        if isinstance(spec, dict):
            yield ("spec", "selectors"), spec.get("selectors"), None
        return
    base = REQUEST_LISTS.get(kind)
    node: Any = data
    for part in base or ():
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, list):
        return
    for i, request in enumerate(node):
        if not isinstance(request, dict):
            continue
        exactly = request.get("exactly")
        if isinstance(exactly, dict):
            yield (*base, i, "exactly", "selectors"), exactly.get("selectors"), _class_name(exactly)
        subrequests = request.get("firstAvailable")
        if isinstance(subrequests, list):
            for j, sub in enumerate(subrequests):
                if isinstance(sub, dict):
                    path = (*base, i, "firstAvailable", j, "selectors")
                    yield path, sub.get("selectors"), _class_name(sub)


def _class_name(request: dict[str, Any]) -> str | None:
    name = request.get("deviceClassName")
    return name if isinstance(name, str) and name else None


def selectors_of(obj: ApiObject, ctx: LintContext) -> list[Selector]:
    if not obj.dra or obj.kind not in SELECTOR_KINDS:
        return []
    data, _dropped = drop_disabled_fields(obj.kind, ctx.defaulted(obj), ctx.features)
    found: list[Selector] = []
    for list_path, entries, device_class in _selector_lists(obj.kind, data):
        if not isinstance(entries, list):
            continue
        earlier: list[str] = []
        for index, entry in enumerate(entries):
            cel = entry.get("cel") if isinstance(entry, dict) else None
            expression = cel.get("expression") if isinstance(cel, dict) else None
            if not isinstance(expression, str):
                continue  # missing or of the wrong type: the structure and schema rules say so
            path = (*list_path, index, "cel", "expression")
            found.append(Selector(obj, path, expression, device_class, tuple(earlier)))
            earlier.append(expression)
    return found


def cel_gates(ctx: LintContext) -> dict[str, bool]:
    from dractl.cel.environment import CEL_GATES

    return {gate: ctx.features.enabled(gate) for gate in CEL_GATES}


def compile_new(expression: str, ctx: LintContext) -> CompiledSelector:
    """Compile as the apiserver does for a created object (raises ``CelCompileError``)."""
    from dractl.cel import compile_selector

    return compile_selector(
        expression,
        release=ctx.features.release,
        gates=cel_gates(ctx),
        purpose="new",
        engine=ctx.settings.cel_engine,
    )


def checked_selectors(obj: ApiObject, ctx: LintContext) -> list[Checked]:
    """Every selector of ``obj`` with its compilation (computed once per object and run)."""
    cache = ctx.cache.setdefault(_CACHE_KEY, {})
    key = id(obj)
    if key not in cache:
        cache[key] = [_check(selector, ctx) for selector in selectors_of(obj, ctx)]
    result: list[Checked] = cache[key]
    return result


def _check(selector: Selector, ctx: LintContext) -> Checked:
    from dractl.cel import CelCompileError
    from dractl.cel.engines import EngineUnavailable

    limit = limits_for(ctx.features.release).cel_expression_length
    if len(selector.expression.encode("utf-8")) > limit:
        # As upstream: too long expressions are not compiled.
        return Checked(selector, too_long=limit)
    try:
        return Checked(selector, compiled=compile_new(selector.expression, ctx))
    except CelCompileError as exc:
        return Checked(selector, error=exc)
    except EngineUnavailable as exc:
        return Checked(selector, engine_missing=str(exc))


# -- positions --------------------------------------------------------------------------------


def inside_expression(selector: Selector, line: int, column: int) -> Position:
    """The file position of ``line:column`` (1-based, inside the expression)."""
    from dractl.cel.source_map import file_position

    obj = selector.obj
    value = obj.position(selector.path)
    text = obj.source.document.file.text
    file_line, file_column = file_position(text, value.line, value.column, selector.expression, line, column)
    return Position(value.file, file_line, file_column)


def at_offset(selector: Selector, offset: int) -> Position:
    """The file position of character ``offset`` of the expression."""
    from dractl.cel.source_map import expression_line_column

    return inside_expression(selector, *expression_line_column(selector.expression, offset))


def at_key(selector: Selector) -> Position:
    """The position of the ``expression:`` key (the value's when the key cannot be found)."""
    obj = selector.obj
    raw = obj.raw_path(selector.path)
    document = obj.source.document
    parent = document.node(obj.source.base + raw[:-1])
    try:
        line, column = parent.lc.key(raw[-1])
    except (AttributeError, KeyError, TypeError):
        return obj.position(selector.path)
    return Position(document.file.path, document.start_line + line + 1, column + 1)
