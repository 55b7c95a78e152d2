"""NodeName (Filter): a Pod that names its node in ``spec.nodeName`` fits only that node
(``pkg/scheduler/framework/plugins/nodename``)."""

from __future__ import annotations

from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import FILTER, CycleState, Plugin
from dractl.scheduler.status import SUCCESS, Status, unresolvable

REASON = "node(s) didn't match the requested node name"


class NodeName(Plugin):
    name = "NodeName"
    extension_points = frozenset({FILTER})

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        wanted = pod.node_name
        if not wanted or wanted == node.name:
            return SUCCESS
        return unresolvable(REASON, detail=f"the Pod's spec.nodeName is {wanted!r}")
