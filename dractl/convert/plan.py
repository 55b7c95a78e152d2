"""Deciding what converting one document means, as a list of edits on its tree.

The planner reads any nest of mappings and sequences (plain data or the ruamel round-trip tree) and
never changes it. The edits it returns are applied either to plain data (:mod:`dractl.convert.apply`)
or to the document's text (:mod:`dractl.convert.textedit`), so both paths share one set of rules:
those of the apiserver's conversion functions, summarised in ``docs/convert.md``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dractl.api.versions import (
    GROUP,
    KINDS,
    V1BETA1_REQUEST_FIELDS,
    VERSIONS,
    request_field_is_set,
)

PathItem = str | int
TreePath = tuple[PathItem, ...]


# --- edits ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SetVersion:
    """Replace the version part of the ``apiVersion`` string of the mapping at ``path``."""

    path: TreePath
    old: str
    new: str


@dataclass(frozen=True)
class Delete:
    """Remove ``key`` from the mapping at ``path``."""

    path: TreePath
    key: str


@dataclass(frozen=True)
class Hoist:
    """Replace ``key`` of the mapping at ``path`` by the entries of its mapping value, in place
    (nothing when the value is null or empty)."""

    path: TreePath
    key: str


@dataclass(frozen=True)
class Nest:
    """Move ``keys`` (in their order in the mapping) into a new mapping ``into``, which takes the
    place of the first of them; with no keys, an empty ``into`` goes after ``after``."""

    path: TreePath
    keys: tuple[str, ...]
    into: str
    after: str | None = None


@dataclass(frozen=True)
class Insert:
    """Add ``key: value`` (a scalar) at the end of the mapping at ``path``."""

    path: TreePath
    key: str
    value: str | int | bool


@dataclass(frozen=True)
class SetScalar:
    """Replace the scalar value of ``key`` of the mapping at ``path``."""

    path: TreePath
    key: str
    value: str | int | bool


Edit = SetVersion | Delete | Hoist | Nest | Insert | SetScalar


# --- findings ------------------------------------------------------------------------------------


class Severity(enum.Enum):
    #: The document cannot be read as the kind it says it is; the file is not converted (exit 2).
    ERROR = "error"
    #: A field would be lost; the file is not converted unless losses are allowed (exit 1).
    LOSSY = "lossy"
    #: A field was dropped because losses were allowed.
    DROPPED = "dropped"
    #: Something was removed or changed that means the same in the target version.
    NOTE = "note"
    #: The document was left alone, with the reason (removed version, template, ...).
    SKIPPED = "skipped"
    #: The conversion is right but something of the layout could not be kept.
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    severity: Severity
    path: TreePath
    message: str


@dataclass
class Plan:
    edits: list[Edit] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def blocked(self) -> bool:
        """Whether this document must not be written."""
        return any(f.severity in (Severity.ERROR, Severity.LOSSY) for f in self.findings)


# --- versions ------------------------------------------------------------------------------------

#: Versions of resource.k8s.io no longer served for the four kinds, with what to do instead.
REMOVED_VERSIONS: dict[str, str] = {
    "v1alpha3": (
        "Kubernetes 1.34 and later serve resource.k8s.io/v1alpha3 only for DeviceTaintRule; "
        "set apiVersion to resource.k8s.io/v1beta1, write each device capacity as "
        "{value: <quantity>}, fix what dractl lint reports, then run dractl convert again"
    ),
    "v1alpha2": (
        "resource.k8s.io/v1alpha2 (classic DRA with ResourceClass and parameter objects) was "
        "removed in Kubernetes 1.31 and has no conversion; rewrite it as resource.k8s.io/v1 "
        "DeviceClass and ResourceClaim objects"
    ),
    "v1alpha1": (
        "resource.k8s.io/v1alpha1 was removed in Kubernetes 1.27 and has no conversion; rewrite it "
        "as resource.k8s.io/v1 DeviceClass and ResourceClaim objects"
    ),
}


#: Versions none of whose kinds is served any more (v1alpha3 still serves DeviceTaintRule).
WHOLLY_REMOVED = frozenset({"v1alpha2", "v1alpha1"})


def _removed(version: str, kind: str, obj: Mapping[str, Any]) -> str:
    """Why a removed version's object cannot be converted, and what to write instead."""
    text = f"{GROUP}/{version} {kind}: {REMOVED_VERSIONS[version]}"
    base = kind.removesuffix("List")
    if base == "ResourceClass":
        driver = obj.get("driverName")
        expression = (
            f'device.driver == "{driver}"'
            if isinstance(driver, str) and driver
            else 'device.driver == "<driver>"'
        )
        text += f"; a ResourceClass becomes a DeviceClass with the selector {expression}"
    elif base in ("ResourceClassParameters", "ResourceClaimParameters"):
        text += f"; a {base} becomes the `config` of a DeviceClass or of the claim's requests"
    elif base == "PodSchedulingContext":
        text += "; a PodSchedulingContext has no successor: the scheduler allocates claims itself"
    return text


def split_api_version(api_version: object) -> tuple[str, str] | None:
    """``"resource.k8s.io/v1beta1"`` → ``("resource.k8s.io", "v1beta1")``; None if not a string
    with a group."""
    if not isinstance(api_version, str) or "/" not in api_version:
        return None
    group, _, version = api_version.partition("/")
    return group, version


def is_nested_shape(version: str) -> bool:
    """Whether ``version`` has v1's shape (``exactly``, no ``basic``); only v1beta1 differs."""
    return version != "v1beta1"


def format_tree_path(path: TreePath) -> str:
    """``("spec", "devices", 0, "basic")`` → ``spec.devices[0].basic``."""
    text = ""
    for item in path:
        if isinstance(item, int):
            text += f"[{item}]"
        else:
            text += f".{item}" if text else item
    return text or "<document>"


# --- the planner ---------------------------------------------------------------------------------


@dataclass
class _Planner:
    target: str
    allow_lossy: bool
    plan: Plan = field(default_factory=Plan)
    #: Version of the object being planned.
    source: str = ""

    def add(self, edit: Edit) -> None:
        self.plan.edits.append(edit)

    def find(self, severity: Severity, path: TreePath, message: str) -> None:
        self.plan.findings.append(Finding(severity, path, message))

    def lose(self, path: TreePath, message: str) -> bool:
        """Report that a field would be lost; True when losses are allowed (the caller drops it)."""
        if self.allow_lossy:
            self.find(Severity.DROPPED, path, message)
            return True
        self.find(Severity.LOSSY, path, f"{message} (use --allow-lossy to drop it)")
        return False

    def expect_mapping(self, value: object, path: TreePath) -> bool:
        if isinstance(value, Mapping):
            return True
        self.find(Severity.ERROR, path, f"expected a mapping, found {_describe(value)}")
        return False

    def expect_list(self, value: object, path: TreePath) -> bool:
        if isinstance(value, Sequence) and not isinstance(value, str):
            return True
        self.find(Severity.ERROR, path, f"expected a list, found {_describe(value)}")
        return False

    # objects

    def object(self, obj: Mapping[str, Any], path: TreePath, kind: str | None = None) -> None:
        kind = obj.get("kind", kind) if isinstance(obj.get("kind", kind), str) else kind
        api_version = obj.get("apiVersion")
        if kind == "List" and api_version == "v1":
            self.items(obj, path, item_kind=None)
            return
        parts = split_api_version(api_version)
        if parts is None or parts[0] != GROUP:
            return
        version = parts[1]
        if version in WHOLLY_REMOVED and isinstance(kind, str) and kind:
            # Every kind of these versions is gone (ResourceClass, parameter objects, ...), not
            # only the four of today: passing them through would hide that none can be applied.
            self.find(Severity.ERROR, (*path, "apiVersion"), _removed(version, kind, obj))
            return
        if kind is not None and kind.endswith("List") and kind[: -len("List")] in KINDS:
            if self.version_usable(version, kind, path):
                self.set_version(path, version)
                self.items(obj, path, item_kind=kind[: -len("List")], list_version=version)
            return
        if kind not in KINDS or not self.version_usable(version, kind, path):
            return
        self.set_version(path, version)
        self.kind_body(kind, obj, path, version)

    def version_usable(self, version: str, kind: str, path: TreePath) -> bool:
        if version in VERSIONS:
            return True
        reason = REMOVED_VERSIONS.get(version)
        if reason is not None:
            self.find(Severity.ERROR, (*path, "apiVersion"), f"{GROUP}/{version} {kind}: {reason}")
        else:
            self.find(
                Severity.SKIPPED,
                (*path, "apiVersion"),
                f"{GROUP}/{version} is not a version dractl knows; {kind} left unchanged",
            )
        return False

    def set_version(self, path: TreePath, version: str) -> None:
        if version != self.target:
            self.add(SetVersion(path, version, self.target))

    def items(
        self,
        obj: Mapping[str, Any],
        path: TreePath,
        *,
        item_kind: str | None,
        list_version: str | None = None,
    ) -> None:
        items = obj.get("items")
        if items is None:
            return
        if not self.expect_list(items, (*path, "items")):
            return
        for index, item in enumerate(items):
            item_path = (*path, "items", index)
            if not isinstance(item, Mapping):
                continue
            if item_kind is not None and "apiVersion" not in item and list_version is not None:
                # Items of a typed list may leave out apiVersion and kind: they are the list's.
                self.kind_body(item_kind, item, item_path, list_version)
            else:
                self.object(item, item_path, kind=item_kind)

    def kind_body(self, kind: str, obj: Mapping[str, Any], path: TreePath, version: str) -> None:
        if is_nested_shape(version) == is_nested_shape(self.target):
            return
        self.source = version
        spec = obj.get("spec")
        if spec is None:
            return
        spec_path = (*path, "spec")
        if not self.expect_mapping(spec, spec_path):
            return
        if kind == "ResourceClaim":
            self.claim_spec(spec, spec_path)
        elif kind == "ResourceClaimTemplate":
            inner = spec.get("spec")
            if inner is not None and self.expect_mapping(inner, (*spec_path, "spec")):
                self.claim_spec(inner, (*spec_path, "spec"))
        elif kind == "ResourceSlice":
            self.slice_spec(spec, spec_path)

    # ResourceClaim

    def claim_spec(self, spec: Mapping[str, Any], path: TreePath) -> None:
        devices = spec.get("devices")
        if devices is None or not self.expect_mapping(devices, (*path, "devices")):
            return
        requests = devices.get("requests")
        requests_path = (*path, "devices", "requests")
        if requests is None or not self.expect_list(requests, requests_path):
            return
        for index, request in enumerate(requests):
            request_path = (*requests_path, index)
            if not self.expect_mapping(request, request_path):
                continue
            if is_nested_shape(self.target):
                self.request_to_nested(request, request_path)
            else:
                self.request_to_flat(request, request_path)

    def request_to_nested(self, request: Mapping[str, Any], path: TreePath) -> None:
        present = [key for key in request if key in V1BETA1_REQUEST_FIELDS]
        if not present:
            return
        if not any(request_field_is_set(key, request[key]) for key in present):
            # The apiserver creates `exactly` only when one of its fields is set; zero values
            # mean the same as leaving the field out.
            for key in present:
                self.add(Delete(path, key))
                self.find(
                    Severity.NOTE,
                    (*path, key),
                    f"removed {key}: {_show(request[key])}, which means the same as leaving it out",
                )
            return
        if "exactly" in request:
            if not self.lose(
                (*path, "exactly"),
                "v1beta1 has no field `exactly`; it clashes with the request fields that move "
                "into it",
            ):
                return
            self.add(Delete(path, "exactly"))
        self.add(Nest(path, tuple(present), "exactly"))

    def request_to_flat(self, request: Mapping[str, Any], path: TreePath) -> None:
        if "exactly" not in request:
            return
        exactly = request["exactly"]
        exactly_path = (*path, "exactly")
        if exactly is None:
            self.add(Delete(path, "exactly"))
            self.find(
                Severity.NOTE, exactly_path, "removed `exactly: null` (the same as leaving it out)"
            )
            return
        if not self.expect_mapping(exactly, exactly_path):
            return
        if not any(request_field_is_set(key, exactly.get(key)) for key in V1BETA1_REQUEST_FIELDS):
            if self.lose(exactly_path, "v1beta1 cannot express an `exactly` with no field set"):
                self.add(Delete(path, "exactly"))
            return
        if not self.hoist_clashes(request, exactly, path, "exactly", "v1 has no request field"):
            return
        if not self.unknown_in_exactly(exactly, exactly_path):
            return
        self.add(Hoist(path, "exactly"))

    def unknown_in_exactly(self, exactly: Mapping[str, Any], path: TreePath) -> bool:
        """Fields of ``exactly`` that are none of its seven; False when blocked.

        In v1beta1 they would land on the request, and the way back leaves them there: a
        field the source version does not have has no place in the target either, so it is
        lost, as a clash is (docs/convert.md: unknown fields stay where they are).
        """
        for key in exactly:
            if key in V1BETA1_REQUEST_FIELDS:
                continue
            if not self.lose(
                (*path, key),
                f"`exactly.{key}` is not a field of {self.source}; v1beta1 has no `exactly` to "
                "keep it in (dractl lint reports unknown fields)",
            ):
                return False
            self.add(Delete(path, key))
        return True

    def hoist_clashes(
        self, outer: Mapping[str, Any], inner: Mapping[str, Any], path: TreePath, key: str, why: str
    ) -> bool:
        """Deal with keys of ``inner`` already present in ``outer``; False when blocked."""
        clashes = [k for k in inner if k in outer and k != key]
        for clash in clashes:
            if not self.lose(
                (*path, clash),
                f"{why} `{clash}` next to `{key}.{clash}`, which takes its place",
            ):
                return False
            self.add(Delete(path, clash))
        return True

    # ResourceSlice

    def slice_spec(self, spec: Mapping[str, Any], path: TreePath) -> None:
        if is_nested_shape(self.target):
            for key, empty in (("nodeName", ""), ("allNodes", False)):
                if key in spec and (
                    spec[key] is None or (spec[key] == empty and not _is_number(spec[key]))
                ):
                    self.add(Delete(path, key))
                    why = (
                        "the same as leaving it out"
                        if spec[key] is None
                        else f"which v1beta1 reads as unset but {self.target} would read as set"
                    )
                    self.find(
                        Severity.NOTE, (*path, key), f"removed {key}: {_show(spec[key])}, {why}"
                    )
        devices = spec.get("devices")
        devices_path = (*path, "devices")
        if devices is None or not self.expect_list(devices, devices_path):
            return
        for index, device in enumerate(devices):
            device_path = (*devices_path, index)
            if not self.expect_mapping(device, device_path):
                continue
            if is_nested_shape(self.target):
                self.device_to_nested(device, device_path)
            else:
                self.device_to_basic(device, device_path)

    def device_to_nested(self, device: Mapping[str, Any], path: TreePath) -> None:
        if "basic" not in device:
            return
        basic = device["basic"]
        if basic is None:
            self.add(Delete(path, "basic"))
            return
        if not self.expect_mapping(basic, (*path, "basic")):
            return
        if not self.hoist_clashes(device, basic, path, "basic", "v1beta1 has no device field"):
            return
        self.add(Hoist(path, "basic"))

    def device_to_basic(self, device: Mapping[str, Any], path: TreePath) -> None:
        if "basic" in device:
            if not self.lose(
                (*path, "basic"),
                f"{self.source} has no device field `basic`; it clashes with the `basic` "
                "that v1beta1 needs",
            ):
                return
            self.add(Delete(path, "basic"))
        keys = tuple(key for key in device if key not in ("name", "basic"))
        self.add(Nest(path, keys, "basic", after="name" if "name" in device else None))


def plan_document(root: object, target: str, *, allow_lossy: bool = False) -> Plan:
    """The edits that convert the object (or ``List`` of objects) ``root`` to version ``target``
    of resource.k8s.io; documents of other groups and kinds get an empty plan."""
    if target not in VERSIONS:
        raise ValueError(
            f"unknown target version {target!r}; expected one of {', '.join(VERSIONS)}"
        )
    planner = _Planner(target, allow_lossy)
    if isinstance(root, Mapping):
        planner.object(root, ())
    return planner.plan


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Sequence):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return type(value).__name__


def _show(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '""' if value == "" else value
    return str(value)
