"""ResourceSlice specs (``validateResourceSliceSpec`` and its helpers).

The 1.34 counter layout (counters summed over the slice, devices consuming the counter sets of
their own slice) and the 1.35 one (limits per counter set and per device; a slice holds either
counter sets or devices) are both modelled; :class:`~.limits.Limits` says which applies.
"""

from __future__ import annotations

from typing import Any

from dractl.api.paths import Key, Path
from dractl.api.quantity import INT64_MAX, Quantity, QuantityError, decode_quantity
from dractl.api.releases import Features
from dractl.records import replace

from .access import WRONG, boolean, integer, items, mapping, string
from .common import (
    Errors,
    binding_parameters,
    dns_label,
    driver_name,
    node_name,
    node_selector,
    pool_name,
    qualified_name,
    taint,
    validate_map,
    validate_set,
    validate_slice,
)
from .errors import Topic, forbidden, invalid, required, too_long
from .formats import DNS1123_LABEL_MAX_LENGTH, is_semver
from .limits import Limits

_LIST_FIELDS = ("bools", "ints", "strings", "versions")
_NODE_ONE_OF = (
    "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
)
_DEVICE_NODE_ONE_OF = (
    "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"
)


def slice_spec(spec: Any, path: Path, features: Features, limits: Limits) -> Errors:
    if not isinstance(spec, dict):
        return []
    errs = driver_name(string(spec, "driver"), (*path, "driver"), limits)
    pool = mapping(spec, "pool")
    if pool is not WRONG:
        errs.extend(resource_pool(pool or {}, (*path, "pool"), limits))
    errs.extend(_node_selection(spec, path))

    devices = items(spec, "devices")
    shared = items(spec, "sharedCounters")
    if devices is WRONG or shared is WRONG:
        return errs
    if limits.counters_in_separate_slices and shared is not None and devices is not None:
        errs.append(
            invalid(
                path, "", "only one of `sharedCounters` or `devices` is allowed", Topic.COUNTERS
            )
        )

    max_devices = limits.devices_per_slice
    if limits.devices_with_advanced_features is not None and _has_advanced_features(
        devices, limits
    ):
        max_devices = limits.devices_with_advanced_features
    per_device_selection = boolean(spec, "perDeviceNodeSelection")
    key_field = "name" if limits.duplicate_at_name else None

    def check_device(device: Any, at: Path) -> Errors:
        return device_errors(device, at, per_device_selection is True, shared, features, limits)

    errs.extend(
        validate_set(
            devices,
            max_devices,
            check_device,
            _string_key("name"),
            (*path, "devices"),
            limits,
            key_field,
        )
    )

    def check_counter_set(counter_set: Any, at: Path) -> Errors:
        return _counter_set(counter_set, at, limits)

    errs.extend(
        validate_set(
            shared,
            limits.counter_sets,
            check_counter_set,
            _string_key("name"),
            (*path, "sharedCounters"),
            limits,
            key_field,
        )
    )
    if limits.shared_counters_total is not None:
        errs.extend(_slice_counter_totals(spec, path, devices, shared, limits))
    return errs


def _string_key(name: str) -> Any:
    def key(item: Any) -> str | None:
        value = string(item, name)
        return None if value is WRONG else value or ""

    return key


def resource_pool(pool: dict[str, Any], path: Path, limits: Limits) -> Errors:
    errs = pool_name(string(pool, "name"), (*path, "name"), limits)
    count = integer(pool, "resourceSliceCount")
    if count is not WRONG and (count or 0) <= 0:
        errs.append(
            invalid(
                (*path, "resourceSliceCount"),
                count or 0,
                "must be greater than zero",
                Topic.REQUIRED if count is None else Topic.LIMIT,
            )
        )
    generation = integer(pool, "generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(
            invalid(
                (*path, "generation"),
                generation,
                "must be greater than or equal to zero",
                Topic.LIMIT,
            )
        )
    return errs


def _node_selection(spec: dict[str, Any], path: Path) -> Errors:
    topic = Topic.NODE_SELECTION
    errs: Errors = []
    set_fields: list[str] = []
    name = string(spec, "nodeName")
    if isinstance(name, str):
        if name:
            set_fields.append("`nodeName`")
            errs.extend(node_name(name, (*path, "nodeName")))
        else:
            errs.append(
                invalid(
                    (*path, "nodeName"),
                    name,
                    "must be either unset or set to a non-empty string",
                    topic,
                )
            )
    selector = mapping(spec, "nodeSelector")
    if isinstance(selector, dict):
        set_fields.append("`nodeSelector`")
        errs.extend(node_selector(selector, (*path, "nodeSelector")))
        terms = selector.get("nodeSelectorTerms")
        terms = terms if isinstance(terms, list) else []
        if len(terms) != 1:
            errs.append(
                invalid(
                    (*path, "nodeSelector", "nodeSelectorTerms"),
                    terms or None,
                    "must have exactly one node selector term",
                    topic,
                )
            )
    for field in ("allNodes", "perDeviceNodeSelection"):
        value = boolean(spec, field)
        if value is True:
            set_fields.append(f"`{field}`")
        elif value is False:
            errs.append(
                invalid((*path, field), False, "must be either unset or set to true", topic)
            )
    if any(
        v is WRONG
        for v in (
            name,
            selector,
            boolean(spec, "allNodes"),
            boolean(spec, "perDeviceNodeSelection"),
        )
    ):
        return errs
    if not set_fields:
        errs.append(required(path, Topic.ONE_OF, _NODE_ONE_OF))
    elif len(set_fields) > 1:
        errs.append(
            invalid(
                path,
                "{" + ", ".join(set_fields) + "}",
                _NODE_ONE_OF + ", but multiple fields are set",
                Topic.ONE_OF,
            )
        )
    return errs


def _has_advanced_features(devices: Any, limits: Limits) -> bool:
    for device in devices if isinstance(devices, list) else []:
        if not isinstance(device, dict):
            continue
        if _nonempty_list(device.get("taints")) or _nonempty_list(device.get("consumesCounters")):
            return True
        attributes = device.get("attributes")
        if limits.list_attributes and isinstance(attributes, dict):
            for attribute in attributes.values():
                if isinstance(attribute, dict) and any(
                    attribute.get(f) is not None for f in _LIST_FIELDS
                ):
                    return True
    return False


def _nonempty_list(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0


# ---- devices ------------------------------------------------------------------------------


def device_errors(
    device: Any,
    path: Path,
    per_device_selection: bool,
    shared: list[Any] | None,
    features: Features,
    limits: Limits,
) -> Errors:
    if not isinstance(device, dict):
        return []
    errs: Errors = []
    name = string(device, "name")
    if name is not WRONG:
        errs.extend(dns_label(name or "", (*path, "name")))
    attributes = device.get("attributes")
    capacity = device.get("capacity")
    attributes = attributes if isinstance(attributes, dict) else {}
    capacity = capacity if isinstance(capacity, dict) else {}
    total = len(attributes) + len(capacity)
    bound = limits.attributes_and_capacities_per_device
    if total > bound:
        errs.append(
            invalid(
                path,
                total,
                f"the total number of attributes and capacities must not exceed {bound}",
                Topic.LIMIT,
            )
        )
    if limits.attribute_values_per_device is not None:
        values = _count_attribute_values(attributes)
        if values > limits.attribute_values_per_device:
            errs.append(
                invalid(
                    path,
                    values,
                    "the total number of attribute values must not exceed "
                    f"{limits.attribute_values_per_device}",
                    Topic.LIMIT,
                )
            )

    def check_key(key: str, at: Path, key_path: Path) -> Errors:
        return qualified_name(key, at, limits, key_path)

    def check_attribute(attribute: Any, at: Path) -> Errors:
        return device_attribute(attribute, at, limits)

    errs.extend(
        validate_map(
            device.get("attributes"),
            None,
            limits.attribute_key_length,
            check_key,
            check_attribute,
            (*path, "attributes"),
            limits,
        )
    )
    multiple = boolean(device, "allowMultipleAllocations") is True

    def check_capacity(value: Any, at: Path) -> Errors:
        return device_capacity(value, at, multiple, features, limits)

    errs.extend(
        validate_map(
            device.get("capacity"),
            None,
            limits.attribute_key_length,
            check_key,
            check_capacity,
            (*path, "capacity"),
            limits,
        )
    )

    def check_taint(value: Any, at: Path) -> Errors:
        return taint(value, at, limits)

    errs.extend(
        validate_slice(
            items(device, "taints"), limits.device_taints, check_taint, (*path, "taints"), limits
        )
    )
    errs.extend(_consumes_counters(device, path, shared, limits))
    errs.extend(_device_node_selection(device, path, per_device_selection))
    errs.extend(binding_parameters(device, path, limits))
    return errs


def _count_attribute_values(attributes: dict[str, Any]) -> int:
    count = 0
    for attribute in attributes.values():
        lists = [attribute.get(f) for f in _LIST_FIELDS] if isinstance(attribute, dict) else []
        lengths = [len(v) for v in lists if isinstance(v, list)]
        count += sum(lengths) if any(lengths) else 1
    return count


def device_attribute(attribute: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(attribute, dict):
        return []
    topic = Topic.ATTRIBUTE_VALUE
    errs: Errors = []
    set_fields = 0
    for field in ("bool", "int"):
        if attribute.get(field) is not None:
            set_fields += 1
    value = string(attribute, "string")
    if value is not None:
        set_fields += 1
        if isinstance(value, str):
            errs.extend(_string_value(value, (*path, "string"), limits))
    value = string(attribute, "version")
    if value is not None:
        set_fields += 1
        if isinstance(value, str):
            errs.extend(_version_value(value, (*path, "version"), limits))
    if limits.list_attributes:
        for field in _LIST_FIELDS:
            values = items(attribute, field)
            if values is None:
                continue
            set_fields += 1
            if values is WRONG:
                continue
            if not values:
                errs.append(
                    invalid((*path, field), values, "must not be empty if specified", topic)
                )
            for i, item in enumerate(values):
                if not isinstance(item, str):
                    continue
                if field == "strings":
                    errs.extend(_string_value(item, (*path, field, i), limits))
                elif field == "versions":
                    errs.extend(_version_value(item, (*path, field, i), limits))
    if set_fields == 0:
        errs.append(invalid(path, "", "exactly one value must be specified", topic))
    elif set_fields > 1:
        errs.append(invalid(path, attribute, "exactly one value must be specified", topic))
    return errs


def _string_value(value: str, path: Path, limits: Limits) -> Errors:
    if len(value.encode()) > limits.attribute_value_length:
        return [too_long(path, limits.attribute_value_length, Topic.ATTRIBUTE_VALUE)]
    return []


def _version_value(value: str, path: Path, limits: Limits) -> Errors:
    errs: Errors = []
    if not is_semver(value):
        errs.append(
            invalid(
                path,
                value,
                "must be a string compatible with semver.org spec 2.0.0",
                Topic.ATTRIBUTE_VALUE,
            )
        )
    errs.extend(_string_value(value, path, limits))
    return errs


# ---- capacity and request policies ------------------------------------------------------


def device_capacity(
    capacity: Any, path: Path, multiple: bool, features: Features, limits: Limits
) -> Errors:
    if not isinstance(capacity, dict) or capacity.get("requestPolicy") is None:
        return []
    policy_path = (*path, "requestPolicy")
    if not multiple:
        return [
            forbidden(policy_path, "allowMultipleAllocations must be true", Topic.CAPACITY_POLICY)
        ]
    policy = capacity["requestPolicy"]
    if not isinstance(policy, dict):
        return []
    try:
        maximum = _quantity(capacity.get("value"), required_=True)
        parsed = _Policy.parse(policy)
    except QuantityError:
        return []  # not decodable: the schema check reports it
    assert maximum is not None
    return request_policy(maximum, parsed, policy_path, features, limits)


def _quantity(raw: Any, required_: bool = False) -> Quantity | None:
    if raw is None:
        return decode_quantity(0) if required_ else None
    return decode_quantity(raw)


class _Policy:
    def __init__(
        self,
        default: Quantity | None,
        valid_values: list[Quantity],
        valid_range: dict[str, Quantity | None] | None,
    ) -> None:
        self.default = default
        self.valid_values = valid_values
        self.valid_range = valid_range

    @classmethod
    def parse(cls, policy: dict[str, Any]) -> _Policy:
        values = policy.get("validValues")
        if values is not None and not isinstance(values, list):
            raise QuantityError("validValues must be a list")
        raw_range = policy.get("validRange")
        if raw_range is not None and not isinstance(raw_range, dict):
            raise QuantityError("validRange must be an object")
        valid_range = None
        if raw_range is not None:
            valid_range = {k: _quantity(raw_range.get(k)) for k in ("min", "max", "step")}
        return cls(
            _quantity(policy.get("default")), [decode_quantity(v) for v in values or []], valid_range
        )


def request_policy(
    maximum: Quantity, policy: _Policy, path: Path, features: Features, limits: Limits
) -> Errors:
    topic = Topic.CAPACITY_POLICY
    if policy.valid_values and policy.valid_range is not None:
        return [
            forbidden(
                path,
                'exactly one policy can be specified, cannot specify "validValues" '
                'and "validRange" at the same time',
                topic,
            )
        ]
    if policy.valid_values:
        if policy.default is None:
            return [required((*path, "default"), topic, "required when validValues is defined")]
        return _valid_values(
            policy.default, maximum, policy.valid_values, (*path, "validValues"), features, limits
        )
    if policy.valid_range is not None:
        if policy.default is None:
            return [required((*path, "default"), topic, "required when validRange is defined")]
        return _valid_range(
            policy.default, maximum, policy.valid_range, (*path, "validRange"), features
        )
    return []


def _valid_values(
    default: Quantity,
    maximum: Quantity,
    values: list[Quantity],
    path: Path,
    features: Features,
    limits: Limits,
) -> Errors:
    topic = Topic.CAPACITY_POLICY
    errs: Errors = []
    for i in range(len(values) - 1):
        if values[i].compare(values[i + 1]) > 0:
            errs.append(
                invalid(
                    (*path, i + 1),
                    str(values[i + 1]),
                    "values must be sorted in ascending order",
                    topic,
                )
            )
    fractional = features.enabled("DRAFractionalCapacityRange")
    found_default = False

    def check(option: Quantity, at: Path) -> Errors:
        nonlocal found_default
        option_errs: Errors = []
        if option.compare(maximum) > 0:
            option_errs.append(
                invalid(at, str(option), f"option is larger than capacity value: {maximum}", topic)
            )
        if option.compare(default) == 0:
            found_default = True
        return option_errs

    def key(option: Quantity) -> str:
        return _decimal_text(option) if fractional else str(option.int_value())

    errs.extend(validate_set(values, limits.request_policy_valid_values, check, key, path, limits))
    if not found_default:
        errs.append(
            invalid(
                path,
                str(default),
                "default value is not valid according to the requestPolicy",
                topic,
            )
        )
    return errs


def _valid_range(
    default: Quantity,
    maximum: Quantity,
    bounds: dict[str, Quantity | None],
    path: Path,
    features: Features,
) -> Errors:
    topic = Topic.CAPACITY_POLICY
    low, high, step = bounds["min"], bounds["max"], bounds["step"]
    if low is None:
        return [required((*path, "min"), topic, "required when validRange is defined")]
    errs: Errors = []
    if low.compare(maximum) > 0:
        errs.append(
            invalid(
                (*path, "min"), str(low), f"min is larger than capacity value: {maximum}", topic
            )
        )
    if default.compare(low) < 0:
        errs.append(
            invalid((*path, "default"), str(default), f"default is less than min: {low}", topic)
        )
    if high is not None:
        if low.compare(high) > 0:
            errs.append(invalid((*path, "max"), str(low), f"min is larger than max: {high}", topic))
        if high.compare(maximum) > 0:
            errs.append(
                invalid(
                    (*path, "max"),
                    str(high),
                    f"max is larger than capacity value: {maximum}",
                    topic,
                )
            )
        if default.compare(high) > 0:
            errs.append(
                invalid(
                    (*path, "default"), str(default), f"default is more than max: {high}", topic
                )
            )
    named = (("default", default), ("min", low), ("max", high), ("step", step))
    use_milli = False
    if features.enabled("DRAFractionalCapacityRange"):
        use_milli = any(q is not None and not q.is_integral() for _, q in named[1:]) or (
            not default.is_integral()
        )
        if use_milli:
            unsafe = [
                invalid(
                    (*path, name), str(q), "value cannot be represented as a milli value", topic
                )
                for name, q in named
                if q is not None and not q.milli_exact()
            ]
            if unsafe:
                return errs + unsafe
    if step is None:
        return errs
    if step.sign() <= 0:
        errs.append(invalid((*path, "step"), str(step), "must be greater than zero", topic))
        return errs
    one_step = low.add(step)
    if one_step.compare(maximum) > 0:
        errs.append(
            invalid(
                (*path, "step"),
                str(step),
                f"one step {one_step} is larger than capacity value: {maximum}",
                topic,
            )
        )
    if not use_milli:
        unsafe = []
        for name, q in named:
            if q is None:
                continue
            if q.sign() < 0:
                unsafe.append(
                    invalid((*path, name), str(q), "must be greater than or equal to 0", topic)
                )
            elif q.compare(_INT64_MAX) > 0:
                unsafe.append(
                    invalid((*path, name), str(q), f"must not be larger than {INT64_MAX}", topic)
                )
        if unsafe:
            return errs + unsafe
    errs.extend(_range_step(default, low, step, use_milli, (*path, "step")))
    if high is not None:
        errs.extend(_range_step(high, low, step, use_milli, (*path, "step")))
    return errs


_INT64_MAX = Quantity(INT64_MAX, 0)


def _decimal_text(option: Quantity) -> str:
    """The value as Python's ``Decimal.normalize()`` writes it: equal texts for equal values."""
    import decimal  # only for fractional validValues

    return str(decimal.Decimal(f"{option.unscaled}E{option.exponent}").normalize())


def _range_step(
    value: Quantity, low: Quantity, step: Quantity, use_milli: bool, path: Path
) -> Errors:
    if use_milli:
        step_value, low_value, number = step.milli_value(), low.milli_value(), value.milli_value()
    else:
        step_value, low_value, number = step.int_value(), low.int_value(), value.int_value()
    difference = number - low_value
    # Go's % truncates toward zero; only "is it zero" matters here
    if difference % step_value != 0:
        return [
            invalid(
                path,
                str(value),
                f"value is not a multiple of a given step ({step}) from ({low})",
                Topic.CAPACITY_POLICY,
            )
        ]
    return []


# ---- counters ----------------------------------------------------------------------------


def _counter_names(counters: Any, path: Path, max_size: int | None, limits: Limits) -> Errors:
    def check_key(key: str, at: Path, key_path: Path) -> Errors:
        return [replace(err, locate=key_path) for err in dns_label(key, at, Topic.COUNTERS)]

    def check_value(value: Any, at: Path) -> Errors:
        return []  # any decodable quantity is valid

    return validate_map(
        counters, max_size, DNS1123_LABEL_MAX_LENGTH, check_key, check_value, path, limits
    )


def _counter_set(counter_set: Any, path: Path, limits: Limits) -> Errors:
    if not isinstance(counter_set, dict):
        return []
    errs: Errors = []
    name = string(counter_set, "name")
    if name is not WRONG:
        if not name:
            errs.append(required((*path, "name"), Topic.REQUIRED))
        else:
            errs.extend(dns_label(name, (*path, "name")))
    counters = mapping(counter_set, "counters")
    if counters is not WRONG:
        if not counters:
            errs.append(required((*path, "counters"), Topic.REQUIRED))
        else:
            errs.extend(
                _counter_names(
                    counters, (*path, "counters"), limits.counters_per_counter_set, limits
                )
            )
    return errs


def _consumes_counters(
    device: dict[str, Any], path: Path, shared: list[Any] | None, limits: Limits
) -> Errors:
    consumptions = items(device, "consumesCounters")
    if not isinstance(consumptions, list):
        return []
    list_path = (*path, "consumesCounters")
    sets = _shared_counter_names(shared) if not limits.counters_in_separate_slices else None

    def check(consumption: Any, at: Path) -> Errors:
        if not isinstance(consumption, dict):
            return []
        errs: Errors = []
        counter_set = string(consumption, "counterSet")
        if counter_set is not WRONG:
            if not counter_set:
                errs.append(required((*at, "counterSet"), Topic.REQUIRED))
            else:
                errs.extend(dns_label(counter_set, (*at, "counterSet")))
        counters = mapping(consumption, "counters")
        if counters is not WRONG:
            if not counters:
                errs.append(required((*at, "counters"), Topic.REQUIRED))
            else:
                errs.extend(
                    _counter_names(
                        counters,
                        (*at, "counters"),
                        limits.counters_per_counter_consumption,
                        limits,
                    )
                )
        if sets is not None and counter_set is not WRONG:
            errs.extend(_counter_references(counter_set or "", counters, at, sets))
        return errs

    key_field = "counterSet" if limits.duplicate_at_name else None
    errs = validate_set(
        consumptions,
        limits.counter_consumptions_per_device,
        check,
        _string_key("counterSet"),
        list_path,
        limits,
        key_field,
    )
    if limits.counters_per_device is not None:
        total = sum(
            len(c["counters"])
            for c in consumptions
            if isinstance(c, dict) and isinstance(c.get("counters"), dict)
        )
        if total > limits.counters_per_device:
            errs.append(
                invalid(
                    path,
                    total,
                    f"the total number of counters must not exceed {limits.counters_per_device}",
                    Topic.LIMIT,
                )
            )
    return errs


def _shared_counter_names(shared: list[Any] | None) -> dict[str, set[str]]:
    sets: dict[str, set[str]] = {}
    for counter_set in shared or []:
        name = string(counter_set, "name")
        counters = mapping(counter_set, "counters")
        if isinstance(name, str):
            # a duplicate set is reported on its own; references may use either declaration
            sets.setdefault(name, set()).update(counters if isinstance(counters, dict) else ())
    return sets


def _counter_references(
    counter_set: str, counters: Any, path: Path, sets: dict[str, set[str]]
) -> Errors:
    """1.34: a device consumes counters of a counter set declared in its own slice."""
    topic = Topic.COUNTERS
    if counter_set not in sets:
        return [
            invalid(
                (*path, "counterSet"),
                counter_set,
                "must reference a counterSet defined in the ResourceSlice sharedCounters",
                topic,
            )
        ]
    errs: Errors = []
    for name in counters if isinstance(counters, dict) else {}:
        if name not in sets[counter_set]:
            errs.append(
                invalid(
                    (*path, "counters"),
                    name,
                    "must reference a counter defined in the ResourceSlice sharedCounters",
                    topic,
                    (*path, "counters", Key(name)),
                )
            )
    return errs


def _slice_counter_totals(
    spec: dict[str, Any],
    path: Path,
    devices: list[Any] | None,
    shared: list[Any] | None,
    limits: Limits,
) -> Errors:
    """1.34's slice-wide sums of shared counters and of consumed counters."""
    errs: Errors = []
    assert limits.shared_counters_total is not None and limits.device_counters_per_slice is not None
    shared_total = sum(
        len(s["counters"])
        for s in shared or []
        if isinstance(s, dict) and isinstance(s.get("counters"), dict)
    )
    if shared_total > limits.shared_counters_total:
        errs.append(
            invalid(
                (*path, "sharedCounters"),
                shared_total,
                "the total number of shared counters must not exceed "
                f"{limits.shared_counters_total}",
                Topic.LIMIT,
            )
        )
    consumed = 0
    for device in devices or []:
        for consumption in (
            device.get("consumesCounters") if isinstance(device, dict) else None
        ) or []:
            if isinstance(consumption, dict) and isinstance(consumption.get("counters"), dict):
                consumed += len(consumption["counters"])
    if consumed > limits.device_counters_per_slice:
        errs.append(
            invalid(
                (*path, "devices"),
                consumed,
                "the total number of counters in devices must not exceed "
                f"{limits.device_counters_per_slice}",
                Topic.LIMIT,
            )
        )
    return errs


# ---- per-device node selection -----------------------------------------------------------


def _device_node_selection(device: dict[str, Any], path: Path, per_device: bool) -> Errors:
    topic = Topic.NODE_SELECTION
    name = string(device, "nodeName")
    selector = mapping(device, "nodeSelector")
    all_nodes = boolean(device, "allNodes")
    if any(v is WRONG for v in (name, selector, all_nodes)):
        return []
    if not per_device:
        if name is not None or selector is not None or all_nodes is not None:
            return [
                invalid(
                    path,
                    None,
                    "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                    "`perDeviceNodeSelection` is set to true in the ResourceSlice spec",
                    topic,
                )
            ]
        return []
    errs: Errors = []
    set_fields: list[str] = []
    if name is not None:
        if name:
            set_fields.append("`nodeName`")
            errs.extend(node_name(name, (*path, "nodeName")))
        else:
            errs.append(invalid((*path, "nodeName"), name, "must not be empty", topic))
    if selector is not None:
        set_fields.append("`nodeSelector`")
        errs.extend(node_selector(selector, (*path, "nodeSelector")))
    if all_nodes is True:
        set_fields.append("`allNodes`")
    elif all_nodes is False:
        errs.append(
            invalid((*path, "allNodes"), False, "must be either unset or set to true", topic)
        )
    if not set_fields:
        errs.append(required(path, Topic.ONE_OF, _DEVICE_NODE_ONE_OF))
    elif len(set_fields) > 1:
        errs.append(
            invalid(path, "{" + ", ".join(set_fields) + "}", _DEVICE_NODE_ONE_OF, Topic.ONE_OF)
        )
    return errs
