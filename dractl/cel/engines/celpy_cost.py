"""cel-go's actual cost, charged step by step as the cel-python engine evaluates a selector.

The scheduler evaluates a selector with cel-go's cost tracker (``interpreter/runtimecost.go``,
cel-go v0.26) and the runtime limit of ``k8s.io/dynamic-resource-allocation`` ``cel/compile.go``
(1,000,000, ``resourceapi.CELSelectorExpressionMaxCost``): every step of the evaluation adds to
the cost, and the evaluation is cancelled (``operation cancelled: actual cost limit exceeded``)
as soon as the sum exceeds the limit. The steps and their costs:

- a variable or a field, key or index lookup: 1 each (an attribute and each of its qualifiers;
  a lookup on a value that is no variable is a relative attribute, one more); a presence test
  (``has()``) costs nothing of its own (``PresenceTestHasCost(false)``); constants cost nothing;
- a list literal 10, a map literal 30, a message 40, unless every entry is a constant (cel-go
  builds such a literal once, when it plans the program); a conversion of constants
  (``int("1")``, ``dyn(1)``) likewise costs nothing;
- ``&&``, ``||`` and ``?:`` nothing of their own;
- a call: what :func:`call_cost` says (the function's tracker in cel-go's lists and sets
  extensions, else Kubernetes' ``library.CostEstimator.CallCost``, else cel-go's defaults: 1, or
  a multiple of the sizes for string and list functions);
- a comprehension: the steps of the macro's expansion (``parser/macro.go``), see
  :data:`MACRO_STEPS`.

cel-go charges some growth less than it costs to hold: a list concatenation costs 1 (Go keeps the
two lists and adds them up lazily), ``format`` costs a tenth of the format string whatever it
writes, ``replace`` a fifth of the string whatever the replacement. A value cel-go holds that way
could exhaust memory here; :func:`check_size` refuses one larger than
:data:`dractl.cel.evaluation_bound.MAX_VALUE_SIZE` before it is built.
"""

from __future__ import annotations

import contextvars
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import celpy.celtypes as ct
from celpy.evaluation import CELEvalError

from dractl.api.quantity import Quantity
from dractl.cel.cost import RUNTIME_COST_LIMIT
from dractl.cel.engines.celpy_maps import GoPanic
from dractl.cel.engines.celpy_values import GO_TYPES, type_name
from dractl.cel.evaluation_bound import MAX_VALUE_SIZE, too_large
from dractl.cel.formats import NamedFormat
from dractl.cel.network import CIDR, IP
from dractl.cel.semver import Semver
from dractl.cel.urls import URL

_STRING_TRAVERSAL = 0.1  # common.StringTraversalCostFactor
_REGEX_LENGTH = 0.25  # common.RegexStringLengthCostFactor
LIST_CREATE = 10  # common.ListCreateBaseCost
MAP_CREATE = 30  # common.MapCreateBaseCost
STRUCT_CREATE = 40  # common.StructCreateBaseCost
_CALL = 1


class CostExceeded(Exception):
    """The evaluation's actual cost passed the limit."""


class ValueTooLarge(Exception):
    """A value the evaluation was about to build is beyond what dractl holds."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Budget:
    """What is left of the limit in the evaluation under way; ``refund``: what the last call
    charged beyond 1 that depends on knowing its overload (see :func:`charged`)."""

    __slots__ = ("left", "refund")

    def __init__(self, limit: int = RUNTIME_COST_LIMIT) -> None:
        self.left = limit
        self.refund = 0


#: The budget of the evaluation under way, for the functions of the library (they are shared by
#: every program and do not see the evaluator).
CURRENT_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar(
    "celpy_budget", default=None
)


def charge(cost: int) -> None:
    budget = CURRENT_BUDGET.get()
    if budget is not None:
        budget.left -= cost
        if budget.left < 0:
            raise CostExceeded


def actual_size(value: Any) -> int:
    """cel-go ``actualSize``: the size of a string (code points), bytes, list or map, the size of
    what a present optional holds, else 1."""
    if isinstance(value, str | bytes | list | dict):
        return len(value)
    if getattr(value, "present", False) is True and hasattr(value, "value"):  # an optional
        return actual_size(value.value)
    return 1


def _traversal(factor: float, size: int) -> int:
    return math.ceil(size * factor)


def traversal_cost(value: Any) -> int:
    """Kubernetes' ``traversalCost`` (``pkg/cel/library/cost.go``): a tenth of each string,
    truncated, and 1 for every other leaf of a list or map."""
    if isinstance(value, str | bytes):
        return int(len(value) * _STRING_TRAVERSAL)
    if isinstance(value, list):
        return sum(traversal_cost(item) for item in value)
    if isinstance(value, dict):
        return sum(traversal_cost(key) + traversal_cost(item) for key, item in value.items())
    return 1


def _self_compare(items: Any) -> int:
    """``trackListSelfCompare`` (lists extension): distinct, sort and sortBy compare every pair."""
    size = actual_size(items)
    factor = 2.0
    if size and isinstance(items, list) and isinstance(items[0], str | bytes):
        factor += _STRING_TRAVERSAL
    return int(size * size * factor) + _CALL + LIST_CREATE


def _allocating(size: int, factor: float = 1.0) -> int:
    """``trackAllocatingListCall``: a call that builds a list of ``size`` elements."""
    return int(size * factor) + _CALL + LIST_CREATE


def _regex(text: Any, pattern: Any) -> int:
    string_cost = math.ceil((1 + actual_size(text)) * _STRING_TRAVERSAL)
    return string_cost * math.ceil(actual_size(pattern) * _REGEX_LENGTH)


#: apiserver ``pkg/cel/library/format.go``: the size of each named format's pattern, which
#: ``validate`` is charged for (cel.Format.MaxRegexSize).
_FORMAT_REGEX_SIZES = {
    "DNS1123Label": 30,
    "DNS1123Subdomain": 60,
    "DNS1035Label": 30,
    "QualifiedName": 60,
    "DNS1123LabelPrefix": 30,
    "DNS1123SubdomainPrefix": 60,
    "DNS1035LabelPrefix": 30,
    "LabelValue": 40,
    "URI": 1103,
    "byte": 84,
    # len(strfmt.UUIDPattern), len(strfmt.DateTimePattern) of k8s.io/kube-openapi
    "uuid": 83,
    "date": 74,
    "datetime": 74,
}

_ORDERINGS = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
_UNIT = frozenset(
    {
        # Kubernetes' library: accessors and comparisons of its values
        "format.named",
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "major",
        "minor",
        "patch",
        "getScheme",
        "getHostname",
        "getHost",
        "getPort",
        "getEscapedPath",
        "getQuery",
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
    }
)
_TENTH_OF_FIRST = frozenset(
    {
        # a traversal of the first argument (the target of a member call)
        "url",
        "lowerAscii",
        "upperAscii",
        "substring",
        "trim",
        "cidr",
        "isIP",
        "isCIDR",
        "quantity",
        "isQuantity",
        "semver",
        "isSemver",
        "startsWith",
        "endsWith",
        "format",
        "strings.quote",
    }
)
#: Values Kubernetes' ``_==_`` compares at unit cost.
_LIBRARY_VALUES = (Quantity, Semver, NamedFormat, IP, CIDR, URL)
#: What no step of cel-go charges: ``&&``, ``||`` and ``?:`` (the operands are charged), the
#: optionals' ``or`` and ``orValue`` (planned as short-circuits, no calls), and the index
#: operator, which the evaluator charges as a qualifier.
FREE = frozenset({"_&&_", "_||_", "_?_:_", "_[_]", "or", "orValue"})


#: Functions cel-go charges by the overload the checker chose (the cases of ``costCall`` and the
#: extensions' overload trackers): a call the checker left to run-time dispatch (an argument of
#: type ``dyn``) has no overload id and costs 1. Kubernetes' estimator goes by name instead.
BY_OVERLOAD = frozenset(
    {
        "_+_",
        "_<_",
        "_<=_",
        "_>_",
        "_>=_",
        "_in_",
        "string",
        "bytes",
        "startsWith",
        "endsWith",
        "contains",
        "matches",
        "format",
        "strings.quote",
        "slice",
        "reverse",
        "lists.range",
        "flatten",
        "distinct",
        "sort",
        "@sortByAssociatedKeys",
        "sets.contains",
        "sets.intersects",
        "sets.equivalent",
    }
)


def call_cost(name: str, args: tuple[Any, ...], result: Any) -> int:
    """The actual cost cel-go charges for a call of ``name`` (cel-python's name of the function
    or operator) with ``args`` (the target first) that answered ``result``."""
    if name in _UNIT:
        return _CALL
    if name in ("_==_", "_!=_"):
        if name == "_==_" and args and isinstance(args[0], _LIBRARY_VALUES):
            return _CALL
        return (
            _traversal(_STRING_TRAVERSAL, min(actual_size(args[0]), actual_size(args[1])))
            if len(args) == 2
            else 1
        )
    if name in _ORDERINGS:
        if len(args) == 2 and isinstance(args[0], str | bytes) and isinstance(args[1], str | bytes):
            return _traversal(_STRING_TRAVERSAL, min(len(args[0]), len(args[1])))
        return _CALL
    if name == "_+_":
        if len(args) == 2 and isinstance(args[0], str | bytes) and isinstance(args[1], str | bytes):
            return _traversal(_STRING_TRAVERSAL, len(args[0]) + len(args[1]))
        return _CALL
    if name == "_in_":
        return actual_size(args[1]) if len(args) == 2 and isinstance(args[1], list) else _CALL
    if not args:
        return _CALL
    first = args[0]
    if name in _TENTH_OF_FIRST:
        return _traversal(_STRING_TRAVERSAL, actual_size(first))
    if name in ("string", "bytes"):  # only string(bytes) and bytes(string) traverse
        crossing = isinstance(first, bytes) if name == "string" else isinstance(first, str)
        return _traversal(_STRING_TRAVERSAL, len(first)) if crossing else _CALL
    if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf"):
        return traversal_cost(first)
    if name in ("replace", "split"):
        return _traversal(2 * _STRING_TRAVERSAL, actual_size(first))
    if name == "join":
        return _traversal(2 * _STRING_TRAVERSAL, actual_size(result))
    if name in ("matches", "find", "findAll"):
        return _regex(first, args[1]) if len(args) > 1 else _CALL
    if name == "contains":
        if len(args) == 2 and isinstance(first, str) and isinstance(args[1], str):
            return _traversal(_STRING_TRAVERSAL, len(first)) * _traversal(
                _STRING_TRAVERSAL, len(args[1])
            )
        return _CALL
    if name == "ip":
        return _traversal(_STRING_TRAVERSAL, len(first)) if isinstance(first, str) else _CALL
    if name == "ip.isCanonical":
        return _traversal(2 * _STRING_TRAVERSAL, actual_size(first))
    if name in ("containsIP", "containsCIDR"):
        # a CIDR has no size: its own traversal costs ceil(0.2); a string argument is parsed
        cost = _traversal(_STRING_TRAVERSAL, 2)
        if name == "containsCIDR":
            cost += _traversal(_STRING_TRAVERSAL, 1) + 1
        if len(args) == 2 and isinstance(args[1], str):
            cost += _traversal(_STRING_TRAVERSAL, len(args[1]))
        return cost
    if name == "validate":
        if len(args) == 2 and isinstance(first, NamedFormat):
            string_cost = math.ceil((1 + actual_size(args[1])) * _STRING_TRAVERSAL)
            return string_cost * math.ceil(_FORMAT_REGEX_SIZES.get(first.name, 128) * _REGEX_LENGTH)
        return _CALL
    if name in ("slice", "reverse", "lists.range"):
        return _allocating(actual_size(result)) if isinstance(result, list) else _CALL
    if name == "flatten":
        depth = args[1] if len(args) == 2 and isinstance(args[1], int) else 1
        return _allocating(actual_size(first), float(depth))
    if name in ("distinct", "sort"):
        return _self_compare(first)
    if name == "@sortByAssociatedKeys":
        return _self_compare(args[1]) if len(args) == 2 else _CALL
    if name in ("sets.contains", "sets.intersects", "sets.equivalent"):
        factor = 2.0 if name == "sets.equivalent" else 1.0
        return (
            _CALL + int(actual_size(first) * actual_size(args[1]) * factor)
            if len(args) == 2
            else _CALL
        )
    return _CALL


def _go_type(value: Any) -> str:
    if isinstance(value, CELEvalError):
        return "*types.Err"
    if isinstance(value, list):
        return "*types.baseList"
    if isinstance(value, dict):
        return "*types.baseMap"
    return GO_TYPES.get(type_name(value), type(value).__name__)


def tracker_panic(name: str, args: Sequence[Any]) -> None:
    """The panic of a lists extension's cost tracker (``ext/lists.go``), which asserts the types
    of the call's arguments whatever the call answered, an error included (only for a call the
    checker resolved to that overload: a call dispatched at run time has no tracker)."""
    if name in ("distinct", "sort") and args and not isinstance(args[0], list):
        raise GoPanic(
            f"interface conversion: {_go_type(args[0])} is not traits.Lister: missing method Add"
        )
    if name == "flatten" and len(args) == 2 and type_name(args[1]) != "int":
        raise GoPanic(f"interface conversion: ref.Val is {_go_type(args[1])}, not types.Int")


def charged(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` charging the evaluation under way what cel-go charges for the call, and
    refusing first to build a value beyond dractl's limit."""
    if name in FREE:
        return function
    precheck = _PRECHECKS.get(name)

    by_overload = name in BY_OVERLOAD

    def call(*args: Any) -> Any:
        if precheck is not None:
            precheck(args)
        result = function(*args)
        budget = CURRENT_BUDGET.get()
        if budget is not None:
            cost = call_cost(name, args, result)
            budget.refund = cost - _CALL if by_overload else 0
            budget.left -= cost
            # A call charged by its overload may be refunded all but 1 (dispatched at run time):
            # the evaluator checks the limit after that (and at every later step, and at the end).
            if budget.left < 0 and not by_overload:
                raise CostExceeded
        return result

    call.__name__ = getattr(function, "__name__", name)
    call.__wrapped__ = function  # type: ignore[attr-defined]
    return call


# -- what a call would build, checked before it builds it ------------------------------------------


def check_size(size: int, what: str) -> None:
    if size > MAX_VALUE_SIZE:
        raise ValueTooLarge(too_large(what, size))


def _concatenation(args: tuple[Any, ...]) -> None:
    if len(args) == 2 and isinstance(args[0], list) and isinstance(args[1], list):
        check_size(len(args[0]) + len(args[1]), "a list")
    elif len(args) == 2 and isinstance(args[0], str | bytes) and isinstance(args[1], str | bytes):
        check_size(len(args[0]) + len(args[1]), "a string")


def _replacement(args: tuple[Any, ...]) -> None:
    if len(args) < 3 or not all(isinstance(a, str) for a in args[:3]):
        return
    text, old, new = args[:3]
    limit = args[3] if len(args) > 3 and isinstance(args[3], int) else -1
    count = len(text) + 1 if old == "" else text.count(old)
    if limit >= 0:
        count = min(count, limit)
    check_size(len(text) + count * (len(new) - len(old)), "a string")


def _joined(args: tuple[Any, ...]) -> None:
    if not args or not isinstance(args[0], list):
        return
    separator = args[1] if len(args) > 1 and isinstance(args[1], str) else ""
    items = args[0]
    check_size(
        sum(len(item) if isinstance(item, str) else 1 for item in items)
        + len(separator) * max(len(items) - 1, 0),
        "a string",
    )


def _flattened(args: tuple[Any, ...]) -> None:
    if not args or not isinstance(args[0], list):
        return
    depth = args[1] if len(args) > 1 and isinstance(args[1], int) else 1
    check_size(_flat_size(args[0], depth), "a list")


def _flat_size(items: list[Any], depth: int) -> int:
    total = 0
    for item in items:
        total += _flat_size(item, depth - 1) if depth > 0 and isinstance(item, list) else 1
        if total > MAX_VALUE_SIZE:
            break
    return total


def _range(args: tuple[Any, ...]) -> None:
    # cel-go builds the list, then charges its size: a list the budget cannot pay for is
    # cancelled here before it is built (the call charges it once built).
    if len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
        budget = CURRENT_BUDGET.get()
        if budget is not None and _allocating(max(int(args[0]), 0)) > budget.left:
            raise CostExceeded
        check_size(int(args[0]), "a list")


_DIRECTIVE = re.compile(r"%(?:\.(\d+))?[a-zA-Z%]")


def _formatted(args: tuple[Any, ...]) -> None:
    """An upper bound of what ``format`` writes: the format string, each argument written out and
    the precision of each clause (``%.1000000f`` writes that many digits)."""
    if len(args) != 2 or not isinstance(args[0], str):
        return
    precision = sum(int(digits) for digits in _DIRECTIVE.findall(args[0]) if digits)
    check_size(len(args[0]) + precision + _written_size(args[1]), "a string")


def _written_size(value: Any) -> int:
    """More than ``format``'s text of ``value`` can hold, without writing it (each leaf's size,
    with room for quotes, separators and numbers)."""
    if isinstance(value, str | bytes):
        return 4 * len(value) + 2  # an escaped character is written with up to four
    if isinstance(value, list):
        total = 2
        for item in value:
            total += _written_size(item) + 2
            if total > MAX_VALUE_SIZE:
                break
        return total
    if isinstance(value, dict):
        total = 2
        for key, item in value.items():
            total += _written_size(key) + _written_size(item) + 4
            if total > MAX_VALUE_SIZE:
                break
        return total
    if isinstance(value, ct.DoubleType | float):
        return 400  # %f of 1e308
    return 64


_PRECHECKS: dict[str, Callable[[tuple[Any, ...]], None]] = {
    "_+_": _concatenation,
    "replace": _replacement,
    "join": _joined,
    "flatten": _flattened,
    "lists.range": _range,
    "format": _formatted,
}
