"""Objects no apiserver could decode never reach the allocator: explain (and select) name each
wrong value with its position and exit 2; lint's allocator rule stays silent (DRA011 speaks).
The fields the scheduler's plugins read (tolerations, containers' requests, limits and host
ports, overhead, priority, a Node's taints and allocatable...) are checked as Go's decoder
checks them (SCHEDULER_CASES)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.api.decoding import decode_errors
from dractl.api.model import build_all
from dractl.api.quantity import ERR_FORMAT_WRONG
from dractl.cli.testing import invoke
from dractl.load import load_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "explain" / "gpu-pod"
CLUSTER = (EXAMPLE / "cluster.yaml").read_text()
POD = (EXAMPLE / "pod.yaml").read_text()
STREAM = CLUSTER.rstrip("\n") + "\n---\n" + POD.rstrip("\n") + "\n---\n"
FIRST_LINE = STREAM.count("\n") + 1  # the line of the broken object's first line

# (broken object appended to the example, line within it, column, what explain says)
CASES = [
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: [a, b]\n",
        5, 3,
        "Pod default/p: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels "
        "of type map[string]string (expected a mapping)",
        id="pod-labels-list",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resourceClaims: gpus\n",
        5, 19,
        "Pod default/p: cannot unmarshal string into Go struct field PodSpec.spec.resourceClaims "
        "of type []v1.PodResourceClaim (expected a list)",
        id="pod-claims-string",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-3, labels: zone-a}\n",
        3, 38,
        "Node gpu-node-3: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels "
        "of type map[string]string (expected a mapping)",
        id="node-labels-string",
    ),
    pytest.param(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
        3, 18,
        "Node: cannot unmarshal bool into Go struct field ObjectMeta.metadata.name of type string "
        '(kubectl reads the plain scalar n the YAML 1.1 way, as false; quote it ("n") if you '
        "mean the string)",
        id="node-name-yaml11-bool",
    ),
    pytest.param(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: ml}\nspec:\n"
        "  template:\n    spec:\n      resourceClaims:\n      - {name: 3, resourceClaimName: x}\n",
        8, 16,
        "Deployment ml/d: cannot unmarshal number into Go struct field "
        "PodResourceClaim.spec.template.spec.resourceClaims.name of type string (expected a string)",
        id="deployment-claim-name-number",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\n"
        "metadata: {name: t, namespace: ml}\nspec:\n  metadata:\n    labels: [app]\n  spec: {}\n",
        6, 5,
        "ResourceClaimTemplate ml/t: cannot unmarshal array into Go struct field "
        "ObjectMeta.spec.metadata.labels of type map[string]string (expected a mapping)",
        id="template-labels-list",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c, namespace: ml}\n"
        "spec: [devices]\n",
        4, 1,  # a collection is pointed at by its key
        "ResourceClaim ml/c: cannot unmarshal array into Go struct field ResourceClaim.spec of "
        "type v1.ResourceClaimSpec (expected a mapping)",
        id="claim-spec-list",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c}\n"
        "spec:\n  selectors: {cel: {expression: 'true'}}\n",
        5, 3,
        "DeviceClass c: cannot unmarshal object into Go struct field DeviceClassSpec.spec.selectors "
        "of type []v1.DeviceSelector (expected a list)",
        id="class-selectors-mapping",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: gpu-node-3\n"
        "  pool: {name: p, generation: three, resourceSliceCount: 1}\n",
        7, 31,
        "ResourceSlice s: cannot unmarshal string into Go struct field "
        "ResourcePool.spec.pool.generation of type int64 (expected a whole number)",
        id="slice-generation-string",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: gpu-node-3\n"
        "  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: gpu-0\n    basic:\n      capacity: {memory: {value: 80GB}}\n",
        11, 34,
        "ResourceSlice s: spec.devices[0].basic.capacity.memory.value: quantities must match the "
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (a quantity is a number with an optional suffix, e.g. 4, 500m, 16Gi, 1e3 "
        '("16GB" is not one))',
        id="v1beta1-slice-quantity",
    ),
    pytest.param(
        "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\n"
        "spec:\n  deviceSelector: {driver: gpu.example.com}\n"
        "  taint: {key: k, effect: NoSchedule, timeAdded: yesterday}\n",
        6, 50,
        'DeviceTaintRule r: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC '
        '3339 time (write an RFC 3339 time such as "2025-01-31T12:00:00Z")',
        id="taint-rule-time",
    ),
]


POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n"
CONTAINER = POD + "  containers:\n  - name: c\n"
NODE = "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-9}\n"
QUANTITY_ERROR = (
    f"{ERR_FORMAT_WRONG} (a quantity is a number with an optional suffix, e.g. 4, 500m, 16Gi, 1e3 "
    '("16GB" is not one))'
)

# The fields the scheduler's plugins read, one wrong value each: Go's struct and type names of
# k8s.io/api core/v1 (named string types such as v1.TaintEffect too), and apimachinery's
# quantity error. (broken object appended to the example, line within it, column, message)
SCHEDULER_CASES = [
    pytest.param(
        POD + "  nodeName: [gpu-node-1]\n",
        5, 3,
        "Pod ml/p: cannot unmarshal array into Go struct field PodSpec.spec.nodeName of type "
        "string (expected a string)",
        id="pod-node-name-list",
    ),
    pytest.param(
        POD + "  schedulerName: 7\n",
        5, 18,
        "Pod ml/p: cannot unmarshal number into Go struct field PodSpec.spec.schedulerName of "
        "type string (expected a string)",
        id="pod-scheduler-name-number",
    ),
    pytest.param(
        POD + "  priority: high\n",
        5, 13,
        "Pod ml/p: cannot unmarshal string into Go struct field PodSpec.spec.priority of type "
        "int32 (expected a whole number)",
        id="pod-priority-string",
    ),
    pytest.param(
        POD + "  priority: 3000000000\n",
        5, 13,
        "Pod ml/p: cannot unmarshal number 3000000000 into Go struct field "
        "PodSpec.spec.priority of type int32 (expected a whole number from -2147483648 to "
        "2147483647 (the field is int32))",
        id="pod-priority-out-of-range",
    ),
    pytest.param(
        POD + "  preemptionPolicy: false\n",
        5, 21,
        "Pod ml/p: cannot unmarshal bool into Go struct field PodSpec.spec.preemptionPolicy of "
        "type v1.PreemptionPolicy (expected a string)",
        id="pod-preemption-policy-bool",
    ),
    pytest.param(
        POD + "  schedulingGates: {name: wait}\n",
        5, 3,
        "Pod ml/p: cannot unmarshal object into Go struct field PodSpec.spec.schedulingGates "
        "of type []v1.PodSchedulingGate (expected a list)",
        id="pod-scheduling-gates-mapping",
    ),
    pytest.param(
        POD + "  schedulingGates:\n  - name: [wait]\n",
        6, 5,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "PodSchedulingGate.spec.schedulingGates.name of type string (expected a string)",
        id="pod-scheduling-gate-name-list",
    ),
    pytest.param(
        POD + "  tolerations: {key: gpu}\n",
        5, 3,
        "Pod ml/p: cannot unmarshal object into Go struct field PodSpec.spec.tolerations of "
        "type []v1.Toleration (expected a list)",
        id="pod-tolerations-mapping",
    ),
    pytest.param(
        POD + "  tolerations:\n  - key: 1\n",
        6, 10,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "Toleration.spec.tolerations.key of type string (expected a string)",
        id="toleration-key-number",
    ),
    pytest.param(
        POD + "  tolerations:\n  - {key: gpu, operator: [Exists]}\n",
        6, 16,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "Toleration.spec.tolerations.operator of type v1.TolerationOperator (expected a "
        "string)",
        id="toleration-operator-list",
    ),
    pytest.param(
        POD + "  tolerations:\n  - {key: gpu, value: yes}\n",
        6, 23,
        "Pod ml/p: cannot unmarshal bool into Go struct field "
        "Toleration.spec.tolerations.value of type string (kubectl reads the plain scalar yes "
        'the YAML 1.1 way, as true; quote it ("yes") if you mean the string)',
        id="toleration-value-yaml11",
    ),
    pytest.param(
        POD + "  tolerations:\n  - {key: gpu, effect: 1}\n",
        6, 24,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "Toleration.spec.tolerations.effect of type v1.TaintEffect (expected a string)",
        id="toleration-effect-number",
    ),
    pytest.param(
        POD + "  tolerations:\n  - {key: gpu, effect: NoExecute, tolerationSeconds: '300'}\n",
        6, 54,
        "Pod ml/p: cannot unmarshal string into Go struct field "
        "Toleration.spec.tolerations.tolerationSeconds of type int64 (expected a whole number)",
        id="toleration-seconds-string",
    ),
    pytest.param(
        POD + "  containers: {name: c}\n",
        5, 3,
        "Pod ml/p: cannot unmarshal object into Go struct field PodSpec.spec.containers of "
        "type []v1.Container (expected a list)",
        id="pod-containers-mapping",
    ),
    pytest.param(
        POD + "  containers:\n  - name: 1\n",
        6, 11,
        "Pod ml/p: cannot unmarshal number into Go struct field Container.spec.containers.name "
        "of type string (expected a string)",
        id="container-name-number",
    ),
    pytest.param(
        POD + "  initContainers: c\n",
        5, 19,
        "Pod ml/p: cannot unmarshal string into Go struct field PodSpec.spec.initContainers of "
        "type []v1.Container (expected a list)",
        id="pod-init-containers-string",
    ),
    pytest.param(
        POD + "  initContainers:\n  - name: s\n    restartPolicy: true\n",
        7, 20,
        "Pod ml/p: cannot unmarshal bool into Go struct field "
        "Container.spec.initContainers.restartPolicy of type v1.ContainerRestartPolicy "
        "(expected a string)",
        id="init-container-restart-policy-bool",
    ),
    pytest.param(
        CONTAINER + "    resources: [cpu]\n",
        7, 5,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "Container.spec.containers.resources of type v1.ResourceRequirements (expected a "
        "mapping)",
        id="container-resources-list",
    ),
    pytest.param(
        CONTAINER + "    resources:\n      requests: [cpu]\n",
        8, 7,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "ResourceRequirements.spec.containers.resources.requests of type v1.ResourceList "
        "(expected a mapping)",
        id="container-requests-list",
    ),
    pytest.param(
        CONTAINER + "    resources:\n      limits: 1\n",
        8, 15,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList "
        "(expected a mapping)",
        id="container-limits-number",
    ),
    pytest.param(
        CONTAINER + "    ports: 8080\n",  # (NodePorts iterated it: a TypeError before)
        7, 12,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "Container.spec.containers.ports of type []v1.ContainerPort (expected a list)",
        id="container-ports-number",
    ),
    pytest.param(
        CONTAINER + "    ports:\n    - {containerPort: 80, hostPort: '8080'}\n",
        8, 37,
        "Pod ml/p: cannot unmarshal string into Go struct field "
        "ContainerPort.spec.containers.ports.hostPort of type int32 (expected a whole number)",
        id="host-port-string",
    ),
    pytest.param(
        CONTAINER + "    ports:\n    - {hostPort: 80, hostIP: [0.0.0.0]}\n",
        8, 22,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "ContainerPort.spec.containers.ports.hostIP of type string (expected a string)",
        id="host-ip-list",
    ),
    pytest.param(
        CONTAINER + "    ports:\n    - {hostPort: 80, protocol: 6}\n",
        8, 32,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "ContainerPort.spec.containers.ports.protocol of type v1.Protocol (expected a string)",
        id="port-protocol-number",
    ),
    pytest.param(
        POD + "  overhead: [cpu]\n",
        5, 3,
        "Pod ml/p: cannot unmarshal array into Go struct field PodSpec.spec.overhead of type "
        "v1.ResourceList (expected a mapping)",
        id="pod-overhead-list",
    ),
    pytest.param(
        POD + "  resources: 2\n",
        5, 14,
        "Pod ml/p: cannot unmarshal number into Go struct field PodSpec.spec.resources of type "
        "v1.ResourceRequirements (expected a mapping)",
        id="pod-resources-number",
    ),
    pytest.param(
        POD + "  affinity:\n    nodeAffinity: [zone]\n",
        6, 5,
        "Pod ml/p: cannot unmarshal array into Go struct field "
        "Affinity.spec.affinity.nodeAffinity of type v1.NodeAffinity (expected a mapping)",
        id="pod-node-affinity-list",
    ),
    pytest.param(
        POD + "  volumes: 1\n",  # (VolumeBinding's note iterated it: a TypeError before)
        5, 12,
        "Pod ml/p: cannot unmarshal number into Go struct field PodSpec.spec.volumes of type "
        "[]v1.Volume (expected a list)",
        id="pod-volumes-number",
    ),
    pytest.param(
        POD + "  topologySpreadConstraints: 1\n",  # (a TypeError in PodTopologySpread before)
        5, 30,
        "Pod ml/p: cannot unmarshal number into Go struct field "
        "PodSpec.spec.topologySpreadConstraints of type []v1.TopologySpreadConstraint "
        "(expected a list)",
        id="pod-topology-spread-number",
    ),
    pytest.param(
        POD + "  affinity:\n"
              "    podAffinity:\n"
              "      requiredDuringSchedulingIgnoredDuringExecution: {topologyKey: zone}\n",
        7, 7,
        "Pod ml/p: cannot unmarshal object into Go struct field "
        "PodAffinity.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution "
        "of type []v1.PodAffinityTerm (expected a list)",
        id="pod-affinity-terms-mapping",
    ),
    pytest.param(
        POD + "  containers: []\nstatus:\n  phase: [Running]\n",
        7, 3,
        "Pod ml/p: cannot unmarshal array into Go struct field PodStatus.status.phase of type "
        "v1.PodPhase (expected a string)",
        id="pod-phase-list",
    ),
    pytest.param(
        POD + "  containers: []\nstatus:\n  resourceClaimStatuses: {name: gpus}\n",
        7, 3,
        "Pod ml/p: cannot unmarshal object into Go struct field "
        "PodStatus.status.resourceClaimStatuses of type []v1.PodResourceClaimStatus (expected "
        "a list)",
        id="pod-claim-statuses-mapping",
    ),
    pytest.param(
        POD + "  containers: []\nstatus:\n  conditions: Ready\n",
        7, 15,
        "Pod ml/p: cannot unmarshal string into Go struct field PodStatus.status.conditions of "
        "type []v1.PodCondition (expected a list)",
        id="pod-conditions-string",
    ),
    pytest.param(
        POD + "  containers: []\nstatus:\n  startTime: yesterday\n",
        7, 14,
        'Pod ml/p: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 '
        'time (write an RFC 3339 time such as "2025-01-31T12:00:00Z")',
        id="pod-start-time",
    ),
    pytest.param(
        CONTAINER + "    resources:\n      requests: {cpu: 500mc}\n",
        8, 23,
        f"Pod ml/p: spec.containers[0].resources.requests.cpu: {QUANTITY_ERROR}",
        id="quantity-requests",
    ),
    pytest.param(
        CONTAINER + "    resources:\n      limits: {nvidia.com/gpu: true}\n",
        8, 32,
        f"Pod ml/p: spec.containers[0].resources.limits.nvidia.com/gpu: {QUANTITY_ERROR}",
        id="quantity-limits-bool",
    ),
    pytest.param(
        POD + "  overhead: {memory: 1 GiB}\n",
        5, 22,
        f"Pod ml/p: spec.overhead.memory: {QUANTITY_ERROR}",
        id="quantity-overhead",
    ),
    pytest.param(
        POD + "  resources:\n    requests: {memory: 16GB}\n",
        6, 24,
        f"Pod ml/p: spec.resources.requests.memory: {QUANTITY_ERROR}",
        id="quantity-pod-level",
    ),
    pytest.param(
        POD + "  containers: []\n"
              "status:\n"
              "  containerStatuses:\n"
              "  - {name: c, allocatedResources: {cpu: 1 core}}\n",
        8, 41,
        f"Pod ml/p: status.containerStatuses[0].allocatedResources.cpu: {QUANTITY_ERROR}",
        id="quantity-allocated-resources",
    ),
    pytest.param(
        NODE + "spec: cordoned\n",
        4, 7,
        "Node gpu-node-9: cannot unmarshal string into Go struct field Node.spec of type "
        "v1.NodeSpec (expected a mapping)",
        id="node-spec-string",
    ),
    pytest.param(
        NODE + "spec:\n  unschedulable: 'true'\n",
        5, 18,
        "Node gpu-node-9: cannot unmarshal string into Go struct field "
        "NodeSpec.spec.unschedulable of type bool (expected true or false)",
        id="node-unschedulable-string",
    ),
    pytest.param(
        NODE + "spec:\n  taints: {key: gpu}\n",
        5, 3,
        "Node gpu-node-9: cannot unmarshal object into Go struct field NodeSpec.spec.taints of "
        "type []v1.Taint (expected a list)",
        id="node-taints-mapping",
    ),
    pytest.param(
        NODE + "spec:\n  taints:\n  - {key: 1, effect: NoSchedule}\n",
        6, 11,
        "Node gpu-node-9: cannot unmarshal number into Go struct field Taint.spec.taints.key "
        "of type string (expected a string)",
        id="taint-key-number",
    ),
    pytest.param(
        NODE + "spec:\n  taints:\n  - {key: gpu, value: on, effect: NoSchedule}\n",
        6, 23,
        "Node gpu-node-9: cannot unmarshal bool into Go struct field Taint.spec.taints.value "
        "of type string (kubectl reads the plain scalar on the YAML 1.1 way, as true; quote it "
        '("on") if you mean the string)',
        id="taint-value-yaml11",
    ),
    pytest.param(
        NODE + "spec:\n  taints:\n  - {key: gpu, effect: [NoSchedule]}\n",
        6, 16,
        "Node gpu-node-9: cannot unmarshal array into Go struct field Taint.spec.taints.effect "
        "of type v1.TaintEffect (expected a string)",
        id="taint-effect-list",
    ),
    pytest.param(
        NODE + "spec:\n  taints:\n  - {key: gpu, effect: NoSchedule, timeAdded: now}\n",
        6, 47,
        'Node gpu-node-9: parsing time "now" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 '
        'time (write an RFC 3339 time such as "2025-01-31T12:00:00Z")',
        id="taint-time-added",
    ),
    pytest.param(
        NODE + "status: Ready\n",
        4, 9,
        "Node gpu-node-9: cannot unmarshal string into Go struct field Node.status of type "
        "v1.NodeStatus (expected a mapping)",
        id="node-status-string",
    ),
    pytest.param(
        NODE + "status:\n  allocatable: [cpu]\n",
        5, 3,
        "Node gpu-node-9: cannot unmarshal array into Go struct field "
        "NodeStatus.status.allocatable of type v1.ResourceList (expected a mapping)",
        id="node-allocatable-list",
    ),
    pytest.param(
        NODE + "status:\n  allocatable: {cpu: '32', memory: 256 GB}\n",
        5, 36,
        f"Node gpu-node-9: status.allocatable.memory: {QUANTITY_ERROR}",
        id="quantity-allocatable",
    ),
    pytest.param(
        "apiVersion: apps/v1\n"
        "kind: Deployment\n"
        "metadata: {name: d, namespace: ml}\n"
        "spec:\n"
        "  template:\n"
        "    spec:\n"
        "      tolerations:\n"
        "      - {key: gpu, tolerationSeconds: 1.5}\n",
        8, 39,
        "Deployment ml/d: cannot unmarshal number 1.5 into Go struct field "
        "Toleration.spec.template.spec.tolerations.tolerationSeconds of type int64 (expected a "
        "whole number)",
        id="deployment-toleration-seconds-fraction",
    ),
    pytest.param(
        "apiVersion: batch/v1\n"
        "kind: CronJob\n"
        "metadata: {name: cj, namespace: ml}\n"
        "spec:\n"
        "  jobTemplate:\n"
        "    spec:\n"
        "      template:\n"
        "        spec:\n"
        "          containers:\n"
        "          - name: c\n"
        "            resources: {requests: {cpu: x}}\n",
        11, 41,
        "CronJob ml/cj: spec.jobTemplate.spec.template.spec.containers[0].resources.requests.cpu: "
        f"{QUANTITY_ERROR}",
        id="cronjob-quantity",
    ),

]


def explain(text: str, *args: str) -> tuple[int, str, str]:
    result = invoke(["explain", *args, "-"], input=text)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("broken", "line", "column", "message"), [*CASES, *SCHEDULER_CASES])
def test_undecodable_object_is_bad_input(broken: str, line: int, column: int, message: str) -> None:
    code, stdout, stderr = explain(STREAM + broken)
    assert code == 2
    assert stdout == ""
    assert stderr == f"dractl: error: <stdin>:{FIRST_LINE + line - 1}:{column}: {message}\n"


def test_every_error_is_named_in_file_order() -> None:
    broken = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: x, annotations: y}\n"
    code, _, stderr = explain(STREAM + broken)
    assert code == 2
    lines = stderr.splitlines()
    assert [line.split(": ")[3] for line in lines] == ["Pod default/p", "Pod default/p"]
    assert "metadata.labels" in lines[0] and "metadata.annotations" in lines[1]


@pytest.mark.parametrize(
    "harmless",
    [
        # unknown fields: a decoder that is not strict drops them (lint reports them, DRA010)
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: other}\n"
        "spec: {colour: blue}\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-1b, colour: blue}\n",
        # objects explain does not read
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: [x]}\ndata: [1, 2]\n",
        "apiVersion: example.com/v1\nkind: Node\nmetadata: {name: [x]}\n",
        # a resource.k8s.io version dractl does not model is not a DRA object
        "apiVersion: resource.k8s.io/v1alpha3\nkind: ResourceSlice\nmetadata: {name: s}\n"
        "spec: {pool: [x]}\n",
        # null is every field's zero value
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: null}\nspec: {resourceClaims: null}\n",
        # what the scheduler's plugins read, decodable: numbers as quantities, a whole number
        # written as a float (kubectl sends 8080), nulls, unknown fields inside known structs
        POD + "  priority: null\n  nodeName: ''\n"
        "  tolerations: [{key: gpu, operator: Exists, tolerationSeconds: 300.0, colour: red}, null]\n"
        "  overhead: {cpu: 0.25}\n  containers:\n  - name: c\n"
        "    ports: [{containerPort: 80, hostPort: 8080.0, protocol: null}]\n"
        "    resources: {requests: {cpu: 1, memory: 1e9}, limits: {nvidia.com/gpu: '1', cpu: null}}\n"
        "status: {phase: Pending, conditions: [{type: PodScheduled, status: 'False'}]}\n",
        # a Node's status but for its allocatable is not read (nor checked)
        NODE + "spec: {unschedulable: false, taints: [{key: gpu, effect: NoSchedule}]}\n"
        "status: {allocatable: {cpu: 32, memory: 256Gi, pods: '110'}, conditions: Ready}\n",
    ],
)
def test_what_explain_does_not_read_or_can_decode_is_no_error(harmless: str) -> None:
    code, stdout, stderr = explain(STREAM + harmless)
    assert (code, stderr) == (0, "")
    assert "1 of " in stdout and "nodes can allocate the claim" in stdout


def test_decode_errors_cover_only_what_explain_reads() -> None:
    objects = build_all(load_text(STREAM + CASES[0].values[0], "in.yaml").objects)
    (error,) = decode_errors(objects, "1.36")
    assert error.obj.kind == "Pod" and error.position.line == FIRST_LINE + 4


def test_select_refuses_an_undecodable_slice() -> None:
    slice_ = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: s}\nspec:\n"
        "  driver: gpu.example.com\n  nodeName: n1\n  pool: {name: p, generation: 1, resourceSliceCount: 1}\n"
        "  devices:\n  - name: gpu-0\n    attributes:\n      model: {string: [[A100]]}\n"
    )
    result = invoke(["select", "true", "-"], input=slice_)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        "dractl: error: <stdin>:11:15: ResourceSlice s: cannot unmarshal array into Go struct "
        "field DeviceAttribute.spec.devices.attributes.string of type string (expected a string)\n"
    )


def test_lint_allocator_rule_is_silent_on_undecodable_nodes() -> None:
    broken = CLUSTER.replace("labels: {kubernetes.io/hostname: gpu-node-1}", "labels: zone-a", 1)
    assert broken != CLUSTER
    result = invoke(
        ["lint", "--color", "never", "--format", "json", "-"], input=broken + "---\n" + POD
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    # the Node is reported once, where it cannot be decoded; the allocator rule says nothing
    found = json.loads(result.stdout)["diagnostics"]
    errors = [(d["rule"], d["kind"], d["line"]) for d in found if d["severity"] == "error"]
    assert errors == [("DRA011", "Node", 6)], result.stdout
    assert "DRA341" not in [d["rule"] for d in found]
    assert result.exit_code == 1
