"""DRA200–DRA209: CEL selectors the apiserver rejects on create, or dractl cannot check.

Every `cel.expression` of a DeviceClass and of a claim's or claim template's requests and
subrequests is compiled as the apiserver compiles a new expression: in the NewExpressions
environment of the release and feature gates of the run, after the length check, with the
upstream cost estimate. Errors are placed inside the expression in the author's file when the
compiler names a line and column, else at the `expression` key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.validation.errors import ErrorType, too_long
from dractl.api.validation.errors import render_value as _render_value
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding
from dractl.lint.registry import rule
from dractl.lint.rules._cel import (
    MAX_COST,
    SELECTOR_KINDS,
    Checked,
    at_key,
    checked_selectors,
    inside_expression,
)

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext


def _compile_error(checked: Checked) -> Finding:
    selector = checked.selector
    error = checked.error
    assert error is not None
    # A result of the wrong type has no position in the expression; the other errors do.
    positioned = (error.detail.startswith("compilation failed:") or error.kind == "internal") and error.errors
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
        message = f"{selector.field}: {kind}: {_render_value(selector.expression)}: {error.detail}"
    return Finding(
        message=message, path=selector.path, type=str(kind), field=selector.field, position=position
    )


@rule("DRA200", "cel-compile-error", Severity.ERROR, kinds=SELECTOR_KINDS)
def cel_compile_error(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector does not compile, or does not evaluate to a boolean.

    Why:
    The apiserver compiles every selector of a new DeviceClass, ResourceClaim or
    ResourceClaimTemplate and rejects the object when it has a syntax error, uses an unknown
    variable, field or function, applies a function to arguments of the wrong type, or has a
    result other than bool (an attribute value, typed "unknown", is accepted). Which fields
    and functions exist depends on the release and feature gates: a new expression may only
    use what the previous release already had (`device.allowMultipleAllocations` needs
    DRAConsumableCapacity, for example). The message is the apiserver's; the position is the
    first error's place inside the expression.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver = "gpu.example.com"
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com"

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateCELSelector`,
    `convertCELErrorToValidationError`); kubernetes/dynamic-resource-allocation
    `cel/compile.go` (`CompileCELExpression`).
    """
    for checked in checked_selectors(obj, ctx):
        if checked.error is not None and checked.error.kind != "unsupported":
            yield _compile_error(checked)


@rule("DRA201", "cel-expression-too-long", Severity.ERROR, kinds=SELECTOR_KINDS)
def cel_expression_too_long(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector is longer than the apiserver accepts (10 KiB).

    Why:
    `CELSelectorExpressionMaxLength` bounds a selector's length in bytes (UTF-8); the apiserver
    rejects a longer one without compiling it. Split the condition over several selectors
    (all of them must match) or move common parts into the DeviceClass.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com" && ... (10,000 more characters)
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
        spec:
          selectors:
          - cel:
              expression: device.driver == "gpu.example.com"
          - cel:
              expression: device.attributes["gpu.example.com"].model in ["A100", "H100"]

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateCELSelector`),
    `staging/src/k8s.io/api/resource/v1/types.go` (`CELSelectorExpressionMaxLength`).
    """
    for checked in checked_selectors(obj, ctx):
        if checked.too_long is not None:
            selector = checked.selector
            error = too_long(selector.path, checked.too_long)
            yield Finding(
                message=str(error),
                path=selector.path,
                type=str(error.type),
                field=selector.field,
                position=at_key(selector),
            )


@rule("DRA202", "cel-cost-limit-exceeded", Severity.ERROR, kinds=SELECTOR_KINDS)
def cel_cost_limit_exceeded(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector's estimated worst-case cost exceeds the limit of 1,000,000.

    Why:
    The apiserver estimates the worst-case cost of a selector on the largest device a
    ResourceSlice may describe (32 attributes and capacities per device, strings of their
    maximum length) and rejects selectors above `CELSelectorExpressionMaxCost`. Nested
    comprehensions multiply: a macro over a map inside another macro quickly exceeds it.
    The estimate is upstream's, computed by dractl the same way.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel:
                    expression: >-
                      device.attributes.all(d, device.attributes[d].all(a,
                      device.attributes.all(e, device.attributes[e].all(b, a != b || d == e))))
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                selectors:
                - cel:
                    expression: device.attributes["gpu.example.com"].model == "A100"

    Upstream:
    kubernetes/kubernetes `pkg/apis/resource/validation/validation.go` (`validateCELSelector`);
    kubernetes/dynamic-resource-allocation `cel/compile.go` (cost estimator).
    """
    for checked in checked_selectors(obj, ctx):
        compiled = checked.compiled
        if compiled is not None and compiled.cost is not None and compiled.cost > MAX_COST:
            selector = checked.selector
            yield Finding(
                message=f"{selector.field}: {ErrorType.FORBIDDEN}: too complex, exceeds cost limit",
                path=selector.path,
                type=str(ErrorType.FORBIDDEN),
                field=selector.field,
                position=at_key(selector),
                hint=f"estimated worst-case cost {compiled.cost:,}, limit {MAX_COST:,}",
            )


@rule("DRA203", "cel-not-supported", Severity.WARNING, kinds=SELECTOR_KINDS)
def cel_not_supported(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A CEL selector uses a Kubernetes CEL function that dractl's CEL engine does not have.

    Why:
    The apiserver's CEL environment includes Kubernetes libraries (URLs, IP addresses, CIDRs,
    `format`, `sets`, list functions, two-variable comprehensions, cross-type numeric
    comparisons, ...). When dractl's engine lacks one that the expression uses, dractl cannot
    tell whether the apiserver accepts the expression, so it says so instead of reporting a
    compile error that may be wrong. This is a limit of dractl, not a problem of the manifest;
    check such a selector with `kubectl apply --dry-run=server`.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: nic.example.com
        spec:
          selectors:
          - cel:
              expression: cidr("10.0.0.0/8").containsIP(device.attributes["nic.example.com"].ip)
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: nic.example.com
        spec:
          selectors:
          - cel:
              expression: device.attributes["nic.example.com"].ip.startsWith("10.")

    Upstream:
    kubernetes/apiserver `pkg/cel/environment/base.go` (the libraries of the base environment).
    """
    for checked in checked_selectors(obj, ctx):
        selector = checked.selector
        if checked.engine_missing is not None:
            yield Finding(
                message=f"{selector.field}: not checked: {checked.engine_missing}",
                path=selector.path,
                position=at_key(selector),
            )
        elif checked.error is not None and checked.error.kind == "unsupported":
            first = checked.error.errors[0] if checked.error.errors else None
            yield Finding(
                message=f"{selector.field}: {checked.error.detail}",
                path=selector.path,
                position=(
                    inside_expression(selector, first.line, first.column) if first else at_key(selector)
                ),
                hint="check this selector with `kubectl apply --dry-run=server`",
            )
