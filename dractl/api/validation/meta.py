"""Object metadata as the apiserver validates it on create (``ValidateObjectMeta`` & co.).

Before validation the apiserver fills the system fields (``uid``, ``creationTimestamp``), clears
``deletionTimestamp``/``deletionGracePeriodSeconds``, generates a name from ``generateName`` and
sets ``generation`` for classes and slices; a missing namespace comes from the request (kubectl's
context). So only what the author controls is checked here: names, labels, annotations, owner
references, finalizers and the generation of claims and templates.
"""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Path

from . import formats
from .access import WRONG, integer, items, mapping, string
from .common import Errors, label_name, label_value, messages_as_invalid
from .errors import Topic, forbidden, invalid, required, too_long

TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
# names.SimpleNameGenerator: at most 58 characters of the prefix, then 5 random ones
_GENERATED_PREFIX_MAX = 63 - 5
_STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})

_META = ("metadata",)
T = Topic.METADATA


def object_meta(
    metadata: Any, *, namespaced: bool, validate_generate_name: bool, check_generation: bool
) -> Errors:
    if metadata is WRONG or not isinstance(metadata, dict):
        metadata = {}
    errs: Errors = []
    name = string(metadata, "name")
    generate_name = string(metadata, "generateName")
    if validate_generate_name and isinstance(generate_name, str) and generate_name:
        errs.extend(
            messages_as_invalid(
                formats.name_is_dns_subdomain(generate_name, True),
                (*_META, "generateName"),
                generate_name,
                T,
            )
        )
    if name is not WRONG:
        if not name and isinstance(generate_name, str) and generate_name:
            # the apiserver generates the name before validating it
            generated = generate_name[:_GENERATED_PREFIX_MAX] + "x" * 5
            errs.extend(
                messages_as_invalid(
                    formats.name_is_dns_subdomain(generated, False),
                    (*_META, "name"),
                    generated,
                    T,
                    (*_META, "generateName"),
                )
            )
        elif not name:
            errs.append(
                required((*_META, "name"), Topic.REQUIRED, "name or generateName is required")
            )
        else:
            errs.extend(
                messages_as_invalid(
                    formats.name_is_dns_subdomain(name, False), (*_META, "name"), name, T
                )
            )
    namespace = string(metadata, "namespace")
    if namespaced and isinstance(namespace, str) and namespace:
        # without a namespace kubectl sends the one of its context
        errs.extend(
            messages_as_invalid(
                formats.name_is_dns_label(namespace, False), (*_META, "namespace"), namespace, T
            )
        )
    generation = integer(metadata, "generation")
    if check_generation and isinstance(generation, int) and generation < 0:
        errs.append(
            invalid((*_META, "generation"), generation, "must be greater than or equal to 0", T)
        )
    errs.extend(validate_labels(mapping(metadata, "labels"), (*_META, "labels")))
    errs.extend(validate_annotations(mapping(metadata, "annotations"), (*_META, "annotations")))
    errs.extend(owner_references(items(metadata, "ownerReferences"), (*_META, "ownerReferences")))
    errs.extend(finalizers(items(metadata, "finalizers"), (*_META, "finalizers")))
    return errs


def validate_labels(values: Any, path: Path) -> Errors:
    if not isinstance(values, dict):
        return []
    errs: Errors = []
    for key, value in values.items():
        errs.extend(label_name(key, path, T, (*path, key)))
        if isinstance(value, str):
            errs.extend(label_value(value, path, T, (*path, key)))
    return errs


def validate_annotations(values: Any, path: Path) -> Errors:
    if not isinstance(values, dict):
        return []
    errs: Errors = []
    total = 0
    for key, value in values.items():
        # a qualified name, except that case does not matter
        errs.extend(
            messages_as_invalid(formats.is_qualified_name(key.lower()), path, key, T, (*path, key))
        )
        total += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def owner_references(values: Any, path: Path) -> Errors:
    if not isinstance(values, list):
        return []
    errs: Errors = []
    controller: str | None = None
    for i, ref in enumerate(values):
        if not isinstance(ref, dict):
            continue
        at = (*path, i)
        api_version = string(ref, "apiVersion")
        kind = string(ref, "kind")
        # errors are reported at fields of the list itself, as upstream does
        if api_version is not WRONG:
            version = (api_version or "").rpartition("/")[2]
            if not version:
                errs.append(
                    invalid(
                        (*path, "apiVersion"),
                        api_version or "",
                        "version must not be empty",
                        T,
                        (*at, "apiVersion"),
                    )
                )
        for field in ("kind", "name", "uid"):
            value = string(ref, field)
            if value is not WRONG and not value:
                errs.append(invalid((*path, field), "", "must not be empty", T, (*at, field)))
        if api_version == "v1" and kind == "Event":
            errs.append(
                invalid(path, ref, "/v1, Kind=Event is disallowed from being an owner", T, at)
            )
        if ref.get("controller") is True:
            current = f"{kind}/{string(ref, 'name')}"
            if controller is not None:
                errs.append(
                    invalid(
                        path,
                        values,
                        'Only one reference can have Controller set to true. Found "true" in '
                        f"references for {controller} and {current}",
                        T,
                        at,
                    )
                )
            else:
                controller = current
    return errs


def finalizers(values: Any, path: Path) -> Errors:
    if not isinstance(values, list):
        return []
    errs: Errors = []
    names = [v for v in values if isinstance(v, str)]
    for i, name in enumerate(values):
        if not isinstance(name, str):
            continue
        errs.extend(messages_as_invalid(formats.is_qualified_name(name), path, name, T, (*path, i)))
        if "/" not in name and name not in _STANDARD_FINALIZERS:
            errs.append(
                invalid(
                    (*path, i),
                    name,
                    "name is neither a standard finalizer name nor is it fully qualified",
                    T,
                )
            )
    if "orphan" in names and "foregroundDeletion" in names:
        errs.append(
            invalid(path, names, "finalizer orphan and foregroundDeletion cannot be both set", T)
        )
    return errs


# ObjectMeta fields a claim template's `spec.metadata` may not set, printed as upstream derives
# them from the Go field names (the first letter lower-cased: `UID` becomes `uID`).
_TEMPLATE_FORBIDDEN = {
    "name": "name",
    "generateName": "generateName",
    "namespace": "namespace",
    "selfLink": "selfLink",
    "uid": "uID",
    "resourceVersion": "resourceVersion",
    "generation": "generation",
    "creationTimestamp": "creationTimestamp",
    "deletionTimestamp": "deletionTimestamp",
    "deletionGracePeriodSeconds": "deletionGracePeriodSeconds",
    "ownerReferences": "ownerReferences",
    "finalizers": "finalizers",
    "managedFields": "managedFields",
}


def template_object_meta(metadata: Any, path: Path) -> Errors:
    """``ValidateTemplateObjectMeta``: only labels and annotations may be set."""
    if not isinstance(metadata, dict):
        return []
    errs = validate_annotations(mapping(metadata, "annotations"), (*path, "annotations"))
    errs.extend(validate_labels(mapping(metadata, "labels"), (*path, "labels")))
    for key, printed in _TEMPLATE_FORBIDDEN.items():
        value = metadata.get(key)
        if value is None or value == "" or (value == 0 and not isinstance(value, bool)):
            continue
        errs.append(
            forbidden(
                (*path, printed), "cannot be set for a resource claim template", T, (*path, key)
            )
        )
    return errs
