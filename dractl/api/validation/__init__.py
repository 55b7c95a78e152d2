"""What the apiserver checks when a DRA object is created, as pure functions.

Input is the object's data in the v1 shape after the apiserver's defaulting
(:func:`dractl.api.defaults.apply_defaults`), the release and its feature gates. As the apiserver
does, :func:`check_create` first drops the fields whose gate is off (they never reach
validation) and then validates what is left, reporting every error, not just the first.

DeviceTaintRules are checked too (:mod:`.devicetaintrule`), although they are not one of the
DRA kinds of :data:`KINDS` (the lint rules of those do not run for them).

CEL selector expressions are not compiled here (see :mod:`dractl.cel`); the schema (unknown
fields, wrong types) is checked elsewhere, and values of the wrong type are skipped here.
"""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Key, Path
from dractl.api.releases import Features
from dractl.records import Record

from .access import items, mapping, string
from .claim import claim_spec
from .deviceclass import device_class_spec
from .devicetaintrule import DEVICE_TAINT_RULE, validate_device_taint_rule
from .errors import ErrorType, FieldError, Topic, forbidden, render_value
from .gates import DroppedField, drop_disabled_fields
from .limits import Limits, limits_for
from .meta import object_meta, template_object_meta

KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice")
ADMIN_ACCESS_NAMESPACE_LABEL = "resource.kubernetes.io/admin-access"


class CreateCheck(Record):
    """The outcome of creating one object."""

    __slots__ = ("dropped", "errors", "warnings")

    def __init__(
        self,
        errors: list[FieldError] | None = None,
        warnings: list[FieldError] | None = None,
        dropped: list[DroppedField] | None = None,
    ) -> None:
        self.errors = [] if errors is None else errors  # what the apiserver rejects the object for
        # what the apiserver accepts but warns about, or rejects only in some clusters
        self.warnings = [] if warnings is None else warnings
        self.dropped = [] if dropped is None else dropped  # fields dropped: their gate is off


def check_create(kind: str, data: dict[str, Any], features: Features) -> CreateCheck:
    if kind == DEVICE_TAINT_RULE and isinstance(data, dict):
        # no gated fields: the gates decide only whether anything acts on the rule
        return CreateCheck(errors=validate_device_taint_rule(data, features))
    if kind not in KINDS or not isinstance(data, dict):
        return CreateCheck()
    pruned, dropped = drop_disabled_fields(kind, data, features)
    return CreateCheck(
        errors=validate(kind, pruned, features),
        warnings=create_warnings(kind, pruned),
        dropped=dropped,
    )


def validate(kind: str, data: dict[str, Any], features: Features) -> list[FieldError]:
    """The apiserver's validation of ``data`` (gated fields already dropped)."""
    limits = limits_for(features.release)
    metadata = data.get("metadata")
    spec = data.get("spec")
    if kind == "DeviceClass":
        errs = object_meta(
            metadata, namespaced=False, validate_generate_name=False, check_generation=False
        )
        errs.extend(device_class_spec(spec, ("spec",), limits))
    elif kind == "ResourceClaim":
        errs = object_meta(
            metadata, namespaced=True, validate_generate_name=True, check_generation=True
        )
        errs.extend(claim_spec(spec, ("spec",), features, limits))
    elif kind == "ResourceClaimTemplate":
        errs = object_meta(
            metadata, namespaced=True, validate_generate_name=True, check_generation=True
        )
        if isinstance(spec, dict):
            errs.extend(template_object_meta(spec.get("metadata"), ("spec", "metadata")))
            errs.extend(claim_spec(spec.get("spec"), ("spec", "spec"), features, limits))
    elif kind == DEVICE_TAINT_RULE:
        return validate_device_taint_rule(data, features)
    elif kind == "ResourceSlice":
        from .slice import slice_spec  # the largest of the kinds' checks: imported for slices only

        errs = object_meta(
            metadata, namespaced=False, validate_generate_name=True, check_generation=False
        )
        errs.extend(slice_spec(spec, ("spec",), features, limits))
    else:
        raise ValueError(f"not a DRA kind: {kind}")
    return errs


def create_warnings(kind: str, data: dict[str, Any]) -> list[FieldError]:
    warnings: list[FieldError] = []
    if kind == "ResourceClaim" and data.get("status") not in (None, {}):
        warnings.append(
            forbidden(
                ("status",),
                "the status of a new claim is cleared: it is written by the "
                "scheduler and drivers through the status subresource",
                Topic.STATUS_ON_CREATE,
            )
        )
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        prefix: Path = ("spec",) if kind == "ResourceClaim" else ("spec", "spec")
        requests = items(mapping(_dig(data, prefix), "devices"), "requests")
        for i, request in enumerate(requests if isinstance(requests, list) else []):
            exactly = mapping(request, "exactly")
            if isinstance(exactly, dict) and exactly.get("adminAccess") is True:
                # upstream prints this path without `exactly`, also for templates
                warnings.append(
                    forbidden(
                        ("spec", "devices", "requests", i, "adminAccess"),
                        "admin access to devices requires the "
                        f"`{ADMIN_ACCESS_NAMESPACE_LABEL}: true` label on the containing namespace",
                        Topic.ADMIN_ACCESS,
                        (*prefix, "devices", "requests", i, "exactly", "adminAccess"),
                    )
                )
                break
    if kind == "ResourceSlice":
        driver = string(mapping(data, "spec"), "driver")
        if isinstance(driver, str) and driver != driver.lower():
            warnings.append(
                FieldError(
                    ("spec", "driver"),
                    ErrorType.INVALID,
                    Topic.DRIVER_CASE,
                    f"driver names should be lowercase; {render_value(driver)} contains "
                    "uppercase characters",
                )
            )
    return warnings


def _dig(data: Any, path: Path) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


__all__ = [
    "DEVICE_TAINT_RULE",
    "KINDS",
    "CreateCheck",
    "DroppedField",
    "ErrorType",
    "FieldError",
    "Key",
    "Limits",
    "Topic",
    "check_create",
    "create_warnings",
    "drop_disabled_fields",
    "limits_for",
    "validate",
]
