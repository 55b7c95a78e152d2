"""Which CEL environment a selector compiles in: per release, feature gates and purpose.

Upstream builds two environments from one list of versioned options
(``k8s.io/apiserver/pkg/cel/environment``):

* ``new`` (NewExpressions, apiserver validation of created or changed expressions): an option is
  included when its gate check (if any) passes and it was introduced at or before the
  *compatibility version*, the release's previous minor; a gated option whose gate is on is
  included regardless of version.
* ``stored`` (StoredExpressions, the scheduler): every option, regardless of version and gate.
"""

from __future__ import annotations

from typing import Literal

from dractl.records import Record

Purpose = Literal["new", "stored"]

SUPPORTED_RELEASES = ("1.34", "1.35", "1.36")
GATE_CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
GATE_LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes"
#: The gates that change the CEL environment; other gates do not split the compile cache.
CEL_GATES = (GATE_CONSUMABLE_CAPACITY, GATE_LIST_TYPE_ATTRIBUTES)

# Libraries of the apiserver base environment and the DRA additions, with the release that
# introduced them (apiserver pkg/cel/environment/base.go, dynamic-resource-allocation cel/compile.go).
LIBRARY_INTRODUCED: dict[str, tuple[int, int]] = {
    "urls": (1, 0),
    "regex": (1, 0),
    "k8s-lists": (1, 0),
    "cross-type-numeric-comparisons": (1, 28),
    "optionals": (1, 28),
    "quantity": (1, 28),
    "strings-v2": (1, 29),
    "sets": (1, 29),
    "literal-validators": (1, 29),
    "ip": (1, 30),
    "cidr": (1, 30),
    "format": (1, 31),
    "bindings": (1, 31),
    "two-var-comprehensions": (1, 32),
    "semver": (1, 33),
    "ext-lists": (1, 34),
}


def parse_release(release: str) -> tuple[int, int]:
    major, _, minor = release.partition(".")
    try:
        return int(major), int(minor)
    except ValueError:
        raise ValueError(f"invalid Kubernetes release {release!r}: expected MAJOR.MINOR") from None


class Environment(Record):
    """The facts about one CEL environment that change what compiles or what it means."""

    __slots__ = (
        "allow_multiple_allocations_field",
        "includes_function",
        "libraries",
        "list_type_attributes",
        "purpose",
        "release",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        release: str,
        purpose: Purpose,
        allow_multiple_allocations_field: bool,
        list_type_attributes: bool,
        includes_function: bool,
        libraries: frozenset[str],
    ) -> None:
        self.release = release
        self.purpose = purpose
        #: ``device.allowMultipleAllocations`` is declared.
        self.allow_multiple_allocations_field = allow_multiple_allocations_field
        #: DRAListTypeAttributes as seen by the compiler: list attribute values, attribute type dyn.
        self.list_type_attributes = list_type_attributes
        #: ``<dyn>.includes(<dyn>)`` is declared.
        self.includes_function = includes_function
        self.libraries = libraries

    @property
    def cache_key(self) -> tuple[object, ...]:
        return (
            self.release,
            self.purpose,
            self.allow_multiple_allocations_field,
            self.list_type_attributes,
            self.includes_function,
        )


def cel_gates(gates: dict[str, bool] | None) -> tuple[bool, bool]:
    gates = gates or {}
    return bool(gates.get(GATE_CONSUMABLE_CAPACITY, False)), bool(
        gates.get(GATE_LIST_TYPE_ATTRIBUTES, False)
    )


def environment_for(release: str, gates: dict[str, bool] | None, purpose: Purpose) -> Environment:
    if purpose not in ("new", "stored"):
        raise ValueError(f"purpose must be 'new' or 'stored', not {purpose!r}")
    major, minor = parse_release(release)
    consumable_capacity, list_types = cel_gates(gates)
    # DRAListTypeAttributes exists from 1.36 on; older releases ignore the gate.
    list_types = list_types and (major, minor) >= (1, 36)
    consumable_capacity = consumable_capacity and (major, minor) >= (1, 34)
    if purpose == "stored":
        libraries = frozenset(LIBRARY_INTRODUCED)
        return Environment(release, purpose, True, list_types, (major, minor) >= (1, 36), libraries)
    compatibility = (major, minor - 1)
    libraries = frozenset(name for name, since in LIBRARY_INTRODUCED.items() if since <= compatibility)
    return Environment(release, purpose, consumable_capacity, list_types, list_types, libraries)
