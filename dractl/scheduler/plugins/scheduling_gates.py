"""SchedulingGates (PreEnqueue): a Pod with ``spec.schedulingGates`` stays out of the scheduling
queue until every gate is removed (``pkg/scheduler/framework/plugins/schedulinggates``)."""

from __future__ import annotations

from dractl.scheduler.objects import PodInfo
from dractl.scheduler.plugin import PRE_ENQUEUE, Plugin
from dractl.scheduler.status import SUCCESS, Status, unresolvable


class SchedulingGates(Plugin):
    name = "SchedulingGates"
    extension_points = frozenset({PRE_ENQUEUE})

    def pre_enqueue(self, pod: PodInfo) -> Status:
        gates = pod.spec.get("schedulingGates")
        if not isinstance(gates, list) or not gates:
            return SUCCESS
        names = [str(gate.get("name") or "") if isinstance(gate, dict) else "" for gate in gates]
        # Go's %v of a []string: the names space-separated in brackets.
        return unresolvable(f"waiting for scheduling gates: [{' '.join(names)}]",
                            detail="whoever added the gates removes them when the Pod may be scheduled")
