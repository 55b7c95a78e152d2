"""Telling "the apiserver rejects this" apart from "dractl's engine lacks what this uses".

Upstream's environment has Kubernetes libraries (URLs, IP, CIDR, format, sets, lists, two-variable
comprehensions, ...) that an engine may not implement. Such an expression fails to compile in
that engine with an error the apiserver would never give; reporting it as an apiserver rejection
would be a false error. :func:`reclassify` turns such a failure into a ``CelCompileError`` of kind
``"unsupported"`` when one of its errors names a function of a library the selected environment
has (an engine that implements the function compiles it and never gets here).
"""

from __future__ import annotations

import re

from dractl.cel.environment import Environment
from dractl.cel.errors import CelCompileError, CelError

# Functions, macros and namespaces of the upstream libraries, by library name (as in
# ``environment.LIBRARY_INTRODUCED``). Names that cel-go's base environment has in any case
# (``matches``, ``size``, the strings extension's ``indexOf`` on strings ...) are not listed.
LIBRARY_FUNCTIONS: dict[str, frozenset[str]] = {
    "urls": frozenset({"url", "isURL", "getScheme", "getHost", "getHostname", "getPort",
                       "getEscapedPath", "getQuery"}),
    "k8s-lists": frozenset({"isSorted", "sum", "min", "max", "indexOf", "lastIndexOf"}),
    "sets": frozenset({"sets", "sets.contains", "sets.equivalent", "sets.intersects"}),
    "ip": frozenset({"ip", "isIP", "ip.isCanonical", "family", "isUnspecified", "isLoopback",
                     "isLinkLocalMulticast", "isLinkLocalUnicast", "isGlobalUnicast"}),
    "cidr": frozenset({"cidr", "isCIDR", "containsIP", "containsCIDR", "prefixLength", "masked"}),
    "format": frozenset({"format", "format.named", "validate"}),
    "two-var-comprehensions": frozenset({"all", "exists", "existsOne", "exists_one",
                                         "transformList", "transformMap", "transformMapEntry"}),
    "ext-lists": frozenset({"lists", "lists.range", "slice", "flatten", "distinct", "reverse",
                            "sort", "sortBy", "first", "last"}),
}

# Patterns as text, compiled on first use by re's cache: only compile errors need them.
_UNDECLARED = r"^undeclared reference to '([^']+)'"
_NO_OVERLOAD = r"^found no matching overload for '([^']+)' applied to '\((.*)\)'$"
# CrossTypeNumericComparisons adds ordering across int, uint and double; equality of an int and a
# double stays a type error in cel-go's checker.
_ORDERINGS = frozenset({"_<_", "_<=_", "_>_", "_>=_"})
_NUMERIC = frozenset({"int", "uint", "double"})


def _library_of(name: str, environment: Environment, implemented: frozenset[str]) -> str | None:
    for library, names in LIBRARY_FUNCTIONS.items():
        if name in names and library in environment.libraries and library not in implemented:
            return library
    return None


def _unsupported_use(error: CelError, environment: Environment,
                     implemented: frozenset[str]) -> tuple[str, str] | None:
    """(what is used, which library) when ``error`` comes from a missing library function."""
    undeclared = re.match(_UNDECLARED, error.message)
    if undeclared:
        name = undeclared.group(1)
        library = _library_of(name, environment, implemented)
        return (name, library) if library else None
    overload = re.match(_NO_OVERLOAD, error.message)
    if not overload:
        return None
    name, arguments = overload.group(1), overload.group(2)
    if name in _ORDERINGS and "cross-type-numeric-comparisons" in environment.libraries:
        kinds = [part.strip() for part in arguments.split(",")]
        if len(kinds) == 2 and set(kinds) <= _NUMERIC and kinds[0] != kinds[1]:
            return f"comparing {kinds[0]} with {kinds[1]}", "cross-type-numeric-comparisons"
        return None
    # A list function whose name the strings extension also has (``indexOf``, ``reverse`` ...).
    library = _library_of(name, environment, implemented)
    if library and arguments.startswith("list("):
        return name, library
    return None


def reclassify(error: CelCompileError, environment: Environment, engine: str,
               implemented: frozenset[str] = frozenset()) -> CelCompileError:
    """``error`` itself, or an ``"unsupported"`` error when the engine lacks what it uses;
    ``implemented`` names the libraries the engine has (their errors are upstream's)."""
    if error.kind != "invalid":
        return error
    for item in error.errors:
        use = _unsupported_use(item, environment, implemented)
        if use is None:
            continue
        what, library = use
        detail = (
            f"not supported by dractl: {what} (Kubernetes CEL library {library!r}) is not available "
            f"in the CEL engine {engine}, so the expression cannot be checked"
        )
        return CelCompileError(detail, [CelError(detail, item.line, item.column)], kind="unsupported")
    return error
