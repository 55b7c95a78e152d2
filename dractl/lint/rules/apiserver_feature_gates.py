"""DRA410: fields the apiserver silently drops because their feature gate is off."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dractl.api.paths import format_path
from dractl.api.validation import KINDS
from dractl.diagnostics import Severity
from dractl.lint.engine import Finding
from dractl.lint.registry import rule
from dractl.lint.rules._apiserver import create_check

if TYPE_CHECKING:
    from dractl.api.model import ApiObject
    from dractl.lint.engine import LintContext


@rule("DRA410", "field-dropped-gate-off", Severity.WARNING, kinds=KINDS)
def field_dropped_gate_off(obj: ApiObject, ctx: LintContext) -> Iterator[Finding]:
    """A field needs a feature gate that is off in the chosen release, so the apiserver drops it.

    Why:
    On create the apiserver silently removes fields of disabled feature gates: the object is
    accepted, but the claim gets no tolerations, the slice no taints or counters, the request
    no alternatives. Whatever depends on the field then behaves differently (and may be
    rejected for what is left, e.g. a request whose `firstAvailable` was dropped). Enable the
    gate in the cluster (and pass `--feature-gates`), target a release where it is on by
    default (`--kubernetes-version`), or remove the field.

    Bad:
        # with --kubernetes-version 1.35 (DRADeviceTaints is alpha, off by default)
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                tolerations:
                - key: gpu.example.com/unhealthy
                  operator: Exists
    Good:
        # with --kubernetes-version 1.35 --feature-gates DRADeviceTaints=true
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec:
          devices:
            requests:
            - name: gpu
              exactly:
                deviceClassName: gpu.example.com
                tolerations:
                - key: gpu.example.com/unhealthy
                  operator: Exists

    Upstream:
    kubernetes/kubernetes `pkg/registry/resource/*/strategy.go` (`dropDisabledFields`),
    `pkg/features/kube_features.go` (gate stages).
    """
    release = ctx.features.release
    for dropped in create_check(obj, ctx).dropped:
        on_in = dropped.default_on_in
        if on_in is None:
            when = f"it is not on by default in any release up to {_last_release()}"
        elif _release_key(on_in) > _release_key(release):
            when = f"it is on by default from Kubernetes {on_in}"
        else:
            when = "it was disabled explicitly"
        field = format_path(dropped.path)
        yield Finding(
            message=(
                f"{field}: dropped by the apiserver on create: feature gate {dropped.gate} is off "
                f"in Kubernetes {release} ({when})"
            ),
            path=dropped.path,
            field=field,
            hint=f"enable the gate with --feature-gates {dropped.gate}=true if the cluster has it on",
        )


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def _last_release() -> str:
    from dractl.api.releases import RELEASES

    return RELEASES[-1]
