"""DefaultPreemption: the ``preemption: ...`` tail of the FitError, and whether evicting Pods of
lower priority would make room (then upstream's PostFilter succeeds with an empty message, and
dractl names the node and the victims in the detail).

Each case runs one scheduling attempt with a few real Filter plugins (cordon, taints, host ports,
node affinity) and DefaultPreemption, the way the scheduler does: PreFilter, Filter on every
node, PostFilter when no node passes, and the FitError text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from dractl.allocator.nodes import NodeInfo
from dractl.api.releases import Features
from dractl.scheduler.framework import Framework, Verdict, conclude
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import EXTENSION_POINTS, Context, CycleState, Plugin
from dractl.scheduler.plugins import DEFAULT_ORDER, plugin_class
from dractl.scheduler.plugins.default_preemption import DefaultPreemption, pod_priority
from dractl.scheduler.status import Code, Status, unresolvable, unschedulable

PLUGINS = ("NodeUnschedulable", "TaintToleration", "NodeAffinity", "NodePorts", "DefaultPreemption")
PORTS = "node(s) didn't have free ports for the requested pod ports"
TAINTS = "node(s) had untolerated taint(s)"


def build_framework(context: Context, names: Sequence[str] = PLUGINS) -> Framework:
    plugins: list[Plugin] = []
    for name in DEFAULT_ORDER:
        cls = plugin_class(name) if name in names else None
        if cls is not None:
            plugins.append(cls(context))
    framework = Framework({point: [p for p in plugins if point in p.extension_points] for point in EXTENSION_POINTS})
    context.framework = framework
    return framework


def holder(name: str, port: int, priority: int | None = None, host_ip: str = "",
           **extra: Any) -> dict[str, Any]:
    """A Pod already on a node, holding a host port."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "ports": [{"containerPort": port, "hostPort": port,
                                                                     "hostIP": host_ip}]}]}
    if priority is not None:
        spec["priority"] = priority
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "apps"}, "spec": spec}
    for key, value in extra.items():
        pod[key] = value
    return pod


def node(name: str, *pods: dict[str, Any], **spec: Any) -> NodeState:
    manifest = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "spec": spec}
    return NodeState(NodeInfo(name), manifest, [{**p, "spec": {**p["spec"], "nodeName": name}} for p in pods])


def incoming(priority: int | None = 100, **spec: Any) -> PodInfo:
    """The Pod being scheduled: it wants host port 80."""
    pod_spec: dict[str, Any] = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}],
                                **spec}
    if priority is not None:
        pod_spec["priority"] = priority
    return PodInfo("apps", "incoming", pod_spec)


TAINTED = {"taints": [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]}


def schedule(pod: PodInfo, nodes: list[NodeState]) -> tuple[Verdict, Status]:
    """The attempt's verdict, and DefaultPreemption's own answer (the framework keeps only the
    reasons of a rejecting PostFilter)."""
    context = Context(Features("1.36"), nodes)
    framework = build_framework(context)
    cycle = CycleState()
    outcome = framework.pre_filter(cycle, pod)
    if outcome.status.rejected:
        statuses = {n.name: outcome.status for n in nodes}
    else:
        statuses = {n.name: framework.filter(cycle, pod, n) for n in nodes
                    if outcome.nodes is None or n.name in outcome.nodes}
    feasible = [name for name, status in statuses.items() if status.success]
    verdict = conclude(framework, cycle, pod, outcome, statuses, len(nodes), feasible)
    (preemption,) = framework.plugins("PostFilter")
    return verdict, preemption.post_filter(cycle, pod, statuses)


@pytest.mark.parametrize(("pod", "nodes", "message", "detail"), [
    pytest.param(
        incoming(), [node("tainted", **TAINTED), node("cordoned", unschedulable=True)],
        "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        "no node was rejected only as Unschedulable, so evicting Pods cannot help on any node",
        id="only-unresolvable-nodes"),
    pytest.param(
        incoming(), [node("tainted", **TAINTED), node("busy", holder("web", 80, priority=1000))],
        f"0/2 nodes are available: 1 {PORTS}, 1 {TAINTS}. "
        "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, "
        "1 Preemption is not helpful for scheduling.",
        "no Pod of lower priority than 100 runs on busy", id="holder-has-higher-priority"),
    pytest.param(
        incoming(), [node("busy", holder("web", 80, priority=100))],
        f"0/1 nodes are available: 1 {PORTS}. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
        "no Pod of lower priority than 100 runs on busy", id="equal-priority-is-not-lower"),
    pytest.param(
        incoming(priority=None), [node("busy", holder("web", 80))],
        f"0/1 nodes are available: 1 {PORTS}. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
        "no Pod of lower priority than 0 runs on busy", id="priorities-default-to-zero"),
    pytest.param(
        incoming(), [node("tainted", **TAINTED),
                     node("shared", holder("low", 80, priority=10, host_ip="127.0.0.1"),
                          holder("high", 80, priority=1000, host_ip="10.0.0.1"))],
        f"0/2 nodes are available: 1 {PORTS}, 1 {TAINTS}. "
        f"preemption: 0/2 nodes are available: 1 Preemption is not helpful for scheduling, 1 {PORTS}.",
        "the Pod would still not fit on shared without the lower-priority Pods", id="still-no-room-without-victims"),
    pytest.param(
        incoming(preemptionPolicy="Never"), [node("busy", holder("web", 80, priority=10))],
        f"0/1 nodes are available: 1 {PORTS}. preemption: not eligible due to preemptionPolicy=Never.",
        "the Pod's preemptionPolicy is Never", id="preemption-policy-never"),
    pytest.param(
        incoming(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]},
                             {"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}}}),
        [node("a", holder("web", 80, priority=10)), node("b")],
        "0/2 nodes are available: pod affinity terms conflict. "
        "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        "no node was rejected only as Unschedulable, so evicting Pods cannot help on any node",
        id="prefilter-rejection"),
    pytest.param(
        incoming(affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a"]}]}]}}}),
        [node("a", holder("web", 80, priority=100)), node("b"), node("c")],
        "0/3 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
        "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.",
        "no Pod of lower priority than 100 runs on a", id="nodes-outside-prefilter-result"),
])
def test_preemption_texts(pod: PodInfo, nodes: list[NodeState], message: str, detail: str) -> None:
    verdict, own = schedule(pod, nodes)
    assert verdict.message == message
    post = verdict.post_filter
    assert post is not None
    assert (post.code, post.plugin) == (Code.UNSCHEDULABLE, "DefaultPreemption")
    assert (own.code, own.reasons, own.detail) == (Code.UNSCHEDULABLE, post.reasons, detail)
    assert len(post.reasons) == 1


@pytest.mark.parametrize(("nodes", "detail"), [
    pytest.param([node("tainted", **TAINTED), node("busy", holder("web", 80, priority=10))],
                 "preempting apps/web (priority 10) on node busy would make room for the Pod (priority 100)",
                 id="one-victim"),
    pytest.param([node("busy", holder("web", 80, priority=10), holder("batch", 9090, priority=5))],
                 "preempting apps/web (priority 10) on node busy would make room for the Pod (priority 100)",
                 id="only-the-port-holder-goes"),
    pytest.param([node("first", holder("web", 80, priority=50)), node("second", holder("web", 80, priority=10))],
                 "preempting apps/web (priority 10) on node second would make room for the Pod (priority 100)",
                 id="lowest-victim-priority-wins"),
    pytest.param([node("first", holder("a", 80, priority=10, host_ip="127.0.0.1"),
                       holder("b", 80, priority=10, host_ip="10.0.0.1")),
                  node("second", holder("c", 80, priority=10))],
                 "preempting apps/c (priority 10) on node second would make room for the Pod (priority 100)",
                 id="fewest-victims-wins"),
])
def test_preemption_helps(nodes: list[NodeState], detail: str) -> None:
    verdict, _ = schedule(incoming(), nodes)
    post = verdict.post_filter
    assert post is not None
    assert (post.code, post.plugin, post.reasons, post.detail) == (Code.SUCCESS, "DefaultPreemption", (), detail)
    # Upstream's status message is empty on success: the FitError has no PostFilter part.
    assert verdict.message is not None and "preemption" not in verdict.message


def test_terminating_victim_on_the_nominated_node() -> None:
    terminating = holder("old", 80, priority=10,
                         status={"conditions": [{"type": "DisruptionTarget", "status": "True",
                                                 "reason": "PreemptionByScheduler"}]})
    terminating["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    pod = incoming()
    pod.status = {"nominatedNodeName": "busy"}
    verdict, own = schedule(pod, [node("busy", terminating)])
    assert verdict.message == (f"0/1 nodes are available: 1 {PORTS}. "
                               "preemption: not eligible due to a terminating pod on the nominated node.")
    assert own.detail == "Pod apps/old is still terminating after an earlier preemption"


class _Broken(Plugin):
    """A Filter plugin that fails with an error once the node has no Pods left."""

    name = "Broken"
    extension_points = frozenset({"Filter"})

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        return Status(Code.ERROR, ("boom",)) if not node.pods else unschedulable("node(s) are broken")


def test_filter_errors_during_the_dry_run() -> None:
    nodes = [node("n1", holder("web", 80, priority=10))]
    context = Context(Features("1.36"), nodes)
    preemption = DefaultPreemption(context)
    context.framework = Framework({"Filter": [_Broken(context)], "PostFilter": [preemption]})
    status = preemption.post_filter(CycleState(), incoming(), {"n1": unschedulable("node(s) are broken")})
    assert (status.code, status.reasons) == (Code.ERROR, ('preemption: running "Broken" filter plugin: boom',))


@pytest.mark.parametrize(("statuses", "message"), [
    pytest.param({"n1": unresolvable("x"), "n2": unresolvable("x")},
                 "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                 id="absent-nodes-count-as-not-helpful"),
    pytest.param({"n1": unschedulable("x")},
                 "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, "
                 "2 Preemption is not helpful for scheduling.", id="one-potential"),
])
def test_post_filter_alone(statuses: Mapping[str, Status], message: str) -> None:
    nodes = [node("n1"), node("n2"), node("n3")]
    context = Context(Features("1.36"), nodes)
    build_framework(context)
    status = DefaultPreemption(context).post_filter(CycleState(), incoming(), statuses)
    assert status.reasons == (message,)


@pytest.mark.parametrize(("spec", "priority"), [
    ({"priority": 7}, 7),
    ({"priority": -3}, -3),
    ({}, 0),
    ({"priority": "7"}, 0),
    ({"priority": True}, 0),
])
def test_pod_priority(spec: dict[str, Any], priority: int) -> None:
    assert pod_priority({"spec": spec}) == priority
