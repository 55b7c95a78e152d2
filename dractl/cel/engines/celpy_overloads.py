"""cel-go's runtime text for a call no overload takes, for the cel-python engine.

cel-go answers a call whose arguments no overload takes at run time in two ways. The standard
library's operators and functions (``size``, ``startsWith``, ``_+_``, ...) and a few others say
``no such overload``. A function declared with ``cel.Function`` and typed overloads (cel-go's
extensions, every Kubernetes library) dispatches through ``decls.MaybeNoSuchOverload``, which
names the function and the runtime types of the arguments, receiver first:
``no such overload: isGreaterThan(string, kubernetes.Semver)``. A few keep a shorter form of
their own (``sort`` names only itself, ``flatten`` the receiver's type).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from celpy.evaluation import CELEvalError

from dractl.cel.engines.celpy_values import NO_SUCH_OVERLOAD, failure, type_name

#: Functions whose runtime overload error names their argument types.
NAMED = frozenset({
    # cel-go strings extension
    "charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace", "split", "substring", "trim",
    "join", "format", "strings.quote",
    # Kubernetes lists library, cel-go lists and sets extensions, optional types
    "sum", "min", "max", "isSorted", "slice", "reverse", "first", "last", "sets.contains", "sets.equivalent",
    "sets.intersects", "hasValue", "value", "or", "unwrapOpt", "optional.unwrap",
    # Kubernetes quantity, semver, url, ip, cidr and format libraries
    "quantity", "isQuantity", "sign", "asInteger", "isInteger", "asApproximateFloat", "add", "sub",
    "isGreaterThan", "isLessThan", "compareTo", "semver", "isSemver", "major", "minor", "patch",
    "url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath", "getQuery",
    "ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
    "isLinkLocalUnicast", "isGlobalUnicast", "cidr", "isCIDR", "containsIP", "containsCIDR", "prefixLength",
    "masked", "format.named", "validate",
})
#: Functions whose text names only the function.
_NAME_ONLY = frozenset({"sort"})


def _is_bare_no_such_overload(result: Any) -> bool:
    if not isinstance(result, CELEvalError):
        return False
    message = str(result.args[0]) if result.args else ""
    return message == NO_SUCH_OVERLOAD or message.startswith("found no matching overload")


def named(name: str, arguments: Iterable[Any], result: Any) -> Any:
    """``result``, with a bare ``no such overload`` of ``name`` reworded as cel-go words it."""
    if not _is_bare_no_such_overload(result):
        return result
    if name in _NAME_ONLY:
        return failure(f"{NO_SUCH_OVERLOAD}: {name}")
    if isinstance(arguments, CELEvalError):
        return arguments
    values = list(arguments)
    if name == "flatten" and values:
        return failure(f"{NO_SUCH_OVERLOAD}: {type_name(values[0])}.flatten()")
    if name not in NAMED or any(isinstance(value, CELEvalError) for value in values):
        return result
    return failure(f"{NO_SUCH_OVERLOAD}: {name}({', '.join(type_name(value) for value in values)})")
