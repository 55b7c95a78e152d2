"""One view of every object, whatever version the author wrote.

``ApiObject.data`` is plain data (dicts, lists, scalars; map keys are strings as kubectl's decoder
makes them) in the v1 shape: v1beta1 request fields sit under ``exactly`` and v1beta1 device
fields are hoisted out of ``basic``, as the apiserver's conversion does. No defaults are applied
here (see :mod:`dractl.api.defaults`). ``position(v1_path)`` maps a v1 path back to the key the
author wrote, so diagnostics point into the author's file even for v1beta1 input.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from dractl.api.versions import (
    GROUP,
    NAMESPACED_KINDS,
    REQUEST_LISTS,
    V1BETA1_REQUEST_FIELDS,
    is_dra,
    request_field_is_set,
)
from dractl.diagnostics import ObjectRef, Position
from dractl.load.objects import KubeObject

_PLAIN_SCALARS = frozenset(
    {str, int, float, bool, type(None)}
)  # exactly these types, not subclasses


def plain(node: Any) -> Any:
    """ruamel round-trip tree → JSON-like Python data, as kubectl would send it."""
    if node.__class__ in _PLAIN_SCALARS:  # most of a tree: no conversion
        return node
    if isinstance(node, dict):
        return {k if k.__class__ is str else _key(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    value = getattr(node, "value", None)  # tagged scalars
    return str(value) if value is not None else str(node)


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, float):
        if key != key:
            return ".nan"  # sigs.k8s.io/yaml writes a float key as go-yaml would
        if key in (math.inf, -math.inf):
            return ".inf" if key > 0 else "-.inf"
        if key.is_integer():
            return str(int(key))
    return str(key)


class ApiObject:
    """A Kubernetes object read from an input, normalised to the v1 shape for DRA kinds."""

    __slots__ = ("_redirects", "data", "dra", "memo", "source")

    def __init__(
        self,
        source: KubeObject,
        data: dict[str, Any],
        dra: bool,
        _redirects: list[tuple[tuple[Any, ...], int, tuple[Any, ...]]] | None = None,
        memo: dict[Any, Any] | None = None,
    ) -> None:
        self.source = source
        self.data = data
        self.dra = dra
        # (v1 path prefix, parts to drop, the author's prefix); only v1beta1 objects have any
        self._redirects: list[tuple[tuple[Any, ...], int, tuple[Any, ...]]] | tuple[()] = (
            () if _redirects is None else _redirects
        )
        # Results of pure functions of the object, kept for the next rule or command that asks.
        self.memo = {} if memo is None else memo

    @property
    def kind(self) -> str:
        return self.source.kind

    @property
    def api_version(self) -> str:
        return self.source.api_version

    @property
    def group(self) -> str:
        return self.source.group

    @property
    def version(self) -> str:
        return self.source.version

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.data.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self) -> str | None:
        name = self.metadata.get("name")
        return name if isinstance(name, str) and name else None

    @property
    def namespace(self) -> str | None:
        """The namespace as written; see ``effective_namespace`` for what the apiserver uses."""
        ns = self.metadata.get("namespace")
        return ns if isinstance(ns, str) and ns else None

    @property
    def effective_namespace(self) -> str | None:
        """``default`` for namespaced objects without a namespace (as ``kubectl apply`` does)."""
        if self.namespace:
            return self.namespace
        return "default" if self.kind in NAMESPACED_KINDS or self.kind in _CORE_NAMESPACED else None

    @property
    def qualified_name(self) -> str:
        ns = self.effective_namespace
        return f"{ns}/{self.name}" if ns else str(self.name)

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.kind, self.name, self.namespace, self.api_version)

    @property
    def file(self) -> str:
        return self.source.document.file.path

    def raw_path(self, path: Sequence[Any]) -> tuple[Any, ...]:
        """The path in the author's document for a v1 path of ``data``."""
        path = tuple(path)
        for prefix, drop, replacement in self._redirects:
            n = len(prefix)
            if path[:n] == prefix:
                return replacement + path[n + drop :]
        return path

    def position(self, path: Sequence[Any] = ()) -> Position:
        return self.source.position(self.raw_path(path))

    def get(self, path: Iterable[Any], default: Any = None) -> Any:
        node: Any = self.data
        for part in path:
            if isinstance(part, int) and not isinstance(part, bool):
                if not isinstance(node, list) or not 0 <= part < len(node):
                    return default
            elif not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


_CORE_NAMESPACED = frozenset(
    {"Pod", "Deployment", "Job", "StatefulSet", "DaemonSet", "ReplicaSet", "CronJob"}
)


def build(source: KubeObject, *, share: bool = False) -> ApiObject:
    """``share``: use the document's tree as the data where it is JSON-like already (read by the
    fast reader), instead of a copy; nothing may then change the data (``explain``: a cluster
    dump's copy would be a third of its memory)."""
    dra = is_dra(source.api_version, source.kind)
    converted = dra and source.version == "v1beta1"  # changed in place below
    if share and source.document.plain and not converted and isinstance(source.raw, dict):
        data = source.raw
    else:
        data = plain(source.raw)
    if not isinstance(data, dict):
        data = {}
    obj = ApiObject(source, data, dra)
    if converted:
        _v1beta1_to_v1(obj)
    return obj


def build_all(sources: Iterable[KubeObject], *, share: bool = False) -> list[ApiObject]:
    return [build(s, share=share) for s in sources]


def _v1beta1_to_v1(obj: ApiObject) -> None:
    """The apiserver's v1beta1 → v1 conversion, recording where each moved field came from."""
    redirects: list[tuple[tuple[Any, ...], int, tuple[Any, ...]]] = []
    obj._redirects = redirects
    requests_path = REQUEST_LISTS.get(obj.kind)
    if requests_path is not None:
        requests = obj.get(requests_path)
        if isinstance(requests, list):
            for i, request in enumerate(requests):
                if isinstance(request, dict):
                    requests[i] = _request_to_v1(request)
                    if "exactly" in requests[i]:
                        # requests[i].exactly.X was requests[i].X
                        redirects.append(((*requests_path, i, "exactly"), 0, (*requests_path, i)))
    if obj.kind == "ResourceSlice":
        spec = obj.data.get("spec")
        if isinstance(spec, dict):
            if spec.get("nodeName") == "":
                del spec["nodeName"]
            if spec.get("allNodes") is False:
                del spec["allNodes"]
            devices = spec.get("devices")
            if isinstance(devices, list):
                for j, device in enumerate(devices):
                    if isinstance(device, dict):
                        devices[j] = _device_to_v1(redirects, j, device)


def _is_set(request: dict[str, Any], name: str) -> bool:
    return request_field_is_set(name, request.get(name))


def _request_to_v1(request: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    exactly: dict[str, Any] = {}
    create = any(_is_set(request, f) for f in V1BETA1_REQUEST_FIELDS)
    for key, value in request.items():
        if key in V1BETA1_REQUEST_FIELDS:
            if create and value is not None:
                exactly[key] = value
        else:
            out[key] = value
    if create:
        out["exactly"] = exactly
    return out


def _device_to_v1(
    redirects: list[tuple[tuple[Any, ...], int, tuple[Any, ...]]],
    index: int,
    device: dict[str, Any],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "name" in device:
        out["name"] = device["name"]
    basic = device.get("basic")
    if isinstance(basic, dict):
        for key, value in basic.items():
            out[key] = value
            redirects.append(
                (("spec", "devices", index, key), 0, ("spec", "devices", index, "basic", key))
            )
    # Keys that are neither name nor basic are unknown in v1beta1 (the schema check reports
    # them); they are not part of the object the apiserver would see.
    return out


__all__ = ["GROUP", "ApiObject", "build", "build_all", "plain"]
