"""Kubernetes releases dractl knows: feature gates, and which resource.k8s.io versions they serve.

Feature gates: stages come from API-FIELDS.md's table (the upstream versioned feature-gate
registry): A = alpha (off by default), B = beta (on unless noted), GA = on; ``None`` = the gate
does not exist.

API versions of resource.k8s.io (``API_VERSIONS``), per kind:

* introduced / deprecated / removed: the generated ``APILifecycleIntroduced``,
  ``APILifecycleDeprecated`` and ``APILifecycleRemoved`` methods in
  ``kubernetes/api:resource/<version>/zz_generated.prerelease-lifecycle.go`` at v0.34.10, v0.35.7
  and v0.36.3 (v1beta1: 1.32 / 1.35 / 1.38; v1beta2: 1.33 / 1.36 / 1.39; v1: 1.34, GA). The
  apiserver warns "<group/version> <kind> is deprecated in v1.X+, unavailable in v1.Y+" from
  the release the object is deprecated in (``k8s.io/apiserver/pkg/endpoints/deprecation``) and
  stops serving the version in its removal release.
* Alpha versions left the tree early: v1alpha1 (1.26 only; ResourceClass, ResourceClaim,
  ResourceClaimTemplate, PodScheduling) became v1alpha2 in 1.27 (kubernetes/api 77a2c20);
  v1alpha2 (1.27–1.30; also PodSchedulingContext and, in 1.30, ResourceSlice and the parameter
  kinds) became v1alpha3 in 1.31 (8cd8793); v1alpha3 lost DeviceClass, ResourceClaim,
  ResourceClaimTemplate and ResourceSlice in 1.34 (8075dbc, "DRA API: remove obsolete types from
  v1alpha3"; since 1.34 v1alpha3 holds only DeviceTaintRule and, from 1.36,
  ResourcePoolStatusRequest), although its lifecycle tags had said "removed in 1.37". The
  ``register.go`` of each version at v0.26.0, v0.27.0, v0.30.0, v0.31.0 and v0.34.0 lists its kinds.
* Served by default: beta API versions are off by default since KEP-3136 (Kubernetes 1.24); a
  kube-apiserver serves resource.k8s.io/v1beta1 and v1beta2 only with
  ``--runtime-config=resource.k8s.io/<version>=true``, while v1 (GA in 1.34) is on by default
  ("the default API version for DRA is now the stable v1 version, and not the earlier versions
  (eg: v1beta1 or v1beta2) that needed explicit opt in", Kubernetes blog "Kubernetes v1.34: DRA
  has graduated to GA", 2025-09-01; kubernetes/kubernetes test/integration/dra enables v1beta1
  and v1beta2 explicitly through the runtime config).

Size limits per release live with the checks that use them (``dractl.api.validation``).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from dractl.errors import UsageError
from dractl.records import Record

RELEASES = ("1.34", "1.35", "1.36")
DEFAULT_RELEASE = RELEASES[-1]


class GateStage(Record):
    """A feature gate's stage in one release, its default and whether it is locked to it."""

    __slots__ = ("default", "locked", "stage")
    __hash__ = Record.value_hash

    def __init__(self, stage: str, default: bool, locked: bool = False) -> None:
        self.stage = stage  # "alpha" | "beta" | "GA"
        self.default = default
        self.locked = locked


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
    # Gates of kube-scheduler's filter plugins (explain), from the versioned feature-gate registry
    # (pkg/features/kube_features.go): pod-level requests replace the containers' (NodeResourcesFit),
    # Gt/Lt tolerations compare integers (TaintToleration).
    "PodLevelResources": (_s("beta"), _s("beta"), _s("beta")),
    "TaintTolerationComparisonOperators": (None, _s("alpha"), _s("alpha")),
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


class Features(Record):
    """A release and the state of every DRA feature gate in it."""

    __slots__ = ("overrides", "release")

    def __init__(self, release: str = DEFAULT_RELEASE, overrides: Mapping[str, bool] | None = None) -> None:
        self.release = release
        self.overrides: Mapping[str, bool] = {} if overrides is None else overrides
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


# --- API versions of resource.k8s.io -------------------------------------------------------------

API_GROUP = "resource.k8s.io"


class ApiVersionLifecycle(Record):
    """One version of resource.k8s.io: the kinds it had and the releases that mark its life."""

    __slots__ = (
        "deprecated",
        "introduced",
        "kinds",
        "removed",
        "replacement",
        "served_by_default",
        "version",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        version: str,
        kinds: frozenset[str],
        introduced: str,
        deprecated: str | None,
        removed: str | None,
        served_by_default: bool,
        replacement: str | None = None,
    ) -> None:
        self.version = version
        self.kinds = kinds
        self.introduced = introduced
        self.deprecated = deprecated  # the apiserver warns from this release on
        self.removed = removed  # first release that does not serve these kinds in this version
        # whether a default-configured kube-apiserver serves it while it exists
        self.served_by_default = served_by_default
        # The version to move to. Upstream declares no APILifecycleReplacement for these
        # versions, so this is dractl's advice and not part of the apiserver's warning.
        self.replacement = replacement

    @property
    def last_served(self) -> str | None:
        """The last release that served these kinds in this version (None while not removed)."""
        if self.removed is None:
            return None
        major, minor = _release_tuple(self.removed)
        return f"{major}.{minor - 1}"


_DRA_KINDS = frozenset({"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"})

API_VERSIONS: dict[str, ApiVersionLifecycle] = {
    "v1alpha1": ApiVersionLifecycle(
        "v1alpha1",
        frozenset({"ResourceClass", "ResourceClaim", "ResourceClaimTemplate", "PodScheduling"}),
        introduced="1.26",
        deprecated=None,
        removed="1.27",
        served_by_default=False,
    ),
    "v1alpha2": ApiVersionLifecycle(
        "v1alpha2",
        frozenset(
            {
                "ResourceClass",
                "ResourceClaim",
                "ResourceClaimTemplate",
                "PodSchedulingContext",
                "ResourceSlice",
                "ResourceClaimParameters",
                "ResourceClassParameters",
            }
        ),
        introduced="1.27",
        deprecated=None,
        removed="1.31",
        served_by_default=False,
    ),
    "v1alpha3": ApiVersionLifecycle(
        "v1alpha3",
        _DRA_KINDS | {"PodSchedulingContext"},
        introduced="1.31",
        deprecated=None,
        removed="1.34",
        served_by_default=False,
        replacement="v1",
    ),
    "v1beta1": ApiVersionLifecycle(
        "v1beta1",
        _DRA_KINDS,
        introduced="1.32",
        deprecated="1.35",
        removed="1.38",
        served_by_default=False,
        replacement="v1",
    ),
    "v1beta2": ApiVersionLifecycle(
        "v1beta2",
        _DRA_KINDS,
        introduced="1.33",
        deprecated="1.36",
        removed="1.39",
        served_by_default=False,
        replacement="v1",
    ),
    "v1": ApiVersionLifecycle(
        "v1",
        _DRA_KINDS,
        introduced="1.34",
        deprecated=None,
        removed=None,
        served_by_default=True,
    ),
}

# Kinds of resource.k8s.io outside dractl's scope, per version, that exist in the releases it
# knows (DeviceTaintRule: v1alpha3 from 1.33, v1beta2 from 1.36; ResourcePoolStatusRequest:
# v1alpha3 from 1.36); objects of these kinds are neither checked nor reported.
OTHER_KINDS: dict[str, dict[str, str]] = {
    "v1alpha3": {"DeviceTaintRule": "1.33", "ResourcePoolStatusRequest": "1.36"},
    "v1beta2": {"DeviceTaintRule": "1.36"},
}


class Serving(StrEnum):
    """What a kube-apiserver of one release does with one apiVersion and kind."""

    SERVED = "served"  # served by default
    OPT_IN = "opt-in"  # served only when enabled with --runtime-config
    REMOVED = "removed"  # existed in an earlier release, no longer served
    NOT_YET = "not-yet"  # introduced in a later release
    UNKNOWN = "unknown"  # never existed (unknown version, or a kind the version never had)
    OUT_OF_SCOPE = "out-of-scope"  # exists, but is not one of the kinds dractl checks


class ApiVersionStatus(Record):
    """How one release treats one apiVersion and kind."""

    __slots__ = ("deprecated", "lifecycle", "serving")
    __hash__ = Record.value_hash

    def __init__(self, serving: Serving, deprecated: bool, lifecycle: ApiVersionLifecycle | None) -> None:
        self.serving = serving
        self.deprecated = deprecated
        self.lifecycle = lifecycle


def api_version_status(version: str, kind: str, release: str) -> ApiVersionStatus:
    """How Kubernetes ``release`` treats ``resource.k8s.io/<version>`` objects of ``kind``."""
    lifecycle = API_VERSIONS.get(version)
    other_since = OTHER_KINDS.get(version, {}).get(kind)
    if other_since is not None:
        if _release_tuple(other_since) <= _release_tuple(release):
            return ApiVersionStatus(Serving.OUT_OF_SCOPE, False, lifecycle)
        return ApiVersionStatus(Serving.NOT_YET, False, lifecycle)
    if lifecycle is None or kind not in lifecycle.kinds:
        return ApiVersionStatus(Serving.UNKNOWN, False, lifecycle)
    current = _release_tuple(release)
    if current < _release_tuple(lifecycle.introduced):
        serving = Serving.NOT_YET
    elif lifecycle.removed is not None and current >= _release_tuple(lifecycle.removed):
        serving = Serving.REMOVED
    else:
        serving = Serving.SERVED if lifecycle.served_by_default else Serving.OPT_IN
    deprecated = (
        serving in (Serving.SERVED, Serving.OPT_IN)
        and lifecycle.deprecated is not None
        and current >= _release_tuple(lifecycle.deprecated)
    )
    return ApiVersionStatus(serving, deprecated, lifecycle)


def deprecation_warning(version: str, kind: str) -> str | None:
    """The warning a kube-apiserver sends for a deprecated version, in its wording."""
    lifecycle = API_VERSIONS.get(version)
    if lifecycle is None or lifecycle.deprecated is None:
        return None
    text = f"{API_GROUP}/{version} {kind} is deprecated in v{lifecycle.deprecated}+"
    if lifecycle.removed is not None:
        text += f", unavailable in v{lifecycle.removed}+"
    return text


def _release_tuple(release: str) -> tuple[int, int]:
    major, minor = release.split(".")[:2]
    return int(major), int(minor)
