"""The scheduling framework's runners, as ``pkg/scheduler/framework/runtime/framework.go`` and
``schedule_one.go`` run the plugins of one profile for one Pod.

- PreEnqueue: the first rejection keeps the Pod out of scheduling (no node is evaluated).
- PreFilter, in profile order: ``Skip`` means that plugin's Filter does not run;
  UnschedulableAndUnresolvable stops at once, Unschedulable lets the others run (the last
  rejection wins); any other failure aborts the attempt with ``running PreFilter plugin "P"``.
  Node-name results are intersected; nodes outside them get
  ``node(s) didn't satisfy plugin(s) [P]``.
- Filter, per node, in profile order: the first status that is not Success decides the node;
  an Error aborts the whole attempt (``running "P" filter plugin: ...``).
- PostFilter, when no node passes: the first Success ends the phase; the rejections' messages
  are joined into the FitError's tail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dractl.records import Record
from dractl.scheduler.fit_error import NO_NODES, fit_error
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import (
    FILTER,
    POST_FILTER,
    PRE_ENQUEUE,
    PRE_FILTER,
    CycleState,
    Plugin,
)
from dractl.scheduler.status import SUCCESS, Code, Status


class PreFilterOutcome(Record):
    """PreFilter of all plugins: ``status`` (Success, a rejection for every node, or an error),
    ``nodes`` (the node names Filter is narrowed to, or None), and ``absent`` (the status of
    nodes outside ``nodes``)."""

    __slots__ = ("absent", "nodes", "status")

    def __init__(self, status: Status, nodes: frozenset[str] | None = None, absent: Status | None = None) -> None:
        self.status = status
        self.nodes = nodes
        self.absent = absent


class Framework:
    """One profile's plugins, instantiated, in the order each extension point runs them."""

    def __init__(self, points: Mapping[str, Sequence[Plugin]]) -> None:
        self.points = {point: list(plugins) for point, plugins in points.items()}
        # The Filter plugins that run, for the last set of skipped plugins seen (a cycle's set
        # is settled by PreFilter, and Filter runs once per node).
        self._filters: tuple[frozenset[str], list[Plugin]] | None = None
        self._all: list[Plugin] | None = None

    def plugins(self, point: str) -> list[Plugin]:
        return self.points.get(point, [])

    @property
    def all_plugins(self) -> list[Plugin]:
        """Every plugin once, in the order the extension points first name them (read per node
        that passes, for its score: worked out once)."""
        if self._all is None:
            seen: dict[str, Plugin] = {}
            for plugins in self.points.values():
                for plugin in plugins:
                    seen.setdefault(plugin.name, plugin)
            self._all = list(seen.values())
        return self._all

    # -- PreEnqueue ---------------------------------------------------------------------------
    def pre_enqueue(self, pod: PodInfo) -> Status | None:
        for plugin in self.plugins(PRE_ENQUEUE):
            status = plugin.pre_enqueue(pod)
            if not status.success:
                return _named(status, plugin.name)
        return None

    # -- PreFilter ----------------------------------------------------------------------------
    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterOutcome:
        rejection: Status | None = None
        narrowed: frozenset[str] | None = None
        narrowing: list[str] = []
        for plugin in self.plugins(PRE_FILTER):
            result = plugin.pre_filter(cycle, pod)
            status = result.status
            if status.code is Code.SKIP:
                cycle.skipped.add(plugin.name)
                continue
            if status.rejected:
                rejection = _named(status, plugin.name)
                if status.code is Code.UNRESOLVABLE:
                    break
                continue
            if not status.success:
                message = f'running PreFilter plugin "{plugin.name}": {status.message}'
                return PreFilterOutcome(Status(Code.ERROR, (message,), plugin.name, status.detail))
            if result.nodes is not None:
                narrowed = result.nodes if narrowed is None else narrowed & result.nodes
                narrowing.append(plugin.name)
                if not narrowed:
                    names = narrowing[0] if len(narrowing) == 1 else "[" + " ".join(narrowing) + "]"
                    word = "plugin" if len(narrowing) == 1 else "plugin(s)"
                    suffix = "" if len(narrowing) == 1 else " simultaneously"
                    return PreFilterOutcome(Status(Code.UNRESOLVABLE, (f"node(s) didn't satisfy {word} {names}{suffix}",),
                                                   narrowing[-1]))
        if rejection is not None:
            return PreFilterOutcome(rejection)
        absent = None
        if narrowed is not None:
            names = "[" + " ".join(sorted(narrowing)) + "]"
            absent = Status(Code.UNRESOLVABLE, (f"node(s) didn't satisfy plugin(s) {names}",), narrowing[-1])
        return PreFilterOutcome(SUCCESS, narrowed, absent)

    # -- Filter -------------------------------------------------------------------------------
    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        """The node's status: Success, or the first plugin's that is not."""
        outcome = None
        filters = self._filters
        if filters is None or filters[0] != cycle.skipped:
            skipped = frozenset(cycle.skipped)
            filters = self._filters = (skipped, [p for p in self.plugins(FILTER)
                                                 if p.name not in skipped and p.evaluated])
        for plugin in filters[1]:
            status = plugin.filter(cycle, pod, node)
            if status is SUCCESS:
                continue
            if status.outcome is not None:
                outcome = status.outcome
            if not status.success:
                return _named(status, plugin.name)
        return SUCCESS if outcome is None else Status(Code.SUCCESS, outcome=outcome)

    # -- PostFilter ---------------------------------------------------------------------------
    def post_filter(self, cycle: CycleState, pod: PodInfo, statuses: Mapping[str, Status]) -> Status | None:
        """None when no PostFilter plugin runs; else Success (the first that helped) or the
        rejections' reasons, joined."""
        reasons: list[str] = []
        details: list[str] = []
        rejector: str | None = None
        for plugin in self.plugins(POST_FILTER):
            if not plugin.evaluated:
                continue
            status = plugin.post_filter(cycle, pod, statuses)
            if status.success:
                return _named(status, plugin.name)
            if not status.rejected:
                return Status(Code.ERROR, status.reasons, plugin.name, status.detail)
            reasons.extend(status.reasons)
            if status.detail:
                details.append(status.detail)
            rejector = rejector or plugin.name
        if rejector is None:
            return None
        # Upstream returns Unschedulable with every rejection's reasons, naming the first rejector.
        return Status(Code.UNSCHEDULABLE, tuple(reasons), rejector, "; ".join(details) or None)


def _named(status: Status, plugin: str) -> Status:
    if status.plugin == plugin:
        return status
    return Status(status.code, status.reasons, plugin, status.detail, status.outcome)


class Verdict(Record):
    """What the scheduler makes of one attempt to schedule the Pod.

    ``message`` is the FailedScheduling text (a FitError, or the error), None when a node fits
    (then ``selected`` may name it) or the Pod never entered scheduling (``pre_enqueue``)."""

    __slots__ = ("error", "message", "post_filter", "pre_enqueue", "pre_filter", "selected")

    def __init__(self, pre_enqueue: Status | None = None, pre_filter: Status | None = None,
                 post_filter: Status | None = None, error: str | None = None, message: str | None = None,
                 selected: str | None = None) -> None:
        self.pre_enqueue = pre_enqueue
        self.pre_filter = pre_filter
        self.post_filter = post_filter
        self.error = error
        self.message = message
        self.selected = selected


def conclude(framework: Framework, cycle: CycleState, pod: PodInfo, pre_filter: PreFilterOutcome,
             statuses: Mapping[str, Status], all_nodes: int, feasible: Sequence[str]) -> Verdict:
    """The attempt's verdict from PreFilter's outcome and every node's status (``statuses``:
    node name -> status, for the nodes Filter ran on, or every node for a PreFilter rejection);
    ``feasible``: the nodes that passed, best first (the caller's ranking stands in for scoring)."""
    pre_status = pre_filter.status
    if pre_status.code is Code.ERROR:
        return Verdict(pre_filter=pre_status, error=pre_status.message, message=pre_status.message)
    if all_nodes == 0:
        return Verdict(pre_filter=pre_status, error=NO_NODES, message=NO_NODES)
    if pre_status.success or pre_status.code is Code.SKIP:
        errors = [(name, s) for name, s in statuses.items() if s.code is Code.ERROR]
        if errors:
            _, first = errors[0]
            text = f'running "{first.plugin}" filter plugin: {first.message}'
            return Verdict(pre_filter=pre_status, error=text, message=text)
        if feasible:
            return Verdict(pre_filter=pre_status, selected=feasible[0])
    post = framework.post_filter(cycle, pod, statuses)
    if pre_status.rejected:
        text = fit_error(all_nodes, (), pre_filter_message=pre_status.message,
                         post_filter_message=post.message if post is not None and not post.success else "")
    else:
        absent = pre_filter.absent
        text = fit_error(all_nodes, (s.reasons for s in statuses.values()),
                         absent=absent.reasons if absent is not None else (),
                         absent_count=all_nodes - len(statuses),
                         post_filter_message=post.message if post is not None and not post.success else "")
    return Verdict(pre_filter=pre_status, post_filter=post, message=text)
