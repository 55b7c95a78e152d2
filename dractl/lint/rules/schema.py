"""DRA01x: the object as the apiserver's strict decoder reads it (the bundled JSON Schemas).

``kubectl apply`` asks for strict field validation, so the apiserver refuses an object whose
JSON does not decode into the Go types of its apiVersion: an unknown field, a value of the wrong
JSON type, or a quantity or time it cannot parse. These rules report what
:mod:`dractl.api.decoding` finds in an object: every problem, not only the first one the
apiserver would name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from dractl.api.core_schemas import CORE_KINDS, has_core_schema
from dractl.api.decoding import SchemaProblem, SchemaProblems, schema_problems
from dractl.api.versions import KINDS
from dractl.diagnostics import Applicability, Fix, Position, Severity, TextEdit
from dractl.lint.engine import Finding
from dractl.lint.registry import rule

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext
    from dractl.load import Document


def _problems(obj: ApiObject, ctx: LintContext) -> SchemaProblems:
    if not obj.dra:
        return SchemaProblems()
    return schema_problems(obj, ctx.features.release)


def _decode_problems(obj: ApiObject, ctx: LintContext) -> SchemaProblems:
    """The DRA011 and DRA012 problems: of a DRA object, or of a core object explain reads (the
    fields it reads, :data:`dractl.api.core_schemas.CORE_KINDS`): what explain refuses to read,
    lint reports. DeviceTaintRules have a rule of their own (DRA143)."""
    if obj.dra:
        return schema_problems(obj, ctx.features.release)
    if obj.kind == "DeviceTaintRule" or not has_core_schema(obj.group, obj.version, obj.kind):
        return SchemaProblems()
    return schema_problems(obj, ctx.features.release)


def _findings(
    problems: list[SchemaProblem], fixes: dict[Position, Fix] | None = None
) -> Iterator[Finding]:
    for problem in problems:
        yield Finding(
            problem.message,
            field=problem.field,
            position=problem.position,
            hint=problem.hint,
            fix=fixes.get(problem.position) if fixes else None,
        )


# --- fixes ------------------------------------------------------------------------------------


INDENT = "  "
_CEL_KEY_RE = re.compile(r"cel[ \t]*:[ \t]*(?:#.*)?\r?")


def _indent_fixes(obj: ApiObject, problems: list[SchemaProblem]) -> dict[Position, Fix]:
    """For each `expression:` written beside an empty `cel:` (the decoder's "did you mean to
    indent expression under cel?"), the fix that indents it under `cel:`, by the position of its
    key. Only block mappings of YAML files, where `cel:` has nothing after it and `expression`
    is its next key, and only when the document then reads as the same object with the
    expression moved under `cel`."""
    document = obj.source.document
    if document.file.format != "yaml" or not any(p.field.endswith("expression") for p in problems):
        return {}
    fixes: dict[Position, Fix] = {}

    def visit(node: Any, path: tuple[Any, ...]) -> None:
        if isinstance(node, dict):
            if "expression" in node and "cel" in node and node["cel"] is None:
                found = _indent_under_cel(document, (*obj.source.base, *path))
                if found is not None:
                    fixes[found[0]] = found[1]
            for key, value in node.items():
                if isinstance(value, dict | list):
                    visit(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                if isinstance(value, dict | list):
                    visit(value, (*path, index))

    visit(obj.source.raw, ())
    return fixes


def _indent_under_cel(document: Document, path: tuple[Any, ...]) -> tuple[Position, Fix] | None:
    """The position of the `expression` key of the mapping at ``path`` and the fix indenting it."""
    marked = document.marked_node(path)
    try:
        cel_line, cel_column = marked.lc.key("cel")
        line, column = marked.lc.key("expression")
    except (AttributeError, KeyError, TypeError):
        return None
    keys = list(marked)
    if (
        column != cel_column
        or line <= cel_line
        or keys.index("expression") != keys.index("cel") + 1
    ):
        return None
    if "\r" in document.text:
        return None  # YAML breaks lines at CR too; the edits below count lines at LF only
    lines = document.text.split("\n")
    if not _CEL_KEY_RE.fullmatch(lines[cel_line][cel_column:]):
        return None  # `cel: null`, `cel: ~`, `cel: {}`: not only an indentation slip
    if any(_content(text) for text in lines[cel_line + 1 : line]):
        return None
    # The entry runs on while lines are blank or indented deeper than its key (a block scalar, a
    # plain scalar that goes on); blank lines after it stay where they are.
    last = line
    for index in range(line + 1, len(lines)):
        text = lines[index]
        if not text.strip():
            continue
        if len(text) - len(text.lstrip(" ")) <= column:
            break
        last = index
    moved = [i for i in range(line, last + 1) if lines[i].strip()]
    fixed = "\n".join(INDENT + text if i in moved else text for i, text in enumerate(lines))
    if not _reads_as_nested(document.text, fixed, path):
        return None
    first = document.start_line + 1
    edits = tuple(TextEdit(first + i, 1, first + i, 1, INDENT) for i in moved)
    position = Position(document.file.path, first + line, column + 1)
    return position, Fix("Indent expression under cel", Applicability.SAFE, edits)


def _content(line: str) -> bool:
    """Whether a line holds more than blanks and a comment."""
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _reads_as_nested(before: str, after: str, path: tuple[Any, ...]) -> bool:
    """Whether ``after`` reads as ``before`` with the mapping at ``path`` holding its
    `expression` under `cel` (both read by libyaml: the edit moves text, never rewrites a
    scalar, so one YAML reader judges both fairly)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        old = yaml.load(before, Loader=loader)
        new = yaml.load(after, Loader=loader)
        mapping = old
        for part in path:
            mapping = mapping[part]
        mapping["cel"] = {"expression": mapping.pop("expression")}
    # Whatever PyYAML refuses or reads otherwise than dractl's loader (keys, tags, values it
    # cannot build): the move is not certain, so there is no fix, and lint goes on.
    except Exception:
        return False
    return bool(old == new)


def _quote_fixes(
    obj: ApiObject, ctx: LintContext, problems: list[SchemaProblem]
) -> dict[Position, Fix]:
    """For YAML 1.1 booleans and numbers that stand where the schema wants a string, the fix
    that quotes them, by their position."""
    if not problems or not obj.source.document.yaml11:
        return {}
    from dractl.lint.rules.yaml11 import dra_field_kind, quote_fix, yaml11_scalars

    wrong = {p.position for p in problems}
    fixes = {}
    for scalar in yaml11_scalars(obj):
        if scalar.position in wrong and dra_field_kind(obj, scalar.path, ctx) == "string":
            fix = quote_fix(obj, scalar)
            if fix is not None:
                fixes[scalar.position] = fix
    return fixes


# --- the rules ------------------------------------------------------------------------------------


@rule("DRA010", "unknown-field", Severity.ERROR, kinds=KINDS, fix=Applicability.SAFE)
def unknown_field(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A field that the object's apiVersion does not have in the chosen release.

    Why:
    kubectl asks the apiserver for strict field validation, which rejects the whole object:
    `strict decoding error: unknown field "spec.devices.requests[0].deviceClassName"`. (With
    validation turned off the field is silently dropped, which is worse.) The usual causes are
    a field indented at the wrong level, v1beta1 syntax in a v1 object (or the reverse), a
    field that only a newer Kubernetes release knows, and misspellings; the hint says which.
    The check reads the object in the version its author wrote, so the path is that version's.
    `dractl lint --fix` indents an `expression:` written beside an empty `cel:` under it, the
    one slip whose intent is certain.

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
    unknown = _problems(obj, ctx).unknown
    yield from _findings(unknown, _indent_fixes(obj, unknown))


@rule("DRA011", "wrong-type", Severity.ERROR, kinds=(*KINDS, *sorted(CORE_KINDS)), fix=Applicability.SAFE)
def wrong_type(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A value of the wrong JSON type: a string where a number belongs, a list for a mapping, ...

    Why:
    The apiserver cannot decode the object and rejects it with Go's message, e.g.
    `json: cannot unmarshal string into Go struct field ExactDeviceRequest.spec.devices.requests.exactly.count of type int64`,
    naming only the first such value; dractl names them all. A frequent cause is YAML 1.1:
    kubectl reads unquoted `yes`, `no`, `on`, `off`, `y`, `n` as booleans and `010` as an
    octal number, so `nodeName: n` is the boolean false; `dractl lint --fix` quotes such a
    value where the field holds a string. A null value is never a type error (the field gets
    its zero value), and opaque `parameters` may hold any JSON here (their content is
    validated elsewhere). In Pods, workloads and Nodes the fields that `dractl explain` reads
    (resource requests, priority, node selectors, taints, allocatable) are checked too: what
    explain refuses to read, lint reports.

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
    wrong = _decode_problems(obj, ctx).wrong_type
    yield from _findings(wrong, _quote_fixes(obj, ctx, wrong))


@rule("DRA012", "malformed-quantity-or-time", Severity.ERROR, kinds=(*KINDS, *sorted(CORE_KINDS)))
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
    yield from _findings(_decode_problems(obj, ctx).malformed)


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
