"""Kubernetes releases dractl knows: feature gates and their defaults per release.

Gate stages come from API-FIELDS.md's table (the upstream versioned feature-gate registry):
A = alpha (off by default), B = beta (on unless noted), GA = on; ``None`` = the gate does not exist.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dractl.errors import UsageError

RELEASES = ("1.34", "1.35", "1.36")
DEFAULT_RELEASE = RELEASES[-1]


@dataclass(frozen=True)
class GateStage:
    stage: str  # "alpha" | "beta" | "GA"
    default: bool
    locked: bool = False


def _s(stage: str | None, default: bool | None = None, locked: bool = False) -> GateStage | None:
    if stage is None:
        return None
    if default is None:
        default = stage != "alpha"
    return GateStage(stage, default, locked)


# gate -> (1.34, 1.35, 1.36)
GATES: dict[str, tuple[GateStage | None, GateStage | None, GateStage | None]] = {
    "DynamicResourceAllocation": (_s("GA"), _s("GA", locked=True), _s("GA", locked=True)),
    "DRAAdminAccess": (_s("beta"), _s("beta"), _s("GA", locked=True)),
    "DRAPrioritizedList": (_s("beta"), _s("beta"), _s("GA")),
    "DRAResourceClaimDeviceStatus": (_s("beta"), _s("beta"), _s("beta")),
    "DRADeviceTaints": (_s("alpha"), _s("alpha"), _s("beta")),
    "DRADeviceTaintRules": (None, _s("alpha"), _s("beta", default=False)),
    "DRAPartitionableDevices": (_s("alpha"), _s("alpha"), _s("beta")),
    "DRAConsumableCapacity": (_s("alpha"), _s("alpha"), _s("beta")),
    "DRADeviceBindingConditions": (_s("alpha"), _s("alpha"), _s("beta")),
    "DRAExtendedResource": (_s("alpha"), _s("alpha"), _s("beta")),
    "DRAListTypeAttributes": (None, None, _s("alpha")),
    "DRANodeAllocatableResources": (None, None, _s("alpha")),
    "DRASchedulerFilterTimeout": (_s("beta"), _s("beta"), _s("beta")),
}


def gate_stage(gate: str, release: str) -> GateStage | None:
    return GATES[gate][RELEASES.index(release)]


def first_default_on(gate: str) -> str | None:
    """The first known release in which ``gate`` is on by default."""
    for release in RELEASES:
        stage = gate_stage(gate, release)
        if stage is not None and stage.default:
            return release
    return None


@dataclass(frozen=True)
class Features:
    """A release and the state of every DRA feature gate in it."""

    release: str = DEFAULT_RELEASE
    overrides: Mapping[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.release not in RELEASES:
            raise UsageError(
                f"unknown Kubernetes version {self.release!r}; supported: {', '.join(RELEASES)}"
            )
        for gate, value in self.overrides.items():
            stage = gate_stage(gate, self.release) if gate in GATES else None
            if gate not in GATES:
                raise UsageError(
                    f"unknown feature gate {gate!r}; known: {', '.join(sorted(GATES))}"
                )
            if stage is None:
                raise UsageError(f"feature gate {gate} does not exist in Kubernetes {self.release}")
            if stage.locked and value != stage.default:
                raise UsageError(
                    f"feature gate {gate} is locked to {str(stage.default).lower()} "
                    f"in Kubernetes {self.release}"
                )

    def enabled(self, gate: str) -> bool:
        if gate in self.overrides:
            return self.overrides[gate]
        stage = gate_stage(gate, self.release) if gate in GATES else None
        return bool(stage and stage.default)

    @property
    def gates(self) -> dict[str, bool]:
        """Every gate that exists in this release, with its effective value."""
        return {
            gate: self.enabled(gate) for gate in GATES if gate_stage(gate, self.release) is not None
        }


def normalize_release(value: str) -> str:
    """Accept ``1.35``, ``v1.35``, ``1.35.2`` and ``v1.35.0``."""
    text = value.strip().lstrip("vV")
    parts = text.split(".")
    if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
        text = f"{int(parts[0])}.{int(parts[1])}"
    if text not in RELEASES:
        raise UsageError(f"unknown Kubernetes version {value!r}; supported: {', '.join(RELEASES)}")
    return text


def parse_feature_gates(spec: str | None) -> dict[str, bool]:
    """Parse the kube components' syntax: ``Name=true,Other=false``."""
    out: dict[str, bool] = {}
    if not spec:
        return out
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip().lower()
        if not sep or value not in ("true", "false"):
            raise UsageError(f"invalid feature gate {item!r}: expected Name=true or Name=false")
        if name not in GATES:
            raise UsageError(f"unknown feature gate {name!r}; known: {', '.join(sorted(GATES))}")
        out[name] = value == "true"
    return out
