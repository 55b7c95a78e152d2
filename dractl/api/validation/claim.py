"""ResourceClaim and ResourceClaimTemplate specs (``validateDeviceClaim`` and its helpers)."""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Path
from dractl.api.releases import Features

from .access import WRONG, integer, items, mapping, string
from .common import (
    Errors,
    RequestNames,
    device_configuration,
    dns_label,
    dns_subdomain,
    fully_qualified_name,
    gather_request_names,
    request_refs,
    selectors,
    tolerations,
    validate_set,
    validate_slice,
)
from .errors import Topic, invalid, not_supported, required
from .limits import Limits


def claim_spec(spec: Any, path: Path, features: Features, limits: Limits) -> Errors:
    if not isinstance(spec, dict):
        return []
    devices = mapping(spec, "devices")
    if not isinstance(devices, dict):
        return []
    return device_claim(devices, (*path, "devices"), features, limits)


def device_claim(devices: dict[str, Any], path: Path, features: Features, limits: Limits) -> Errors:
    requests = items(devices, "requests")
    names = gather_request_names(requests if isinstance(requests, list) else None)
    key_field = "name" if limits.duplicate_at_name else None

    def check_request(request: Any, at: Path) -> Errors:
        return device_request(request, at, limits, key_field)

    errs = validate_set(
        requests, limits.requests, check_request, _name_key, (*path, "requests"), limits, key_field
    )

    def check_constraint(constraint: Any, at: Path) -> Errors:
        return device_constraint(constraint, at, names, features, limits)

    errs.extend(
        validate_slice(
            items(devices, "constraints"),
            limits.constraints,
            check_constraint,
            (*path, "constraints"),
            limits,
        )
    )

    def check_config(config: Any, at: Path) -> Errors:
        return claim_configuration(config, at, names, limits)

    errs.extend(
        validate_slice(
            items(devices, "config"), limits.config, check_config, (*path, "config"), limits
        )
    )
    return errs


def _name_key(item: Any) -> str | None:
    name = string(item, "name")
    if name is WRONG:
        return None
    return name or ""


def device_request(request: Any, path: Path, limits: Limits, key_field: str | None) -> Errors:
    if not isinstance(request, dict):
        return []
    errs: Errors = []
    name = string(request, "name")
    if name is not WRONG:
        errs.extend(dns_label(name or "", (*path, "name")))
    subrequests = items(request, "firstAvailable")
    exactly = mapping(request, "exactly")
    if subrequests is WRONG or exactly is WRONG:
        return errs
    has_first_available = bool(subrequests)
    has_exactly = exactly is not None
    if not has_first_available and not has_exactly:
        errs.append(
            required(path, Topic.ONE_OF, "exactly one of `exactly` or `firstAvailable` is required")
        )
    elif has_first_available and has_exactly:
        errs.append(
            invalid(
                path,
                None,
                "exactly one of `exactly` or `firstAvailable` is required, but multiple fields "
                "are set",
                Topic.ONE_OF,
            )
        )
    elif has_first_available:

        def check_sub(sub: Any, at: Path) -> Errors:
            return device_subrequest(sub, at, limits)

        errs.extend(
            validate_set(
                subrequests,
                limits.first_available,
                check_sub,
                _name_key,
                (*path, "firstAvailable"),
                limits,
                key_field,
            )
        )
    elif exactly is not None:
        errs.extend(exact_request(exactly, (*path, "exactly"), limits))
    return errs


def _request_body(request: dict[str, Any], path: Path, limits: Limits) -> Errors:
    """What exact requests and sub-requests share: class, selectors, mode and count, tolerations."""
    errs: Errors = []
    class_name = string(request, "deviceClassName")
    if class_name is not WRONG:
        if not class_name:
            errs.append(required((*path, "deviceClassName"), Topic.REQUIRED))
        else:
            errs.extend(dns_subdomain(class_name, (*path, "deviceClassName")))
    errs.extend(selectors(items(request, "selectors"), (*path, "selectors"), limits))
    errs.extend(allocation_mode(request, path))
    errs.extend(tolerations(items(request, "tolerations"), (*path, "tolerations"), limits))
    return errs


def exact_request(request: dict[str, Any], path: Path, limits: Limits) -> Errors:
    return _request_body(request, path, limits)


def device_subrequest(sub: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(sub, dict):
        return []
    errs: Errors = []
    name = string(sub, "name")
    if name is not WRONG:
        errs.extend(dns_label(name or "", (*path, "name")))
    errs.extend(_request_body(sub, path, limits))
    return errs


def allocation_mode(request: dict[str, Any], path: Path) -> Errors:
    mode = string(request, "allocationMode")
    count = integer(request, "count")
    if mode is WRONG or count is WRONG:
        return []
    mode = mode or ""
    count = count or 0
    topic = Topic.ALLOCATION_MODE
    if mode == "All":
        if count != 0:
            return [
                invalid(
                    (*path, "count"),
                    count,
                    "must not be specified when allocationMode is 'All'",
                    topic,
                )
            ]
    elif mode == "ExactCount":
        if count <= 0:
            return [invalid((*path, "count"), count, "must be greater than zero", topic)]
    else:
        return [not_supported((*path, "allocationMode"), mode, ["All", "ExactCount"], topic)]
    return []


def device_constraint(
    constraint: Any, path: Path, names: RequestNames, features: Features, limits: Limits
) -> Errors:
    if not isinstance(constraint, dict):
        return []
    errs = request_refs(items(constraint, "requests"), (*path, "requests"), names, limits)
    match = string(constraint, "matchAttribute")
    distinct = string(constraint, "distinctAttribute")
    if match is WRONG or distinct is WRONG:
        return errs
    # pointers: an empty string is set (and then fails the name checks)
    if match is not None:
        errs.extend(fully_qualified_name(match, (*path, "matchAttribute"), limits))
    elif distinct is not None:
        errs.extend(fully_qualified_name(distinct, (*path, "distinctAttribute"), limits))
    elif features.enabled("DRAConsumableCapacity"):
        errs.append(
            required(
                path,
                Topic.CONSTRAINT,
                'exactly one of "matchAttribute" or "distinctAttribute" is required, but '
                "multiple fields are set",
            )
        )
    else:
        errs.append(required((*path, "matchAttribute"), Topic.CONSTRAINT))
    return errs


def claim_configuration(config: Any, path: Path, names: RequestNames, limits: Limits) -> Errors:
    if not isinstance(config, dict):
        return []
    errs = request_refs(items(config, "requests"), (*path, "requests"), names, limits)
    errs.extend(device_configuration(config, path, limits))
    return errs
