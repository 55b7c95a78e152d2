"""The small Filter plugins (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity,
NodePorts), SchedulingGates and the plugins dractl only notes.

The conformance vectors in ``tests/conformance/scheduler/`` (upstream's plugin unit tests as
manifests) run through :class:`dractl.scheduler.framework.Framework` with just the case's
plugins: PreFilter, then Filter on every node PreFilter leaves in, and the FitError when a case
pins it. The tables after them pin what the vectors do not: toleration matching at its edges,
NodeAffinity's lenient terms and scheduler-enforced affinity, sidecar ports, and the details.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from dractl.allocator.nodes import NodeInfo
from dractl.api.releases import Features
from dractl.errors import UsageError
from dractl.scheduler.framework import Framework, conclude
from dractl.scheduler.objects import NodeState, PodInfo
from dractl.scheduler.plugin import EXTENSION_POINTS, Context, CycleState, Plugin
from dractl.scheduler.plugins import DEFAULT_ORDER, plugin_class
from dractl.scheduler.plugins.node_affinity import NodeAffinity
from dractl.scheduler.plugins.node_ports import NodePorts
from dractl.scheduler.plugins.noted import (
    AzureDiskLimits,
    EBSLimits,
    GCEPDLimits,
    InterPodAffinity,
    NodeVolumeLimits,
    PodTopologySpread,
    VolumeBinding,
    VolumeRestrictions,
    VolumeZone,
)
from dractl.scheduler.plugins.scheduling_gates import SchedulingGates
from dractl.scheduler.plugins.taint_toleration import taint_text, tolerates
from dractl.scheduler.status import Code, Status

CASES_DIR = Path(__file__).resolve().parents[1] / "conformance" / "scheduler"
GROUPS = ("nodeunschedulable", "nodename", "tainttoleration", "nodeaffinity", "nodeports", "fiterror")
CASES = sorted(path for group in GROUPS for path in CASES_DIR.glob(f"{group}-*.yaml"))


def build_framework(names: Sequence[str], context: Context,
                    args: Mapping[str, Mapping[str, Any]] | None = None) -> Framework:
    """The named plugins, each at the extension points it implements, in profile order."""
    plugins: list[Plugin] = []
    for name in DEFAULT_ORDER:
        cls = plugin_class(name) if name in names else None
        if cls is not None:
            plugins.append(cls(context, (args or {}).get(name)))
    framework = Framework({point: [p for p in plugins if point in p.extension_points] for point in EXTENSION_POINTS})
    context.framework = framework
    return framework


def node_state(manifest: Mapping[str, Any] | None, name: str = "", pods: list[Mapping[str, Any]] | None = None,
               labels: Mapping[str, str] | None = None) -> NodeState:
    info = NodeInfo.from_object(manifest) if manifest is not None else NodeInfo(name, dict(labels or {}))
    return NodeState(info, manifest, pods)


def load_case(path: Path) -> tuple[dict[str, Any], PodInfo, list[NodeState]]:
    header, *objects = [doc for doc in YAML(typ="safe").load_all(path.read_text(encoding="utf-8")) if doc]
    namespace, _, name = header["pod"].partition("/")
    pods = [o for o in objects if o["kind"] == "Pod"]
    wanted = next(p for p in pods if p["metadata"]["name"] == name
                  and p["metadata"].get("namespace", "default") == namespace)
    bound = [p for p in pods if p is not wanted and p["spec"].get("nodeName")]
    nodes = [
        node_state(n, pods=[p for p in bound if p["spec"]["nodeName"] == n["metadata"]["name"]])
        for n in objects if n["kind"] == "Node"
    ]
    return header, PodInfo.from_manifest(wanted), nodes


def test_the_cases_are_there() -> None:
    assert len(CASES) == 2 + 2 + 13 + 18 + 14 + 1


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.stem)
def test_conformance(path: Path) -> None:
    header, pod, nodes = load_case(path)
    expect = header["expect"]
    context = Context(Features(header["release"], header.get("features") or {}), nodes)
    framework = build_framework(header["plugins"], context)
    cycle = CycleState()
    assert framework.pre_enqueue(pod) is None

    outcome = framework.pre_filter(cycle, pod)
    if "preFilter" in expect:
        want = expect["preFilter"]
        if want["status"] == "skip":
            assert want["plugin"] in cycle.skipped
            assert outcome.status.success
        else:
            assert (outcome.status.code.value, outcome.status.plugin) == (want["status"], want["plugin"])
            assert list(outcome.status.reasons) == want.get("reasons", list(outcome.status.reasons))
    else:
        assert not cycle.skipped
    if "preFilterNodes" in expect:
        assert outcome.nodes == frozenset(expect["preFilterNodes"])
    else:
        assert outcome.nodes is None

    got: dict[str, tuple[Status, str]] = {}
    for node in nodes:
        if outcome.status.rejected:
            got[node.name] = (outcome.status, "PreFilter")
        elif outcome.nodes is not None and node.name not in outcome.nodes:
            assert outcome.absent is not None
            got[node.name] = (outcome.absent, "PreFilter")
        else:
            got[node.name] = (framework.filter(cycle, pod, node), "Filter")
    for name, want in expect["nodes"].items():
        status, phase = got[name]
        assert status.code.value == want["status"], name
        assert status.plugin == want.get("plugin"), name
        assert list(status.reasons) == want.get("reasons", []), name
        assert phase == want.get("phase", "Filter"), name

    if "message" in expect:
        statuses = {name: s for name, (s, phase) in got.items() if phase == "Filter"}
        feasible = [name for name, s in statuses.items() if s.success]
        verdict = conclude(framework, cycle, pod, outcome, statuses, len(nodes), feasible)
        assert verdict.message == expect["message"]


# -- toleration matching ------------------------------------------------------------------------

TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
SLA = {"key": "sla", "value": "950", "effect": "NoSchedule"}


@pytest.mark.parametrize(("toleration", "taint", "comparison", "expected"), [
    pytest.param({"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}, TAINT, False, True, id="exact"),
    pytest.param({"key": "nvidia.com/gpu", "value": "present"}, TAINT, False, True, id="empty-effect-matches-all"),
    pytest.param({"key": "nvidia.com/gpu", "value": "present", "effect": "NoExecute"}, TAINT, False, False,
                 id="other-effect"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Equal", "value": "absent"}, TAINT, False, False,
                 id="equal-other-value"),
    pytest.param({"key": "nvidia.com/gpu"}, TAINT, False, False, id="default-equal-empty-value"),
    pytest.param({"key": "nvidia.com/gpu"}, {"key": "nvidia.com/gpu", "effect": "NoSchedule"}, False, True,
                 id="default-equal-both-empty"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Exists"}, TAINT, False, True, id="exists-ignores-value"),
    pytest.param({"operator": "Exists"}, TAINT, False, True, id="empty-key-exists-matches-all"),
    pytest.param({"operator": "Exists", "effect": "NoExecute"}, TAINT, False, False, id="empty-key-other-effect"),
    pytest.param({"key": "other", "operator": "Exists"}, TAINT, False, False, id="other-key"),
    pytest.param({"key": "nvidia.com/gpu", "operator": "Bogus", "value": "present"}, TAINT, False, False,
                 id="unknown-operator"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "900"}, SLA, True, True, id="gt"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "950"}, SLA, True, False, id="gt-equal"),
    pytest.param({"key": "sla", "operator": "Lt", "value": "951"}, SLA, True, True, id="lt"),
    pytest.param({"key": "sla", "operator": "Lt", "value": "950"}, SLA, True, False, id="lt-equal"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "900"}, SLA, False, False, id="gt-gate-off"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "-5"}, {**SLA, "value": "0"}, True, True, id="gt-negative"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "0900"}, SLA, True, False, id="gt-leading-zero"),
    pytest.param({"key": "sla", "operator": "Gt", "value": "+900"}, SLA, True, False, id="gt-plus-sign"),
    pytest.param({"key": "sla", "operator": "Lt", "value": "1000"}, {**SLA, "value": "high"}, True, False,
                 id="lt-taint-not-a-number"),
    pytest.param({"key": "sla", "operator": "Lt", "value": "99999999999999999999"}, SLA, True, False,
                 id="lt-beyond-int64"),
])
def test_toleration_matching(toleration: dict[str, Any], taint: dict[str, Any], comparison: bool,
                             expected: bool) -> None:
    assert tolerates(toleration, taint, comparison_operators=comparison) is expected


@pytest.mark.parametrize(("taint", "text"), [
    (TAINT, "nvidia.com/gpu=present:NoSchedule"),
    ({"key": "dedicated", "effect": "NoExecute"}, "dedicated:NoExecute"),
])
def test_taint_text(taint: dict[str, Any], text: str) -> None:
    assert taint_text(taint) == text


# -- the plugins one by one ---------------------------------------------------------------------

def run_filter(plugin_names: Sequence[str], pod_spec: Mapping[str, Any], node: NodeState,
               release: str = "1.36", gates: Mapping[str, bool] | None = None,
               args: Mapping[str, Mapping[str, Any]] | None = None) -> Status:
    """PreFilter then Filter of the named plugins for one Pod on one node (PreFilter's status
    when it rejects, its absent-node status when it leaves the node out)."""
    context = Context(Features(release, gates or {}), [node])
    framework = build_framework(plugin_names, context, args)
    pod = PodInfo("default", "pod", pod_spec)
    cycle = CycleState()
    outcome = framework.pre_filter(cycle, pod)
    if outcome.status.rejected:
        return outcome.status
    if outcome.nodes is not None and node.name not in outcome.nodes:
        assert outcome.absent is not None
        return outcome.absent
    return framework.filter(cycle, pod, node)


def node_manifest(name: str = "node1", labels: Mapping[str, str] | None = None,
                  spec: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "spec": dict(spec or {})}


CORDONED = node_manifest(spec={"unschedulable": True})
TAINTED = node_manifest(spec={"taints": [
    {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
    {"key": "soft", "effect": "PreferNoSchedule"},
    {"key": "maintenance", "effect": "NoExecute"},
]})


@pytest.mark.parametrize(("plugin", "spec", "node", "gates", "code", "reasons", "detail"), [
    pytest.param("NodeUnschedulable", {}, node_state(CORDONED), None, Code.UNRESOLVABLE,
                 ("node(s) were unschedulable",),
                 "the node is cordoned (spec.unschedulable: true) and the Pod does not tolerate "
                 "node.kubernetes.io/unschedulable:NoSchedule", id="cordoned"),
    pytest.param("NodeUnschedulable",
                 {"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                   "effect": "NoSchedule"}]},
                 node_state(CORDONED), None, Code.SUCCESS, (), None, id="cordoned-tolerated"),
    pytest.param("NodeUnschedulable", {"tolerations": [{"operator": "Exists"}]},
                 node_state(CORDONED), None, Code.SUCCESS, (), None, id="cordoned-tolerate-everything"),
    pytest.param("NodeUnschedulable",
                 {"tolerations": [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                   "effect": "NoExecute"}]},
                 node_state(CORDONED), None, Code.UNRESOLVABLE, ("node(s) were unschedulable",),
                 "the node is cordoned (spec.unschedulable: true) and the Pod does not tolerate "
                 "node.kubernetes.io/unschedulable:NoSchedule", id="cordoned-wrong-effect"),
    pytest.param("NodeUnschedulable", {}, node_state(None, name="slice-only"), None, Code.UNRESOLVABLE,
                 ("node(s) had unknown conditions",),
                 "there is no Node object named 'slice-only' (only a ResourceSlice names it)", id="no-node-object"),
    pytest.param("NodeName", {"nodeName": "node2"}, node_state(node_manifest()), None, Code.UNRESOLVABLE,
                 ("node(s) didn't match the requested node name",), "the Pod's spec.nodeName is 'node2'",
                 id="other-node-name"),
    pytest.param("TaintToleration", {}, node_state(TAINTED), None, Code.UNRESOLVABLE,
                 ("node(s) had untolerated taint(s)",), "nvidia.com/gpu=present:NoSchedule, maintenance:NoExecute",
                 id="untolerated-taints-named"),
    pytest.param("TaintToleration", {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]},
                 node_state(TAINTED), None, Code.UNRESOLVABLE, ("node(s) had untolerated taint(s)",),
                 "maintenance:NoExecute", id="one-left"),
    pytest.param("TaintToleration",
                 {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"},
                                  {"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}]},
                 node_state(TAINTED), None, Code.SUCCESS, (), None, id="prefer-no-schedule-ignored"),
    pytest.param("TaintToleration",
                 {"tolerations": [{"key": "sla", "operator": "Gt", "value": "900", "effect": "NoSchedule"}]},
                 node_state(node_manifest(spec={"taints": [SLA]})), None, Code.UNRESOLVABLE,
                 ("node(s) had untolerated taint(s)",),
                 "sla=950:NoSchedule (the Pod's Gt/Lt tolerations tolerate nothing without the "
                 "TaintTolerationComparisonOperators feature gate)", id="gt-gate-off-by-default"),
    pytest.param("TaintToleration",
                 {"tolerations": [{"key": "sla", "operator": "Gt", "value": "900", "effect": "NoSchedule"}]},
                 node_state(node_manifest(spec={"taints": [SLA]})), {"TaintTolerationComparisonOperators": True},
                 Code.SUCCESS, (), None, id="gt-gate-on"),
])
def test_filter(plugin: str, spec: dict[str, Any], node: NodeState, gates: dict[str, bool] | None, code: Code,
                reasons: tuple[str, ...], detail: str | None) -> None:
    status = run_filter([plugin], spec, node, gates=gates)
    assert (status.code, status.reasons, status.detail) == (code, reasons, detail)
    if code is not Code.SUCCESS:
        assert status.plugin == plugin


def affinity(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


GPU_NODE = node_state(node_manifest("gpu-1", {"gpu": "h100", "zone": "a"}))
NOT_MATCHED = "node(s) didn't match Pod's node affinity/selector"


@pytest.mark.parametrize(("spec", "code", "reasons", "detail"), [
    pytest.param({"nodeSelector": {"gpu": "a100"}}, Code.UNRESOLVABLE, (NOT_MATCHED,),
                 "nodeSelector gpu=a100: the node has gpu=h100", id="selector-other-value"),
    pytest.param({"nodeSelector": {"gpu": "h100", "rack": "r1"}}, Code.UNRESOLVABLE, (NOT_MATCHED,),
                 "nodeSelector rack=r1: the node has no label rack", id="selector-missing-label"),
    pytest.param({"affinity": affinity({"matchExpressions": [
        {"key": "gpu", "operator": "In", "values": ["h100"]},
        {"key": "zone", "operator": "NotIn", "values": ["a", "b"]}]})},
        Code.UNRESOLVABLE, (NOT_MATCHED,), "required node affinity: zone NotIn [a, b]: the node has zone=a",
        id="one-term-second-requirement"),
    pytest.param({"affinity": affinity(
        {"matchExpressions": [{"key": "gpu", "operator": "DoesNotExist"}]},
        {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["gpu-1"]}]})},
        Code.UNRESOLVABLE, (NOT_MATCHED,),
        "required node affinity, no term matches: term 0: gpu DoesNotExist: the node has gpu=h100; "
        "term 1: metadata.name NotIn [gpu-1]: the node is gpu-1", id="two-terms"),
    # The scheduler reads affinity leniently: a term that does not parse matches nothing, and
    # the next term still counts.
    pytest.param({"affinity": affinity(
        {"matchExpressions": [{"key": "gpu", "operator": "Near", "values": ["h100"]}]},
        {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]})},
        Code.SUCCESS, (), None, id="bad-term-then-good-term"),
    pytest.param({"affinity": affinity(
        {"matchExpressions": [{"key": "gpu", "operator": "Near", "values": ["h100"]}]})},
        Code.UNRESOLVABLE, (NOT_MATCHED,),
        'required node affinity: does not parse and matches no node: '
        'nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Near": supported values: '
        '"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"', id="bad-term-only"),
    pytest.param({"affinity": affinity({"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}),
                  "nodeSelector": {"zone": "a"}}, Code.SUCCESS, (), None, id="selector-and-affinity"),
    pytest.param({"affinity": affinity()}, Code.UNRESOLVABLE, (NOT_MATCHED,),
                 "required node affinity has no nodeSelectorTerms and matches no node", id="no-terms"),
    pytest.param({"affinity": affinity({"matchFields": [{"key": "metadata.name", "operator": "In",
                                                          "values": ["gpu-2"]}]},
                                       {"matchFields": [{"key": "metadata.name", "operator": "In",
                                                         "values": ["gpu-3"]}]})},
                 Code.UNRESOLVABLE, ("node(s) didn't satisfy plugin(s) [NodeAffinity]",), None,
                 id="outside-prefilter-node-set"),
    pytest.param({"affinity": affinity({"matchFields": [{"key": "metadata.name", "operator": "In",
                                                          "values": ["gpu-1"]}]},
                                       {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]})},
                 Code.SUCCESS, (), None, id="name-term-or-label-term"),
    pytest.param({"affinity": affinity({"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["gpu-1"]},
        {"key": "metadata.name", "operator": "In", "values": ["gpu-2"]}]})},
        Code.UNRESOLVABLE, ("pod affinity terms conflict",),
        "every nodeSelectorTerm's metadata.name requirements exclude each other", id="conflict"),
])
def test_node_affinity(spec: dict[str, Any], code: Code, reasons: tuple[str, ...], detail: str | None) -> None:
    status = run_filter(["NodeAffinity"], spec, GPU_NODE)
    assert (status.code, status.reasons, status.detail) == (code, reasons, detail)


@pytest.mark.parametrize(("spec", "added", "skipped", "nodes"), [
    pytest.param({}, None, True, None, id="nothing-asked"),
    pytest.param({"nodeSelector": {}}, None, True, None, id="empty-selector-is-none"),
    pytest.param({"nodeSelector": {"gpu": "h100"}}, None, False, None, id="selector"),
    pytest.param({}, {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "Exists"}]}]},
                 False, None, id="added-affinity-only"),
    pytest.param({"affinity": affinity(
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["a", "b"]},
                         {"key": "metadata.name", "operator": "In", "values": ["b", "c"]}]},
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["d"]}]})},
        None, False, frozenset({"b", "d"}), id="names-anded-in-a-term-ored-across"),
    pytest.param({"affinity": affinity(
        {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["a"]}]})},
        None, False, None, id="notin-names-no-set"),
])
def test_node_affinity_pre_filter(spec: dict[str, Any], added: dict[str, Any] | None, skipped: bool,
                                  nodes: frozenset[str] | None) -> None:
    args = {} if added is None else {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": added}}
    plugin = NodeAffinity(Context(Features("1.36")), args)
    result = plugin.pre_filter(CycleState(), PodInfo("default", "pod", spec))
    assert (result.status.code is Code.SKIP, result.nodes) == (skipped, nodes)


@pytest.mark.parametrize(("added", "spec", "code", "reasons"), [
    pytest.param({"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]},
                 {}, Code.UNRESOLVABLE, ("node(s) didn't match scheduler-enforced node affinity",), id="enforced"),
    pytest.param({"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]},
                 {"nodeSelector": {"gpu": "a100"}}, Code.UNRESOLVABLE,
                 ("node(s) didn't match scheduler-enforced node affinity",), id="enforced-checked-first"),
    pytest.param({"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]},
                 {"nodeSelector": {"gpu": "a100"}}, Code.UNRESOLVABLE, (NOT_MATCHED,), id="enforced-passes"),
    pytest.param({"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]},
                 {}, Code.SUCCESS, (), id="enforced-only-passes"),
])
def test_node_affinity_added_affinity(added: dict[str, Any], spec: dict[str, Any], code: Code,
                                      reasons: tuple[str, ...]) -> None:
    status = run_filter(["NodeAffinity"], spec, GPU_NODE,
                        args={"NodeAffinity": {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": added}}})
    assert (status.code, status.reasons) == (code, reasons)


def test_node_affinity_added_affinity_must_parse() -> None:
    bad = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In"}]}]}
    with pytest.raises(UsageError, match=r"^NodeAffinity args: parsing addedAffinity\.requiredDuringScheduling"):
        NodeAffinity(Context(Features("1.36")), {"addedAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": bad}})


def bound_pod(name: str, node: str, ports: list[dict[str, Any]], init: bool = False,
              phase: str | None = None) -> dict[str, Any]:
    container = {"name": "c", "image": "x", "ports": ports}
    spec: dict[str, Any] = {"nodeName": node, "containers": [] if init else [container]}
    if init:
        spec["initContainers"] = [{**container, "restartPolicy": "Always"}]
    pod: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "apps"},
                           "spec": spec}
    if phase:
        pod["status"] = {"phase": phase}
    return pod


PORTS_REASON = "node(s) didn't have free ports for the requested pod ports"


@pytest.mark.parametrize(("spec", "on_node", "code", "detail"), [
    pytest.param({"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]},
                 [bound_pod("web", "node1", [{"containerPort": 80, "hostPort": 80, "protocol": "TCP",
                                              "hostIP": "10.0.0.1"}])],
                 Code.UNSCHEDULABLE, "0.0.0.0:80/TCP is taken by Pod apps/web (10.0.0.1:80/TCP)",
                 id="defaults-tcp-and-all-addresses"),
    pytest.param({"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80, "protocol": "UDP"}]}]},
                 [bound_pod("web", "node1", [{"containerPort": 80, "hostPort": 80}])],
                 Code.SUCCESS, None, id="other-protocol"),
    pytest.param({"containers": [{"name": "c"}],
                  "initContainers": [{"name": "proxy", "restartPolicy": "Always",
                                      "ports": [{"containerPort": 15000, "hostPort": 15000}]}]},
                 [bound_pod("mesh", "node1", [{"containerPort": 15000, "hostPort": 15000}], init=True)],
                 Code.UNSCHEDULABLE, "0.0.0.0:15000/TCP is taken by Pod apps/mesh (0.0.0.0:15000/TCP)",
                 id="sidecars-on-both-sides"),
    pytest.param({"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]},
                 [bound_pod("done", "node1", [{"containerPort": 80, "hostPort": 80}], phase="Succeeded")],
                 Code.SUCCESS, None, id="terminal-pod-holds-nothing"),
    pytest.param({"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 0}]}]},
                 [bound_pod("web", "node1", [{"containerPort": 80, "hostPort": 80}])],
                 Code.SUCCESS, None, id="host-port-zero-asks-nothing"),
])
def test_node_ports(spec: dict[str, Any], on_node: list[dict[str, Any]], code: Code, detail: str | None) -> None:
    status = run_filter(["NodePorts"], spec, node_state(node_manifest(), pods=on_node))
    assert (status.code, status.detail) == (code, detail)
    assert status.reasons == ((PORTS_REASON,) if code is Code.UNSCHEDULABLE else ())


def test_node_ports_pre_filter_skips_without_host_ports() -> None:
    spec = {"containers": [{"name": "c", "ports": [{"containerPort": 80}]}],
            "initContainers": [{"name": "init", "ports": [{"containerPort": 81, "hostPort": 81}]}]}
    result = NodePorts(Context(Features("1.36"))).pre_filter(CycleState(), PodInfo("default", "pod", spec))
    assert result.status.code is Code.SKIP


@pytest.mark.parametrize(("gates", "status"), [
    pytest.param(None, None, id="no-gates"),
    pytest.param([], None, id="empty-gates"),
    pytest.param([{"name": "example.com/quota"}], ("waiting for scheduling gates: [example.com/quota]",),
                 id="one-gate"),
    pytest.param([{"name": "a"}, {"name": "b"}], ("waiting for scheduling gates: [a b]",), id="two-gates"),
])
def test_scheduling_gates(gates: list[dict[str, str]] | None, status: tuple[str, ...] | None) -> None:
    spec: dict[str, Any] = {"containers": [{"name": "c"}]}
    if gates is not None:
        spec["schedulingGates"] = gates
    context = Context(Features("1.36"))
    framework = build_framework(["SchedulingGates"], context)
    rejected = framework.pre_enqueue(PodInfo("default", "pod", spec))
    if status is None:
        assert rejected is None
    else:
        assert rejected is not None
        assert (rejected.code, rejected.plugin, rejected.reasons) == (Code.UNRESOLVABLE, "SchedulingGates", status)
    assert SchedulingGates(context).pre_enqueue(PodInfo("default", "pod", spec)).success is (status is None)


NOTED = (VolumeRestrictions, EBSLimits, GCEPDLimits, NodeVolumeLimits, AzureDiskLimits, VolumeBinding,
         VolumeZone, PodTopologySpread, InterPodAffinity)


@pytest.mark.parametrize(("spec", "notes"), [
    pytest.param({"containers": [{"name": "c"}]}, {}, id="plain-pod"),
    pytest.param({"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}},
                              {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}},
                              {"name": "tmp", "emptyDir": {}}]},
                 {"VolumeBinding": "VolumeBinding not evaluated: volume(s) data (PersistentVolumeClaim data-0), "
                                   "scratch (ephemeral PersistentVolumeClaim) need bound or provisionable "
                                   "PersistentVolumes; their binding, node affinity and zone (VolumeZone), "
                                   "per-node volume limits (NodeVolumeLimits) and ReadWriteOncePod use "
                                   "(VolumeRestrictions) are not checked (needs PersistentVolumeClaims, "
                                   "PersistentVolumes, StorageClasses and CSINodes)"},
                 id="claims-noted-once"),
    pytest.param({"volumes": [{"name": "disk", "awsElasticBlockStore": {"volumeID": "vol-1"}}]},
                 {"VolumeRestrictions": "VolumeRestrictions not evaluated: inline disk volume(s) disk "
                                        "(awsElasticBlockStore) may conflict with the same disk used by other Pods "
                                        "on the node, and count against the node's volume limits (EBSLimits, "
                                        "GCEPDLimits, AzureDiskLimits); not checked"},
                 id="inline-disk"),
    pytest.param({"volumes": [{"name": "secrets", "csi": {"driver": "secrets-store.csi.k8s.io"}}]},
                 {"NodeVolumeLimits": "NodeVolumeLimits not evaluated: CSI inline volume(s) secrets (driver "
                                      "secrets-store.csi.k8s.io) count against the node's CSI volume limit "
                                      "(CSINode); not checked"},
                 id="csi-inline"),
    pytest.param({"topologySpreadConstraints": [
        {"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1},
        {"topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 1}]},
        {"PodTopologySpread": "PodTopologySpread not evaluated: the Pod's DoNotSchedule topology spread "
                              "constraint(s) over zone depend on where the other matching Pods run and on every "
                              "node's topology labels"},
        id="spread"),
    pytest.param({"topologySpreadConstraints": [
        {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway", "maxSkew": 1}]}, {},
        id="spread-score-only"),
    pytest.param({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"topologyKey": "kubernetes.io/hostname"}]},
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}}},
        {"InterPodAffinity": "InterPodAffinity not evaluated: the Pod's required pod anti-affinity depend on "
                             "the labels and placement of other Pods"},
        id="anti-affinity"),
])
def test_noted_plugins(spec: dict[str, Any], notes: dict[str, str]) -> None:
    pod = PodInfo("default", "pod", spec)
    context = Context(Features("1.36"))
    got = {cls.name: cls(context).note(pod) for cls in NOTED}
    assert {name: note for name, note in got.items() if note is not None} == notes
    assert all(not cls.evaluated for cls in NOTED)


def test_noted_plugins_are_not_run() -> None:
    """A Filter of a plugin that is not evaluated never runs, whatever the Pod uses."""
    spec = {"volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data-0"}}]}
    status = run_filter(["VolumeBinding", "VolumeZone", "NodeVolumeLimits"], spec, node_state(node_manifest()))
    assert status.success
