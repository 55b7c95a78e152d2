"""DRA40x: resource.k8s.io API versions the chosen Kubernetes release deprecates, does not serve
by default, has removed, or never had (facts in :mod:`dractl.api.releases`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.releases import (
    API_GROUP,
    API_VERSIONS,
    OTHER_KINDS,
    ApiVersionStatus,
    Serving,
    api_version_status,
    deprecation_warning,
)
from dractl.diagnostics import Applicability, Fix, Severity, TextEdit
from dractl.lint.engine import Finding
from dractl.lint.registry import rule

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext
    from dractl.load import Document

CONVERT_HINT = "run `dractl convert` to rewrite it as resource.k8s.io/v1"


def _status(obj: ApiObject, ctx: LintContext) -> ApiVersionStatus | None:
    if obj.group != API_GROUP:
        return None
    return api_version_status(obj.version, obj.kind, ctx.features.release)


def _at_api_version(
    obj: ApiObject, message: str, hint: str | None, fix: Fix | None = None
) -> Finding:
    # The position of the apiVersion value (or, for List items that inherit it, of the item).
    return Finding(
        message=message, position=obj.source.position(("apiVersion",)), hint=hint, fix=fix
    )


TARGET = "v1"


def conversion_fix(obj: ApiObject, ctx: LintContext) -> Fix | None:
    """The object's document converted to resource.k8s.io/v1 by `dractl convert`'s machinery,
    when the run asked for conversion fixes (``ctx.converter``), the chosen release serves v1 and
    the conversion loses nothing (the converter says None otherwise: `dractl convert` would
    refuse too, and so would the editor's "Convert to v1")."""
    if ctx.converter is None:
        return None
    status = api_version_status(TARGET, obj.kind, ctx.features.release)
    if status.serving is not Serving.SERVED:
        return None
    document = obj.source.document
    key = ("conversion-fix", id(document))
    if key not in ctx.cache:  # a List's items share their document
        ctx.cache[key] = _replace_document(document, ctx.converter(document))
    fix: Fix | None = ctx.cache[key]
    return fix


def _replace_document(document: Document, converted: str | None) -> Fix | None:
    if converted is None or converted == document.text:
        return None
    text = document.text
    end_line = document.start_line + text.count("\n") + 1
    end_column = len(text.rpartition("\n")[2]) + 1
    edit = TextEdit(document.start_line + 1, 1, end_line, end_column, converted)
    return Fix(f"Convert to {API_GROUP}/{TARGET}", Applicability.SAFE, (edit,))


@rule("DRA400", "api-version-deprecated", Severity.WARNING, fix=Applicability.SAFE)
def api_version_deprecated(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The object's apiVersion is deprecated in the chosen Kubernetes release.

    Why:
    The apiserver still accepts it but answers with a warning such as
    `resource.k8s.io/v1beta1 ResourceClaim is deprecated in v1.35+, unavailable in v1.38+`,
    and a later release stops serving it. resource.k8s.io/v1beta1 is deprecated from 1.35
    (removed in 1.38), v1beta2 from 1.36 (removed in 1.39). `dractl convert` rewrites the
    file as resource.k8s.io/v1, keeping comments and layout; so does `dractl lint --fix`, for
    each document whose conversion loses no field.

    Bad:
        apiVersion: resource.k8s.io/v1beta1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Upstream:
    kubernetes/api resource/<version>/zz_generated.prerelease-lifecycle.go;
    k8s.io/apiserver/pkg/endpoints/deprecation (the warning text).
    """
    status = _status(obj, ctx)
    if status is None or not status.deprecated:
        return
    message = deprecation_warning(obj.version, obj.kind)
    assert message is not None
    hint = CONVERT_HINT
    if status.serving is Serving.OPT_IN:
        # DRA401 stays quiet for deprecated versions: one finding per apiVersion line is enough.
        api_version = f"{API_GROUP}/{obj.version}"
        hint = (
            f"a default Kubernetes {ctx.features.release} apiserver does not serve it either "
            f"(it needs --runtime-config={api_version}=true); {CONVERT_HINT}"
        )
    yield _at_api_version(obj, message, hint, conversion_fix(obj, ctx))


@rule("DRA401", "api-version-not-served-by-default", Severity.WARNING, fix=Applicability.SAFE)
def api_version_not_served_by_default(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The object's apiVersion is a beta version that the chosen release serves only when enabled.

    Why:
    Beta API versions are off by default (since Kubernetes 1.24). From 1.34 on a
    kube-apiserver serves resource.k8s.io/v1 by default and v1beta1 and v1beta2 only with
    `--runtime-config=resource.k8s.io/v1beta1=true` (or `.../v1beta2=true`); without that,
    `kubectl apply` fails with `no matches for kind "ResourceClaim" in version
    "resource.k8s.io/v1beta1"`. Managed clusters rarely enable them. Write resource.k8s.io/v1
    (`dractl convert` and `dractl lint --fix` do it), or ignore this rule if your clusters
    enable the beta versions.

    Bad:
        apiVersion: resource.k8s.io/v1beta2
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Upstream:
    KEP-3136 (beta APIs off by default); the Kubernetes v1.34 DRA release blog ("the default
    API version for DRA is now the stable v1 version").
    """
    status = _status(obj, ctx)
    if status is None or status.serving is not Serving.OPT_IN or status.deprecated:
        return
    api_version = f"{API_GROUP}/{obj.version}"
    message = (
        f"{api_version} is not served by a default Kubernetes {ctx.features.release} apiserver: "
        f"it needs --runtime-config={api_version}=true"
    )
    hint = f"resource.k8s.io/v1 is served by default; {CONVERT_HINT}"
    yield _at_api_version(obj, message, hint, conversion_fix(obj, ctx))


@rule("DRA402", "api-version-removed", Severity.ERROR, fix=Applicability.SAFE)
def api_version_removed(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The object's apiVersion was removed before the chosen Kubernetes release.

    Why:
    The apiserver no longer knows the version and `kubectl apply` fails with
    `no matches for kind "ResourceClaim" in version "resource.k8s.io/v1alpha3"`.
    resource.k8s.io/v1alpha1 was served in 1.26 only, v1alpha2 (classic DRA, with
    ResourceClass and parameter objects) in 1.27–1.30, and v1alpha3's DeviceClass,
    ResourceClaim, ResourceClaimTemplate and ResourceSlice in 1.31–1.33 (v1alpha3 still
    exists for DeviceTaintRule). `dractl convert` reads v1beta1 and v1beta2 only: change a
    v1alpha3 object's apiVersion to v1beta1 (its shape is close), fix what `dractl lint` then
    reports, and convert; classic DRA objects have no counterpart and must be rewritten.
    `dractl lint --fix` converts a removed version only where `dractl convert` reads it
    (v1beta1 and v1beta2, once a release removes them).

    Bad:
        apiVersion: resource.k8s.io/v1alpha3
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
        spec:
          selectors:
          - cel: {expression: device.driver == "gpu.example.com"}
    Upstream:
    kubernetes/api history: v1alpha1 → v1alpha2 (77a2c20, 1.27), v1alpha2 → v1alpha3
    (8cd8793, 1.31), "DRA API: remove obsolete types from v1alpha3" (8075dbc, 1.34).
    """
    status = _status(obj, ctx)
    if status is None or status.serving is not Serving.REMOVED or status.lifecycle is None:
        return
    life = status.lifecycle
    first = life.introduced
    span = first if first == life.last_served else f"{first}–{life.last_served}"
    message = (
        f"{API_GROUP}/{obj.version} {obj.kind} was removed in Kubernetes {life.removed} "
        f'(served in {span}): no matches for kind "{obj.kind}" in version "{obj.api_version}"'
    )
    if life.version == "v1alpha3":
        hint = (
            "dractl convert does not read v1alpha3: set apiVersion to resource.k8s.io/v1beta1, "
            "fix what dractl lint reports, then run dractl convert"
        )
    else:
        hint = (
            "classic DRA objects have no conversion; rewrite them as resource.k8s.io/v1 "
            "DeviceClass and ResourceClaim objects"
        )
    yield _at_api_version(obj, message, hint, conversion_fix(obj, ctx))


@rule("DRA403", "unknown-api-version-or-kind", Severity.ERROR)
def unknown_api_version_or_kind(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """The resource.k8s.io apiVersion or kind does not exist in the chosen Kubernetes release.

    Why:
    `kubectl apply` fails with `no matches for kind "ResourceClaim" in version
    "resource.k8s.io/v1beta3"`: the version or the kind is misspelt, or belongs to a later
    release (resource.k8s.io/v1beta2 DeviceTaintRule exists from 1.36 on).

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClass
        metadata: {name: gpu.example.com}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
    Upstream:
    the register.go of kubernetes/api resource/<version> in each release.
    """
    status = _status(obj, ctx)
    if status is None or status.serving not in (Serving.UNKNOWN, Serving.NOT_YET):
        return
    message = f'no matches for kind "{obj.kind}" in version "{obj.api_version}"'
    if status.serving is Serving.NOT_YET:
        message += f" in Kubernetes {ctx.features.release}"
    known = [v for v, life in API_VERSIONS.items() if obj.kind in life.kinds]
    later = {
        v: since for v, kinds in OTHER_KINDS.items() for k, since in kinds.items() if k == obj.kind
    }
    if status.serving is Serving.NOT_YET:
        hint = f"{obj.kind} is resource.k8s.io/" + ", ".join(
            f"{v} from Kubernetes {s}" for v, s in later.items()
        )
    elif obj.version not in API_VERSIONS:
        hint = "resource.k8s.io versions: " + ", ".join(API_VERSIONS)
    elif known and all(API_VERSIONS[v].removed is not None for v in known):
        hint = f"{obj.kind} existed only in resource.k8s.io/" + ", ".join(known) + ", now removed"
    elif known:
        hint = f"{obj.kind} exists in resource.k8s.io/" + ", ".join(known)
    else:
        hint = "resource.k8s.io kinds: DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice"
    yield _at_api_version(obj, message, hint)
