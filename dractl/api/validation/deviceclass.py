"""DeviceClass specs (``validateDeviceClassSpec``)."""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Path

from . import formats
from .access import WRONG, items, string
from .common import Errors, device_configuration, selectors, validate_slice
from .errors import Topic, invalid
from .limits import Limits


def device_class_spec(spec: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(spec, dict):
        return []
    errs = selectors(items(spec, "selectors"), (*path, "selectors"), limits)

    def check_config(config: Any, at: Path) -> Errors:
        return device_configuration(config, at, limits) if isinstance(config, dict) else []

    errs.extend(
        validate_slice(
            items(spec, "config"), limits.config, check_config, (*path, "config"), limits
        )
    )
    name = string(spec, "extendedResourceName")
    if name is not None and name is not WRONG and not formats.is_extended_resource_name(name):
        errs.append(
            invalid(
                (*path, "extendedResourceName"),
                name,
                "must be a valid extended resource name",
                Topic.EXTENDED_RESOURCE,
            )
        )
    return errs
