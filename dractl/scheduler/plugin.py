"""What a scheduler plugin is to dractl: a name, the extension points it implements, and its
PreEnqueue / PreFilter / Filter / PostFilter, each answering with a :class:`Status`.

Adding a plugin is one module in ``dractl/scheduler/plugins/`` with one :class:`Plugin`
subclass, named in ``plugins/__init__.py``'s table. A plugin reads the Pod and the node it is
given; what it works out once per Pod (in PreFilter) it keeps in the cycle's state under its own
name, as the scheduler's ``CycleState`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from dractl.api.releases import Features
from dractl.records import Record
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.status import SUCCESS, Status

PRE_ENQUEUE = "PreEnqueue"
PRE_FILTER = "PreFilter"
FILTER = "Filter"
POST_FILTER = "PostFilter"
EXTENSION_POINTS = (PRE_ENQUEUE, PRE_FILTER, FILTER, POST_FILTER)


class PreFilterResult(Record):
    """A PreFilter's answer: its status and, when it can tell, the only node names that can
    pass (``framework.PreFilterResult.NodeNames``; None = every node)."""

    __slots__ = ("nodes", "status")

    def __init__(self, status: Status, nodes: frozenset[str] | None = None) -> None:
        self.status = status
        self.nodes = nodes


class Context:
    """What every plugin may read besides the Pod and the node: the release and feature gates,
    every node of the run, and the objects of the run that plugins share (``dra``: what the
    DynamicResources plugin needs, set by explain)."""

    def __init__(self, features: Features, nodes: Sequence[NodeState] = (), dra: Any = None,
                 extended_resources: Mapping[str, str] | None = None) -> None:
        self.features = features
        self.nodes = nodes
        self.dra = dra
        # DRA extended resources: resource name -> the DeviceClass that serves it in this release
        # (empty without the DRAExtendedResource gate); see dractl.scheduler.extended.
        self.extended_resources: Mapping[str, str] = {} if extended_resources is None else extended_resources
        # The framework the plugins run in (set once it is built): DefaultPreemption runs the
        # Filter plugins again on a node without its victims.
        self.framework: Any = None


class CycleState(dict[str, Any]):
    """One scheduling attempt's state: each plugin's PreFilter findings under its name, and the
    set of plugins whose PreFilter answered Skip (their Filter does not run)."""

    def __init__(self) -> None:
        super().__init__()
        self.skipped: set[str] = set()


class Plugin:
    """A scheduler plugin. Subclasses set ``name`` and ``extension_points`` and override the
    methods of those points; the defaults answer Success (PreFilter: Skip-free success)."""

    name: ClassVar[str] = ""
    extension_points: ClassVar[frozenset[str]] = frozenset()
    # A plugin whose inputs a cluster dump rarely holds in full: it is not run; where the Pod
    # uses it, :meth:`note` says so.
    evaluated: ClassVar[bool] = True

    def __init__(self, context: Context, args: Mapping[str, Any] | None = None) -> None:
        self.context = context
        self.args: Mapping[str, Any] = {} if args is None else args

    @property
    def features(self) -> Features:
        return self.context.features

    def pre_enqueue(self, pod: PodInfo) -> Status:
        return SUCCESS

    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterResult:
        return PreFilterResult(SUCCESS)

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        return SUCCESS

    def post_filter(self, cycle: CycleState, pod: PodInfo, statuses: Mapping[str, Status]) -> Status:
        return SUCCESS

    def note(self, pod: PodInfo) -> str | None:
        """For a plugin that is not evaluated: why the verdict may miss it for this Pod."""
        return None
