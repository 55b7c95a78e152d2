"""Schemas for the fields dractl reads from objects outside the bundled DRA kinds.

``dractl explain`` (and lint's allocator rule) read names, labels and the pod-level claim
references of Pods, of workloads' pod templates and of Nodes, workloads' pod counts and the
node selection of their pod templates, and the selector and taint of
DeviceTaintRules. Upstream's types for these are large; the schemas here hold only the fields
dractl reads, typed as upstream's Go types and named after their OpenAPI definitions (so a
decoding error reads as the apiserver prints it), and accept every other field. ObjectMeta and
Time are the bundled definitions of the same release.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from dractl.api.schemas import load_schema

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
POD_SPEC = "io.k8s.api.core.v1.PodSpec"
POD_STATUS = "io.k8s.api.core.v1.PodStatus"
POD_TEMPLATE_SPEC = "io.k8s.api.core.v1.PodTemplateSpec"
JOB_SPEC = "io.k8s.api.batch.v1.JobSpec"

# The workloads whose spec holds a pod template under ``template``, by (API group, kind).
_TEMPLATE_WORKLOADS = {
    ("apps", "Deployment"): "io.k8s.api.apps.v1.DeploymentSpec",
    ("apps", "StatefulSet"): "io.k8s.api.apps.v1.StatefulSetSpec",
    ("apps", "DaemonSet"): "io.k8s.api.apps.v1.DaemonSetSpec",
    ("apps", "ReplicaSet"): "io.k8s.api.apps.v1.ReplicaSetSpec",
    ("batch", "Job"): JOB_SPEC,
}
# The kinds outside resource.k8s.io that dractl reads (Nodes, Pods, the workloads with a pod
# template): their fields that it reads have a schema here.
CORE_KINDS = frozenset({"Pod", "Node", "CronJob", *(kind for _, kind in _TEMPLATE_WORKLOADS)})
# DeviceTaintRule: v1alpha3 from Kubernetes 1.33, v1beta2 from 1.36.
DEVICE_TAINT_RULE_VERSIONS = ("v1alpha3", "v1beta2")


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _struct(**fields: Any) -> dict[str, Any]:
    return {"type": "object", "properties": fields}


_STRING = {"type": "string"}

_INT32 = {"type": "integer", "format": "int32"}
NODE_SELECTOR = "io.k8s.api.core.v1.NodeSelector"
# Where workloads say how many Pods they run (explain places them one by one).
_POD_COUNTS: dict[str, dict[str, Any]] = {
    "io.k8s.api.apps.v1.DeploymentSpec": {"replicas": _INT32},
    "io.k8s.api.apps.v1.StatefulSetSpec": {"replicas": _INT32},
    "io.k8s.api.apps.v1.ReplicaSetSpec": {"replicas": _INT32},
    JOB_SPEC: {"parallelism": _INT32, "completions": _INT32},
}

_CORE_DEFS: dict[str, Any] = {
    POD_SPEC: _struct(
        resourceClaims={"type": "array", "items": _ref("io.k8s.api.core.v1.PodResourceClaim")},
        # A DaemonSet runs a Pod on the nodes these match.
        nodeSelector={"type": "object", "additionalProperties": _STRING},
        affinity=_ref("io.k8s.api.core.v1.Affinity"),
    ),
    "io.k8s.api.core.v1.Affinity": _struct(nodeAffinity=_ref("io.k8s.api.core.v1.NodeAffinity")),
    "io.k8s.api.core.v1.NodeAffinity": _struct(requiredDuringSchedulingIgnoredDuringExecution=_ref(NODE_SELECTOR)),
    "io.k8s.api.core.v1.PodResourceClaim": _struct(
        name=_STRING, resourceClaimName=_STRING, resourceClaimTemplateName=_STRING
    ),
    # The names of the claims the resource-claim controller made from templates.
    POD_STATUS: _struct(
        resourceClaimStatuses={"type": "array", "items": _ref("io.k8s.api.core.v1.PodResourceClaimStatus")}
    ),
    "io.k8s.api.core.v1.PodResourceClaimStatus": _struct(name=_STRING, resourceClaimName=_STRING),
    POD_TEMPLATE_SPEC: _struct(metadata=_ref(OBJECT_META), spec=_ref(POD_SPEC)),
    **{
        spec: _struct(template=_ref(POD_TEMPLATE_SPEC), **_POD_COUNTS.get(spec, {}))
        for spec in _TEMPLATE_WORKLOADS.values()
    },
    "io.k8s.api.batch.v1.CronJobSpec": _struct(
        jobTemplate=_ref("io.k8s.api.batch.v1.JobTemplateSpec")
    ),
    "io.k8s.api.batch.v1.JobTemplateSpec": _struct(metadata=_ref(OBJECT_META), spec=_ref(JOB_SPEC)),
}


def _device_taint_rule_defs(version: str) -> dict[str, Any]:
    package = f"io.k8s.api.resource.{version}"
    return {
        f"{package}.DeviceTaintRuleSpec": _struct(
            deviceSelector=_ref(f"{package}.DeviceTaintSelector"),
            taint=_ref(f"{package}.DeviceTaint"),
        ),
        f"{package}.DeviceTaintSelector": _struct(driver=_STRING, pool=_STRING, device=_STRING),
        f"{package}.DeviceTaint": _struct(
            key=_STRING, value=_STRING, effect=_STRING, timeAdded=_ref(TIME)
        ),
    }


def _spec_definition(group: str, version: str, kind: str) -> str | None:
    """The definition of ``spec`` for a kind with a core schema; "" for kinds without a spec."""
    if (group, kind) == ("", "Pod"):
        return POD_SPEC
    if (group, kind) == ("", "Node"):
        return ""
    if (group, kind) == ("batch", "CronJob"):
        return "io.k8s.api.batch.v1.CronJobSpec"
    if group == "resource.k8s.io" and kind == "DeviceTaintRule":
        if version not in DEVICE_TAINT_RULE_VERSIONS:
            return None
        return f"io.k8s.api.resource.{version}.DeviceTaintRuleSpec"
    return _TEMPLATE_WORKLOADS.get((group, kind))


def has_core_schema(group: str, version: str, kind: str) -> bool:
    return _spec_definition(group, version, kind) is not None


@cache
def core_schema(release: str, group: str, version: str, kind: str) -> dict[str, Any] | None:
    """The schema of the fields dractl reads from ``kind``, or None when dractl reads none."""
    spec = _spec_definition(group, version, kind)
    if spec is None:
        return None
    bundled = load_schema(release, "v1", "ResourceClaim")
    if bundled is None:
        return None
    # ObjectMeta, Time, and what ObjectMeta refers to (owner references, managed fields).
    defs = {
        name: node
        for name, node in bundled["$defs"].items()
        if name.startswith(("io.k8s.apimachinery.pkg.apis.meta.", NODE_SELECTOR))
    }
    defs.update(_CORE_DEFS)
    if kind == "DeviceTaintRule":
        defs.update(_device_taint_rule_defs(version))
    properties: dict[str, Any] = {"metadata": _ref(OBJECT_META)}
    if spec:
        properties["spec"] = _ref(spec)
    if spec == POD_SPEC:  # a Pod
        properties["status"] = _ref(POD_STATUS)
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": properties,
        "$defs": defs,
    }
