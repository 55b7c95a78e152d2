"""Facts about a checked expression that engines need beyond compiling it."""

from __future__ import annotations

from dractl.cel.ast import CheckedAst, Expr
from dractl.records import Record

#: Stands for "the device's own driver" in a set of looked-up domains
#: (``device.attributes[device.driver]``).
DRIVER_DOMAIN = "\x00driver"

_OUTER_MAPS = {"device.attributes": 0, "device.capacity": 1}
_LOOKUP_CALLS = ("_[_]", "_[?_]", "_?._")


class DomainLookups(Record):
    """Domains looked up directly in ``device.attributes`` and ``device.capacity``.

    Upstream's outer maps answer a lookup of a missing domain with an empty map. An engine that
    cannot customise map lookup gets the same answers by binding an empty map for each
    looked-up domain the device lacks — which is exact only when the expression never looks at
    an outer map as a whole (``in``, ``size``, iteration, binding it to a name): ``exact`` says so.
    """

    __slots__ = ("attributes", "capacity", "exact")
    __hash__ = Record.value_hash

    def __init__(self, attributes: frozenset[str], capacity: frozenset[str], exact: bool) -> None:
        self.attributes = attributes
        self.capacity = capacity
        self.exact = exact

    @property
    def any(self) -> bool:
        return bool(self.attributes or self.capacity)


def _parents(root: Expr) -> dict[int, Expr]:
    parents: dict[int, Expr] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.children():
            parents[child.id] = node
            stack.append(child)
    return parents


def _is_device_driver(node: Expr) -> bool:
    return (node.kind == "select" and node.name == "driver" and not node.test_only
            and node.operand is not None and node.operand.kind == "ident" and node.operand.name == "device")


def domain_lookups(ast: CheckedAst) -> DomainLookups:
    found: tuple[set[str], set[str]] = (set(), set())
    uses, exact = _outer_map_uses(ast)
    for node, parent in uses:
        which = _OUTER_MAPS[node.name]
        if parent is not None and parent.kind == "select" and parent.operand is node:
            if not parent.test_only:  # has(device.attributes.x) is true whatever the device has
                found[which].add(parent.name)
        elif (parent is not None and parent.kind == "call" and parent.name in _LOOKUP_CALLS
              and len(parent.args) == 2 and parent.args[0] is node):
            key = parent.args[1]
            if key.kind == "const" and isinstance(key.value, str):
                found[which].add(key.value)
            elif _is_device_driver(key):
                found[which].add(DRIVER_DOMAIN)
            else:
                exact = False
        else:
            exact = False
    return DomainLookups(frozenset(found[0]), frozenset(found[1]), exact)


def _outer_map_uses(ast: CheckedAst) -> tuple[list[tuple[Expr, Expr | None]], bool]:
    """The uses of ``device.attributes`` and ``device.capacity`` (not a variable of that name),
    each with its parent node, and whether ``device`` itself is used only for its driver or
    allowMultipleAllocations (otherwise the whole device escapes and its maps may be inspected
    anywhere)."""
    uses: list[tuple[Expr, Expr | None]] = []
    device_kept = True
    parents = _parents(ast.root)
    bound_names = _bound_names(ast.root)
    for node in ast.root.walk():
        if node.kind != "ident" or node.name in bound_names:
            continue
        parent = parents.get(node.id)
        if node.name == "device":
            if not (parent is not None and parent.kind == "select"
                    and parent.name in ("driver", "allowMultipleAllocations")):
                device_kept = False
        elif node.name in _OUTER_MAPS:
            uses.append((node, parent))
    return uses, device_kept


def _bound_names(root: Expr) -> set[str]:
    names: set[str] = set()
    for node in root.walk():
        if node.kind == "comprehension":
            names.update(n for n in (node.iter_var, node.iter_var2, node.accu_var) if n)
    return names


#: Uses of an outer map as a whole that look no domain up: what they see does not depend on
#: upstream's empty-map default.
_WHOLE_MAP_CALLS = ("size", "@in")


def domain_lookup_nodes(ast: CheckedAst) -> tuple[list[tuple[Expr, Expr | str]], bool]:
    """Each lookup of a domain directly in ``device.attributes`` or ``device.capacity`` (the
    lookup node and its key: a constant, ``device.driver`` or a variable), and whether these
    are all the domain lookups the expression can make (no other use of an outer map or of
    ``device`` could look one up)."""
    lookups: list[tuple[Expr, Expr | str]] = []
    uses, complete = _outer_map_uses(ast)
    for node, parent in uses:
        if parent is None:
            continue  # the map is the whole expression
        if parent.kind == "select" and parent.operand is node:
            if not parent.test_only:
                lookups.append((parent, parent.name))
        elif parent.kind == "call" and parent.name in _LOOKUP_CALLS and len(parent.args) == 2 \
                and parent.args[0] is node:
            key = parent.args[1]
            if (key.kind == "const" and isinstance(key.value, str)) or _is_device_driver(key) or key.kind == "ident":
                lookups.append((parent, key))
            else:
                complete = False
        elif parent.kind == "call" and parent.name in _WHOLE_MAP_CALLS and (
                parent.operand is node or (parent.args and parent.args[-1] is node)):
            continue
        elif parent.kind == "comprehension" and parent.iter_range is node:
            continue  # iterates the domains, looks none up
        else:
            complete = False
    return lookups, complete
