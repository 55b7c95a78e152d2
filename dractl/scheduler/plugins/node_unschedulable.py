"""NodeUnschedulable (Filter): a cordoned node (``spec.unschedulable: true``) takes only Pods
that tolerate the ``node.kubernetes.io/unschedulable:NoSchedule`` taint, and a node without a
Node object takes none (``pkg/scheduler/framework/plugins/nodeunschedulable``)."""

from __future__ import annotations

from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import FILTER, CycleState, Plugin
from dractl.scheduler.plugins.taint_toleration import COMPARISON_GATE, tolerated
from dractl.scheduler.status import SUCCESS, Status, unresolvable

REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable(Plugin):
    name = "NodeUnschedulable"
    extension_points = frozenset({FILTER})

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        if not node.exists:
            return unresolvable(REASON_UNKNOWN_CONDITION,
                                detail=f"there is no Node object named {node.name!r} (only a ResourceSlice names it)")
        if not node.unschedulable:
            return SUCCESS
        # A Pod that tolerates the taint the node lifecycle controller puts on cordoned nodes
        # tolerates spec.unschedulable itself (DaemonSet Pods do).
        if tolerated(pod.tolerations, UNSCHEDULABLE_TAINT,
                     comparison_operators=self.features.enabled(COMPARISON_GATE)):
            return SUCCESS
        return unresolvable(REASON_UNSCHEDULABLE,
                            detail="the node is cordoned (spec.unschedulable: true) and the Pod does not tolerate "
                                   "node.kubernetes.io/unschedulable:NoSchedule")
