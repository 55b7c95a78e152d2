"""The scheduler's view of a Pod and of a Node, read from manifests.

:class:`PodInfo` is the Pod being scheduled (a Pod, or a workload's pod template with the Pod's
name filled in); :class:`NodeState` is one node as the scheduler's NodeInfo holds it: the Node
object (absent when only a ResourceSlice names the node), and the Pods already bound to it
(``spec.nodeName``), which count for ports, pod count and requested resources. Everything is
read on first use, so that a plugin that never runs costs nothing on 15,000 nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import Any, Generic, TypeVar, overload

from dractl.allocator.nodes import NodeInfo

_T = TypeVar("_T")


class _once(Generic[_T]):
    """A property computed on first use and kept in the instance's ``__dict__``, as
    ``functools.cached_property`` does but without the lock Python 3.11 takes on each first use
    (read once per node and property, for every node of a run)."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _once[_T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> _T | _once[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


class PodInfo:
    """The Pod being scheduled: ``namespace``, ``name``, ``uid`` and its ``spec``, ``metadata``
    and ``status`` as plain data."""

    def __init__(self, namespace: str, name: str, spec: Mapping[str, Any],
                 metadata: Mapping[str, Any] | None = None, status: Mapping[str, Any] | None = None,
                 source: Any = None) -> None:
        self.namespace = namespace
        self.name = name
        self.spec: Mapping[str, Any] = spec
        self.metadata: Mapping[str, Any] = {} if metadata is None else metadata
        self.status: Mapping[str, Any] = {} if status is None else status
        self.source = source  # the ApiObject it was read from (a Pod or a workload), if any

    @classmethod
    def from_manifest(cls, data: Mapping[str, Any], source: Any = None) -> PodInfo:
        metadata = _dict(data.get("metadata"))
        return cls(str(metadata.get("namespace") or "default"), str(metadata.get("name") or ""),
                   _dict(data.get("spec")), metadata, _dict(data.get("status")), source)

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def uid(self) -> str:
        return str(self.metadata.get("uid") or "")

    @cached_property
    def containers(self) -> list[dict[str, Any]]:
        return [c for c in _list(self.spec.get("containers")) if isinstance(c, dict)]

    @cached_property
    def init_containers(self) -> list[dict[str, Any]]:
        return [c for c in _list(self.spec.get("initContainers")) if isinstance(c, dict)]

    @cached_property
    def tolerations(self) -> list[dict[str, Any]]:
        return [t for t in _list(self.spec.get("tolerations")) if isinstance(t, dict)]

    @property
    def node_name(self) -> str:
        return str(self.spec.get("nodeName") or "")

    @property
    def scheduler_name(self) -> str:
        return str(self.spec.get("schedulerName") or "default-scheduler")


def is_sidecar(container: Mapping[str, Any]) -> bool:
    """An init container with ``restartPolicy: Always`` runs beside the regular containers."""
    return container.get("restartPolicy") == "Always"


def is_terminal(pod: Mapping[str, Any]) -> bool:
    """A Pod that has Succeeded or Failed holds nothing of its node."""
    return _dict(pod.get("status")).get("phase") in ("Succeeded", "Failed")


class NodeState:
    """One node: its Node object (``data``; None when only a ResourceSlice names the node) and
    the Pods bound to it (manifests, terminal ones left out)."""

    def __init__(self, info: NodeInfo, data: Mapping[str, Any] | None = None,
                 pods: list[Mapping[str, Any]] | None = None) -> None:
        self.info = info
        self.data = data
        self.pods: list[Mapping[str, Any]] = [] if pods is None else pods

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def labels(self) -> Mapping[str, str]:
        return self.info.labels

    @property
    def exists(self) -> bool:
        return self.data is not None

    @_once
    def spec(self) -> dict[str, Any]:
        return _dict((self.data or {}).get("spec"))

    @_once
    def taints(self) -> list[dict[str, Any]]:
        return [t for t in _list(self.spec.get("taints")) if isinstance(t, dict)]

    @property
    def unschedulable(self) -> bool:
        return self.spec.get("unschedulable") is True

    @_once
    def allocatable_known(self) -> bool:
        """Whether the input says what the node can hold (``status.allocatable``): a Node
        written by hand, or named only by a ResourceSlice, does not."""
        status = (self.data or {}).get("status")
        return isinstance(status, dict) and isinstance(status.get("allocatable"), dict)

    @_once
    def allocatable(self) -> dict[str, Any]:
        """``status.allocatable`` as written (quantity strings)."""
        return _dict(_dict((self.data or {}).get("status")).get("allocatable"))


def with_default_requests(spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """The pod spec as the apiserver stores it: a container's limit of a resource it does not
    request becomes its request (``SetDefaults_Container``; a limits-only ``nvidia.com/gpu: 1`` is
    a request of one). The spec is returned as it is when nothing changes."""
    changed = False
    out = dict(spec)
    for key in ("containers", "initContainers"):
        containers = spec.get(key)
        if not isinstance(containers, list):
            continue
        defaulted = []
        for container in containers:
            resources = container.get("resources") if isinstance(container, dict) else None
            limits = resources.get("limits") if isinstance(resources, dict) else None
            requests = resources.get("requests") if isinstance(resources, dict) else None
            if isinstance(limits, dict) and limits and (requests is None or isinstance(requests, dict)):
                missing = {name: value for name, value in limits.items() if name not in (requests or {})}
                if missing:
                    container = {**container, "resources": {**resources, "requests": {**(requests or {}), **missing}}}
                    changed = True
            defaulted.append(container)
        out[key] = defaulted
    return out if changed else spec
