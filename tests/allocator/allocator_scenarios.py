"""Loading and comparing the conformance scenarios of tests/conformance/allocator/ (see its README)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dractl.allocator import Allocator, AllocatorFeatures, Inventory, Outcome
from dractl.api.defaults import apply_defaults
from dractl.api.model import build
from dractl.load import load_paths

SCENARIOS = Path(__file__).resolve().parents[1] / "conformance" / "allocator"
ANY_SHARE_ID = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"

# The header's allocator switches and the feature gates behind them (conformance README).
SWITCH_GATES = {
    "AdminAccess": ("DRAAdminAccess",),
    "PrioritizedList": ("DRAPrioritizedList",),
    "PartitionableDevices": ("DRAPartitionableDevices",),
    "DeviceTaints": ("DRADeviceTaints",),
    "ConsumableCapacity": ("DRAConsumableCapacity",),
    "DeviceBindingAndStatus": ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"),
    "ListTypeAttributes": ("DRAListTypeAttributes",),
}


@dataclass
class Scenario:
    path: Path
    header: dict[str, Any]
    objects: list[Any]

    @property
    def name(self) -> str:
        return str(self.header["name"])

    @property
    def gates(self) -> dict[str, bool]:
        gates: dict[str, bool] = {}
        for switch, names in SWITCH_GATES.items():
            for gate in names:
                gates[gate] = bool(self.header["features"].get(switch, False))
        return gates

    def run(self, *, trace: bool = False, compiler: Any = None, timeout: float | None = None) -> Outcome:
        data = [(obj.kind, obj.data) for obj in self.objects]
        allocated = [(k, d) for k, d in data if k == "ResourceClaim" and (d.get("status") or {}).get("allocation")]
        pending = {d["metadata"]["name"]: apply_defaults(k, d) for k, d in data
                   if k == "ResourceClaim" and not (d.get("status") or {}).get("allocation")}
        gates = self.gates
        features = AllocatorFeatures.from_gates("1.36", gates)
        inventory = Inventory(
            classes=[d for k, d in data if k == "DeviceClass"],
            slices=[d for k, d in data if k == "ResourceSlice"],
            allocated_claims=[apply_defaults(k, d) for k, d in allocated],
            device_taint_rules=[d for k, d in data if k == "DeviceTaintRule"],
            consumable_capacity=features.consumable_capacity,
        )
        allocator = Allocator(inventory, release="1.36", features=features, gates=gates, compiler=compiler)
        node = next(d for k, d in data if k == "Node" and d["metadata"]["name"] == self.header["node"])
        claims = [pending[name] for name in self.header["allocate"]]
        if timeout is None:
            return allocator.allocate(node, claims, trace=trace)
        return allocator.allocate(node, claims, trace=trace, timeout=timeout)

    def uses_cel(self) -> bool:
        return "expression:" in self.path.read_text()


def load_scenario(path: Path) -> Scenario:
    loaded = load_paths([str(path)])
    assert not loaded.failed, loaded.unreadable
    objects = [build(o) for o in loaded.objects]
    return Scenario(path, objects[0].data, objects[1:])


def all_scenarios() -> list[Path]:
    return sorted(SCENARIOS.glob("*.yaml"))


def disagreement(scenario: Scenario, outcome: Outcome) -> str | None:
    """None when the outcome agrees with the scenario's expectation, else what differs."""
    expect = scenario.header["expect"]
    if expect.get("error"):
        if outcome.status != "error" or expect["error"] not in (outcome.error or ""):
            return f"expected error containing {expect['error']!r}, got {outcome.status}: {outcome.error}"
        return None
    if outcome.status != "allocated" if expect.get("allocations") is not None else outcome.status != "unschedulable":
        return f"expected {'allocation' if expect.get('allocations') is not None else 'no allocation'}, " \
               f"got {outcome.status}: {outcome.error}"
    if expect.get("allocations") is None:
        return None
    assert outcome.allocations is not None
    got = dict(zip(scenario.header["allocate"], outcome.allocations, strict=True))
    exact = expect.get("resultsOrder") == "exact"
    for claim, wanted in expect["allocations"].items():
        mine = _with_placeholder_share_ids(got.get(claim), wanted)
        if exact:
            if mine != wanted:
                return f"claim {claim}: expected {json.dumps(wanted)}, got {json.dumps(mine)}"
        elif _loose(mine) != _loose(wanted):
            return f"claim {claim}: expected {json.dumps(wanted)}, got {json.dumps(mine)}"
    return None


def _with_placeholder_share_ids(mine: Any, wanted: Any) -> Any:
    if not isinstance(mine, dict):
        return mine
    mine = json.loads(json.dumps(mine))
    placeholders = any(r.get("shareID") == ANY_SHARE_ID
                       for r in ((wanted or {}).get("devices") or {}).get("results") or [])
    if placeholders:
        for result in mine["devices"]["results"]:
            if "shareID" in result:
                result["shareID"] = ANY_SHARE_ID
    return mine


def _loose(allocation: Any) -> Any:
    """Results as a multiset, node-selector terms and values as sets, config ignored."""
    if not isinstance(allocation, dict):
        return allocation
    results = sorted(json.dumps(r, sort_keys=True) for r in (allocation.get("devices") or {}).get("results") or [])
    selector = allocation.get("nodeSelector")
    terms = None
    if selector is not None:
        terms = frozenset(
            (
                frozenset(_requirement(r) for r in term.get("matchFields") or []),
                frozenset(_requirement(r) for r in term.get("matchExpressions") or []),
            )
            for term in selector.get("nodeSelectorTerms") or []
        )
    return results, terms


def _requirement(requirement: dict[str, Any]) -> tuple[Any, ...]:
    return requirement.get("key"), requirement.get("operator"), frozenset(requirement.get("values") or [])
