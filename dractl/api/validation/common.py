"""Building blocks shared by the kinds: lists, maps, names, configuration, selectors, taints."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from dractl.api.paths import Key, Path

from . import formats
from .access import WRONG, items, mapping, string, string_list
from .errors import (
    FieldError,
    Topic,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
    too_long,
    too_many,
)
from .limits import Limits

Errors = list[FieldError]
ItemCheck = Callable[[Any, Path], Errors]


def validate_items(values: Sequence[Any], check: ItemCheck, path: Path) -> Errors:
    errs: Errors = []
    for i, value in enumerate(values):
        errs.extend(check(value, (*path, i)))
    return errs


def validate_slice(
    values: Any, max_size: int | None, check: ItemCheck, path: Path, limits: Limits
) -> Errors:
    """Size first, then every item (see :attr:`Limits.items_beyond_max` for a list too long)."""
    if not isinstance(values, list):
        return []
    if max_size is None or len(values) <= max_size:
        return validate_items(values, check, path)
    oversize = [too_many(path, len(values), max_size)]
    if not limits.items_beyond_max:
        return oversize
    return oversize + validate_items(values, check, path)


def validate_set(
    values: Any,
    max_size: int | None,
    check: ItemCheck,
    key: Callable[[Any], Hashable | None],
    path: Path,
    limits: Limits,
    key_field: str | None = None,
) -> Errors:
    """A list whose items must be unique by ``key`` (``None``: the item has no usable key).

    Duplicates are reported at the item, or at the item's ``key_field`` when given (the layout
    of releases before 1.35).
    """
    if not isinstance(values, list):
        return []
    errs = validate_slice(values, max_size, check, path, limits)
    if max_size is not None and len(values) > max_size and not limits.items_beyond_max:
        return errs
    seen: set[Hashable] = set()
    for i, value in enumerate(values):
        item_key = key(value)
        if item_key is None:
            continue
        if item_key in seen:
            at: Path = (*path, i, key_field) if key_field else (*path, i)
            errs.append(duplicate(at, item_key))
        else:
            seen.add(item_key)
    return errs


def validate_map(
    values: Any,
    max_size: int | None,
    truncate_key: int,
    check_key: Callable[[str, Path, Path], Errors],
    check_item: ItemCheck,
    path: Path,
    limits: Limits,
) -> Errors:
    """Item errors are reported at ``map[key]`` (a long key shortened), key errors at the map
    from 1.35 and at ``map[key]`` in 1.34; either way they are located at the key itself."""
    if not isinstance(values, dict):
        return []
    errs: Errors = []
    if max_size is not None and len(values) > max_size:
        errs.append(too_many(path, len(values), max_size))
        if not limits.items_beyond_max:
            return errs
    for name, value in values.items():
        item_path = (*path, Key(truncate_if_too_long(name, truncate_key)))
        key_errors_at = item_path if limits.key_errors_at_key else path
        errs.extend(check_key(name, key_errors_at, (*path, Key(name))))
        errs.extend(check_item(value, item_path))
    return errs


def truncate_if_too_long(text: str, max_len: int) -> str:
    max_len = max(max_len, 16)
    if len(text) <= max_len:
        return text
    remaining = max_len - 3
    return text[: (remaining + 1) // 2] + "..." + text[len(text) - remaining // 2 :]


def _byte_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


# ---- names ------------------------------------------------------------------------------


def messages_as_invalid(
    messages: list[str], path: Path, value: Any, topic: Topic, locate: Path | None = None
) -> Errors:
    return [invalid(path, value, msg, topic, locate) for msg in messages]


def dns_label(value: str, path: Path, topic: Topic = Topic.NAME_FORMAT) -> Errors:
    return messages_as_invalid(formats.is_dns1123_label(value), path, value, topic)


def dns_subdomain(value: str, path: Path, topic: Topic = Topic.NAME_FORMAT) -> Errors:
    return messages_as_invalid(formats.is_dns1123_subdomain(value), path, value, topic)


def node_name(value: str, path: Path) -> Errors:
    return messages_as_invalid(formats.is_dns1123_subdomain(value), path, value, Topic.NAME_FORMAT)


def driver_name(
    value: Any,
    path: Path,
    limits: Limits,
    topic: Topic = Topic.NAME_FORMAT,
    locate: Path | None = None,
) -> Errors:
    """``ValidateCSIDriverName``: required, at most 63 bytes, a DNS subdomain once lower-cased.

    From 1.35 an empty name is only `Required`; 1.34 goes on and finds it no DNS subdomain.
    """
    if value is WRONG:
        return []
    errs: Errors = []
    if not value:
        errs.append(required(path, Topic.REQUIRED, locate=locate))
        if not limits.empty_driver_name_also_invalid:
            return errs
        value = ""
    if _byte_len(value) > limits.driver_name:
        length_topic = Topic.LIMIT if topic is Topic.NAME_FORMAT else topic
        errs.append(too_long(path, limits.driver_name, length_topic, locate))
    errs.extend(
        messages_as_invalid(formats.is_dns1123_subdomain(value.lower()), path, value, topic, locate)
    )
    return errs


def pool_name(value: Any, path: Path, limits: Limits) -> Errors:
    if value is WRONG:
        return []
    if not value:
        return [required(path, Topic.REQUIRED)]
    errs: Errors = []
    if _byte_len(value) > limits.pool_name:
        errs.append(too_long(path, limits.pool_name))
    for part in value.split("/"):
        errs.extend(dns_subdomain(part, path))
    return errs


def label_name(value: str, path: Path, topic: Topic, locate: Path | None = None) -> Errors:
    return messages_as_invalid(formats.is_qualified_name(value), path, value, topic, locate)


def label_value(value: str, path: Path, topic: Topic, locate: Path | None = None) -> Errors:
    return messages_as_invalid(formats.is_valid_label_value(value), path, value, topic, locate)


def c_identifier(value: str, path: Path, limits: Limits, locate: Path | None) -> Errors:
    errs: Errors = []
    if _byte_len(value) > limits.device_max_id:
        errs.append(too_long(path, limits.device_max_id, Topic.QUALIFIED_NAME, locate))
    errs.extend(
        messages_as_invalid(
            formats.is_c_identifier(value), path, value, Topic.QUALIFIED_NAME, locate
        )
    )
    return errs


def qualified_name(name: str, path: Path, limits: Limits, locate: Path | None = None) -> Errors:
    """Attribute and capacity names: ``id`` or ``domain/id``.

    More than one slash is not checked in 1.34 to 1.36 (upstream's switch has no case for it).
    """
    if limits.empty_name_parts_required and not name:
        return [required(path, Topic.QUALIFIED_NAME, "name required", locate)]
    parts = name.split("/")
    if len(parts) == 1:
        return c_identifier(parts[0], path, limits, locate)
    if len(parts) != 2:
        return []
    errs: Errors = []
    domain, ident = parts
    if not domain:
        errs.append(_empty_part(path, "the domain must not be empty", limits, locate))
    else:
        errs.extend(driver_name(domain, path, limits, Topic.QUALIFIED_NAME, locate))
    if not ident:
        errs.append(_empty_part(path, "the name must not be empty", limits, locate))
    else:
        errs.extend(c_identifier(ident, path, limits, locate))
    return errs


def _empty_part(path: Path, detail: str, limits: Limits, locate: Path | None) -> FieldError:
    if limits.empty_name_parts_required:
        return required(path, Topic.QUALIFIED_NAME, detail, locate)
    return invalid(path, "", detail, Topic.QUALIFIED_NAME, locate)


def fully_qualified_name(name: str, path: Path, limits: Limits) -> Errors:
    errs = qualified_name(name, path, limits)
    if limits.empty_name_parts_required:
        if name and "/" not in name:
            errs.append(invalid(path, name, "must include a domain", Topic.QUALIFIED_NAME))
    elif "/" not in name:
        errs.append(
            invalid(
                path,
                name,
                "a fully qualified name must be a domain and a name separated by a slash",
                Topic.QUALIFIED_NAME,
            )
        )
    return errs


# ---- request references -----------------------------------------------------------------

RequestNames = dict[str, set[str] | None]

_REQUEST_REF_MSG = (
    "must be the name of a request in the claim or the name of a request and a subrequest "
    "separated by '/'"
)


def gather_request_names(requests: Any) -> RequestNames:
    names: RequestNames = {}
    if not isinstance(requests, list):
        return names
    for request in requests:
        name = string(request, "name")
        name = name if isinstance(name, str) else ""
        subrequests = items(request, "firstAvailable")
        if not subrequests:  # None, [] or WRONG
            names[name] = None
            continue
        subnames: set[str] = set()
        for sub in subrequests:
            subname = string(sub, "name")
            subnames.add(subname if isinstance(subname, str) else "")
        names[name] = subnames
    return names


def _has_request(names: RequestNames, ref: str) -> bool:
    segments = ref.split("/")
    if len(segments) > 2 or segments[0] not in names:
        return False
    if len(segments) == 1:
        return True
    subnames = names[segments[0]]
    return subnames is not None and segments[1] in subnames


def request_name_ref(ref: str, path: Path, names: RequestNames) -> Errors:
    segments = ref.split("/")
    if len(segments) > 2:
        return [invalid(path, ref, _REQUEST_REF_MSG, Topic.REQUEST_REFERENCE)]
    errs: Errors = []
    for segment in segments:
        errs.extend(dns_label(segment, path))
    if not _has_request(names, ref):
        errs.append(invalid(path, ref, _REQUEST_REF_MSG, Topic.REQUEST_REFERENCE))
    return errs


def request_refs(values: Any, path: Path, names: RequestNames, limits: Limits) -> Errors:
    refs = string_list(values)
    if refs is None or refs is WRONG:
        return []

    def check(ref: Any, at: Path) -> Errors:
        return request_name_ref(ref, at, names)

    return validate_set(refs, limits.requests, check, lambda r: r, path, limits)


# ---- selectors and configuration ---------------------------------------------------------


def selectors(values: Any, path: Path, limits: Limits) -> Errors:
    def check(selector: Any, at: Path) -> Errors:
        cel = mapping(selector, "cel")
        if cel is None:
            return [required((*at, "cel"), Topic.REQUIRED)]
        # The expression itself (length, compilation, cost) is checked by the CEL rules.
        return []

    return validate_slice(values, limits.selectors, check, path, limits)


def device_configuration(config: Any, path: Path, limits: Limits) -> Errors:
    opaque = mapping(config, "opaque")
    if opaque is WRONG:
        return []
    if opaque is None:
        return [required((*path, "opaque"), Topic.REQUIRED)]
    opaque_path = (*path, "opaque")
    errs = driver_name(string(opaque, "driver"), (*opaque_path, "driver"), limits)
    errs.extend(opaque_parameters(opaque, (*opaque_path, "parameters"), limits))
    return errs


def opaque_parameters(opaque: dict[str, Any], path: Path, limits: Limits) -> Errors:
    """``validateRawExtension`` on the bytes kubectl sends: compact JSON of the value."""
    if opaque.get("parameters") is None:
        return [required(path, Topic.REQUIRED)]
    value = opaque["parameters"]
    raw = go_json(value)
    if len(raw.encode("utf-8", "surrogatepass")) > limits.opaque_parameters:
        return [too_long(path, limits.opaque_parameters)]
    if not isinstance(value, dict):
        return [
            invalid(path, "<value omitted>", "must be a valid JSON object", Topic.OPAQUE_CONFIG)
        ]
    return []


def go_json(value: Any) -> str:
    """``json.Marshal`` of decoded YAML, as kubectl encodes it: compact, keys sorted, HTML-safe."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return _go_string(value)
    if isinstance(value, dict):
        body = ",".join(f"{_go_string(str(k))}:{go_json(value[k])}" for k in sorted(value, key=str))
        return "{" + body + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    return _go_string(str(value))


def _go_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return (
        encoded.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _go_float(value: float) -> str:
    if not math.isfinite(value):
        return "null"
    magnitude = abs(value)
    if magnitude == 0 or 1e-6 <= magnitude < 1e21:
        text = repr(value)
        if "e" in text or "E" in text:
            text = f"{value:f}".rstrip("0").rstrip(".")
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = repr(value).partition("e")
    sign = exponent[0] if exponent[0] in "+-" else "+"
    digits = exponent.lstrip("+-").lstrip("0") or "0"
    return f"{mantissa}e{sign}{digits}"


# ---- tolerations and taints ---------------------------------------------------------------


def taint_effects(limits: Limits) -> list[str]:
    effects = ["NoExecute", "NoSchedule"]
    if limits.taint_effect_none:
        effects.append("None")
    return effects


def toleration(value: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(value, dict):
        return []
    errs: Errors = []
    key = string(value, "key")
    if isinstance(key, str) and key:
        errs.extend(label_name(key, (*path, "key"), Topic.TOLERATION))
    operator = string(value, "operator")
    tol_value = string(value, "value")
    if operator is not WRONG and tol_value is not WRONG:
        tol_value = tol_value or ""
        if operator == "Exists":
            if tol_value:
                errs.append(
                    invalid(
                        (*path, "value"),
                        tol_value,
                        "must be empty for operator `Exists`",
                        Topic.TOLERATION,
                    )
                )
        elif operator == "Equal":
            errs.extend(label_value(tol_value, (*path, "value"), Topic.TOLERATION))
        elif not operator:
            errs.append(required((*path, "operator"), Topic.REQUIRED))
        else:
            errs.append(
                not_supported((*path, "operator"), operator, ["Equal", "Exists"], Topic.TOLERATION)
            )
    effect = string(value, "effect")
    if isinstance(effect, str) and effect and effect not in taint_effects(limits):
        errs.append(
            not_supported((*path, "effect"), effect, taint_effects(limits), Topic.TOLERATION)
        )
    return errs


def tolerations(values: Any, path: Path, limits: Limits) -> Errors:
    """Each toleration; the documented maximum of 16 is not checked by the apiserver."""
    if not isinstance(values, list):
        return []

    def check(value: Any, at: Path) -> Errors:
        return toleration(value, at, limits)

    return validate_items(values, check, path)


def taint(value: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(value, dict):
        return []
    errs: Errors = []
    key = string(value, "key")
    if key is not WRONG:
        errs.extend(label_name(key or "", (*path, "key"), Topic.TAINT))
    taint_value = string(value, "value")
    if isinstance(taint_value, str) and taint_value:
        errs.extend(label_value(taint_value, (*path, "value"), Topic.TAINT))
    effect = string(value, "effect")
    if effect is not WRONG:
        if not effect:
            errs.append(required((*path, "effect"), Topic.REQUIRED))
        elif effect not in taint_effects(limits):
            errs.append(
                not_supported((*path, "effect"), effect, taint_effects(limits), Topic.TAINT)
            )
    return errs


# ---- binding conditions -------------------------------------------------------------------


def binding_parameters(device: dict[str, Any], path: Path, limits: Limits) -> Errors:
    conditions = string_list(items(device, "bindingConditions"))
    failures = string_list(items(device, "bindingFailureConditions"))
    if conditions is WRONG or failures is WRONG:
        return []
    conditions = conditions or []
    failures = failures or []
    topic = Topic.BINDING_CONDITIONS
    errs: Errors = []

    def check(value: Any, at: Path) -> Errors:
        return label_name(value, at, topic)

    errs.extend(
        validate_slice(
            conditions, limits.binding_conditions, check, (*path, "bindingConditions"), limits
        )
    )
    errs.extend(
        validate_slice(
            failures,
            limits.binding_failure_conditions,
            check,
            (*path, "bindingFailureConditions"),
            limits,
        )
    )
    seen: set[str] = set()
    for i, condition in enumerate(conditions):
        if condition in seen:
            errs.append(duplicate((*path, "bindingConditions", i), condition, topic))
        seen.add(condition)
    seen_failures: set[str] = set()
    for i, condition in enumerate(failures):
        if condition in seen_failures:
            errs.append(duplicate((*path, "bindingFailureConditions", i), condition, topic))
        seen_failures.add(condition)
        if condition in seen:
            errs.append(
                invalid(
                    (*path, "bindingFailureConditions", i),
                    condition,
                    "bindingFailureConditions must not overlap with bindingConditions",
                    topic,
                )
            )
    if not conditions and failures:
        errs.append(
            invalid(
                (*path, "bindingConditions"),
                conditions,
                "bindingConditions are required to use bindingFailureConditions",
                topic,
            )
        )
    if not failures and conditions:
        errs.append(
            invalid(
                (*path, "bindingFailureConditions"),
                failures,
                "bindingFailureConditions are required to use bindingConditions",
                topic,
            )
        )
    return errs


# ---- node selectors (core validation) ------------------------------------------------------

_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def node_selector(value: Any, path: Path) -> Errors:
    """``corevalidation.ValidateNodeSelector`` (label values must be valid)."""
    if not isinstance(value, dict):
        return []
    terms_path = (*path, "nodeSelectorTerms")
    terms = items(value, "nodeSelectorTerms")
    if terms is WRONG:
        return []
    if not terms:
        return [
            required(terms_path, Topic.NODE_SELECTION, "must have at least one node selector term")
        ]
    errs: Errors = []
    for i, term in enumerate(terms):
        if not isinstance(term, dict):
            continue
        expressions = items(term, "matchExpressions")
        for j, req in enumerate(expressions if isinstance(expressions, list) else []):
            errs.extend(_node_selector_requirement(req, (*terms_path, i, "matchExpressions", j)))
        match_fields = items(term, "matchFields")
        for j, req in enumerate(match_fields if isinstance(match_fields, list) else []):
            errs.extend(_node_field_requirement(req, (*terms_path, i, "matchFields", j)))
    return errs


def _node_selector_requirement(req: Any, path: Path) -> Errors:
    if not isinstance(req, dict):
        return []
    topic = Topic.NODE_SELECTION
    values = string_list(items(req, "values"))
    if values is WRONG:
        return []
    values = values or []
    operator = string(req, "operator")
    errs: Errors = []
    if operator in ("In", "NotIn"):
        if not values:
            errs.append(
                required(
                    (*path, "values"), topic, "must be specified when `operator` is 'In' or 'NotIn'"
                )
            )
    elif operator in ("Exists", "DoesNotExist"):
        if values:
            errs.append(
                forbidden(
                    (*path, "values"),
                    "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    topic,
                )
            )
    elif operator in ("Gt", "Lt"):
        if len(values) != 1:
            errs.append(
                required(
                    (*path, "values"),
                    topic,
                    "must be specified single value when `operator` is 'Lt' or 'Gt'",
                )
            )
    elif operator is not WRONG:
        errs.append(
            invalid((*path, "operator"), operator or "", "not a valid selector operator", topic)
        )
    key = string(req, "key")
    if key is not WRONG:
        errs.extend(label_name(key or "", (*path, "key"), topic))
    for k, item in enumerate(values):
        errs.extend(label_value(item, (*path, "values", k), topic))
    return errs


def _node_field_requirement(req: Any, path: Path) -> Errors:
    if not isinstance(req, dict):
        return []
    topic = Topic.NODE_SELECTION
    values = string_list(items(req, "values"))
    if values is WRONG:
        return []
    values = values or []
    operator = string(req, "operator")
    errs: Errors = []
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            errs.append(
                required(
                    (*path, "values"),
                    topic,
                    "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                )
            )
    elif operator is not WRONG:
        errs.append(
            invalid((*path, "operator"), operator or "", "not a valid selector operator", topic)
        )
    key = string(req, "key")
    if key != "metadata.name":
        if key is not WRONG:
            errs.append(invalid((*path, "key"), key or "", "not a valid field selector key", topic))
    else:
        for k, item in enumerate(values):
            errs.extend(node_name(item, (*path, "values", k)))
    return errs

