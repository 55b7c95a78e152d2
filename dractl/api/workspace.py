"""Every object of a run, indexed for cross-object checks and the allocator."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from dractl.api.model import ApiObject

WORKLOAD_KINDS = ("Deployment", "Job", "StatefulSet", "DaemonSet", "ReplicaSet", "CronJob")

# Where the pod spec sits in Pods and in the pod templates of workloads, by (API group, kind).
POD_SPEC_PATHS: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "Pod"): ("spec",),
    ("apps", "Deployment"): ("spec", "template", "spec"),
    ("apps", "StatefulSet"): ("spec", "template", "spec"),
    ("apps", "DaemonSet"): ("spec", "template", "spec"),
    ("apps", "ReplicaSet"): ("spec", "template", "spec"),
    ("batch", "Job"): ("spec", "template", "spec"),
    ("batch", "CronJob"): ("spec", "jobTemplate", "spec", "template", "spec"),
}


class PodSpec:
    """The pod spec of a Pod or of a workload's pod template, and its path inside ``obj.data``."""

    __slots__ = ("obj", "path")

    def __init__(self, obj: ApiObject, path: tuple[str, ...]) -> None:
        self.obj = obj
        self.path = path

    @property
    def data(self) -> dict[str, Any]:
        spec = self.obj.get(self.path)
        return spec if isinstance(spec, dict) else {}


class Workspace:
    """Objects under check plus context objects (read for reference, never reported on)."""

    def __init__(self, objects: Iterable[ApiObject], context: Iterable[ApiObject] = ()) -> None:
        self.checked: list[ApiObject] = list(objects)
        self.context: list[ApiObject] = list(context)
        self._context_ids = {id(o) for o in self.context}

    @property
    def all(self) -> list[ApiObject]:
        return self.checked + self.context

    def is_context(self, obj: ApiObject) -> bool:
        return id(obj) in self._context_ids

    @cached_property
    def by_kind(self) -> dict[str, list[ApiObject]]:
        out: dict[str, list[ApiObject]] = defaultdict(list)
        for obj in self.all:
            out[obj.kind].append(obj)
        return out

    def kind(self, kind: str, *, dra_only: bool = True) -> list[ApiObject]:
        return [o for o in self.by_kind.get(kind, []) if o.dra or not dra_only]

    @cached_property
    def device_classes(self) -> dict[str, ApiObject]:
        return {o.name: o for o in self.kind("DeviceClass") if o.name}

    @cached_property
    def claims(self) -> dict[str, ApiObject]:
        """ResourceClaims by ``namespace/name`` (namespace ``default`` when omitted)."""
        return {o.qualified_name: o for o in self.kind("ResourceClaim") if o.name}

    @cached_property
    def claim_templates(self) -> dict[str, ApiObject]:
        return {o.qualified_name: o for o in self.kind("ResourceClaimTemplate") if o.name}

    @cached_property
    def slices(self) -> list[ApiObject]:
        return self.kind("ResourceSlice")

    @cached_property
    def nodes(self) -> dict[str, ApiObject]:
        return {o.name: o for o in self.by_kind.get("Node", []) if o.group == "" and o.name}

    @cached_property
    def namespaces(self) -> dict[str, ApiObject]:
        return {o.name: o for o in self.by_kind.get("Namespace", []) if o.group == "" and o.name}

    @cached_property
    def pod_specs(self) -> list[PodSpec]:
        """Pods and the pod templates of Deployments, Jobs, StatefulSets, ... (in input order)."""
        out: list[PodSpec] = []
        for obj in self.all:
            path = POD_SPEC_PATHS.get((obj.group, obj.kind))
            if path is not None and isinstance(obj.get(path), dict):
                out.append(PodSpec(obj, path))
        return out

    @cached_property
    def pools(self) -> dict[tuple[str, str], list[ApiObject]]:
        """ResourceSlices by (driver, pool name), every generation, in input order."""
        out: dict[tuple[str, str], list[ApiObject]] = defaultdict(list)
        for obj in self.slices:
            driver = obj.get(("spec", "driver"))
            pool = obj.get(("spec", "pool", "name"))
            if isinstance(driver, str) and isinstance(pool, str):
                out[(driver, pool)].append(obj)
        return dict(out)
