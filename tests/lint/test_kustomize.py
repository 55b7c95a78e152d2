"""A kustomization's `namespace` applies to the objects of its `resources`, as `kubectl apply -k`."""

from __future__ import annotations

import pytest

from dractl.api.releases import Features
from dractl.lint.engine import Settings, lint
from dractl.load import LoadResult, load_text

TEMPLATE = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: single-gpu
{namespace}spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
{namespace}spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: single-gpu
  containers:
  - name: trainer
    image: registry.example.com/trainer:1.0
    resources:
      claims:
      - name: gpu
"""
CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""


def ns(name: str | None) -> str:
    return f"  namespace: {name}\n" if name else ""


CASES = [
    pytest.param(
        # the template says its namespace, the Pod relies on the kustomization for it
        {
            "app/kustomization.yaml": "namespace: gpu-jobs\nresources:\n- template.yaml\n- pod.yaml\n",
            "app/template.yaml": TEMPLATE.format(namespace=ns("gpu-jobs")),
            "app/pod.yaml": POD.format(namespace=""),
        },
        [],
        id="namespace of the kustomization",
    ),
    pytest.param(
        {
            "app/kustomization.yml": (
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                "namespace: gpu-jobs\nresources: [template.yaml, pod.yaml]\n"
            ),
            "app/template.yaml": TEMPLATE.format(namespace=ns("default")),
            "app/pod.yaml": POD.format(namespace=""),
        },
        [],
        id="overrides the namespace written, as kustomize's transformer does",
    ),
    pytest.param(
        # an overlay that sets the namespace of a base that does not
        {
            "overlays/prod/kustomization.yaml": "namespace: prod\nresources:\n- ../../base\n",
            "base/kustomization.yaml": "resources:\n- template.yaml\n- pod.yaml\n",
            "base/template.yaml": TEMPLATE.format(namespace=ns("prod")),
            "base/pod.yaml": POD.format(namespace=""),
        },
        [],
        id="an overlay's namespace reaches its base's files",
    ),
    pytest.param(
        # the Pod is not among the resources: kustomize leaves it alone
        {
            "app/kustomization.yaml": "namespace: gpu-jobs\nresources:\n- template.yaml\n",
            "app/template.yaml": TEMPLATE.format(namespace=""),
            "app/pod.yaml": POD.format(namespace=""),
        },
        [
            'app/pod.yaml:8:32: DRA302 ResourceClaimTemplate "single-gpu" does not exist in namespace "default"'
        ],
        id="files not listed as resources keep their namespace",
    ),
    pytest.param(
        # two overlays put the base in two namespaces: lint sees each object once and guesses not
        {
            "overlays/dev/kustomization.yaml": "namespace: dev\nresources: [../../base]\n",
            "overlays/prod/kustomization.yaml": "namespace: prod\nresources: [../../base]\n",
            "base/kustomization.yaml": "resources: [template.yaml, pod.yaml]\n",
            "base/template.yaml": TEMPLATE.format(namespace=ns("prod")),
            "base/pod.yaml": POD.format(namespace=""),
        },
        [
            'base/pod.yaml:8:32: DRA302 ResourceClaimTemplate "single-gpu" does not exist in namespace "default"'
        ],
        id="two overlays with different namespaces leave the base as written",
    ),
]


def run(files: dict[str, str]) -> list[str]:
    loaded = LoadResult()
    for name, text in files.items():
        loaded.extend(load_text(text, name))
    loaded.extend(load_text(CLASS, "class.yaml"))
    result = lint(loaded, Settings(features=Features("1.36"), select=("DRA3",)))
    return [
        f"{d.position.file}:{d.position.line}:{d.position.column}: {d.rule} {d.message}"
        for d in result.diagnostics
        if d.position is not None
    ]


@pytest.mark.parametrize(("files", "expected"), CASES)
def test_kustomization_namespace(files: dict[str, str], expected: list[str]) -> None:
    found = run(files)
    assert len(found) == len(expected), found
    for line, want in zip(found, expected, strict=True):
        assert line.startswith(want), found
