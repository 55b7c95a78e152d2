"""API groups, versions and kinds dractl knows, and where v1beta1's shape differs from v1."""

from __future__ import annotations

GROUP = "resource.k8s.io"
VERSIONS = ("v1", "v1beta2", "v1beta1")
KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")
NAMESPACED_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})

# v1beta1 requests carry these fields directly; v1beta2 and v1 put them under `exactly`.
V1BETA1_REQUEST_FIELDS = (
    "deviceClassName",
    "selectors",
    "allocationMode",
    "count",
    "adminAccess",
    "tolerations",
    "capacity",
)


def request_field_is_set(name: str, value: object) -> bool:
    """Whether a v1beta1 request field counts as written when the apiserver's conversion decides
    to create ``exactly``: the two strings when non-empty, ``count`` when non-zero, the others
    when not null (an empty list or mapping is set)."""
    if value is None:
        return False
    if name in ("deviceClassName", "allocationMode"):
        return value != ""
    if name == "count":
        return isinstance(value, bool) or value != 0
    return True


# v1beta1 slice devices are `{name, basic: {...}}`; v1beta2 and v1 have the fields on the device.
V1BETA1_DEVICE_KEYS = ("name", "basic")

# Paths (from the object root) of the request lists, per kind.
REQUEST_LISTS: dict[str, tuple[str, ...]] = {
    "ResourceClaim": ("spec", "devices", "requests"),
    "ResourceClaimTemplate": ("spec", "spec", "devices", "requests"),
}


def is_dra(api_version: str, kind: str) -> bool:
    group, _, version = api_version.rpartition("/")
    return group == GROUP and kind in KINDS and version in VERSIONS
