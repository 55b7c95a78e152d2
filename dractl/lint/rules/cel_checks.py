"""DRA210–DRA219: CEL selectors the apiserver accepts that very likely do not do what was meant.

These checks go beyond upstream's validation. Those that look at devices use the ResourceSlices
of the run (the linted files and ``--context``): a selector is evaluated there as the scheduler
evaluates it (StoredExpressions environment, class selectors first, then the request's, in
order, stopping at the first that is false).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dractl.diagnostics import Severity
from dractl.lint.engine import Finding
from dractl.lint.registry import rule
from dractl.lint.rules._cel import (
    SELECTOR_KINDS,
    Checked,
    Selector,
    at_offset,
    cel_gates,
    checked_selectors,
    inside_expression,
    selectors_of,
)
from dractl.lint.rules._common import did_you_mean
from dractl.lint.rules._rejected import accepted_slices
from dractl.records import Record

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.cel import CompiledSelector
    from dractl.cel.ast import CheckedAst, Expr
    from dractl.cel.slices import SliceDevice
    from dractl.lint.engine import LintContext

_DEVICES_KEY = "dractl.lint.rules.cel_checks.devices"
_STORED_KEY = "dractl.lint.rules.cel_checks.stored"
_REACHED_KEY = "dractl.lint.rules.cel_checks.reached"
_FAILURES_KEY = "dractl.lint.rules.cel_checks.failures"
_DOMAINS_KEY = "dractl.lint.rules.cel_checks.domains"
#: Attribute domain of the attributes Kubernetes itself defines (``resource.kubernetes.io/pciBusID``).
STANDARD_DOMAIN = "resource.kubernetes.io"
#: The typed accessors of v1alpha2's attributes (``.string``); DRA214 reports them.
OLD_ACCESSORS = frozenset({"string", "int", "bool", "version"})
_SHOWN_DEVICES = 3
_OUTER = {"device.attributes": "attributes", "device.capacity": "capacity"}


# -- the syntax tree: lookups of attributes and capacities --------------------------------------


class Lookup(Record):
    """``device.attributes["domain"].name`` (or ``["name"]``, or through ``cel.bind``)."""

    __slots__ = ("domain", "guarded", "map", "name", "node", "offset")
    __hash__ = Record.value_hash

    def __init__(
        self,
        map: str,
        domain: str | None,
        name: str,
        offset: int,
        guarded: bool,
        node: Expr,
    ) -> None:
        self.map = map  # "attributes" | "capacity"
        self.domain = domain  # None: the device's own driver (``device.attributes[device.driver]``)
        self.name = name
        self.offset = offset  # where the name is in the expression
        self.guarded = guarded
        self.node = node


def _is_device_driver(node: Expr) -> bool:
    return (
        node.kind == "select"
        and node.name == "driver"
        and not node.test_only
        and node.operand is not None
        and node.operand.kind == "ident"
        and node.operand.name == "device"
    )


def _outer_map(node: Expr) -> str | None:
    if node.kind == "ident":
        return _OUTER.get(node.name)
    if (
        node.kind == "select"
        and not node.test_only
        and node.operand is not None
        and node.operand.kind == "ident"
        and node.operand.name == "device"
    ):
        return _OUTER.get(f"device.{node.name}")
    return None


def _domain_map(node: Expr | None, bound: dict[str, tuple[str, str | None]]) -> tuple[str, str | None] | None:
    """(map, domain) when ``node`` is one domain's map of the device."""
    if node is None:
        return None
    if node.kind == "ident" and node.name in bound:
        return bound[node.name]
    if node.kind == "call" and node.name == "_[_]" and node.operand is None and len(node.args) == 2:
        which = _outer_map(node.args[0])
        key = node.args[1]
        if which is None:
            return None
        if key.kind == "const" and isinstance(key.value, str):
            return which, key.value
        if _is_device_driver(key):
            return which, None
    return None


def _bindings(ast: CheckedAst) -> dict[str, tuple[str, str | None]]:
    """Names bound to a domain's map with ``cel.bind(name, device.attributes["d"], ...)``."""
    bound: dict[str, tuple[str, str | None]] = {}
    for node in ast.root.walk():
        if (
            node.kind == "comprehension"
            and node.iter_range is not None
            and node.iter_range.kind == "list"
            and not node.iter_range.args
        ):
            target = _domain_map(node.accu_init, bound)
            if target is not None:
                bound[node.accu_var] = target
    return bound


def lookups(ast: CheckedAst) -> list[Lookup]:
    bound = _bindings(ast)
    guards: set[tuple[str, str | None, str]] = set()
    found: list[tuple[str, str | None, str, int, Expr]] = []
    for node in ast.root.walk():
        if node.kind == "select":
            target = _domain_map(node.operand, bound)
            if target is None:
                continue
            if node.test_only:  # has(device.attributes["d"].name)
                guards.add((*target, node.name))
            else:  # positioned at the dot; point at the name
                found.append((*target, node.name, ast.positions.get(node.id, -1) + 1, node))
        elif node.kind == "call" and node.operand is None and len(node.args) == 2:
            first, second = node.args
            if node.name == "@in" and first.kind == "const" and isinstance(first.value, str):
                target = _domain_map(second, bound)
                if target is not None:  # "name" in device.attributes["d"]
                    guards.add((*target, first.value))
            elif node.name == "_[_]" and second.kind == "const" and isinstance(second.value, str):
                target = _domain_map(first, bound)
                if target is not None:
                    found.append((*target, second.value, ast.positions.get(second.id, 0), node))
    return [
        Lookup(which, domain, name, offset, (which, domain, name) in guards, node)
        for which, domain, name, offset, node in found
    ]


def _driver_constraint(node: Expr) -> set[str] | None:
    """The drivers ``node`` admits when it only constrains ``device.driver``: ``device.driver ==
    "x"``, ``device.driver in ["x", "y"]``, or a disjunction of those; else None."""
    if node.kind != "call":
        return None
    if node.name == "_==_" and len(node.args) == 2:
        left, right = node.args
        for one, other in ((left, right), (right, left)):
            if _is_device_driver(one) and other.kind == "const" and isinstance(other.value, str):
                return {other.value}
        return None
    if node.name == "@in" and len(node.args) == 2 and _is_device_driver(node.args[0]):
        items = node.args[1]
        if items.kind == "list" and all(i.kind == "const" and isinstance(i.value, str) for i in items.args):
            return {i.value for i in items.args}
        return None
    if node.name == "_||_" and len(node.args) == 2:
        left, right = (_driver_constraint(arg) for arg in node.args)
        return left | right if left is not None and right is not None else None
    return None


def _conjuncts(node: Expr) -> list[Expr]:
    if node.kind == "call" and node.name == "_&&_" and len(node.args) == 2:
        return _conjuncts(node.args[0]) + _conjuncts(node.args[1])
    return [node]


def admitted_drivers(ast: CheckedAst) -> set[str] | None:
    """The drivers a selector admits at most (None: any), from its top-level conditions."""
    admitted: set[str] | None = None
    for conjunct in _conjuncts(ast.root):
        drivers = _driver_constraint(conjunct)
        if drivers is not None:
            admitted = drivers if admitted is None else admitted & drivers
    return admitted


# -- devices and the scheduler's evaluation ------------------------------------------------------


def _devices(ctx: LintContext) -> list[SliceDevice]:
    cached = ctx.cache.get(_DEVICES_KEY)
    if cached is None:
        from dractl.cel.environment import GATE_CONSUMABLE_CAPACITY
        from dractl.cel.slices import devices_of_slices

        # slices the apiserver refuses are not in the cluster: their findings are their own
        cached = devices_of_slices((obj.data for obj in accepted_slices(ctx)),
                                   consumable_capacity=ctx.features.enabled(GATE_CONSUMABLE_CAPACITY))
        ctx.cache[_DEVICES_KEY] = cached
    result: list[SliceDevice] = cached
    return result


def _stored(expression: str, ctx: LintContext) -> CompiledSelector | None:
    """The selector as the scheduler compiles it, or None when it does not compile there."""
    cache = ctx.cache.setdefault(_STORED_KEY, {})
    if expression not in cache:
        from dractl.cel import CelCompileError, compile_selector
        from dractl.cel.engines import EngineUnavailable

        try:
            cache[expression] = compile_selector(
                expression,
                release=ctx.features.release,
                gates=cel_gates(ctx),
                purpose="stored",
                engine=ctx.settings.cel_engine,
            )
        except (CelCompileError, EngineUnavailable):
            cache[expression] = None
    result: CompiledSelector | None = cache[expression]
    return result


def _label(device: SliceDevice) -> str:
    return f"{device.driver}/{device.pool}/{device.name}"


def _before(selector: Selector, ctx: LintContext) -> tuple[list[str], bool]:
    """The expressions the scheduler evaluates before this one, and whether the class is known."""
    earlier: list[str] = []
    known = True
    if selector.device_class is not None:
        device_class = ctx.workspace.device_classes.get(selector.device_class)
        if device_class is None:
            known = False
        else:
            earlier.extend(s.expression for s in selectors_of(device_class, ctx))
    earlier.extend(selector.earlier)
    return earlier, known


def _candidates(selector: Selector, ctx: LintContext) -> list[SliceDevice]:
    """The devices of the run this selector is evaluated on by the scheduler."""
    devices = _devices(ctx)
    if not devices:
        return []
    earlier, class_known = _before(selector, ctx)
    if not class_known:
        # Which devices the class lets through is unknown: the selector may be evaluated on
        # none of those that make it fail.
        return []
    return _reached(tuple(earlier), ctx)


def _reached(earlier: tuple[str, ...], ctx: LintContext) -> list[SliceDevice]:
    """The devices of the run that pass every expression of ``earlier``; found once per run for
    each sequence (the claims of a run repeat the same classes and selectors)."""
    from dractl.cel import CelRuntimeError

    cache = ctx.cache.setdefault(_REACHED_KEY, {})
    if earlier in cache:
        cached: list[SliceDevice] = cache[earlier]
        return cached
    compiled = [_stored(expression, ctx) for expression in earlier]
    reached: list[SliceDevice] = []
    if all(c is not None for c in compiled):
        for device in _devices(ctx):
            try:
                if all(c is not None and c.evaluate(device.device) for c in compiled):
                    reached.append(device)
            except CelRuntimeError:
                continue  # an earlier selector's own problem, reported there
    cache[earlier] = reached
    return reached


def _runtime_failures(
    selector: Selector, stored: CompiledSelector, ctx: LintContext
) -> tuple[dict[str, list[SliceDevice]], int]:
    """Runtime error message → the devices it happens on, and how many devices the selector is
    evaluated on; found once per run for each expression and the selectors before it."""
    from dractl.cel import CelRuntimeError

    earlier, class_known = _before(selector, ctx)
    key = (selector.expression, tuple(earlier), class_known)
    cache = ctx.cache.setdefault(_FAILURES_KEY, {})
    if key in cache:
        cached: tuple[dict[str, list[SliceDevice]], int] = cache[key]
        return cached
    failures: dict[str, list[SliceDevice]] = {}
    candidates = _candidates(selector, ctx)
    list_types = stored.environment.list_type_attributes
    for device in candidates:
        if device.device.plain(list_types).error is not None:
            continue  # a device the scheduler cannot convert: the slice's problem (DRA130)
        try:
            stored.evaluate(device.device)
        except CelRuntimeError as exc:
            if "not supported by dractl" in exc.message:
                continue
            failures.setdefault(exc.message, []).append(device)
    cache[key] = failures, len(candidates)
    return failures, len(candidates)


# -- rules ---------------------------------------------------------------------------------------


def _analysed(obj: ApiObject, ctx: LintContext) -> Iterator[tuple[Checked, CheckedAst]]:
    for checked in checked_selectors(obj, ctx):
        if checked.compiled is not None and checked.compiled.ast is not None:
            yield checked, checked.compiled.ast


def _guard_hint(lookup: Lookup | None) -> str:
    if lookup is None:
        return "guard the expression so that it cannot fail on these devices"
    where = f'"{lookup.domain}"' if lookup.domain is not None else "device.driver"
    base = f"device.{lookup.map}[{where}]"
    return (
        f"guard the lookup: has({base}.{lookup.name}) && ..., or give a default: "
        f"{base}.?{lookup.name}.orValue(...)"
    )


@rule("DRA210", "cel-runtime-error-on-devices", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_runtime_error_on_devices(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector raises a runtime error on devices of the ResourceSlices in the run.

    Why:
    A selector that fails on a device does not just skip it: the scheduler's allocation on
    that node fails as a whole, and Pods that need the class or claim cannot be scheduled
    there. The usual cause is reading an attribute or capacity that some devices lack
    (`no such key: <name>`); a DeviceClass selector also runs on the devices of every other
    driver on the node, for which `device.attributes["<domain>"]` is empty. dractl evaluates
    each selector on the devices of the ResourceSlices given to it (or with `--context`), as
    the scheduler does: class selectors first, then the request's, stopping at the first
    false one. Without ResourceSlices, a DeviceClass selector that reads an attribute or
    capacity unguarded while admitting devices of any driver is reported: it fails on every
    node that has devices of another driver. Guard optional attributes with `has()`, or use
    `.?name.orValue(default)`. A lookup in a misspelt domain (DRA211) or through v1alpha2's
    typed accessors (DRA214) is left to that rule, whose fix is the right one; ResourceSlices
    the apiserver rejects for their devices (a v1 slice with `basic:`, one without a pool)
    are left out, as they never reach the cluster.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].model == "A100"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com"
          - cel:
              expression: device.attributes["gpu.example.com"].?model.orValue("") == "A100"

    Upstream:
    kubernetes/dynamic-resource-allocation `structured/internal/stable/allocator_stable.go`
    (`selectorsMatch`), `cel/compile.go` (`DeviceMatches`).
    """
    if not _devices(ctx):
        if obj.kind == "DeviceClass":
            yield from _any_driver_lookups(obj, ctx)
        return
    for checked in checked_selectors(obj, ctx):
        if checked.compiled is None:
            continue
        selector = checked.selector
        stored = _stored(selector.expression, ctx)
        if stored is None:
            continue
        failures, candidates = _runtime_failures(selector, stored, ctx)
        ast = checked.compiled.ast
        found = lookups(ast) if ast is not None else []  # positions, when the engine gives a tree
        for message, devices in failures.items():
            missing = message.removeprefix("no such key: ") if message.startswith("no such key: ") else None
            lookup = next((x for x in found if x.name == missing and not x.guarded), None)
            if missing is not None and ast is not None and _typed_accessor(missing, ast, ctx):
                continue  # one cause, one finding: DRA214 names the accessor, with slices or without
            if (
                lookup is not None
                and ast is not None
                and lookup.domain is not None
                and _wrong_domain(selector, lookup, ast, ctx)
            ):
                continue  # the domain is the mistake (DRA211), not a missing guard
            position = at_offset(selector, lookup.offset) if lookup else inside_expression(selector, 1, 1)
            names = ", ".join(_label(d) for d in devices[:_SHOWN_DEVICES])
            more = f" and {len(devices) - _SHOWN_DEVICES} more" if len(devices) > _SHOWN_DEVICES else ""
            yield Finding(
                message=(
                    f"{selector.field}: CEL runtime error on {len(devices)} of {candidates} "
                    f"devices it is evaluated on: {message} ({names}{more}); the scheduler cannot "
                    "allocate on their nodes"
                ),
                path=selector.path,
                position=position,
                hint=_guard_hint(lookup) if missing is not None else None,
            )


def _typed_accessor(name: str, ast: CheckedAst, ctx: LintContext) -> bool:
    """Whether ``no such key: name`` comes from a v1alpha2 accessor that DRA214 reports."""
    if name not in OLD_ACCESSORS or not ctx.settings.enabled("DRA214"):
        return False
    found = [x for x in lookups(ast) if x.map == "attributes"]
    if any(x.name == name for x in found):
        return True
    values = {id(x.node) for x in found}
    return any(
        node.kind == "select" and node.name == name and id(node.operand) in values
        for node in ast.root.walk()
    )


def _wrong_domain(selector: Selector, lookup: Lookup, ast: CheckedAst, ctx: LintContext) -> bool:
    if not ctx.settings.enabled("DRA211"):
        return False
    return any(
        found.map == lookup.map and found.domain == lookup.domain
        for found, _, _ in _domain_problems(selector, ast, ctx)
    )


def _any_driver_lookups(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """Unguarded lookups of a DeviceClass whose selectors admit devices of any driver."""
    for checked, ast in _analysed(obj, ctx):
        selector = checked.selector
        if _admitted_before_and_by(selector, ast, ctx) is not None:
            continue
        lookup = next((x for x in lookups(ast) if not x.guarded and x.domain is not None), None)
        if lookup is None:
            continue
        yield Finding(
            message=(
                f'{selector.field}: reads device.{lookup.map}["{lookup.domain}"].{lookup.name} in a '
                "DeviceClass that admits devices of every driver: on a node with devices of another "
                f"driver, the selector fails with \"no such key: {lookup.name}\" and the scheduler "
                "cannot allocate there"
            ),
            path=selector.path,
            position=at_offset(selector, lookup.offset),
            hint=f'select the driver first: device.driver == "{lookup.domain}" && ..., or '
            + _guard_hint(lookup),
        )


def _admitted_before_and_by(selector: Selector, ast: CheckedAst, ctx: LintContext) -> set[str] | None:
    """The drivers that reach this selector and pass it at most (None: any)."""
    drivers = admitted_drivers(ast)
    earlier, _known = _before(selector, ctx)
    for expression in earlier:
        compiled = _stored(expression, ctx)
        if compiled is not None and compiled.ast is not None:
            before = admitted_drivers(compiled.ast)
            if before is not None:
                drivers = before if drivers is None else drivers & before
    return drivers


@rule("DRA211", "cel-domain-not-driver", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_domain_not_driver(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A selector reads an attribute domain no device can have, or a misspelling of its driver's.

    Why:
    `device.attributes["<domain>"]` is the map of the attributes whose names start with
    `<domain>/` (a name without a domain belongs to the driver's). A driver may publish
    attributes of any domain (`k8s.cni.cncf.io/...`, a bare `composite/...`), so dractl does
    not judge domains it does not know. It reports what cannot be right: a domain that is
    no DNS subdomain, such as the whole name `device.attributes["dra.net/rdma"]`, which no
    device ever has (the domain ends at the first `/`); and, when the selector (or its
    DeviceClass) only admits devices of some drivers, a domain that is a likely misspelling
    (a slip of a few characters) of such a driver's name or of a domain their devices use in
    the ResourceSlices of the run. Such a lookup finds an empty map: the selector fails with
    `no such key` or never matches (DRA210, which would say so on the devices of the run,
    leaves these lookups to this rule).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.attributes["gpu.exmaple.com"].model == "A100"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.attributes["gpu.example.com"].model == "A100"

    Upstream:
    kubernetes/dynamic-resource-allocation `cel/compile.go` (`parseQualifiedName`: the domain
    is what comes before the first `/`, a name without one gets the driver's);
    kubernetes/kubernetes `pkg/apis/resource/validation` (`validateQualifiedName`: a domain is
    a DNS subdomain of at most 63 characters).
    """
    for checked, ast in _analysed(obj, ctx):
        selector = checked.selector
        for lookup, message, hint in _domain_problems(selector, ast, ctx):
            yield Finding(
                message=message,
                path=selector.path,
                position=at_offset(selector, _domain_offset(ast, lookup)),
                hint=f"did you mean {hint}?" if hint else None,
            )


def _domain_problems(
    selector: Selector, ast: CheckedAst, ctx: LintContext
) -> list[tuple[Lookup, str, str | None]]:
    """(lookup, message, the lookup meant) for each domain DRA211 reports, once per domain."""
    drivers = _admitted_before_and_by(selector, ast, ctx) or set()
    out: list[tuple[Lookup, str, str | None]] = []
    reported: set[tuple[str, str]] = set()
    for lookup in lookups(ast):
        domain = lookup.domain
        if domain is None or domain == STANDARD_DOMAIN or (lookup.map, domain) in reported:
            continue
        if lookup.map == "attributes" and lookup.name in OLD_ACCESSORS:
            continue  # the v1alpha2 habit: DRA214 reports the lookup with its fix
        problem = _impossible_domain(domain)
        if problem is not None:
            ident = domain.partition("/")[2]
            hint = (
                f'device.{lookup.map}["{domain.partition("/")[0]}"].{ident}'
                if "/" in domain and _is_identifier(ident)
                else None
            )
            message = f'{selector.field}: device.{lookup.map}["{domain}"] is always empty: {problem}'
        elif drivers:
            known = drivers | _domains_in_slices(ctx, drivers)
            if domain in known or any(domain.endswith("." + d) for d in drivers):
                continue
            suggestion = did_you_mean(domain, known)
            if not suggestion:
                continue  # a domain dractl does not know is not a mistake
            named = " or ".join(f'"{d}"' for d in sorted(drivers))
            message = (
                f'{selector.field}: reads device.{lookup.map}["{domain}"], but the selector only '
                f"admits devices of driver {named}{suggestion}"
            )
            hint = f'device.{lookup.map}["{suggestion.split(chr(34))[1]}"]'
        else:
            continue
        reported.add((lookup.map, domain))
        out.append((lookup, message, hint))
    return out


def _impossible_domain(domain: str) -> str | None:
    """Why no attribute or capacity name can have this domain (None: one can)."""
    from dractl.api.validation import formats

    if "/" in domain:
        return "a domain ends at the first \"/\" of a name, so it never holds one"
    if not domain:
        return "a name's domain is never empty"
    if len(domain.encode()) > 63:
        return "a domain has at most 63 characters"
    if formats.is_dns1123_subdomain(domain.lower()):
        return "a domain is a DNS subdomain (lower case letters, digits, '-' and '.')"
    return None


def _is_identifier(text: str) -> bool:
    return text.isidentifier() and text.isascii()


def _domain_offset(ast: CheckedAst, lookup: Lookup) -> int:
    node = lookup.node
    target = node.operand if node.kind == "select" else node.args[0]
    if target is not None and target.kind == "call" and target.name == "_[_]" and len(target.args) == 2:
        return ast.positions.get(target.args[1].id, lookup.offset)
    return lookup.offset


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _domains_in_slices(ctx: LintContext, drivers: set[str]) -> set[str]:
    """The attribute and capacity domains of the drivers' devices (once per run and drivers)."""
    from dractl.cel.device import split_qualified_name

    cache = ctx.cache.setdefault(_DOMAINS_KEY, {})
    drivers_key = frozenset(drivers)
    if drivers_key in cache:
        cached: set[str] = cache[drivers_key]
        return cached
    domains: set[str] = set()
    cache[drivers_key] = domains
    for obj in accepted_slices(ctx):
        spec = obj.data.get("spec")
        driver = spec.get("driver") if isinstance(spec, dict) else None
        if not isinstance(driver, str) or driver not in drivers:
            continue
        for device in _list(spec.get("devices")):
            if not isinstance(device, dict):
                continue
            for key in ("attributes", "capacity"):
                names = device.get(key)
                if isinstance(names, dict):
                    domains.update(split_qualified_name(str(name), driver)[0] for name in names)
    return domains


# Attribute kinds (ResourceSlice) and the literals they compare equal with.
_KIND_OF_VALUE = {"int": "int", "bool": "bool", "string": "string", "version": "version"}


def _literal_kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "int"  # CEL compares int, uint and double across types
    if isinstance(value, str):
        return "string"
    return None


def _attribute_kinds(ctx: LintContext) -> dict[tuple[str, str], set[str]]:
    """(domain, name) → the kinds of value that attribute has in the ResourceSlices of the run."""
    key = "dractl.lint.rules.cel_checks.kinds"
    cached = ctx.cache.get(key)
    if cached is None:
        from dractl.cel.device import split_qualified_name

        cached = {}
        for obj in accepted_slices(ctx):
            spec = obj.data.get("spec")
            if not isinstance(spec, dict):
                continue
            driver = spec.get("driver")
            if not isinstance(driver, str):
                continue
            for device in _list(spec.get("devices")):
                attributes = device.get("attributes") if isinstance(device, dict) else None
                if not isinstance(attributes, dict):
                    continue
                for name, value in attributes.items():
                    if not isinstance(value, dict):
                        continue
                    kinds = {_KIND_OF_VALUE.get(k, k) for k, v in value.items() if v is not None}
                    cached.setdefault(split_qualified_name(str(name), driver), set()).update(kinds)
        ctx.cache[key] = cached
    result: dict[tuple[str, str], set[str]] = cached
    return result


_COMPARISONS = {"_==_": "==", "_!=_": "!=", "_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}


@rule("DRA212", "cel-attribute-type-mismatch", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_attribute_type_mismatch(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A selector compares an attribute with a literal of a type the attribute never has.

    Why:
    Attribute values are typed (`int`, `bool`, `string`, `version`) and CEL does not convert
    between them: `device.attributes["gpu.example.com"].cores == "108"` is false for the int
    108, and `<`/`>` between an int and a string raise a runtime error. A version attribute
    compares with `semver("1.2.3")`, not with a string. dractl looks at the attribute's values
    in the ResourceSlices of the run and reports a literal whose type none of them has.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel:
                    expression: device.attributes["gpu.example.com"].cores >= "64"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel:
                    expression: device.attributes["gpu.example.com"].cores >= 64

    Upstream:
    kubernetes/dynamic-resource-allocation `cel/compile.go` (`getAttributeValue`: the value
    types a selector sees).
    """
    kinds_by_attribute = _attribute_kinds(ctx)
    if not kinds_by_attribute:
        return
    for checked, ast in _analysed(obj, ctx):
        selector = checked.selector
        drivers = admitted_drivers(ast) or set()
        by_node = {id(lookup.node): lookup for lookup in lookups(ast) if lookup.map == "attributes"}
        for node in ast.root.walk():
            operator = _COMPARISONS.get(node.name) if node.kind == "call" else None
            if node.kind == "call" and node.name == "@in" and len(node.args) == 2:
                # ``attribute in ["a", "b"]``: each element is compared with ==
                operator = "in"
                left, items = node.args
                pairs = [(left, item) for item in items.args] if items.kind == "list" else []
            elif operator is None or len(node.args) != 2:
                continue
            else:
                left, right = node.args
                pairs = [(left, right), (right, left)]
            for attribute_node, literal in pairs:
                lookup = by_node.get(id(attribute_node))
                if lookup is None or literal.kind != "const":
                    continue
                literal_kind = _literal_kind(literal.value)
                domains = [lookup.domain] if lookup.domain is not None else sorted(drivers)
                seen: set[str] = set()
                for domain in domains:
                    seen |= kinds_by_attribute.get((domain, lookup.name), set())
                if literal_kind is None or not seen or literal_kind in seen:
                    continue
                kinds = ", ".join(sorted(seen))
                yield Finding(
                    message=(
                        f"{selector.field}: compares attribute {lookup.name!r} ({kinds} in the "
                        f"ResourceSlices of the run) with {_article(literal_kind)} {literal_kind} literal "
                        f"using {operator}: "
                        + ("never true" if operator in ("==", "in") else "always true" if operator == "!=" else
                           "a runtime error")
                    ),
                    path=selector.path,
                    position=at_offset(selector, ast.positions.get(literal.id, 0)),
                    hint=_type_hint(seen, literal_kind),
                )
                if operator == "in":
                    break  # one finding per list


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _type_hint(seen: set[str], literal_kind: str) -> str | None:
    if "version" in seen and literal_kind == "string":
        return 'compare versions with semver("1.2.3")'
    if "int" in seen and literal_kind == "string":
        return "write the number without quotes"
    if "bool" in seen and literal_kind == "string":
        return "write true or false without quotes"
    if "string" in seen:
        return "quote the value"
    return None


@rule("DRA214", "cel-typed-attribute-accessor", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_typed_attribute_accessor(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A selector reads an attribute with v1alpha2's typed accessor (`.string`, `.int`, `.bool`, `.version`).

    Why:
    In v1alpha2 an attribute was a struct with one field per type, and selectors were
    written `device.attributes["type"].string`. Since v1alpha3 `device.attributes["<domain>"]`
    is a map from names to plain CEL values: `device.attributes["type"]` is the (empty) map of
    the domain `type`, and `.string` looks up an attribute named `string`, so the selector
    fails on every device with `no such key: string` and the scheduler cannot allocate on
    their nodes. A value read correctly has no fields either:
    `device.attributes["gpu.example.com"].model.string` fails too. The apiserver accepts both,
    since attribute values are dynamically typed; dractl reports them without ResourceSlices,
    unless a device of the run does have an attribute of that name.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.attributes["type"].string == "gpu"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: >-
                device.driver == "gpu.example.com" &&
                device.attributes["gpu.example.com"].type == "gpu"

    Upstream:
    kubernetes/dynamic-resource-allocation `cel/compile.go` (`getAttributeValue`: a value is
    a CEL bool, int, string or semver; `mapper`: a missing name is `no such key`).
    """
    published = _attribute_kinds(ctx)
    for checked, ast in _analysed(obj, ctx):
        selector = checked.selector
        drivers = admitted_drivers(ast)
        driver = sorted(drivers)[0] if drivers and len(drivers) == 1 else None
        found = [x for x in lookups(ast) if x.map == "attributes"]
        by_node = {id(x.node): x for x in found}
        for lookup in found:
            if lookup.name not in OLD_ACCESSORS or lookup.guarded:
                continue
            domain = lookup.domain
            if (domain if domain is not None else driver, lookup.name) in published:
                continue  # a device of the run has an attribute of that name
            yield Finding(
                message=(
                    f"{selector.field}: .{lookup.name} is v1alpha2's typed accessor; here it looks up "
                    f'an attribute named "{lookup.name}", which fails on every device with '
                    f'"no such key: {lookup.name}"'
                ),
                path=selector.path,
                position=at_offset(selector, lookup.offset),
                hint=_accessor_hint(domain, driver),
            )
        for node in ast.root.walk():
            if node.kind != "select" or node.test_only or node.name not in OLD_ACCESSORS:
                continue
            value = by_node.get(id(node.operand)) if node.operand is not None else None
            if value is None or value.name in OLD_ACCESSORS:
                continue
            where = f'"{value.domain}"' if value.domain is not None else "device.driver"
            yield Finding(
                message=(
                    f"{selector.field}: .{node.name} is v1alpha2's typed accessor; "
                    f"device.attributes[{where}].{value.name} is the value itself, which has no "
                    "fields, so the selector fails on every device that has the attribute"
                ),
                path=selector.path,
                position=at_offset(selector, ast.positions.get(node.id, -1) + 1),
                hint=f"drop .{node.name}: device.attributes[{where}].{value.name}",
            )


def _accessor_hint(domain: str | None, driver: str | None) -> str:
    if domain is not None and "/" in domain:
        prefix, _, name = domain.partition("/")
        return f'read the attribute by domain and name: device.attributes["{prefix}"].{name}'
    owner = f'"{driver}"' if driver is not None else '"<driver>"'
    if domain is not None and "." not in domain and _is_identifier(domain):
        return f"read the attribute by domain and name: device.attributes[{owner}].{domain}"
    return "read the attribute by name: device.attributes[\"<domain>\"].<name>, without a typed accessor"


@rule("DRA213", "cel-constant-selector", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_constant_selector(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector does not look at the device: it is always true, or never true.

    Why:
    A selector that does not mention `device` has the same value for every device. If it is
    true it selects nothing and only costs time (often a placeholder left in); if it is
    false, no device ever matches and the request, or every request of the DeviceClass, can
    never be allocated.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: "1 == 1"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com"
    """
    from dractl.cel import CelDevice, CelRuntimeError

    for checked, ast in _analysed(obj, ctx):
        if ast.references_device():
            continue
        selector = checked.selector
        assert checked.compiled is not None
        # the scheduler's compilation where there is one: the same value, and the one that
        # DRA210 asks for on the devices, which is then evaluated once (see CompiledSelector)
        compiled = _stored(selector.expression, ctx) or checked.compiled
        try:
            value = compiled.evaluate(CelDevice("", {}, {}, None))
        except CelRuntimeError:
            continue  # fails on every device: DRA210 says so when slices are given
        if value:
            text = "is always true, so it filters nothing out: remove it, or write the condition meant"
        else:
            text = "is always false: no device ever matches, so it can never be allocated"
        yield Finding(
            message=f"{selector.field}: the selector does not look at the device and {text}",
            path=selector.path,
            position=inside_expression(selector, 1, 1),
        )
