"""Which resource.k8s.io versions each release serves, deprecates or has removed (upstream facts)."""

from __future__ import annotations

import pytest

from dractl.api.releases import (
    API_VERSIONS,
    RELEASES,
    Serving,
    api_version_status,
    deprecation_warning,
)

S, OPT, R, U, X = Serving.SERVED, Serving.OPT_IN, Serving.REMOVED, Serving.UNKNOWN, Serving.OUT_OF_SCOPE
N = Serving.NOT_YET

# (version, kind) → per release 1.34, 1.35, 1.36: (serving, deprecated)
TABLE = {
    ("v1", "ResourceClaim"): [(S, False), (S, False), (S, False)],
    ("v1", "ResourceSlice"): [(S, False), (S, False), (S, False)],
    ("v1beta2", "DeviceClass"): [(OPT, False), (OPT, False), (OPT, True)],
    ("v1beta1", "ResourceClaimTemplate"): [(OPT, False), (OPT, True), (OPT, True)],
    ("v1alpha3", "ResourceClaim"): [(R, False), (R, False), (R, False)],
    ("v1alpha3", "DeviceTaintRule"): [(X, False), (X, False), (X, False)],
    ("v1beta2", "DeviceTaintRule"): [(N, False), (N, False), (X, False)],
    ("v1alpha3", "ResourcePoolStatusRequest"): [(N, False), (N, False), (X, False)],
    ("v1alpha2", "ResourceClass"): [(R, False), (R, False), (R, False)],
    ("v1alpha1", "PodScheduling"): [(R, False), (R, False), (R, False)],
    ("v1", "ResourceClass"): [(U, False), (U, False), (U, False)],
    ("v2", "ResourceClaim"): [(U, False), (U, False), (U, False)],
}


@pytest.mark.parametrize(("version", "kind"), list(TABLE))
def test_serving_per_release(version: str, kind: str) -> None:
    got = [
        (api_version_status(version, kind, r).serving, api_version_status(version, kind, r).deprecated)
        for r in RELEASES
    ]
    assert got == TABLE[(version, kind)]


@pytest.mark.parametrize(
    ("version", "removed", "last_served"),
    [("v1alpha1", "1.27", "1.26"), ("v1alpha2", "1.31", "1.30"), ("v1alpha3", "1.34", "1.33")],
)
def test_alpha_versions_removal(version: str, removed: str, last_served: str) -> None:
    lifecycle = API_VERSIONS[version]
    assert (lifecycle.removed, lifecycle.last_served) == (removed, last_served)


def test_deprecation_warning_uses_the_apiservers_wording() -> None:
    assert deprecation_warning("v1beta1", "ResourceClaim") == (
        "resource.k8s.io/v1beta1 ResourceClaim is deprecated in v1.35+, unavailable in v1.38+"
    )
    assert deprecation_warning("v1beta2", "ResourceSlice") == (
        "resource.k8s.io/v1beta2 ResourceSlice is deprecated in v1.36+, unavailable in v1.39+"
    )
    assert deprecation_warning("v1", "ResourceSlice") is None
