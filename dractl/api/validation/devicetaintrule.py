"""DeviceTaintRules (``ValidateDeviceTaintRule``), and the fields each release's decoder knows.

A DeviceTaintRule is resource.k8s.io/v1alpha3 in 1.34 and 1.35 and v1alpha3 or v1beta2 in 1.36;
both versions of a release have the same fields, so the release alone decides what is checked:

* 1.34: the selector has ``deviceClassName`` and CEL ``selectors`` besides ``driver``, ``pool``
  and ``device``; a taint's effect is NoSchedule or NoExecute; the kind has no ``status``.
* 1.35 on: ``deviceClassName`` and ``selectors`` are gone (an unknown field to the strict
  decoder), the effect ``None`` is new, and the kind has a ``status`` (cleared on create).

The object is not namespaced, its name is a DNS subdomain, the registry sets ``generation`` and
clears ``status`` before validation (``pkg/registry/resource/devicetaintrule/strategy.go``), and
no field is dropped for a feature gate: the gates only decide whether the scheduler and the
eviction controller act on the rule (:func:`rule_gate`).

CEL selectors (1.34) are compiled by the lint rule, as for the other kinds (:mod:`dractl.cel`).
The bundled schemas cover the four DRA kinds only, so the fields the strict decoder knows in a
DeviceTaintRule are listed here (:func:`unknown_fields`); wrong types and times are found with
the kind's schema in :mod:`dractl.api.core_schemas`.
"""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Path
from dractl.api.releases import Features

from .access import WRONG, mapping, string
from .common import Errors, dns_label, dns_subdomain, driver_name, pool_name, selectors, taint
from .limits import Limits, limits_for
from .meta import object_meta

DEVICE_TAINT_RULE = "DeviceTaintRule"


def has_class_and_selectors(release: str) -> bool:
    """Whether the selector has ``deviceClassName`` and ``selectors`` (removed in 1.35)."""
    return release == "1.34"


def rule_gate(release: str) -> str:
    """The feature gate without which the scheduler and the eviction controller ignore the rules:
    DRADeviceTaintRules from 1.35 on (kubernetes/kubernetes#135068); in 1.34 the rules came with
    DRADeviceTaints."""
    return "DRADeviceTaints" if release == "1.34" else "DRADeviceTaintRules"


def validate_device_taint_rule(data: dict[str, Any], features: Features) -> Errors:
    limits = limits_for(features.release)
    # ValidateObjectMeta(..., false, NameIsDNSSubdomain); the registry sets the generation.
    errs = object_meta(
        data.get("metadata"), namespaced=False, validate_generate_name=True, check_generation=False
    )
    errs.extend(device_taint_rule_spec(data.get("spec"), ("spec",), limits))
    return errs


def device_taint_rule_spec(spec: Any, path: Path, limits: Limits) -> Errors:
    if spec is None:
        spec = {}  # a struct in Go: a missing spec is an empty one, and its taint is validated
    elif not isinstance(spec, dict):
        return []  # of the wrong type: the decoder refuses the object (DRA143)
    errs = device_taint_selector(mapping(spec, "deviceSelector"), (*path, "deviceSelector"), limits)
    rule_taint = mapping(spec, "taint")
    if rule_taint is not WRONG:
        errs.extend(taint(rule_taint or {}, (*path, "taint"), limits))
    return errs


def device_taint_selector(selector: Any, path: Path, limits: Limits) -> Errors:
    """Each field that is set (pointers in Go: an empty string is set, and checked)."""
    if not isinstance(selector, dict):
        return []  # no selector: the rule selects no device (and that is valid)
    errs: Errors = []
    if has_class_and_selectors(limits.release):
        class_name = string(selector, "deviceClassName")
        if isinstance(class_name, str):
            errs.extend(dns_subdomain(class_name, (*path, "deviceClassName")))
    driver = string(selector, "driver")
    if isinstance(driver, str):
        errs.extend(driver_name(driver, (*path, "driver"), limits))
    pool = string(selector, "pool")
    if isinstance(pool, str):
        errs.extend(pool_name(pool, (*path, "pool"), limits))
    device = string(selector, "device")
    if isinstance(device, str):
        errs.extend(dns_label(device, (*path, "device")))
    if has_class_and_selectors(limits.release):
        # size and `cel` required here; length, compilation and cost with the CEL rules
        errs.extend(selectors(selector.get("selectors"), (*path, "selectors"), limits))
    return errs


# ---- the fields the strict decoder knows ------------------------------------------------------

# The JSON fields of each Go type, as the OpenAPI documents of the releases list them
# (kubernetes/kubernetes api/openapi-spec/v3/apis__resource.k8s.io__v1alpha3_openapi.json of
# release-1.34 and release-1.35; v1beta2 of 1.36 has the fields of 1.35's v1alpha3).
_TAINT = frozenset({"key", "value", "effect", "timeAdded"})
_CONDITION = frozenset(
    {"type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"}
)
_SELECTOR_1_34 = frozenset({"deviceClassName", "driver", "pool", "device", "selectors"})
_SELECTOR = frozenset({"driver", "pool", "device"})

#: Fields a later release removed: name -> the last release that had it.
REMOVED = {"deviceClassName": "1.34", "selectors": "1.34"}


def unknown_fields(data: dict[str, Any], release: str) -> list[Path]:
    """The paths of fields the release's DeviceTaintRule does not have (below ``metadata`` only
    its own keys are looked at: ObjectMeta is checked against the bundled schema by the caller).
    Values of the wrong type are the decoder's type errors, not looked into here."""
    old = has_class_and_selectors(release)
    top = {"apiVersion", "kind", "metadata", "spec"} | (set() if old else {"status"})
    found: list[Path] = [(key,) for key in data if key not in top]
    spec = data.get("spec")
    if isinstance(spec, dict):
        found.extend(_unknown(spec, ("spec",), {"deviceSelector", "taint"}))
        selector = spec.get("deviceSelector")
        if isinstance(selector, dict):
            at: Path = ("spec", "deviceSelector")
            found.extend(_unknown(selector, at, _SELECTOR_1_34 if old else _SELECTOR))
            cel_selectors = selector.get("selectors") if old else None
            for i, entry in enumerate(cel_selectors if isinstance(cel_selectors, list) else []):
                if isinstance(entry, dict):
                    found.extend(_unknown(entry, (*at, "selectors", i), {"cel"}))
                    cel = entry.get("cel")
                    if isinstance(cel, dict):
                        found.extend(_unknown(cel, (*at, "selectors", i, "cel"), {"expression"}))
        rule_taint = spec.get("taint")
        if isinstance(rule_taint, dict):
            found.extend(_unknown(rule_taint, ("spec", "taint"), _TAINT))
    status = data.get("status")
    if not old and isinstance(status, dict):
        found.extend(_unknown(status, ("status",), {"conditions"}))
        conditions = status.get("conditions")
        for i, condition in enumerate(conditions if isinstance(conditions, list) else []):
            if isinstance(condition, dict):
                found.extend(_unknown(condition, ("status", "conditions", i), _CONDITION))
    return found


def _unknown(node: dict[str, Any], path: Path, known: frozenset[str] | set[str]) -> list[Path]:
    return [(*path, key) for key in node if key not in known]
