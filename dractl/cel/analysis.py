"""Facts about an expression that engines need beyond compiling it."""

from __future__ import annotations

import re

_MAP_REFERENCE = re.compile(r"\bdevice\s*\.\s*(attributes|capacity)\b")
_LITERAL_INDEX = re.compile(r"""\s*\[\s*(?:"([^"\\\n]*)"|'([^'\\\n]*)')\s*\]""")
_FIELD_SELECT = re.compile(r"\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\b(?!\s*\()")
_HAS_BEFORE = re.compile(r"\bhas\s*\(\s*$")


LookedUpDomains = tuple[frozenset[str], frozenset[str]]


def literal_domains(expression: str) -> LookedUpDomains | None:
    """Domains the expression looks up directly (attributes, capacity), when that is all it does with the outer maps.

    Upstream's outer attribute and capacity maps answer a lookup of a missing domain with an
    empty map. An engine that cannot customise map lookup gets the same answers by binding an
    empty map for each looked-up domain the device lacks — but only when the expression never
    looks at the outer map as a whole (``in``, ``size``, iteration, ``has``, binding it to a
    name): then it returns ``None`` and no empty maps are added.
    """
    domains: dict[str, set[str]] = {"attributes": set(), "capacity": set()}
    for match in _MAP_REFERENCE.finditer(expression):
        rest = expression[match.end():]
        if _HAS_BEFORE.search(expression[: match.start()]):
            return None
        index = _LITERAL_INDEX.match(rest)
        if index:
            domains[match.group(1)].add(index.group(1) if index.group(1) is not None else index.group(2))
            continue
        select = _FIELD_SELECT.match(rest)
        if select and not rest.lstrip().startswith(".?"):
            domains[match.group(1)].add(select.group(1))
            continue
        return None
    return frozenset(domains["attributes"]), frozenset(domains["capacity"])
