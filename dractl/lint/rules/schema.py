"""DRA01x: the object as the apiserver's strict decoder reads it (the bundled JSON Schemas).

``kubectl apply`` asks for strict field validation, so the apiserver refuses an object whose
JSON does not decode into the Go types of its apiVersion: an unknown field, a value of the wrong
JSON type, or a quantity or time it cannot parse. These rules report what
:mod:`dractl.api.decoding` finds in an object: every problem, not only the first one the
apiserver would name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.decoding import SchemaProblem, SchemaProblems, schema_problems
from dractl.api.versions import KINDS
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding
from dractl.lint.registry import rule

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext


def _problems(obj: ApiObject, ctx: LintContext) -> SchemaProblems:
    if not obj.dra:
        return SchemaProblems()
    return schema_problems(obj, ctx.features.release)


def _findings(problems: list[SchemaProblem]) -> Iterator[Finding]:
    for problem in problems:
        yield Finding(problem.message, field=problem.field, position=problem.position, hint=problem.hint)


# --- the rules ------------------------------------------------------------------------------------


@rule("DRA010", "unknown-field", Severity.ERROR, kinds=KINDS)
def unknown_field(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A field that the object's apiVersion does not have in the chosen release.

    Why:
    kubectl asks the apiserver for strict field validation, which rejects the whole object:
    `strict decoding error: unknown field "spec.devices.requests[0].deviceClassName"`. (With
    validation turned off the field is silently dropped, which is worse.) The usual causes are
    a field indented at the wrong level, v1beta1 syntax in a v1 object (or the reverse), a
    field that only a newer Kubernetes release knows, and misspellings; the hint says which.
    The check reads the object in the version its author wrote, so the path is that version's.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: gpu}
        spec:
          devices:
            requests:
            - name: gpu
              deviceClassName: gpu.example.com
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: gpu}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
    Upstream:
    sigs.k8s.io/json (DisallowUnknownFields, "unknown field" errors) as used by
    k8s.io/apimachinery/pkg/runtime/serializer/json's strict decoder; the schemas are
    api/openapi-spec/v3 of kubernetes/kubernetes (see schemas/PROVENANCE.md).
    """
    yield from _findings(_problems(obj, ctx).unknown)


@rule("DRA011", "wrong-type", Severity.ERROR, kinds=KINDS)
def wrong_type(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A value of the wrong JSON type: a string where a number belongs, a list for a mapping, ...

    Why:
    The apiserver cannot decode the object and rejects it with Go's message, e.g.
    `json: cannot unmarshal string into Go struct field ExactDeviceRequest.spec.devices.requests.exactly.count of type int64`,
    naming only the first such value; dractl names them all. A frequent cause is YAML 1.1:
    kubectl reads unquoted `yes`, `no`, `on`, `off`, `y`, `n` as booleans and `010` as an
    octal number, so `nodeName: n` is the boolean false. A null value is never a type error
    (the field gets its zero value), and opaque `parameters` may hold any JSON here (their
    content is validated elsewhere).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: gpu}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: "2"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: gpu}
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                count: 2
    Upstream:
    encoding/json UnmarshalTypeError as forked in sigs.k8s.io/json (internal/golang/encoding/json/decode.go).
    """
    yield from _findings(_problems(obj, ctx).wrong_type)


@rule("DRA012", "malformed-quantity-or-time", Severity.ERROR, kinds=KINDS)
def malformed_quantity_or_time(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A quantity or a timestamp string that the apiserver cannot parse.

    Why:
    Quantities (capacities, counters, capacity requests) and times (`timeAdded`) are decoded
    by their own parsers; a string they refuse fails the whole request with
    `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    `unable to parse quantity's suffix` or a time parsing error. `16GB`, `1.5 Gi` and `2Gb`
    are not quantities (`16G`, `16Gi` are); times must be RFC 3339.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: node-1-gpus}
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            capacity:
              memory: {value: 80GB}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: node-1-gpus}
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            capacity:
              memory: {value: 80Gi}
    Upstream:
    k8s.io/apimachinery/pkg/api/resource (ParseQuantity, Quantity.UnmarshalJSON);
    k8s.io/apimachinery/pkg/apis/meta/v1 (Time.UnmarshalJSON, time.RFC3339).
    """
    yield from _findings(_problems(obj, ctx).malformed)


@rule("DRA013", "missing-required-field", Severity.WARNING, kinds=KINDS)
def missing_required_field(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A field the API marks required is missing, and the apiserver silently uses its zero value.

    Why:
    The API schema lists some fields as required that the apiserver's validation does not
    check: the `value` of a device capacity or of a counter, and the `spec` of a DeviceClass,
    ResourceClaim or ResourceClaimTemplate. A missing one is accepted and becomes 0 or empty,
    which is rarely what the author meant (a capacity of 0, a claim that asks for nothing).
    Required fields that the apiserver does check are reported as errors by the DRA1xx rules
    ("Required value"); a missing `spec.pool.generation` is accepted and not reported, since 0
    is a normal first generation.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: node-1-gpus}
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            capacity:
              memory: {}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: node-1-gpus}
        spec:
          driver: gpu.example.com
          nodeName: node-1
          pool: {name: node-1, generation: 1, resourceSliceCount: 1}
          devices:
          - name: gpu-0
            capacity:
              memory: {value: 80Gi}
    Upstream:
    the `required` lists of api/openapi-spec/v3 (kubernetes/kubernetes) against
    pkg/apis/resource/validation (which fields it checks).
    """
    yield from _findings(_problems(obj, ctx).missing)
