"""The apiserver's defaulting, applied to v1-shaped data before validation and allocation.

Defaulting runs in the version the client sent (CONVERSION.md, "Defaulting"): in v1 and v1beta2 an
empty ``allocationMode`` becomes ``ExactCount`` and an ExactCount request without ``count`` gets
``count: 1``; v1beta1 does the same for a request only when it names a ``deviceClassName``
(sub-requests always). Toleration operators default to ``Equal``. Time-dependent server-side
defaults (a taint's ``timeAdded``) are not applied.
"""

from __future__ import annotations

import copy
from typing import Any

from dractl.api.versions import REQUEST_LISTS


def apply_defaults(kind: str, data: dict[str, Any], source_version: str = "v1") -> dict[str, Any]:
    """A defaulted deep copy of ``data`` (v1 shape); ``data`` itself is not changed."""
    out = copy.deepcopy(data)
    path = REQUEST_LISTS.get(kind)
    if path is not None:
        requests = _get(out, path)
        if isinstance(requests, list):
            for request in requests:
                if isinstance(request, dict):
                    _default_request(request, source_version)
        _default_results(_get(out, ("status", "allocation", "devices", "results")))
    return out


def defaulted_view(kind: str, data: dict[str, Any], source_version: str = "v1") -> dict[str, Any]:
    """``data`` after defaulting, to be read only: ``data`` itself for the kinds whose defaults
    change nothing (DeviceClass, ResourceSlice: a copy of a large slice would be a third of what
    lint holds), :func:`apply_defaults`' copy for claims and templates."""
    if kind not in REQUEST_LISTS:
        return data
    return apply_defaults(kind, data, source_version)


def _get(data: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _default_request(request: dict[str, Any], source_version: str) -> None:
    exactly = request.get("exactly")
    if isinstance(exactly, dict):
        class_name = exactly.get("deviceClassName")
        if source_version != "v1beta1" or (isinstance(class_name, str) and class_name):
            _default_mode_and_count(exactly)
        _default_tolerations(exactly.get("tolerations"))
    subrequests = request.get("firstAvailable")
    if isinstance(subrequests, list):
        for sub in subrequests:
            if isinstance(sub, dict):
                _default_mode_and_count(sub)
                _default_tolerations(sub.get("tolerations"))


def _default_mode_and_count(request: dict[str, Any]) -> None:
    if request.get("allocationMode") in (None, ""):
        request["allocationMode"] = "ExactCount"
    if request.get("allocationMode") == "ExactCount" and request.get("count") in (None, 0):
        request["count"] = 1


def _default_tolerations(tolerations: Any) -> None:
    if isinstance(tolerations, list):
        for toleration in tolerations:
            if isinstance(toleration, dict) and toleration.get("operator") in (None, ""):
                toleration["operator"] = "Equal"


def _default_results(results: Any) -> None:
    if isinstance(results, list):
        for result in results:
            if isinstance(result, dict):
                _default_tolerations(result.get("tolerations"))
