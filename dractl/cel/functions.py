"""The functions upstream's DRA CEL environment declares, by library.

cel-go's checker tells a call of a declared function whose arguments fit no overload ("found no
matching overload") from a call of a name it does not know ("undeclared reference"), so whoever
words its errors needs the names, whatever the engine declares itself.
"""

from __future__ import annotations

from dractl.cel.environment import Environment
from dractl.cel.formats import FORMATS

#: Functions whose name has a namespace (``optional.of(x)``, ``sets.contains(a, b)``).
NAMESPACED_FUNCTIONS = frozenset({"optional.of", "optional.none", "optional.ofNonZeroValue", "optional.unwrap",
                                  "lists.range", "sets.contains", "sets.equivalent", "sets.intersects",
                                  "ip.isCanonical", "strings.quote", "format.named",
                                  *(f"format.{name}" for name in FORMATS)})
_OPTIONAL_FUNCTIONS = frozenset({"optional.of", "optional.none", "optional.ofNonZeroValue", "hasValue", "orValue",
                                 "value", "or"})
#: Functions of the standard environment every selector may call.
_STANDARD = frozenset({
    "size", "int", "uint", "double", "string", "bool", "bytes", "dyn", "type", "matches", "startsWith",
    "endsWith", "contains", "duration", "timestamp", "getDate", "getDayOfMonth", "getDayOfWeek",
    "getDayOfYear", "getFullYear", "getMonth", "getHours", "getMilliseconds", "getMinutes", "getSeconds",
})
_LIBRARY_FUNCTIONS: dict[str, frozenset[str]] = {
    "quantity": frozenset({"quantity", "isQuantity", "sign", "asInteger", "isInteger", "asApproximateFloat",
                           "add", "sub", "isGreaterThan", "isLessThan", "compareTo"}),
    "semver": frozenset({"semver", "isSemver", "major", "minor", "patch", "isGreaterThan", "isLessThan",
                         "compareTo"}),
    "regex": frozenset({"find", "findAll"}),
    "k8s-lists": frozenset({"sum", "min", "max", "isSorted", "indexOf", "lastIndexOf"}),
    "ext-lists": frozenset({"slice", "flatten", "sort", "distinct", "reverse", "lists.range"}),
    "optionals": frozenset({"first", "last", "unwrapOpt", "optional.unwrap"}),
    "sets": frozenset({"sets.contains", "sets.equivalent", "sets.intersects"}),
    "strings-v2": frozenset({"strings.quote"}),
    "urls": frozenset({"url", "isURL", "getScheme", "getHost", "getHostname", "getPort", "getEscapedPath",
                       "getQuery"}),
    "ip": frozenset({"ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                     "isLinkLocalUnicast", "isGlobalUnicast"}),
    "format": frozenset({"format.named", "validate", *(f"format.{name}" for name in FORMATS)}),
    "cidr": frozenset({"cidr", "isCIDR", "containsIP", "containsCIDR", "prefixLength", "masked", "ip"}),
}
#: cel-go's string extension (version 2 and later), declared in every DRA environment.
STRING_EXTENSION = frozenset({"charAt", "indexOf", "lastIndexOf", "lowerAscii", "upperAscii", "replace",
                              "split", "substring", "trim", "join", "format"})


def declared_functions(environment: Environment) -> frozenset[str]:
    """Every function name ``environment`` declares (macros and operators aside)."""
    names = set(_STANDARD) | STRING_EXTENSION
    for library, functions in _LIBRARY_FUNCTIONS.items():
        if library in environment.libraries:
            names |= functions
    if environment.includes_function:
        names.add("includes")
    if "optionals" in environment.libraries:
        names |= _OPTIONAL_FUNCTIONS
    return frozenset(names)
