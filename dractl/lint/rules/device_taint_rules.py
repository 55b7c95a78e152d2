"""DRA142, DRA143, DRA411: DeviceTaintRules, as the apiserver of the chosen release reads them.

A DeviceTaintRule is not one of the four DRA kinds the other apiserver rules check, so its
checks live here, one rule per idea: what the strict decoder refuses (DRA143), what validation
rejects (DRA142, CEL selectors of 1.34 included), and a rule that nothing acts on because its
feature gate is off (DRA411). Only a version the release has is checked: a v1beta2 rule before
1.36 is DRA403's, and the served-by-default question is the DRA40x rules'.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.decoding import key_position, object_decode_errors, strict_path
from dractl.api.releases import API_GROUP, Serving, api_version_status, gate_stage
from dractl.api.validation import DEVICE_TAINT_RULE, check_create
from dractl.api.validation.devicetaintrule import (
    REMOVED,
    has_class_and_selectors,
    rule_gate,
    unknown_fields,
)
from dractl.api.validation.errors import ErrorType, render_value, too_long
from dractl.api.validation.limits import limits_for
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding
from dractl.lint.registry import rule
from dractl.lint.rules._apiserver import finding

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.cel import CelCompileError
    from dractl.lint.engine import LintContext
    from dractl.lint.rules._cel import Selector

KINDS = (DEVICE_TAINT_RULE,)


def _checked(obj: ApiObject, ctx: LintContext) -> bool:
    """Whether the chosen release has the object's version of DeviceTaintRule."""
    if obj.group != API_GROUP or obj.kind != DEVICE_TAINT_RULE:
        return False
    status = api_version_status(obj.version, obj.kind, ctx.features.release)
    return status.serving is Serving.OUT_OF_SCOPE  # a kind the release has, besides the four


@rule("DRA142", "invalid-device-taint-rule", Severity.ERROR, kinds=KINDS)
def invalid_device_taint_rule(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The apiserver rejects a DeviceTaintRule: its name, selector or taint is invalid.

    Why:
    `ValidateDeviceTaintRule` checks the name (a DNS subdomain), labels and annotations, every
    selector field that is set (`driver` a DNS subdomain of at most 63 bytes, `pool` DNS
    subdomains of at most 253 bytes separated by `/`, `device` a DNS label; in 1.34 also
    `deviceClassName` and the CEL `selectors`) and the taint: `key` a label name (required),
    `value` a label value, `effect` required and one of NoSchedule and NoExecute, and from 1.35
    also None. An empty string is set: `pool: ""` is rejected, not ignored. The message is the
    apiserver's.

    Bad:
        apiVersion: resource.k8s.io/v1alpha3
        kind: DeviceTaintRule
        metadata:
          name: gpu-0-maintenance
        spec:
          deviceSelector:
            driver: gpu.example.com
            device: GPU_0
          taint:
            key: example.com/maintenance
            effect: Evict
    Good:
        apiVersion: resource.k8s.io/v1alpha3
        kind: DeviceTaintRule
        metadata:
          name: gpu-0-maintenance
        spec:
          deviceSelector:
            driver: gpu.example.com
            device: gpu-0
          taint:
            key: example.com/maintenance
            effect: NoExecute

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go`
    (`ValidateDeviceTaintRule`, `validateDeviceTaintSelector`, `validateDeviceTaint`).
    """
    if not _checked(obj, ctx):
        return
    for err in check_create(DEVICE_TAINT_RULE, obj.data, ctx.features).errors:
        yield finding(err)
    if has_class_and_selectors(ctx.features.release):
        yield from _cel_findings(obj, ctx)


def _cel_findings(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """1.34's `selectors`, as ``validateSelector`` checks a new expression: length, then
    compilation, then the estimated cost."""
    from dractl.cel import CelCompileError
    from dractl.cel.engines import EngineUnavailable
    from dractl.lint.rules._cel import MAX_COST, Selector, at_key, compile_new

    selector = obj.get(("spec", "deviceSelector"))
    entries = selector.get("selectors") if isinstance(selector, dict) else None
    limit = limits_for(ctx.features.release).cel_expression_length
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        cel = entry.get("cel") if isinstance(entry, dict) else None
        expression = cel.get("expression") if isinstance(cel, dict) else None
        if not isinstance(expression, str):
            continue
        path = ("spec", "deviceSelector", "selectors", index, "cel", "expression")
        found = Selector(obj, path, expression, None, ())
        if len(expression.encode("utf-8")) > limit:
            yield finding(too_long(path, limit))
            continue
        try:
            compiled = compile_new(expression, ctx)
        except CelCompileError as exc:
            if exc.kind != "unsupported":
                yield _compile_error(found, exc)
            continue
        except EngineUnavailable:
            continue  # DRA203 says so for the other kinds; nothing to report here
        if compiled.cost is not None and compiled.cost > MAX_COST:
            yield Finding(
                message=f"{found.field}: {ErrorType.FORBIDDEN}: too complex, exceeds cost limit",
                path=path,
                type=str(ErrorType.FORBIDDEN),
                field=found.field,
                position=at_key(found),
                hint=f"estimated worst-case cost {compiled.cost:,}, limit {MAX_COST:,}",
            )


def _compile_error(selector: Selector, error: CelCompileError) -> Finding:
    from dractl.lint.rules._cel import at_key, inside_expression

    # as DRA200: a result of the wrong type has no position in the expression
    positioned = (
        error.detail.startswith("compilation failed:") or error.kind == "internal"
    ) and error.errors
    position = (
        inside_expression(selector, error.errors[0].line, error.errors[0].column)
        if positioned
        else at_key(selector)
    )
    if error.kind == "internal":
        kind = ErrorType.INTERNAL
        message = f"{selector.field}: {kind}: {error.detail}"
    else:
        kind = ErrorType.INVALID
        message = f"{selector.field}: {kind}: {render_value(selector.expression)}: {error.detail}"
    return Finding(
        message=message,
        path=selector.path,
        type=str(kind),
        field=selector.field,
        position=position,
    )


@rule("DRA143", "device-taint-rule-not-decodable", Severity.ERROR, kinds=KINDS)
def device_taint_rule_not_decodable(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The apiserver cannot decode a DeviceTaintRule: an unknown field, wrong type or bad time.

    Why:
    kubectl asks for strict field validation, so a field that the release's DeviceTaintRule
    does not have fails the request (`strict decoding error: unknown field
    "spec.deviceSelector.deviceClassName"`). Kubernetes 1.35 removed the selector's
    `deviceClassName` and CEL `selectors` (select by `driver`, `pool` and `device`), and 1.34
    has no `status`. A string where a mapping belongs, or a `timeAdded` that is not RFC 3339,
    fails decoding as well.

    Bad:
        # with --kubernetes-version 1.35
        apiVersion: resource.k8s.io/v1alpha3
        kind: DeviceTaintRule
        metadata:
          name: gpu-maintenance
        spec:
          deviceSelector:
            deviceClassName: gpu.example.com
          taint:
            key: example.com/maintenance
            effect: NoSchedule
    Good:
        # with --kubernetes-version 1.35
        apiVersion: resource.k8s.io/v1alpha3
        kind: DeviceTaintRule
        metadata:
          name: gpu-maintenance
        spec:
          deviceSelector:
            driver: gpu.example.com
          taint:
            key: example.com/maintenance
            effect: NoSchedule

    Upstream:
    kubernetes/api `resource/v1alpha3/types.go` at v0.34 and v0.35, `resource/v1beta2/types.go`
    at v0.36 (DeviceTaintRule); sigs.k8s.io/json strict decoding ("unknown field").
    """
    if not _checked(obj, ctx):
        return
    release = ctx.features.release
    data = obj.data
    paths = unknown_fields(data, release)
    paths.extend(("metadata", key) for key in _unknown_metadata(data.get("metadata"), release))
    for path in paths:
        field = strict_path(path)
        yield Finding(
            message=f'unknown field "{field}"',
            field=field,
            position=key_position(obj, path),
            hint=_unknown_hint(path, release),
        )
    for problem in object_decode_errors(obj, release):
        yield Finding(
            problem.message, field=problem.field, position=problem.position, hint=problem.hint
        )


def _unknown_metadata(metadata: object, release: str) -> list[str]:
    from dractl.api.core_schemas import OBJECT_META
    from dractl.api.schemas import load_schema

    bundled = load_schema(release, "v1", "ResourceClaim")
    if not isinstance(metadata, dict) or bundled is None:
        return []
    known = bundled["$defs"][OBJECT_META].get("properties", {})
    return [key for key in metadata if key not in known]


def _unknown_hint(path: tuple[object, ...], release: str) -> str | None:
    name = str(path[-1])
    if path[:2] == ("spec", "deviceSelector") and len(path) == 3 and name in REMOVED:
        return (
            f"{name} exists only in Kubernetes {REMOVED[name]}'s DeviceTaintRule; from 1.35 on "
            "a rule selects devices by driver, pool and device"
        )
    if path == ("status",) and release == "1.34":
        return "a DeviceTaintRule has a status from Kubernetes 1.35 on; drop it"
    return None


@rule("DRA411", "device-taint-rule-gate-off", Severity.WARNING, kinds=KINDS)
def device_taint_rule_gate_off(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A DeviceTaintRule has no effect: a feature gate it needs is off in the chosen release.

    Why:
    The apiserver stores the rule, but the scheduler does not taint the devices it selects and
    the eviction controller evicts nothing unless DRADeviceTaintRules is on (from 1.35; off by
    default, beta and still off in 1.36) together with DRADeviceTaints (on by default from
    1.36). In 1.34 DeviceTaintRules came with DRADeviceTaints alone (alpha, off). Enable the
    gates in the cluster (kube-apiserver, kube-scheduler, kube-controller-manager) and pass
    `--feature-gates`, or taint the devices in their ResourceSlice instead.

    Bad:
        # with --kubernetes-version 1.36
        apiVersion: resource.k8s.io/v1beta2
        kind: DeviceTaintRule
        metadata:
          name: gpu-maintenance
        spec:
          deviceSelector:
            driver: gpu.example.com
          taint:
            key: example.com/maintenance
            effect: NoSchedule
    Good:
        # with --kubernetes-version 1.36 --feature-gates DRADeviceTaintRules=true
        apiVersion: resource.k8s.io/v1beta2
        kind: DeviceTaintRule
        metadata:
          name: gpu-maintenance
        spec:
          deviceSelector:
            driver: gpu.example.com
          taint:
            key: example.com/maintenance
            effect: NoSchedule

    Upstream:
    kubernetes/kubernetes `pkg/scheduler/framework/plugins/dynamicresources` (the slice
    tracker's `EnableDeviceTaintRules`), `pkg/controller/devicetainteviction`,
    `pkg/features/kube_features.go`; kubernetes/kubernetes#135068 (the separate gate).
    """
    if not _checked(obj, ctx):
        return
    features = ctx.features
    release = features.release
    needed = [rule_gate(release)]
    if "DRADeviceTaints" not in needed:
        needed.append("DRADeviceTaints")  # without it the allocator ignores every taint
    for gate in needed:
        if features.enabled(gate):
            continue
        stage = gate_stage(gate, release)
        if gate in features.overrides:
            why = "disabled explicitly"
        else:
            why = f"{stage.stage if stage else 'unknown'}, off by default"
        yield Finding(
            message=(
                f"DeviceTaintRule {obj.name or '(unnamed)'} has no effect in Kubernetes "
                f"{release}: feature gate {gate} is off ({why}), so no device is tainted "
                "and no pod evicted by it"
            ),
            position=obj.source.position(("kind",)),
            hint=f"enable the gate with --feature-gates {gate}=true if the cluster has it on",
        )
        return  # one finding per rule: the first gate missing
