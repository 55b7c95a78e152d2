"""NodePorts (PreFilter + Filter): the host ports a Pod asks for must be free on the node
(``pkg/scheduler/framework/plugins/nodeports``; ``HostPortInfo`` in the framework's types).

Host ports are those of regular containers and sidecars (init containers with
``restartPolicy: Always``), the ones that run for the Pod's whole life; ``hostPort`` 0 asks for
nothing. A wanted (hostIP, protocol, port) conflicts with a used one of the same protocol and
port when the host IPs are equal or either is ``0.0.0.0`` (binds every address). An empty
hostIP means ``0.0.0.0`` and an empty protocol ``TCP``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from dractl.records import Record
from dractl.scheduler.objects import NodeState, PodInfo, is_sidecar, is_terminal
from dractl.scheduler.plugin import FILTER, PRE_FILTER, CycleState, Plugin, PreFilterResult
from dractl.scheduler.status import SUCCESS, Status, skip, unschedulable

REASON = "node(s) didn't have free ports for the requested pod ports"
BIND_ALL = "0.0.0.0"


class HostPort(Record):
    """One host port, with upstream's defaults applied."""

    __slots__ = ("host_ip", "port", "protocol")
    __hash__ = Record.value_hash

    def __init__(self, host_ip: str, protocol: str, port: int) -> None:
        self.host_ip = host_ip
        self.protocol = protocol
        self.port = port

    def conflicts(self, used: HostPort) -> bool:
        if (self.protocol, self.port) != (used.protocol, used.port):
            return False
        return BIND_ALL in (self.host_ip, used.host_ip) or self.host_ip == used.host_ip

    def __str__(self) -> str:
        return f"{self.host_ip}:{self.port}/{self.protocol}"


def _port_number(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def host_ports(spec: Mapping[str, Any]) -> list[HostPort]:
    """``util.GetHostPorts``: the host ports of a Pod spec's sidecars and regular containers."""
    containers = [c for c in spec.get("initContainers") or [] if isinstance(c, dict) and is_sidecar(c)]
    containers += [c for c in spec.get("containers") or [] if isinstance(c, dict)]
    ports: list[HostPort] = []
    for container in containers:
        for port in container.get("ports") or []:
            if not isinstance(port, dict):
                continue
            number = _port_number(port.get("hostPort"))
            if number > 0:
                ports.append(HostPort(str(port.get("hostIP") or BIND_ALL), str(port.get("protocol") or "TCP"), number))
    return ports


def _used_ports(node: NodeState) -> Iterator[tuple[HostPort, Mapping[str, Any]]]:
    for pod in node.pods:
        if is_terminal(pod):
            continue
        spec = pod.get("spec")
        for port in host_ports(spec if isinstance(spec, dict) else {}):
            yield port, pod


def _pod_name(pod: Mapping[str, Any]) -> str:
    metadata = pod.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return f"{metadata.get('namespace') or 'default'}/{metadata.get('name') or ''}"


class NodePorts(Plugin):
    name = "NodePorts"
    extension_points = frozenset({PRE_FILTER, FILTER})

    def pre_filter(self, cycle: CycleState, pod: PodInfo) -> PreFilterResult:
        wanted = host_ports(pod.spec)
        if not wanted:
            return PreFilterResult(skip())
        cycle[self.name] = wanted
        return PreFilterResult(SUCCESS)

    def filter(self, cycle: CycleState, pod: PodInfo, node: NodeState) -> Status:
        wanted = cycle.get(self.name)
        if wanted is None:
            # Filter without PreFilter (the scheduler always runs both; callers may not).
            wanted = host_ports(pod.spec)
        if not wanted:
            return SUCCESS
        used = list(_used_ports(node))
        clashes = [
            f"{want} is taken by Pod {_pod_name(holder)} ({taken})"
            for want in wanted
            for taken, holder in used
            if want.conflicts(taken)
        ]
        if not clashes:
            return SUCCESS
        return unschedulable(REASON, detail="; ".join(dict.fromkeys(clashes)))
