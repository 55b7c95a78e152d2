"""The object as the apiserver's strict decoder reads it (the bundled JSON Schemas).

``kubectl apply`` asks for strict field validation, so the apiserver refuses an object whose
JSON does not decode into the Go types of its apiVersion: an unknown field, a value of the wrong
JSON type, or a quantity or time it cannot parse. The check runs on the object as the author
wrote it (in its own apiVersion, before conversion), against the schema of the chosen release,
and finds every problem, not only the first one the apiserver would name. Lint reports them
(DRA010-DRA013); explain, select and the allocator rule refuse objects with decoding errors
(:func:`decode_errors`), as the allocator reads only objects an apiserver accepted.

Each object is first checked by a compiled checker with the same verdict as the JSON Schema; only
objects it rejects are validated with jsonschema to learn where and why.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from dractl.api.core_schemas import POD_SPEC, POD_STATUS, core_schema, has_core_schema
from dractl.api.model import plain
from dractl.api.paths import format_path
from dractl.api.releases import RELEASES
from dractl.api.schemas import (
    INTEGER_RANGES,
    Checker,
    compile_checker,
    go_decoder_validator,
    load_schema,
)
from dractl.api.versions import GROUP, KINDS, V1BETA1_REQUEST_FIELDS
from dractl.diagnostics import Position
from dractl.records import Record

if TYPE_CHECKING:
    from jsonschema import Draft7Validator

    from dractl.api.model import ApiObject

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
# Types whose Go decoder takes any JSON value (validation, not decoding, judges their content).
RAW_JSON = frozenset(
    {
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    }
)
RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00"

# Fields the API schema marks required whose absence the apiserver accepts: it decodes them as
# their zero value and no validation rule rejects that. (Every other required field is checked
# by the apiserver's validation, reported by the DRA1xx rules as "Required value".) A missing
# `spec.pool.generation` is accepted too but not listed: 0 is a normal first generation.
# (definition, field) -> the value the apiserver uses instead.
ZERO_VALUE_ACCEPTED: dict[tuple[str, str], str] = {
    ("Counter", "value"): "0",
    ("DeviceCapacity", "value"): "0",
    ("DeviceClass", "spec"): "an empty spec",
    ("ResourceClaim", "spec"): "an empty spec (a claim that requests no devices)",
    ("ResourceClaimTemplate", "spec"): "an empty spec (claims that request no devices)",
    ("ResourceClaimTemplateSpec", "spec"): "an empty spec (claims that request no devices)",
}


# --- the schema, compiled once per process ---------------------------------------------------------


# A cluster repeats a few quantity and time texts on every device and object.
@lru_cache(maxsize=65536)
def _quantity_ok(text: str) -> bool:
    return quantity_error(text) is None


def quantity_error(text: str) -> str | None:
    """What the apiserver says about a quantity string it cannot decode, or None."""
    from dractl.api.quantity import QuantityError, QuantityUnsupported, decode_quantity

    try:
        decode_quantity(text)
    except QuantityUnsupported:
        return None  # legal upstream; only too large for dractl's arithmetic
    except QuantityError as exc:
        return str(exc)
    return None


_RFC3339 = r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$"


@lru_cache(maxsize=65536)
def time_ok(text: str) -> bool:
    """Whether Go's ``time.Parse(time.RFC3339, text)`` (metav1.Time's decoder) accepts ``text``."""
    match = re.match(_RFC3339, text)
    if match is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    if hour > 23 or minute > 59 or second > 59:
        return False
    if match.group(9) is not None and (int(match.group(9)) > 23 or int(match.group(10)) > 59):
        return False
    try:
        datetime(year, month, day)
    except ValueError:
        return False
    return True


DECODER_STRINGS: dict[str, Callable[[str], bool]] = {QUANTITY: _quantity_ok, TIME: time_ok}


def _schema(release: str, version: str, kind: str, group: str) -> dict[str, Any] | None:
    """The bundled schema of a DRA kind, else the schema of the fields dractl reads (core kinds)."""
    if group == GROUP and kind in KINDS:
        return load_schema(release, version, kind)
    return _with_scheduler_fields(core_schema(release, group, version, kind), release, group, kind)


# --- the fields the scheduler's plugins read (dractl.scheduler) ------------------------------------
#
# explain runs kube-scheduler's Filter plugins, which read more of Pods (and pod templates) and
# Nodes than core_schemas describes: tolerations, containers' requests, limits and host ports,
# overhead, pod-level resources, scheduling gates, priority, the volumes, topology spread and pod
# affinity the not-evaluated plugins note, the status of bound Pods (phase, conditions, resized
# containers), and a Node's spec (unschedulable, taints) and status.allocatable. They are typed
# here as k8s.io/api core/v1 types them; named string types (TolerationOperator, TaintEffect...)
# are definitions of their own so that an error names them as Go's decoder does
# ("of type v1.TaintEffect"). As in core_schemas, every other field is accepted.

_V1 = "io.k8s.api.core.v1."
_AFFINITY = _V1 + "Affinity"
_RESOURCE_LIST = _V1 + "ResourceList"
_RESOURCE_REQUIREMENTS = _V1 + "ResourceRequirements"
# Quantity as the bundled schemas define it (a string or a number; the string must parse).
_QUANTITY_DEF: dict[str, Any] = {
    "oneOf": [{"type": "string"}, {"type": "number"}],
    "title": "Quantity",
}


def _d(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _obj(**fields: Any) -> dict[str, Any]:
    return {"type": "object", "properties": fields}


def _list_of(name: str) -> dict[str, Any]:
    return {"type": "array", "items": _d(name)}


_STR: dict[str, Any] = {"type": "string"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_I32: dict[str, Any] = {"type": "integer", "format": "int32"}
_I64: dict[str, Any] = {"type": "integer", "format": "int64"}
_ANY_OBJECT: dict[str, Any] = {"type": "object"}

# Added to PodSpec, PodStatus and Affinity of core_schemas (their fields stay).
_POD_SPEC_FIELDS: dict[str, Any] = {
    "nodeName": _STR,
    "schedulerName": _STR,
    "priority": _I32,
    "preemptionPolicy": _d(_V1 + "PreemptionPolicy"),
    "schedulingGates": _list_of(_V1 + "PodSchedulingGate"),
    "tolerations": _list_of(_V1 + "Toleration"),
    "containers": _list_of(_V1 + "Container"),
    "initContainers": _list_of(_V1 + "Container"),
    "overhead": _d(_RESOURCE_LIST),
    "resources": _d(_RESOURCE_REQUIREMENTS),
    "volumes": _list_of(_V1 + "Volume"),
    "topologySpreadConstraints": _list_of(_V1 + "TopologySpreadConstraint"),
}
_POD_STATUS_FIELDS: dict[str, Any] = {
    "phase": _d(_V1 + "PodPhase"),
    "nominatedNodeName": _STR,
    "startTime": _d(TIME),
    "conditions": _list_of(_V1 + "PodCondition"),
    "containerStatuses": _list_of(_V1 + "ContainerStatus"),
    "initContainerStatuses": _list_of(_V1 + "ContainerStatus"),
}
_AFFINITY_FIELDS: dict[str, Any] = {
    "podAffinity": _d(_V1 + "PodAffinity"),
    "podAntiAffinity": _d(_V1 + "PodAntiAffinity"),
}
_SCHEDULER_DEFS: dict[str, Any] = {
    **{
        _V1 + name: _STR
        for name in (
            "PreemptionPolicy",
            "TolerationOperator",
            "TaintEffect",
            "Protocol",
            "ContainerRestartPolicy",
            "PodPhase",
            "PodConditionType",
            "ConditionStatus",
            "UnsatisfiableConstraintAction",
        )
    },
    _V1 + "PodSchedulingGate": _obj(name=_STR),
    _V1 + "Toleration": _obj(
        key=_STR,
        operator=_d(_V1 + "TolerationOperator"),
        value=_STR,
        effect=_d(_V1 + "TaintEffect"),
        tolerationSeconds=_I64,
    ),
    _V1 + "Container": _obj(
        name=_STR,
        ports=_list_of(_V1 + "ContainerPort"),
        resources=_d(_RESOURCE_REQUIREMENTS),
        restartPolicy=_d(_V1 + "ContainerRestartPolicy"),
    ),
    _V1 + "ContainerPort": _obj(hostPort=_I32, hostIP=_STR, protocol=_d(_V1 + "Protocol")),
    _RESOURCE_REQUIREMENTS: _obj(limits=_d(_RESOURCE_LIST), requests=_d(_RESOURCE_LIST)),
    _RESOURCE_LIST: {"type": "object", "additionalProperties": _d(QUANTITY)},
    _V1 + "Volume": _obj(
        name=_STR,
        persistentVolumeClaim=_d(_V1 + "PersistentVolumeClaimVolumeSource"),
        ephemeral=_d(_V1 + "EphemeralVolumeSource"),
        csi=_d(_V1 + "CSIVolumeSource"),
        gcePersistentDisk=_d(_V1 + "GCEPersistentDiskVolumeSource"),
        awsElasticBlockStore=_d(_V1 + "AWSElasticBlockStoreVolumeSource"),
        azureDisk=_d(_V1 + "AzureDiskVolumeSource"),
        rbd=_d(_V1 + "RBDVolumeSource"),
        iscsi=_d(_V1 + "ISCSIVolumeSource"),
    ),
    _V1 + "PersistentVolumeClaimVolumeSource": _obj(claimName=_STR),
    _V1 + "CSIVolumeSource": _obj(driver=_STR),
    **{
        _V1 + name: _ANY_OBJECT
        for name in (
            "EphemeralVolumeSource",
            "GCEPersistentDiskVolumeSource",
            "AWSElasticBlockStoreVolumeSource",
            "AzureDiskVolumeSource",
            "RBDVolumeSource",
            "ISCSIVolumeSource",
            "PodAffinityTerm",
        )
    },
    _V1 + "TopologySpreadConstraint": _obj(
        topologyKey=_STR, whenUnsatisfiable=_d(_V1 + "UnsatisfiableConstraintAction")
    ),
    _V1 + "PodAffinity": _obj(
        requiredDuringSchedulingIgnoredDuringExecution=_list_of(_V1 + "PodAffinityTerm")
    ),
    _V1 + "PodAntiAffinity": _obj(
        requiredDuringSchedulingIgnoredDuringExecution=_list_of(_V1 + "PodAffinityTerm")
    ),
    _V1 + "PodCondition": _obj(
        type=_d(_V1 + "PodConditionType"), status=_d(_V1 + "ConditionStatus"), reason=_STR
    ),
    # What a bound Pod's resized containers hold (NodeResourcesFit reads it for bound Pods).
    _V1 + "ContainerStatus": _obj(
        name=_STR, allocatedResources=_d(_RESOURCE_LIST), resources=_d(_RESOURCE_REQUIREMENTS)
    ),
    # A Node: NodeUnschedulable, TaintToleration and NodeResourcesFit.
    _V1 + "NodeSpec": _obj(unschedulable=_BOOL, taints=_list_of(_V1 + "Taint")),
    _V1 + "Taint": _obj(key=_STR, value=_STR, effect=_d(_V1 + "TaintEffect"), timeAdded=_d(TIME)),
    _V1 + "NodeStatus": _obj(allocatable=_d(_RESOURCE_LIST)),
}


def _extended(definition: Any, fields: dict[str, Any]) -> dict[str, Any]:
    """A struct definition of core_schemas with more fields (a new dict: core_schema's is cached)."""
    node = definition if isinstance(definition, dict) else _ANY_OBJECT
    return {**node, "type": "object", "properties": {**fields, **node.get("properties", {})}}


def _with_scheduler_fields(
    schema: dict[str, Any] | None, release: str, group: str, kind: str
) -> dict[str, Any] | None:
    """core_schemas' schema of a Pod, workload or Node with the fields the scheduler's plugins
    read (see above); other kinds' schemas as they are."""
    if schema is None:
        return None
    defs: dict[str, Any] = schema.get("$defs", {})
    node = (group, kind) == ("", "Node")
    if POD_SPEC not in defs and not node:
        return schema
    bundled = load_schema(release, "v1", "ResourceClaim")
    quantity = (bundled or {}).get("$defs", {}).get(QUANTITY, _QUANTITY_DEF)
    defs = {**defs, **_SCHEDULER_DEFS, QUANTITY: quantity}
    if POD_SPEC in defs:
        defs[POD_SPEC] = _extended(defs[POD_SPEC], _POD_SPEC_FIELDS)
        defs[POD_STATUS] = _extended(defs.get(POD_STATUS), _POD_STATUS_FIELDS)
        defs[_AFFINITY] = _extended(defs.get(_AFFINITY), _AFFINITY_FIELDS)
    properties = dict(schema.get("properties", {}))
    if node:
        properties.setdefault("spec", _d(_V1 + "NodeSpec"))
        properties.setdefault("status", _d(_V1 + "NodeStatus"))
    return {**schema, "properties": properties, "$defs": defs}


@cache
def compiled_schema(
    release: str, version: str, kind: str, group: str = GROUP
) -> tuple[dict[str, Any], Checker] | None:
    schema = _schema(release, version, kind, group)
    if schema is None:
        return None
    return schema, compile_checker(schema, DECODER_STRINGS)


@cache
def _validator(release: str, version: str, kind: str, group: str = GROUP) -> Draft7Validator:

    schema = _schema(release, version, kind, group)
    assert schema is not None
    return go_decoder_validator()(schema)


# --- walking the schema along a data path -----------------------------------------------------------


class _Step(Record):
    """The schema node a data path leads to, and what Go's decoder knows there."""

    __slots__ = ("definition", "go_fields", "node", "struct")

    def __init__(
        self,
        node: dict[str, Any],
        definition: str | None,
        struct: str,
        go_fields: list[str] | None = None,
    ) -> None:
        self.node = node
        self.definition = definition  # the $defs name of node, if it is one
        self.struct = struct  # the Go struct holding the last field on the path
        # struct field names only (Go's error context)
        self.go_fields = [] if go_fields is None else go_fields


def _deref(defs: dict[str, Any], node: Any) -> tuple[dict[str, Any], str | None]:
    name = None
    while isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            node = defs[name]
        elif "allOf" in node and len(node["allOf"]) == 1:
            node = node["allOf"][0]
        else:
            return node, name
    return {}, name


def _short(definition: str) -> str:
    return definition.rsplit(".", 1)[-1]


def _walk(schema: dict[str, Any], kind: str, path: Sequence[Any]) -> _Step | None:
    defs = schema.get("$defs", {})
    node, name = _deref(defs, schema)
    step = _Step(node, name, kind)
    current_struct = kind
    for part in path:
        if isinstance(part, int):
            items = node.get("items")
            if items is None:
                return None
            node, name = _deref(defs, items)
        else:
            properties = node.get("properties")
            if properties is not None and part in properties:
                step.go_fields.append(part)
                step.struct = current_struct
                node, name = _deref(defs, properties[part])
            elif isinstance(node.get("additionalProperties"), dict):
                node, name = _deref(defs, node["additionalProperties"])
            else:
                return None
        if name is not None:
            current_struct = _short(name)
        step.node, step.definition = node, name
    return step


def _package(definition: str) -> str:
    if definition == QUANTITY:
        return "resource"
    if definition.endswith("runtime.RawExtension"):
        return "runtime"
    return definition.rsplit(".", 2)[-2]  # v1, v1beta1, v1beta2 (resource, core and meta v1)


def go_type(defs: dict[str, Any], node: Any) -> str:
    """The Go type a schema node decodes into, as Go's decoder prints it."""
    node, name = _deref(defs, node)
    if name is not None:
        return f"{_package(name)}.{_short(name)}"
    kind = node.get("type")
    if kind == "integer":
        return {"int32": "int32", "int64": "int64"}.get(node.get("format", ""), "int")
    if kind == "number":
        return "float64"
    if kind == "boolean":
        return "bool"
    if kind == "string":
        return "string"
    if kind == "array":
        return "[]" + go_type(defs, node.get("items", {}))
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return "map[string]" + go_type(defs, node["additionalProperties"])
    return "struct"


def json_kind(value: Any, target: str) -> str:
    """How Go's decoder names a JSON value in "cannot unmarshal X" (numbers into integers show it)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        if target in ("int", "int32", "int64"):
            if isinstance(value, float):
                # The text the decoder parsed: kubectl sends YAML's floats as Go's JSON encoder
                # writes them (-9223372036854775809 arrives as -9223372036854776000).
                from dractl.api.quantity import json_number_text

                return f"number {json_number_text(value)}"
            return f"number {value}"
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def strict_path(path: Sequence[Any]) -> str:
    """A data path as strict decoding prints it: fields and map keys joined by dots, indices [i]
    (the apiserver's field paths put map keys in brackets)."""
    return format_path(
        part if isinstance(part, int) and not isinstance(part, bool) else str(part) for part in path
    )


# --- the problems of one object ---------------------------------------------------------------------


class SchemaProblem(Record):
    """One value of an object that the decoder refuses (or, for a missing required field,
    silently reads as its zero value)."""

    __slots__ = ("field", "hint", "message", "obj", "position")
    __hash__ = Record.value_hash

    def __init__(
        self,
        obj: ApiObject,
        message: str,
        field: str,
        position: Position,
        hint: str | None = None,
    ) -> None:
        self.obj = obj
        self.message = message
        self.field = field  # the data path as strict decoding prints it
        self.position = position
        self.hint = hint

    def __str__(self) -> str:
        what = f"{self.obj.kind} {self.obj.qualified_name}" if self.obj.name else self.obj.kind
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.position}: {what}: {self.message}{hint}"


class SchemaProblems(Record):
    __slots__ = ("malformed", "missing", "unknown", "wrong_type")

    def __init__(
        self,
        unknown: list[SchemaProblem] | None = None,
        wrong_type: list[SchemaProblem] | None = None,
        malformed: list[SchemaProblem] | None = None,
        missing: list[SchemaProblem] | None = None,
    ) -> None:
        self.unknown = [] if unknown is None else unknown  # unknown fields (strict decoding)
        self.wrong_type = [] if wrong_type is None else wrong_type
        self.malformed = [] if malformed is None else malformed  # quantities and times
        self.missing = [] if missing is None else missing  # required, zero value accepted


def author_data(obj: ApiObject) -> dict[str, Any]:
    """The object as its author wrote it (v1beta1 stays v1beta1), with List-inherited GVK filled in.

    Only v1beta1 objects differ from the model's data (which is in the v1 shape); for the others
    the model's data is reused. Nothing here modifies what it returns.
    """
    data = obj.data if obj.version != "v1beta1" else plain(obj.source.raw)
    if not isinstance(data, dict):
        return {}
    if "apiVersion" not in data or "kind" not in data:
        data = {**data, "apiVersion": obj.api_version, "kind": obj.kind}
    return data


def object_decode_errors(obj: ApiObject, release: str) -> list[SchemaProblem]:
    """Why the apiserver's decoder cannot read ``obj`` at all: values of the wrong JSON type and
    quantities or times it cannot parse (DRA011 and DRA012 for DRA kinds).

    Besides the DRA kinds this covers the fields dractl reads from Pods, workloads, Nodes and
    DeviceTaintRules (:mod:`dractl.api.core_schemas`, and the fields the scheduler's plugins
    read, :data:`_SCHEDULER_DEFS`), so that ``dractl explain`` can refuse an object before the
    allocator or a plugin reads it. Unknown fields are not decoding errors here: a
    decoder that is not strict drops them.
    """
    if not obj.dra and not has_core_schema(obj.group, obj.version, obj.kind):
        return []
    problems = schema_problems(obj, release)
    return problems.wrong_type + problems.malformed


def decode_errors(objects: Iterable[ApiObject], release: str) -> list[SchemaProblem]:
    """Every value of the wrong type, unparsable quantity or time in the objects, in position
    order within each object.

    The allocator, like the scheduler, reads only objects the apiserver accepted: it trusts
    their shape. An object that no apiserver could have decoded is refused before it gets there.
    """
    out: list[SchemaProblem] = []
    for obj in objects:
        errors = object_decode_errors(obj, release)
        out.extend(sorted(errors, key=lambda e: (e.position.line, e.position.column)))
    return out


def schema_problems(obj: ApiObject, release: str) -> SchemaProblems:
    """The schema problems of ``obj``, found once per object and release: DRA010-DRA013 and
    the decoding check (:func:`decode_errors`) ask for the same objects. Unknown fields are
    looked for in DRA objects only (only DRA010 reports them)."""
    key = ("schema-check", release)
    cached = obj.memo.get(key)
    if cached is None:
        cached = obj.memo[key] = _check_once(obj, release, unknown=obj.dra)
    return cached  # type: ignore[no-any-return]


def _check_once(obj: ApiObject, release: str, *, unknown: bool) -> SchemaProblems:
    problems = SchemaProblems()
    compiled = compiled_schema(release, obj.version, obj.kind, obj.group)
    if compiled is None:
        return problems
    schema, checker = compiled
    data = author_data(obj)
    # What the compiled checker (a schema's verdict) cannot see: floats JSON cannot hold, and
    # floats whose JSON text is beyond an integer field's range though their value is not.
    unsupported: set[tuple[Any, ...]] = set()
    if _has_floats(data):
        for path, value in _floats(data, ()):
            if not math.isfinite(value):
                unsupported.add(path)
                problems.wrong_type.append(_unsupported_value(obj, path, value))
            else:
                problem = _integer_text_out_of_range(obj, schema, path, value)
                if problem is not None:
                    problems.wrong_type.append(problem)
    if checker(data):
        return problems
    defs = schema.get("$defs", {})
    for error in _validator(release, obj.version, obj.kind, obj.group).iter_errors(data):
        path = tuple(error.absolute_path)
        if path in unsupported:
            continue  # kubectl fails to write the document before any field is decoded
        validator = error.validator
        if validator == "additionalProperties":
            if not unknown:
                continue
            known = error.schema.get("properties", {})
            for name in error.instance:
                if name not in known:
                    problems.unknown.append(
                        _unknown_field(obj, schema, release, (*path, name), known)
                    )
        elif validator in ("type", "oneOf", "anyOf", "format"):
            step = None if _is_null(error.instance) else _walk(schema, obj.kind, path)
            if step is None or step.definition in RAW_JSON:
                continue
            if step.definition == QUANTITY:
                # Quantity's decoder parses the raw JSON text: a bool or object fails as text.
                from dractl.api.quantity import ERR_FORMAT_WRONG

                problems.malformed.append(_malformed_quantity(obj, path, ERR_FORMAT_WRONG))
            else:
                problems.wrong_type.append(_wrong_type(obj, schema, step, path, error.instance))
        elif validator == "required":
            problems.missing.extend(
                _missing(obj, schema, path, error.instance, error.validator_value)
            )
    problems.malformed.extend(_malformed_strings(obj, defs, schema, data))
    return problems


def _has_floats(node: Any) -> bool:
    """Whether the data holds a float anywhere (manifests rarely do: one walk of the values)."""
    values = node.values() if isinstance(node, dict) else node
    for value in values:
        kind = value.__class__
        if kind is str or kind is int or kind is bool or value is None:
            continue
        if isinstance(value, float) or (isinstance(value, dict | list) and _has_floats(value)):
            return True
    return False


def _floats(node: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], float]]:
    """Every float of the data, with its path."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        if isinstance(value, float):
            yield (*path, key), value
        elif isinstance(value, dict | list):
            yield from _floats(value, (*path, key))


def _unsupported_value(obj: ApiObject, path: tuple[Any, ...], value: float) -> SchemaProblem:
    """A float infinity or NaN (YAML's ``.inf``, ``-.inf``, ``.nan``): JSON has neither, so
    kubectl cannot turn the document into the JSON it sends, whatever the field (sigs.k8s.io/yaml
    fails in encoding/json's Marshal: ``json: unsupported value: -Inf``)."""
    go = "NaN" if math.isnan(value) else ("-Inf" if value < 0 else "+Inf")
    return SchemaProblem(
        obj,
        message=f"{strict_path(path)}: error converting YAML to JSON: json: unsupported value: {go}",
        field=strict_path(path),
        position=obj.source.position(path),
        hint="JSON has no infinity or NaN, so kubectl refuses the whole document; write a finite "
        "number, or quote the text if a string is meant",
    )


def _integer_text_out_of_range(
    obj: ApiObject, schema: dict[str, Any], path: tuple[Any, ...], value: float
) -> SchemaProblem | None:
    """A whole float in an integer field whose JSON text (Go's shortest digits, which kubectl
    sends) is beyond the field's range though the float is not: -9223372036854775809 reads as
    the float -2**63, written "-9223372036854776000", which ParseInt refuses. (Floats whose value
    is out of range are the schema check's.)"""
    if not value.is_integer():
        return None
    step = _walk(schema, obj.kind, path)
    if step is None:
        return None
    bits = go_type(schema.get("$defs", {}), step.node)
    if bits not in INTEGER_RANGES:
        return None
    from dractl.api.quantity import json_number_text

    low, high = INTEGER_RANGES[bits]
    if not low <= int(value) <= high:
        return None  # the schema check reports it
    text = json_number_text(value)
    if "e" in text or not low <= int(text) <= high:
        return _wrong_type(obj, schema, step, path, value)
    return None


def _is_null(value: Any) -> bool:
    # Go's decoder accepts JSON null for every field (the zero value); validation judges that.
    return value is None


def _wrong_type(
    obj: ApiObject, schema: dict[str, Any], step: _Step, path: tuple[Any, ...], value: Any
) -> SchemaProblem:
    defs = schema.get("$defs", {})
    # The type Go names, and what it is made of: a named string type (v1.TaintEffect) takes
    # what a string takes.
    underlying = go_type(defs, step.node)
    if step.definition is not None:
        target = f"{_package(step.definition)}.{_short(step.definition)}"
    else:
        target = underlying
    kind = json_kind(value, underlying)
    if step.go_fields:
        message = (
            f"cannot unmarshal {kind} into Go struct field "
            f"{step.struct}.{'.'.join(step.go_fields)} of type {target}"
        )
    else:
        message = f"cannot unmarshal {kind} into Go value of type {target}"
    return SchemaProblem(
        obj,
        message=message,
        field=strict_path(path),
        position=obj.source.position(path),
        hint=_type_hint(obj, path, value, target, underlying),
    )


_DIGITS_RE = r"[-+]?[0-9]+"
_HUGE_FLOAT_RE = r"[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)[eE][-+]?[0-9]+"
HINT_SCALAR_LENGTH = 40  # a hint quotes the scalar; the code frame already shows all of it


def _type_hint(
    obj: ApiObject, path: tuple[Any, ...], value: Any, target: str, underlying: str | None = None
) -> str | None:
    underlying = target if underlying is None else underlying
    # A whole number out of range; or digits too many for a float, which go-yaml reads as a string
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    # go-yaml keeps as a string a number too large for 64 bits, or for a float64 (1e400)
    digits = isinstance(value, str) and (
        (len(value) > 19 and re.fullmatch(_DIGITS_RE, value) is not None)
        or (re.fullmatch(_HUGE_FLOAT_RE, value) is not None and _beyond_float64(value))
    )
    if underlying in INTEGER_RANGES and (whole or digits) and not isinstance(value, bool):
        low, high = INTEGER_RANGES[underlying]
        return f"expected a whole number from {low} to {high} (the field is {underlying})"
    text = _yaml11_text(obj, obj.source.position(path))
    if text is not None:
        # (the validation package, imported for one function, would cost explain and select 10 ms)
        from dractl.api.validation.common import truncate_if_too_long

        shown = truncate_if_too_long(text, HINT_SCALAR_LENGTH)
        read_as = truncate_if_too_long(_yaml_repr(value), HINT_SCALAR_LENGTH)
        return (
            f"kubectl reads the plain scalar {shown} the YAML 1.1 way, as {read_as}; "
            f'quote it ("{shown}") if you mean the string'
        )
    hints = {
        "string": "a string",
        "bool": "true or false",
        "int": "a whole number",
        "int32": "a whole number",
        "int64": "a whole number",
        "float64": "a number",
        "resource.Quantity": 'a quantity such as 4 or "16Gi"',
        "v1.Time": 'an RFC 3339 time such as "2025-01-31T12:00:00Z"',
    }
    expected = hints.get(target) or hints.get(underlying)
    if expected is None:
        expected = "a list" if target.startswith("[]") else "a mapping"
    return f"expected {expected}"


def _beyond_float64(text: str) -> bool:
    try:
        return math.isinf(float(text.replace("_", "")))
    except ValueError:  # "._e5": no number at all
        return False


def _yaml11_text(obj: ApiObject, position: Position) -> str | None:
    # Document.yaml11 is keyed by 1-based (line, column) of the scalar in the file.
    return obj.source.document.yaml11.get((position.line, position.column))


def _yaml_repr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _unknown_field(
    obj: ApiObject,
    schema: dict[str, Any],
    release: str,
    path: tuple[Any, ...],
    known: dict[str, Any],
) -> SchemaProblem:
    name = str(path[-1])
    message = f'unknown field "{strict_path(path)}"'
    hint = None
    if name == "expression" and "cel" in known:
        message += ": did you mean to indent expression under cel?"
    else:
        hint = _unknown_field_hint(obj, schema, release, path, known)
    return SchemaProblem(
        obj,
        message=message,
        field=strict_path(path),
        position=key_position(obj, path),
        hint=hint,
    )


def _unknown_field_hint(
    obj: ApiObject,
    schema: dict[str, Any],
    release: str,
    path: tuple[Any, ...],
    known: dict[str, Any],
) -> str | None:
    name = str(path[-1])
    version = obj.version
    if name in V1BETA1_REQUEST_FIELDS and "exactly" in known:
        return f"in resource.k8s.io/{version} this field belongs under `exactly:` (v1beta1 has it on the request)"
    if name == "exactly" and version == "v1beta1":
        return (
            "`exactly:` is v1beta2 and v1 syntax; in v1beta1 its fields sit on the request itself"
        )
    if name == "basic" and version != "v1beta1" and "attributes" in known:
        return f"`basic:` is v1beta1 syntax; in resource.k8s.io/{version} the device fields sit directly on the device"
    if "basic" in known and version == "v1beta1":
        defs = schema.get("$defs", {})
        basic, _ = _deref(defs, known["basic"])
        if name in basic.get("properties", {}):
            return "in v1beta1 device fields go under `basic:`"
    newer = _added_later(obj, release, path)
    if newer is not None:
        return newer
    insensitive = [k for k in known if k.lower() == name.lower()]
    if insensitive:
        return f"field names are case-sensitive: did you mean {insensitive[0]}?"
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    if close:
        return f"did you mean {close[0]}?"
    return None


def _added_later(obj: ApiObject, release: str, path: tuple[Any, ...]) -> str | None:
    later = RELEASES[RELEASES.index(release) + 1 :] if release in RELEASES else ()
    for newer in later:
        compiled = compiled_schema(newer, obj.version, obj.kind)
        if compiled is None:
            continue
        step = _walk(compiled[0], obj.kind, path)
        if step is not None:
            return (
                f"{path[-1]} is new in Kubernetes {newer}; a {release} apiserver does not know it"
            )
    return None


def key_position(obj: ApiObject, path: Sequence[Any]) -> Position:
    """The position of the key at the end of ``path`` (the author's key, not its value)."""
    document = obj.source.document
    full = (*obj.source.base, *path)
    parent = document.marked_node(full[:-1])
    wanted = full[-1]
    if isinstance(parent, dict):
        for raw_key in parent:
            if raw_key == wanted or next(iter(plain({raw_key: None}))) == wanted:
                try:
                    line, column = parent.lc.key(raw_key)  # type: ignore[attr-defined]
                except (AttributeError, KeyError, TypeError):
                    break
                return Position(document.file.path, document.start_line + line + 1, column + 1)
    return obj.source.position(path)


def _missing(
    obj: ApiObject,
    schema: dict[str, Any],
    path: tuple[Any, ...],
    instance: Any,
    required: list[str],
) -> Iterator[SchemaProblem]:
    if path and path[0] == "status":
        return  # the apiserver clears status on create (reported elsewhere)
    step = _walk(schema, obj.kind, path)
    if step is None:
        return
    owner = _short(step.definition) if step.definition else obj.kind
    for name in required:
        if name in instance or name in ("apiVersion", "kind"):
            continue
        zero = ZERO_VALUE_ACCEPTED.get((owner, name))
        if zero is None:
            continue
        yield SchemaProblem(
            obj,
            message=(
                f'missing required field "{strict_path((*path, name))}": '
                f"the apiserver accepts the object and uses {zero}"
            ),
            field=strict_path((*path, name)),
            position=obj.source.position(path),
            hint=f"the API marks {name} as required; set it explicitly",
        )


def _malformed_strings(
    obj: ApiObject, defs: dict[str, Any], schema: dict[str, Any], data: dict[str, Any]
) -> Iterator[SchemaProblem]:
    for path, definition, value in _strings_of(defs, schema, data, ()):
        if definition == QUANTITY:
            problem = quantity_error(value)
            if problem is not None:
                yield _malformed_quantity(obj, path, problem)
            continue
        else:
            if time_ok(value):
                continue
            message = f'parsing time "{value}" as "{RFC3339_LAYOUT}": not an RFC 3339 time'
            hint = 'write an RFC 3339 time such as "2025-01-31T12:00:00Z"'
        yield SchemaProblem(
            obj,
            message=message,
            field=strict_path(path),
            position=obj.source.position(path),
            hint=hint,
        )


def _malformed_quantity(obj: ApiObject, path: tuple[Any, ...], problem: str) -> SchemaProblem:
    return SchemaProblem(
        obj,
        message=f"{strict_path(path)}: {problem}",
        field=strict_path(path),
        position=obj.source.position(path),
        hint='a quantity is a number with an optional suffix, e.g. 4, 500m, 16Gi, 1e3 ("16GB" is not one)',
    )


def _strings_of(
    defs: dict[str, Any], node: Any, value: Any, path: tuple[Any, ...]
) -> Iterator[tuple[tuple[Any, ...], str, str]]:
    """Every string in ``value`` that the schema types as a Quantity or a Time."""
    node, name = _deref(defs, node)
    if name in (QUANTITY, TIME):
        if isinstance(value, str):
            yield path, name, value
        return
    if isinstance(value, dict):
        properties = node.get("properties")
        additional = node.get("additionalProperties")
        for key, item in value.items():
            if properties is not None and key in properties:
                yield from _strings_of(defs, properties[key], item, (*path, key))
            elif isinstance(additional, dict):
                yield from _strings_of(defs, additional, item, (*path, key))
    elif isinstance(value, list) and isinstance(node.get("items"), dict):
        for index, item in enumerate(value):
            yield from _strings_of(defs, node["items"], item, (*path, index))
