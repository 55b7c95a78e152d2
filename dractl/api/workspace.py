"""Every object of a run, indexed for cross-object checks and the allocator."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import cached_property

from dractl.api.model import ApiObject

WORKLOAD_KINDS = ("Deployment", "Job", "StatefulSet", "DaemonSet", "ReplicaSet", "CronJob")


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
