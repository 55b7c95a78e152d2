"""The size limits the apiserver enforces, per release (``k8s.io/api/resource/v1`` constants)."""

from __future__ import annotations

from dractl.api.releases import RELEASES
from dractl.records import Record


class Limits(Record):
    __slots__ = (
        "attribute_value_length",
        "attribute_values_per_device",
        "attributes_and_capacities_per_device",
        "binding_conditions",
        "binding_failure_conditions",
        "cel_expression_length",
        "config",
        "constraints",
        "counter_consumptions_per_device",
        "counter_sets",
        "counters_in_separate_slices",
        "counters_per_counter_consumption",
        "counters_per_counter_set",
        "counters_per_device",
        "device_counters_per_slice",
        "device_max_domain",
        "device_max_id",
        "device_taints",
        "devices_per_slice",
        "devices_with_advanced_features",
        "driver_name",
        "duplicate_at_name",
        "empty_driver_name_also_invalid",
        "empty_name_parts_required",
        "first_available",
        "items_beyond_max",
        "key_errors_at_key",
        "list_attributes",
        "opaque_parameters",
        "pool_name",
        "release",
        "request_policy_valid_values",
        "requests",
        "selectors",
        "shared_counters_total",
        "taint_effect_none",
    )
    __hash__ = Record.value_hash

    def __init__(
        self,
        release: str,
        device_taints: int,
        shared_counters_total: int | None,
        counters_per_device: int | None,
        device_counters_per_slice: int | None,
        counter_sets: int | None,
        counters_per_counter_set: int | None,
        counter_consumptions_per_device: int | None,
        counters_per_counter_consumption: int | None,
        devices_with_advanced_features: int | None,
        attribute_values_per_device: int | None,
        taint_effect_none: bool,
        list_attributes: bool,
        duplicate_at_name: bool,
        counters_in_separate_slices: bool,
        items_beyond_max: bool,
        empty_driver_name_also_invalid: bool,
        key_errors_at_key: bool,
        empty_name_parts_required: bool,
        driver_name: int = 63,
        pool_name: int = 253,
        device_max_domain: int = 63,
        device_max_id: int = 32,
        attribute_value_length: int = 64,
        attributes_and_capacities_per_device: int = 32,
        devices_per_slice: int = 128,
        binding_conditions: int = 4,
        binding_failure_conditions: int = 4,
        selectors: int = 32,
        first_available: int = 8,
        requests: int = 32,
        constraints: int = 32,
        config: int = 32,
        cel_expression_length: int = 10 * 1024,
        opaque_parameters: int = 10 * 1024,
        request_policy_valid_values: int = 10,
    ) -> None:
        self.release = release
        self.device_taints = device_taints
        # 1.34 counts counters summed over a slice; 1.35 limits sets and consumptions instead.
        self.shared_counters_total = shared_counters_total
        self.counters_per_device = counters_per_device
        self.device_counters_per_slice = device_counters_per_slice
        self.counter_sets = counter_sets
        self.counters_per_counter_set = counters_per_counter_set
        self.counter_consumptions_per_device = counter_consumptions_per_device
        self.counters_per_counter_consumption = counters_per_counter_consumption
        # devices per slice when any device has taints / consumes counters (/ list attributes, 1.36)
        self.devices_with_advanced_features = devices_with_advanced_features
        self.attribute_values_per_device = attribute_values_per_device
        self.taint_effect_none = taint_effect_none
        self.list_attributes = list_attributes
        # Before 1.35 a duplicate request, sub-request or counter set is reported at its `name`.
        self.duplicate_at_name = duplicate_at_name
        # From 1.35 on, a slice holds either `sharedCounters` or `devices`; 1.34 cross-checks them.
        self.counters_in_separate_slices = counters_in_separate_slices
        # 1.34 validates every item of a list or map beyond its maximum and reports `Too many`
        # besides; from 1.35 on the size check is all that is reported for such a list.
        self.items_beyond_max = items_beyond_max
        # 1.34 reports an empty driver name as `Required value` and as no DNS subdomain; from 1.35
        # on as `Required value` only.
        self.empty_driver_name_also_invalid = empty_driver_name_also_invalid
        # 1.34 reports an invalid map key (attribute, capacity, counter name) at `map[key]`; from
        # 1.35 on at the map itself.
        self.key_errors_at_key = key_errors_at_key
        # 1.34 reports an empty qualified name, or an empty domain or name part, as `Required
        # value`, and a fully qualified name without domain as "must include a domain"; from 1.35
        # on these are `Invalid value`.
        self.empty_name_parts_required = empty_name_parts_required
        self.driver_name = driver_name
        self.pool_name = pool_name
        self.device_max_domain = device_max_domain
        self.device_max_id = device_max_id
        self.attribute_value_length = attribute_value_length
        self.attributes_and_capacities_per_device = attributes_and_capacities_per_device
        self.devices_per_slice = devices_per_slice
        self.binding_conditions = binding_conditions
        self.binding_failure_conditions = binding_failure_conditions
        self.selectors = selectors
        self.first_available = first_available
        self.requests = requests
        self.constraints = constraints
        self.config = config
        self.cel_expression_length = cel_expression_length
        self.opaque_parameters = opaque_parameters
        self.request_policy_valid_values = request_policy_valid_values

    @property
    def attribute_key_length(self) -> int:
        """Longest key printed in full in a path; longer keys are shortened in the middle."""
        return self.device_max_domain + 1 + self.device_max_id


_LIMITS = {
    "1.34": Limits(
        release="1.34",
        device_taints=4,
        shared_counters_total=32,
        counters_per_device=32,
        device_counters_per_slice=1024,
        counter_sets=None,
        counters_per_counter_set=None,
        counter_consumptions_per_device=None,
        counters_per_counter_consumption=None,
        devices_with_advanced_features=None,
        attribute_values_per_device=None,
        taint_effect_none=False,
        list_attributes=False,
        duplicate_at_name=True,
        counters_in_separate_slices=False,
        items_beyond_max=True,
        empty_driver_name_also_invalid=True,
        key_errors_at_key=True,
        empty_name_parts_required=True,
    ),
    "1.35": Limits(
        release="1.35",
        device_taints=16,
        shared_counters_total=None,
        counters_per_device=None,
        device_counters_per_slice=None,
        counter_sets=8,
        counters_per_counter_set=32,
        counter_consumptions_per_device=2,
        counters_per_counter_consumption=32,
        devices_with_advanced_features=64,
        attribute_values_per_device=None,
        taint_effect_none=True,
        list_attributes=False,
        duplicate_at_name=False,
        counters_in_separate_slices=True,
        items_beyond_max=False,
        empty_driver_name_also_invalid=False,
        key_errors_at_key=False,
        empty_name_parts_required=False,
    ),
    "1.36": Limits(
        release="1.36",
        device_taints=16,
        shared_counters_total=None,
        counters_per_device=None,
        device_counters_per_slice=None,
        counter_sets=8,
        counters_per_counter_set=32,
        counter_consumptions_per_device=2,
        counters_per_counter_consumption=32,
        devices_with_advanced_features=64,
        attribute_values_per_device=48,
        taint_effect_none=True,
        list_attributes=True,
        duplicate_at_name=False,
        counters_in_separate_slices=True,
        items_beyond_max=False,
        empty_driver_name_also_invalid=False,
        key_errors_at_key=False,
        empty_name_parts_required=False,
    ),
}

assert set(_LIMITS) == set(RELEASES)


def limits_for(release: str) -> Limits:
    return _LIMITS[release]
