"""The default profile's plugins that dractl does not evaluate, because their inputs are state a
cluster dump rarely holds in full: where other Pods run and what labels they carry
(PodTopologySpread, InterPodAffinity), PersistentVolumes, StorageClasses and CSI node limits
(the volume plugins). They can still reject nodes, so each says so when the Pod uses what it
checks (SCHEDULER.md §9).

One note per concern: a PersistentVolumeClaim concerns VolumeBinding, VolumeZone,
NodeVolumeLimits and VolumeRestrictions alike, but only VolumeBinding mentions it (naming the
others), so that a Pod with one claim gets one line, not four.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dractl.scheduler.objects import PodInfo
from dractl.scheduler.plugin import FILTER, PRE_FILTER, Plugin

# Inline (in-tree) volume sources the disk-conflict and volume-limit plugins look at.
_INLINE_DISKS = ("gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "rbd", "iscsi")


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _volumes(pod: PodInfo) -> list[dict[str, Any]]:
    return [v for v in pod.spec.get("volumes") or [] if isinstance(v, dict)]


def _names(items: list[str]) -> str:
    return ", ".join(items)


class NotEvaluated(Plugin):
    """A plugin dractl names but does not run; ``note`` says why the verdict may miss it."""

    evaluated = False
    extension_points = frozenset({PRE_FILTER, FILTER})

    def note(self, pod: PodInfo) -> str | None:
        return None


class VolumeBinding(NotEvaluated):
    name = "VolumeBinding"

    def note(self, pod: PodInfo) -> str | None:
        claims = []
        for volume in _volumes(pod):
            if "persistentVolumeClaim" in volume:
                claim = _dict(volume["persistentVolumeClaim"]).get("claimName") or ""
                claims.append(f"{volume.get('name')} (PersistentVolumeClaim {claim})")
            elif "ephemeral" in volume:
                claims.append(f"{volume.get('name')} (ephemeral PersistentVolumeClaim)")
        if not claims:
            return None
        return (f"{self.name} not evaluated: volume(s) {_names(claims)} need bound or provisionable "
                "PersistentVolumes; their binding, node affinity and zone (VolumeZone), per-node volume "
                "limits (NodeVolumeLimits) and ReadWriteOncePod use (VolumeRestrictions) are not checked "
                "(needs PersistentVolumeClaims, PersistentVolumes, StorageClasses and CSINodes)")


class VolumeRestrictions(NotEvaluated):
    name = "VolumeRestrictions"

    def note(self, pod: PodInfo) -> str | None:
        disks = [f"{v.get('name')} ({kind})" for v in _volumes(pod) for kind in _INLINE_DISKS if kind in v]
        if not disks:
            return None
        return (f"{self.name} not evaluated: inline disk volume(s) {_names(disks)} may conflict with the same "
                "disk used by other Pods on the node, and count against the node's volume limits "
                "(EBSLimits, GCEPDLimits, AzureDiskLimits); not checked")


class NodeVolumeLimits(NotEvaluated):
    name = "NodeVolumeLimits"

    def note(self, pod: PodInfo) -> str | None:
        inline = [f"{v.get('name')} (driver {_dict(v['csi']).get('driver') or ''})" for v in _volumes(pod) if "csi" in v]
        if not inline:
            return None
        return (f"{self.name} not evaluated: CSI inline volume(s) {_names(inline)} count against the node's "
                "CSI volume limit (CSINode); not checked")


class EBSLimits(NotEvaluated):
    """Its volumes are noted by VolumeRestrictions (inline) and VolumeBinding (claims)."""

    name = "EBSLimits"
    extension_points = frozenset({FILTER})


class GCEPDLimits(NotEvaluated):
    """Its volumes are noted by VolumeRestrictions (inline) and VolumeBinding (claims)."""

    name = "GCEPDLimits"
    extension_points = frozenset({FILTER})


class AzureDiskLimits(NotEvaluated):
    """Its volumes are noted by VolumeRestrictions (inline) and VolumeBinding (claims)."""

    name = "AzureDiskLimits"
    extension_points = frozenset({FILTER})


class VolumeZone(NotEvaluated):
    """Only claimed volumes have a zone: VolumeBinding's note covers it."""

    name = "VolumeZone"


class PodTopologySpread(NotEvaluated):
    name = "PodTopologySpread"

    def note(self, pod: PodInfo) -> str | None:
        # ScheduleAnyway constraints only score; DoNotSchedule ones filter.
        keys = [
            str(c.get("topologyKey") or "")
            for c in pod.spec.get("topologySpreadConstraints") or []
            if isinstance(c, dict) and (c.get("whenUnsatisfiable") or "DoNotSchedule") == "DoNotSchedule"
        ]
        if not keys:
            return None
        return (f"{self.name} not evaluated: the Pod's DoNotSchedule topology spread constraint(s) over "
                f"{_names(keys)} depend on where the other matching Pods run and on every node's topology labels")


class InterPodAffinity(NotEvaluated):
    name = "InterPodAffinity"

    def note(self, pod: PodInfo) -> str | None:
        affinity = _dict(pod.spec.get("affinity"))
        kinds = [
            label for field, label in (("podAffinity", "pod affinity"), ("podAntiAffinity", "pod anti-affinity"))
            if _required_terms(_dict(affinity.get(field)))
        ]
        if not kinds:
            return None
        return (f"{self.name} not evaluated: the Pod's required {' and '.join(kinds)} depend on the labels and "
                "placement of other Pods")


def _required_terms(affinity: Mapping[str, Any]) -> list[Any]:
    terms = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    return terms if isinstance(terms, list) else []
