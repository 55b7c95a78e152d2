"""How much one evaluation of a selector may build, and what dractl holds at most.

The scheduler runs a selector under cel-go's cost tracker: an evaluation whose actual cost
passes 1,000,000 is cancelled (``dractl.cel.engines.celpy_cost``). cel-cpp, the default engine,
meters no cost and holds every value an evaluation builds in an arena until the evaluation's
activation goes (and that activation is kept per device, for speed). What the scheduler
computes cheaply can therefore cost cel-cpp without bound: ``l.map(x, l)`` on a list of 3,000
costs upstream 42,035 but makes cel-cpp copy its growing result on each step (4.5 million
elements), a chain of ``cel.bind`` doubling a list (``a + a``: cost 1 each) builds 2^n
elements, and ``format`` writes whatever its arguments hold for the cost of its format string.

:class:`EvaluationBound` walks the checked tree with upstream's cost estimator and adds up,
for every node that builds a string, list or map, the size the estimator gives it, times the
iterations that evaluate it (cel-cpp runs no more than 10,000 per evaluation), and, for each
comprehension that accumulates a list or map, the copies of its accumulator. The default engine
then picks how to run a selector (``dractl.cel.engines.cel_expr``):

- up to :data:`SHARED_ARENA_UNITS`: as usual, in the device's shared activation;
- up to :data:`CEL_CPP_UNITS`, with an estimated cost within the runtime limit: cel-cpp in a
  fresh activation per evaluation, so that what it built is freed at once;
- beyond, or with an estimate past the runtime limit (where upstream may cancel it): cel-python
  with cel-go's actual cost tracked step by step and every value limited to
  :data:`MAX_VALUE_SIZE`.
"""

from __future__ import annotations

import re

from dractl.cel.ast import CelType, CheckedAst, Expr
from dractl.cel.cost import (
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    STRING_TRAVERSAL_COST_FACTOR,
    UINT64_MAX,
    CostEstimator,
    Estimate,
    _Node,
)

#: cel-cpp's ``comprehension_max_iterations``: no evaluation runs more loop steps in all.
CEL_CPP_ITERATIONS = 10_000
#: Units (characters, list elements, map entries) an evaluation may leave in the device's
#: activation: a few kilobytes per device and selector.
SHARED_ARENA_UNITS = 1_024
#: Units beyond which cel-cpp does not run a selector (some hundred megabytes in its arena).
CEL_CPP_UNITS = 2**22
#: The largest string, list or map the tracked evaluation builds; cel-go would go on, but the
#: scheduler's cost limit does not stop it there (a list concatenation costs 1 however long).
MAX_VALUE_SIZE = 2**23

# Calls that hand on a value they were given (or a scalar) rather than build one.
_PASSING_ON = frozenset(
    {
        "_[_]",
        "_[?_]",
        "_?._",
        "_?_:_",
        "dyn",
        "orValue",
        "or",
        "value",
        "optional.of",
        "optional.ofNonZeroValue",
        "optional.none",
        "hasValue",
        "first",
        "last",
        "@not_strictly_false",
        "!_",
        "_&&_",
        "_||_",
        "cel.@mapInsert",
        "optional.unwrap",
        "unwrapOpt",
    }
)
# Calls whose result can outgrow their arguments: without the estimator's size, unbounded.
_GROWING = frozenset(
    {
        "_+_",
        "format",
        "replace",
        "join",
        "strings.quote",
        "flatten",
        "lists.range",
        "split",
        "findAll",
        "transformList",
        "transformMap",
        "transformMapEntry",
    }
)
# Kubernetes' list functions, charged per element.
_ELEMENTWISE = frozenset({"isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "join"})
_BUILT_KINDS = frozenset({"string", "bytes", "list", "map"})
#: Room for a scalar written out (``string(1.5e300)``, a URL's host out of its text, ...).
_SCALAR_TEXT = 64


_ONE = Estimate(1, 1)
# Kinds of value whose actual size cel-go takes as one (they are no traits.Sizer).
_SIZELESS_KINDS = frozenset(
    {
        "bool",
        "int",
        "uint",
        "double",
        "null_type",
        "type",
        "message",
        "wrapper",
        "google.protobuf.Duration",
        "google.protobuf.Timestamp",
    }
)


def _sizeless(kind: CelType) -> bool:
    if kind.kind in _SIZELESS_KINDS:
        return True
    if kind.kind == "opaque":  # an optional is the size of its value; a library value has none
        return kind.name != "optional_type" or (bool(kind.params) and _sizeless(kind.params[0]))
    return False


def _cap(value: int) -> int:
    return min(value, UINT64_MAX)


class EvaluationBound(CostEstimator):
    """A bound of the actual cost of an evaluation of a checked tree, and the units it builds.

    Upstream's estimator (the base class) takes the size of a value of a type that has no size
    (a quantity, a version, a type, null) as unknown, so that ``quantity("1") != quantity("2")``
    is estimated at 2^64 / 10; at run time cel-go charges such a value as one (``actualSize``).
    This bound does too: a selector whose bound is within the runtime limit is never cancelled
    upstream. (The estimate upstream's validation checks stays the base class's.)
    """

    def __init__(self, ast: CheckedAst, list_type_attributes: bool) -> None:
        super().__init__(ast, list_type_attributes)
        self.units = 0
        self._multipliers = [1]
        self._ranges: list[int] = []

    def measure(self) -> tuple[Estimate, int]:
        """(the cost estimate, the units)."""
        estimate = self.estimate()
        return estimate, self.units

    def compute_size(self, e: Expr) -> Estimate | None:
        size = super().compute_size(e)
        if size is None and _sizeless(self.type_of(e)):
            return _ONE
        return size

    def estimate_size(self, path: list[str] | None) -> Estimate | None:
        size = super().estimate_size(path)
        if (
            size is None
            and path
            and path[0] == "device"
            and path[-1] == "@items"
            and super().estimate_size(path[:-1]) is not None
        ):
            # an element of a list attribute: a value of an attribute
            return Estimate(0, DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)
        return size

    def library_call_cost(
        self, function: str, overload: str, target: _Node | None, args: list[_Node]
    ) -> tuple[Estimate, Estimate | None] | None:
        entry = (
            self.compute_entry(target.expr)
            if target is not None and target.expr is not None
            else None
        )
        if (
            function in _ELEMENTWISE
            and target is not None
            and entry is not None
            and entry.container == "list"
        ):
            # A list literal: its elements' sizes are known (upstream follows variables only).
            count = self.size_or_unknown(target)
            if function == "join":
                joined = count.multiply(entry.value)
                if args:
                    separators = Estimate(max(count.min - 1, 0), max(count.max - 1, 0))
                    joined = joined.add(self.size_or_unknown(args[0]).multiply(separators))
                return joined.by_factor(STRING_TRAVERSAL_COST_FACTOR), joined
            return count.multiply(
                _ONE.add(entry.value.by_factor(STRING_TRAVERSAL_COST_FACTOR))
            ), None
        return super().library_call_cost(function, overload, target, args)

    def _built(self, size: int) -> None:
        self.units = _cap(self.units + _cap(size * self._multipliers[-1]))

    # -- what each kind of node builds --------------------------------------------------------
    def cost_list(self, e: Expr) -> Estimate:
        total = super().cost_list(e)
        self._built(len(e.args))
        return total

    def cost_map(self, e: Expr) -> Estimate:
        total = super().cost_map(e)
        self._built(len(e.entries))
        return total

    def cost_call(self, e: Expr) -> Estimate:
        total = super().cost_call(e)
        self._built(self._call_size(e))
        return total

    def _call_size(self, e: Expr) -> int:
        if e.name in _PASSING_ON or self.type_of(e).kind not in _BUILT_KINDS:
            return 0
        size = self.sizes.get(e.id)
        if e.name == "split" and e.operand is not None:  # no more parts than characters and one
            target = _cap(self.size_or_unknown(e.operand).max + 1)
            return min(size.max, target) if size is not None else target
        if size is not None:
            return size.max
        if e.name == "format" and e.operand is not None and len(e.args) == 1:
            return self._format_size(e.operand, e.args[0])
        if e.name in _GROWING:
            return UINT64_MAX
        inputs = [e.operand, *e.args] if e.operand is not None else list(e.args)
        total = _SCALAR_TEXT
        for node in inputs:
            total = _cap(total + self.size_or_unknown(node).max)
        return total

    def _format_size(self, text: Expr, arguments: Expr) -> int:
        """More than ``format`` can write: its format string, the precision of each clause and
        each argument written out (up to four characters for one of a string, 400 for a double)."""
        if text.kind != "const" or not isinstance(text.value, str) or arguments.kind != "list":
            return UINT64_MAX
        total = len(text.value) + sum(int(digits) for digits in re.findall(r"%\.(\d+)", text.value))
        for argument in arguments.args:
            kind = self.type_of(argument).kind
            written = (
                400 if kind == "double" else 4 * self.size_or_unknown(argument).max + _SCALAR_TEXT
            )
            total = _cap(total + written)
        return total

    # -- how often a node is evaluated --------------------------------------------------------
    def _push_iter(self, name: str, range_expr: Expr, part: str) -> None:
        if part != "value":  # once per comprehension (a two-variable one pushes two names)
            count = self.size_or_unknown(range_expr).max
            self._ranges.append(count)
            self._multipliers.append(min(_cap(self._multipliers[-1] * count), CEL_CPP_ITERATIONS))
        super()._push_iter(name, range_expr, part)

    def cost_comprehension(self, e: Expr) -> Estimate:
        outer = self._multipliers[-1]
        total = super().cost_comprehension(e)
        self._multipliers.pop()
        count = self._ranges.pop()
        if e.accu_init is not None and e.accu_init.kind in ("list", "map"):
            # cel-cpp copies the accumulated list (or map) on every step
            steps = min(_cap(outer * count), CEL_CPP_ITERATIONS)
            self.units = _cap(self.units + steps * min(count, CEL_CPP_ITERATIONS) // 2)
        return total


def too_large(what: str, size: int) -> str:
    """The error of an evaluation stopped before it built ``what`` (``a list``, ``a string``) of
    ``size`` elements or characters."""
    unit = "characters" if what == "a string" else "elements"
    return (
        f"not supported by dractl: this evaluation builds {what} of {size:,} {unit}, more than dractl "
        f"holds ({MAX_VALUE_SIZE:,}); the scheduler's cost limit does not stop it"
    )
