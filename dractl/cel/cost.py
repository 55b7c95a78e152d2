"""Worst-case cost estimation, as cel-go's ``checker.Cost`` with Kubernetes' estimators.

Ported behaviour (not code) of cel-go ``checker/cost.go`` (v0.26), apiserver
``pkg/cel/library/cost.go`` and dynamic-resource-allocation ``cel/compile.go`` (its size
estimator for the ``device`` variable and the cost of ``includes``). Presence tests cost
nothing (``PresenceTestHasCost(false)`` in the Kubernetes base environment).
"""

from __future__ import annotations

import math

from dractl.cel.ast import CelType, CheckedAst, Expr
from dractl.records import Record

UINT64_MAX = 2**64 - 1
SELECT_AND_IDENT_COST = 1
CONST_COST = 0
LIST_CREATE_BASE_COST = 10
MAP_CREATE_BASE_COST = 30
STRUCT_CREATE_BASE_COST = 40
STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25
ACCUMULATOR_NAMES = ("@result", "__result__")
#: resourceapi.CELSelectorExpressionMaxCost: the validation limit on the estimate and the
#: scheduler's runtime limit on the actual cost.
RUNTIME_COST_LIMIT = 1_000_000
#: cel-go's error for an evaluation whose actual cost passed the limit (interpreter/runtimecost.go).
COST_LIMIT_EXCEEDED = "operation cancelled: actual cost limit exceeded"

# Declared maximum sizes (k8s.io/api/resource/v1).
DRIVER_NAME_MAX_LENGTH = 63
DEVICE_MAX_DOMAIN_LENGTH = 63
DEVICE_MAX_ID_LENGTH = 32
DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64
MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48
MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32


def _add(x: int, y: int) -> int:
    return min(x + y, UINT64_MAX)


def _mul(x: int, y: int) -> int:
    return min(x * y, UINT64_MAX)


def _by_factor(x: int, factor: float) -> int:
    value = float(x)
    if value > 0 and factor > 0 and value > UINT64_MAX / factor:
        return UINT64_MAX
    result = math.ceil(value * factor)
    return UINT64_MAX if result >= 2.0**64 else int(result)


class Estimate(Record):
    """A [min, max] range, used both for sizes and for costs."""

    __slots__ = ("max", "min")
    __hash__ = Record.value_hash

    def __init__(self, min: int, max: int) -> None:
        self.min = min
        self.max = max

    def add(self, other: Estimate) -> Estimate:
        return Estimate(_add(self.min, other.min), _add(self.max, other.max))

    def multiply(self, other: Estimate) -> Estimate:
        return Estimate(_mul(self.min, other.min), _mul(self.max, other.max))

    def by_factor(self, factor: float) -> Estimate:
        return Estimate(_by_factor(self.min, factor), _by_factor(self.max, factor))

    def union(self, other: Estimate) -> Estimate:
        return Estimate(min(self.min, other.min), max(self.max, other.max))


def fixed(value: int) -> Estimate:
    return Estimate(value, value)


UNKNOWN = Estimate(0, UINT64_MAX)
ZERO = fixed(0)


class _Entry(Record):
    __slots__ = ("container", "key", "value")
    __hash__ = Record.value_hash

    def __init__(self, container: str, key: Estimate, value: Estimate) -> None:
        self.container = container  # "list" or "map"
        self.key = key
        self.value = value

    def union(self, other: _Entry | None) -> _Entry | None:
        if other is None:
            return None
        return _Entry(self.container, self.key.union(other.key), self.value.union(other.value))


class _DeclType(Record):
    __slots__ = ("elem", "fields", "key", "max_elements")

    def __init__(
        self,
        max_elements: int,
        fields: dict[str, _DeclType] | None = None,
        key: _DeclType | None = None,
        elem: _DeclType | None = None,
    ) -> None:
        self.max_elements = max_elements
        self.fields = fields
        self.key = key
        self.elem = elem


def _device_decl(list_type_attributes: bool) -> tuple[_DeclType, _DeclType]:
    attribute = _DeclType(
        max(DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH, MAX_ATTRIBUTE_VALUES_PER_DEVICE)
        if list_type_attributes else DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH
    )
    domain = _DeclType(DEVICE_MAX_DOMAIN_LENGTH)
    ident = _DeclType(DEVICE_MAX_ID_LENGTH)
    limit = MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE
    inner_attributes = _DeclType(limit, key=ident, elem=attribute)
    quantity = _DeclType(0)
    inner_capacity = _DeclType(limit, key=ident, elem=quantity)
    device = _DeclType(0, fields={
        "driver": _DeclType(DRIVER_NAME_MAX_LENGTH),
        "attributes": _DeclType(limit, key=domain, elem=inner_attributes),
        "capacity": _DeclType(limit, key=domain, elem=inner_capacity),
        "allowMultipleAllocations": _DeclType(1),
    })
    return device, attribute


class _Node(Record):
    """What cel-go calls an AstNode: a path from a variable, a type, and a computed size."""

    __slots__ = ("expr", "path", "size", "type")

    def __init__(
        self,
        path: list[str] | None,
        type: CelType,
        expr: Expr | None,
        size: Estimate | None,
    ) -> None:
        self.path = path
        self.type = type
        self.expr = expr
        self.size = size


class _LocalVar(Record):
    __slots__ = ("entry", "path", "size")

    def __init__(self, path: list[str], size: Estimate | None, entry: _Entry | None) -> None:
        self.path = path
        self.size = size
        self.entry = entry


_SCALAR_KINDS = ("bool", "double", "google.protobuf.Duration", "int", "google.protobuf.Timestamp", "uint")
_QUALIFIED_DEVICE_FIELDS = {"device.attributes": ["device", "attributes"], "device.capacity": ["device", "capacity"]}


class CostEstimator:
    def __init__(self, ast: CheckedAst, list_type_attributes: bool) -> None:
        self.ast = ast
        self.device_decl, self.attribute_decl = _device_decl(list_type_attributes)
        self.paths: dict[int, list[str]] = {}
        self.sizes: dict[int, Estimate] = {}
        self.entry_sizes: dict[int, _Entry] = {}
        self.locals: dict[str, list[_LocalVar]] = {}

    # -- public ----------------------------------------------------------------------------
    def estimate(self) -> Estimate:
        return self.cost(self.ast.root)

    # -- helpers -----------------------------------------------------------------------------
    def type_of(self, e: Expr) -> CelType:
        return self.ast.type_of(e)

    def peek(self, name: str) -> _LocalVar | None:
        stack = self.locals.get(name)
        return stack[-1] if stack else None

    def push(self, name: str, path: list[str], size: Estimate | None, entry: _Entry | None) -> None:
        self.locals.setdefault(name, []).append(_LocalVar(list(path), size, entry))

    def pop(self, name: str) -> None:
        self.locals[name].pop()

    def path_of(self, e: Expr) -> list[str]:
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None:
                return list(local.path)
        return list(self.paths.get(e.id, []))

    def node(self, e: Expr) -> _Node:
        path: list[str] | None = self.path_of(e)
        if path and path[0] in ACCUMULATOR_NAMES:
            path = None
        return _Node(path, self.type_of(e), e, self.compute_size(e))

    def size_or_unknown(self, e: Expr | _Node) -> Estimate:
        if isinstance(e, _Node):
            return e.size if e.size is not None else UNKNOWN
        size = self.compute_size(e)
        return size if size is not None else UNKNOWN

    def compute_size(self, e: Expr) -> Estimate | None:
        if e.id in self.sizes:
            return self.sizes[e.id]
        literal = _expr_size(e)
        if literal is not None:
            return literal
        estimated = self.estimate_size(self.path_of(e))
        if estimated is not None:
            self.sizes[e.id] = estimated
            return estimated
        if _is_scalar(self.type_of(e)):
            return fixed(1)
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None and local.size is not None:
                return local.size
        return None

    def compute_entry(self, e: Expr) -> _Entry | None:
        if e.id in self.entry_sizes:
            return self.entry_sizes[e.id]
        if e.kind == "ident":
            local = self.peek(e.name)
            if local is not None and local.entry is not None:
                return local.entry
        return None

    def estimate_size(self, path: list[str] | None) -> Estimate | None:
        """DRA's size estimator: maximum sizes of what ``device`` holds."""
        if not path or path[0] != "device":
            return None
        current = self.device_decl
        for name in path[1:]:
            if name in ("@items", "@values"):
                if current.elem is None:
                    return None
                current = current.elem
            elif name == "@keys":
                if current.key is None:
                    return None
                current = current.key
            elif current.fields is not None and name in current.fields:
                current = current.fields[name]
            elif current.elem is self.attribute_decl:
                current = self.attribute_decl
            else:
                return None
        return Estimate(0, current.max_elements)

    # -- cost per node kind ----------------------------------------------------------------------
    def cost(self, e: Expr | None) -> Estimate:
        if e is None:
            return ZERO
        kind = e.kind
        if kind == "const":
            return fixed(CONST_COST)
        if kind == "ident":
            return self.cost_ident(e)
        if kind == "select":
            return self.cost_select(e)
        if kind == "call":
            return self.cost_call(e)
        if kind == "list":
            return self.cost_list(e)
        if kind == "map":
            return self.cost_map(e)
        if kind == "struct":
            total = ZERO
            for _key, value in e.entries:
                total = total.add(self.cost(value))
            return total.add(fixed(STRUCT_CREATE_BASE_COST))
        if kind == "comprehension":
            return self.cost_bind(e) if self.is_bind(e) else self.cost_comprehension(e)
        return ZERO

    def cost_ident(self, e: Expr) -> Estimate:
        qualified = _QUALIFIED_DEVICE_FIELDS.get(e.name)
        if qualified is not None and self.peek(e.name) is None:
            # Upstream sees ``device`` (an ident) and a field selection on an object: two steps.
            self.paths[e.id] = list(qualified)
            return fixed(2 * SELECT_AND_IDENT_COST)
        local = self.peek(e.name)
        self.paths[e.id] = list(local.path) if local is not None else [e.name]
        return fixed(SELECT_AND_IDENT_COST)

    def cost_select(self, e: Expr) -> Estimate:
        assert e.operand is not None
        if e.test_only:
            return ZERO.add(self.cost(e.operand))
        total = self.cost(e.operand)
        if self.type_of(e.operand).kind in ("map", "message", "type_param"):
            total = total.add(fixed(SELECT_AND_IDENT_COST))
        self.paths[e.id] = [*self.path_of(e.operand), e.name]
        return total

    def cost_call(self, e: Expr) -> Estimate:
        if e.name == "dyn" and e.operand is None and len(e.args) == 1:
            arg_cost = self.cost(e.args[0])
            self._copy_sizes(e, e.args[0])
            return fixed(1).add(arg_cost)
        arg_costs = [self.cost(a) for a in e.args]
        arg_nodes = [self.node(a) for a in e.args]
        overload_ids = self.ast.overloads.get(e.id, [])
        if not overload_ids:
            return ZERO
        total = ZERO
        target: _Node | None = None
        if e.operand is not None:
            total = total.add(self.cost(e.operand))
            target = self.node(e.operand)
        function_cost = Estimate(UINT64_MAX, 0)
        result_size: Estimate | None = None
        for overload in overload_ids:
            call_cost, call_size = self.function_cost(e, e.name, overload, target, arg_nodes, arg_costs)
            function_cost = function_cost.union(call_cost)
            if call_size is not None:
                result_size = call_size if result_size is None else result_size.union(call_size)
            if overload in ("index_list", "index_map") and e.args:
                entry = self.compute_entry(e.args[0])
                result_size = entry.value if entry is not None else None
                suffix = "@items" if overload == "index_list" else "@values"
                self.paths[e.id] = [*self.path_of(e.args[0]), suffix]
            if result_size is None:
                result_size = self.compute_size(e)
        if result_size is not None:
            self.sizes[e.id] = result_size
        return total.add(function_cost)

    def cost_list(self, e: Expr) -> Estimate:
        total = ZERO
        item = Estimate(0 if not e.args else UINT64_MAX, 0)
        for element in e.args:
            total = total.add(self.cost(element))
            item = item.union(self.size_or_unknown(element))
        self.entry_sizes[e.id] = _Entry("list", fixed(1), item)
        return total.add(fixed(LIST_CREATE_BASE_COST))

    def cost_map(self, e: Expr) -> Estimate:
        total = ZERO
        empty = not e.entries
        keys = Estimate(0 if empty else UINT64_MAX, 0)
        values = Estimate(0 if empty else UINT64_MAX, 0)
        for key, value in e.entries:
            assert isinstance(key, Expr)
            total = total.add(self.cost(key)).add(self.cost(value))
            keys = keys.union(self.size_or_unknown(key))
            values = values.union(self.size_or_unknown(value))
        self.entry_sizes[e.id] = _Entry("map", keys, values)
        return total.add(fixed(MAP_CREATE_BASE_COST))

    def _push_iter(self, name: str, range_expr: Expr, part: str) -> None:
        entry = self.compute_entry(range_expr)
        container = entry.container if entry is not None else self.type_of(range_expr).kind
        path = self.path_of(range_expr)
        if part == "single":
            size = entry.key if entry is not None else None
            subpath = "@keys"
            if container == "list":
                size = entry.value if entry is not None else None
                subpath = "@items"
        elif part == "key":
            size = entry.key if entry is not None else None
            subpath = "@indices" if container == "list" else "@keys"
        else:
            size = entry.value if entry is not None else None
            subpath = "@items" if container == "list" else "@values"
        self.push(name, [*path, subpath], size, None)

    def cost_comprehension(self, e: Expr) -> Estimate:
        assert e.iter_range is not None and e.accu_init is not None
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self.push(e.accu_var, self.path_of(e.accu_init), self.compute_size(e.accu_init),
                  self.compute_entry(e.accu_init))
        if e.iter_var2:
            self._push_iter(e.iter_var, e.iter_range, "key")
            self._push_iter(e.iter_var2, e.iter_range, "value")
        else:
            self._push_iter(e.iter_var, e.iter_range, "single")
        loop_cost = self.cost(e.loop_condition)
        step_cost = self.cost(e.loop_step)
        self.pop(e.iter_var)
        if e.iter_var2:
            self.pop(e.iter_var2)
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        range_count = self.size_or_unknown(e.iter_range)
        total = total.add(range_count.multiply(step_cost.add(loop_cost)))
        init_kind = e.accu_init.kind
        if init_kind == "const":
            size = self.compute_size(e.accu_init)
            if size is not None:
                self.sizes[e.id] = size
        elif init_kind in ("list", "map"):
            self.sizes[e.id] = range_count
            assert e.loop_step is not None
            step_entry = self.compute_entry(e.loop_step)
            if step_entry is not None:
                self.entry_sizes[e.id] = step_entry
        return total

    @staticmethod
    def is_bind(e: Expr) -> bool:
        return (
            e.iter_range is not None and e.iter_range.kind == "list" and not e.iter_range.args
            and e.loop_condition is not None and e.loop_condition.kind == "const"
            and e.loop_condition.value is False and e.accu_var not in ACCUMULATOR_NAMES
        )

    def cost_bind(self, e: Expr) -> Estimate:
        assert e.accu_init is not None and e.result is not None
        total = self.cost(e.iter_range).add(self.cost(e.accu_init))
        self.push(e.accu_var, self.path_of(e.accu_init), self.compute_size(e.accu_init),
                  self.compute_entry(e.accu_init))
        total = total.add(self.cost(e.result))
        self.pop(e.accu_var)
        self._copy_sizes(e, e.result)
        return total

    def _copy_sizes(self, dst: Expr, src: Expr) -> None:
        size = self.compute_size(src)
        if size is not None:
            self.sizes[dst.id] = size
        entry = self.compute_entry(src)
        if entry is not None:
            self.entry_sizes[dst.id] = entry

    # -- functions ----------------------------------------------------------------------------
    def function_cost(self, e: Expr, function: str, overload: str, target: _Node | None,
                      args: list[_Node], arg_costs: list[Estimate]) -> tuple[Estimate, Estimate | None]:
        arg_sum = ZERO
        for cost in arg_costs:
            arg_sum = arg_sum.add(cost)
        library = self.library_call_cost(function, overload, target, args)
        if library is not None:
            return library[0].add(arg_sum), library[1]
        size = self.size_or_unknown
        if overload == "starts_with_string" or overload == "ends_with_string":
            if len(args) == 1:
                return size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum), None
        elif overload == "in_list":
            if len(args) == 2:
                return size(args[1]).by_factor(1).add(arg_sum), None
        elif overload == "matches_string":
            if target is not None and len(args) == 1:
                string_cost = size(target).add(fixed(1)).by_factor(STRING_TRAVERSAL_COST_FACTOR)
                regex_cost = size(args[0]).by_factor(REGEX_STRING_LENGTH_COST_FACTOR)
                return string_cost.multiply(regex_cost).add(arg_sum), None
        elif overload == "contains_string":
            if target is not None and len(args) == 1:
                string_cost = size(target).by_factor(STRING_TRAVERSAL_COST_FACTOR)
                sub_cost = size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR)
                return string_cost.multiply(sub_cost).add(arg_sum), None
        elif overload in ("string_to_bytes", "bytes_to_string", "quote_string", "strings_quote") and len(args) == 1:
            arg_size = size(args[0])
            cost = arg_size.by_factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum)
            if overload == "string_to_bytes":
                return cost, Estimate(arg_size.min, _mul(arg_size.max, 4))
            if overload == "bytes_to_string":
                return cost, Estimate(arg_size.min // 4, arg_size.max)
            return cost, Estimate(_add(arg_size.min, 2), _add(_mul(arg_size.max, 2), 2))
        elif overload in ("logical_or", "logical_and"):
            lhs, rhs = arg_costs[0], arg_costs[1]
            return Estimate(lhs.min, lhs.add(rhs).max), None
        elif overload == "conditional":
            result = size(args[1]).union(size(args[2]))
            left = self.compute_entry(args[1].expr) if args[1].expr else None
            right = self.compute_entry(args[2].expr) if args[2].expr else None
            if left is not None:
                joined = left.union(right)
                if joined is not None:
                    self.entry_sizes[e.id] = joined
            return arg_costs[0].add(arg_costs[1].union(arg_costs[2])), result
        elif overload in ("add_string", "add_bytes", "add_list"):
            if len(args) == 2:
                result = size(args[0]).add(size(args[1]))
                left = self.compute_entry(args[0].expr) if args[0].expr else None
                right = self.compute_entry(args[1].expr) if args[1].expr else None
                if left is not None:
                    joined = left.union(right)
                    if joined is not None:
                        self.entry_sizes[e.id] = joined
                if overload == "add_list":
                    return fixed(1).add(arg_sum), result
                return result.by_factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum), result
        elif overload in ("less_string", "greater_string", "less_equals_string", "greater_equals_string",
                          "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes",
                          "equals", "not_equals"):
            lhs, rhs = size(args[0]), size(args[1])
            smallest_max = min(lhs.max, rhs.max)
            low = 1 if smallest_max > 0 else 0
            return Estimate(low, smallest_max).by_factor(STRING_TRAVERSAL_COST_FACTOR).add(arg_sum), None
        return fixed(1).add(arg_sum), None

    def library_call_cost(self, function: str, overload: str, target: _Node | None,
                          args: list[_Node]) -> tuple[Estimate, Estimate | None] | None:
        """Kubernetes' library estimator and DRA's ``includes``; None where they have no opinion."""
        size = self.size_or_unknown
        if function == "includes" and overload == "dra_includes_dyn_dyn":
            if target is not None:
                return Estimate(0, MAX_ATTRIBUTE_VALUES_PER_DEVICE), None
            return None
        if function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
            if target is not None:
                element_type = target.type.params[0] if target.type.kind == "list" and target.type.params else None
                if element_type is not None:
                    element_cost = fixed(1)
                    if element_type.kind in ("string", "bytes"):
                        element_path = [*target.path, "@items"] if target.path is not None else None
                        element_size = self.estimate_size(element_path) or UNKNOWN
                        element_cost = element_cost.add(element_size.by_factor(STRING_TRAVERSAL_COST_FACTOR))
                    return size(target).multiply(element_cost), None
                return size(target).by_factor(STRING_TRAVERSAL_COST_FACTOR), None
            return None
        extension = self.extension_call_cost(overload, target, args)
        if extension is not None:
            return extension
        if function in ("url",) and len(args) == 1:
            arg_size = size(args[0])
            return arg_size.by_factor(STRING_TRAVERSAL_COST_FACTOR), arg_size
        if function in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
            target_size = size(target)
            return target_size.by_factor(STRING_TRAVERSAL_COST_FACTOR), target_size
        if function == "replace" and target is not None and len(args) >= 2:
            return self._replace_cost(size(target), size(args[0]), size(args[1]))
        if function == "split" and target is not None:
            target_size = size(target)
            maximum = target_size.max
            if len(args) > 1 and args[1].expr is not None and args[1].expr.kind == "const" \
                    and isinstance(args[1].expr.value, int) and not isinstance(args[1].expr.value, bool):
                maximum = args[1].expr.value % 2**64
            return target_size.by_factor(2 * STRING_TRAVERSAL_COST_FACTOR), Estimate(0, maximum)
        if function == "join" and target is not None:
            list_size = size(target)
            joined = ZERO
            if target.type.kind == "list" and target.type.params:
                element_path = [*target.path, "@items"] if target.path is not None else None
                element_size = self.estimate_size(element_path) or UNKNOWN
                joined = list_size.multiply(element_size)
            if args:
                separators = Estimate(max(list_size.min - 1, 0), max(list_size.max - 1, 0))
                joined = joined.add(size(args[0]).multiply(separators))
            return joined.by_factor(STRING_TRAVERSAL_COST_FACTOR), joined
        if function in ("find", "findAll") and target is not None and args:
            target_size = size(target)
            string_cost = target_size.add(fixed(1)).by_factor(STRING_TRAVERSAL_COST_FACTOR)
            regex_cost = size(args[0]).by_factor(REGEX_STRING_LENGTH_COST_FACTOR)
            return string_cost.multiply(regex_cost), Estimate(0, target_size.max)
        if function == "validate" and overload == "format-validate" and args:
            # upstream: cel.MaxNameFormatRegexSize (128) × RegexStringLengthCostFactor
            return size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR).by_factor(128 * REGEX_STRING_LENGTH_COST_FACTOR), None
        if overload == "string_format" and target is not None:
            # cel-go's strings extension: one traversal of the format string
            return size(target).by_factor(STRING_TRAVERSAL_COST_FACTOR), None
        if function == "ip.isCanonical" and args:
            return size(args[0]).by_factor(2 * STRING_TRAVERSAL_COST_FACTOR), None
        if function in ("containsIP", "containsCIDR") and args:
            address = Estimate(4, 16)
            cost = address.add(address).by_factor(STRING_TRAVERSAL_COST_FACTOR)
            if function == "containsCIDR":
                cost = cost.add(address.by_factor(STRING_TRAVERSAL_COST_FACTOR)).add(fixed(1))
            if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                cost = cost.add(size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR))
            return cost, None
        if function in ("cidr", "isIP", "isCIDR") and args:
            return size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR), None
        if function == "ip":
            if overload == "cidr_ip":
                return fixed(1), None
            if args:
                return size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR), None
        if function in ("quantity", "isQuantity", "semver", "isSemver") and args:
            return size(args[0]).by_factor(STRING_TRAVERSAL_COST_FACTOR), None
        if function in ("sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                        "compareTo", "add", "sub", "major", "minor", "patch", "masked", "prefixLength",
                        "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast", "isLinkLocalUnicast",
                        "isGlobalUnicast", "getScheme", "getHostname", "getHost", "getPort", "getEscapedPath",
                        "getQuery", "format.named"):
            return fixed(1), None
        if function == "_==_" and len(args) == 2:
            left, right = args[0].type, args[1].type
            if left == right and left.kind == "message" and left.name in (
                    "kubernetes.Quantity", "kubernetes.Semver", "net.IP", "net.CIDR"):
                return fixed(1), None
        return None

    def extension_call_cost(self, overload: str, target: _Node | None,
                            args: list[_Node]) -> tuple[Estimate, Estimate | None] | None:
        """cel-go's estimators of the lists (version 3) and sets extensions."""
        size = self.size_or_unknown
        if overload in ("list_sets_contains_list", "list_sets_intersects_list", "list_sets_equivalent_list"):
            if len(args) != 2:
                return None
            factor = 2 if overload == "list_sets_equivalent_list" else 1
            return size(args[0]).multiply(size(args[1])).by_factor(factor).add(fixed(1)), None
        if overload == "list_slice" and target is not None and len(args) == 2:
            end = _int_literal(args[1], size(target).max)
            # Go subtracts unsigned integers: a start after the end wraps around.
            return _allocating_list_call(1, fixed((end - _int_literal(args[0], 0)) % 2**64))
        if overload == "list_range" and target is None and len(args) == 1:
            return _allocating_list_call(1, fixed(_int_literal(args[0], UINT64_MAX)))
        if overload == "list_reverse" and target is not None and not args:
            return _allocating_list_call(1, size(target))
        if overload in ("list_flatten", "list_flatten_int") and target is not None and len(args) <= 1:
            depth = _int_literal(args[0], UINT64_MAX) if args else 1
            return _allocating_list_call(depth, size(target))
        if overload == "list_distinct" and target is not None and not args:
            target_size = size(target)
            return _allocating_list_call(2, target_size.multiply(target_size))
        sort = overload.endswith("_sort") and target is not None and not args
        sort_by = overload.endswith("_sortByAssociatedKeys") and target is not None and len(args) == 1
        if overload.startswith("list_") and (sort or sort_by):
            keys = target if sort else args[0]
            assert keys is not None
            keys_size = size(keys)
            element = overload[len("list_"):].rpartition("_")[0]
            factor = 2 + (STRING_TRAVERSAL_COST_FACTOR if element in ("string", "bytes") else 0)
            return _allocating_list_call(factor, keys_size.multiply(keys_size))
        return None

    @staticmethod
    def _replace_cost(target: Estimate, old: Estimate, new: Estimate) -> tuple[Estimate, Estimate]:
        count_max = retained_max = 0
        if old.min == 0:
            count_max = target.max + 1 if target.max < UINT64_MAX else target.max
            retained_max = target.max
        elif new.max <= old.min:
            retained_max = target.max
        else:
            count_max = math.ceil(target.max / old.min)
        count_min = retained_min = 0
        if old.max == 0:
            count_min = target.min + 1 if target.min < UINT64_MAX else target.min
            retained_min = target.min
        elif old.max <= new.min:
            retained_min = target.min
        else:
            count_min = math.ceil(target.min / old.max)
        result = Estimate(count_min, count_max).multiply(new).add(Estimate(retained_min, retained_max))
        return target.by_factor(2 * STRING_TRAVERSAL_COST_FACTOR), result


def _int_literal(node: _Node, default: int) -> int:
    """cel-go ``nodeAsIntValue``: an int literal as an unsigned number (negative: 0), else ``default``."""
    e = node.expr
    if e is None or e.kind != "const" or type(e.value) is not int:
        return default
    return max(e.value, 0)


def _allocating_list_call(factor: float, list_size: Estimate) -> tuple[Estimate, Estimate]:
    """cel-go ``estimateAllocatingListCall``: cost and size of a call that builds a list."""
    return list_size.by_factor(factor).add(fixed(1 + LIST_CREATE_BASE_COST)), list_size


def _expr_size(e: Expr) -> Estimate | None:
    if e.kind == "const":
        value = e.value
        if isinstance(value, bytes):
            return fixed(len(value))
        if isinstance(value, str):
            return fixed(len(value))
        return fixed(1)
    if e.kind == "list":
        return fixed(len(e.args))
    if e.kind == "map":
        return fixed(len(e.entries))
    return None


def _is_scalar(t: CelType) -> bool:
    if t.kind in _SCALAR_KINDS:
        return True
    if t.kind == "opaque" and t.name == "optional_type" and t.params:
        return _is_scalar(t.params[0])
    return False


def estimate_cost(ast: CheckedAst, list_type_attributes: bool) -> int:
    """The maximum estimated cost, as upstream's ``CompilationResult.MaxCost``."""
    return CostEstimator(ast, list_type_attributes).estimate().max
