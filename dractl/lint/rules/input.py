"""DRA00x: problems found while reading input (emitted by the loader)."""

from __future__ import annotations

from dractl.diagnostics import Severity
from dractl.lint.registry import rule


@rule("DRA001", "yaml-syntax-error", Severity.ERROR, scope="loader")
def yaml_syntax_error() -> None:
    """The document is not valid YAML (or JSON).

    Why:
    kubectl cannot decode the document, so nothing in it reaches the apiserver. dractl reports
    the position the parser stopped at and still checks the other documents of the file.

    Bad:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata: {name: gpu.example.com}
    """


@rule("DRA002", "duplicate-key", Severity.ERROR, scope="loader")
def duplicate_key() -> None:
    """A mapping has the same key twice.

    Why:
    The apiserver's strict field validation rejects duplicate fields ("duplicate field"), and
    tools that accept them silently keep only one of the values.

    Bad:
        metadata:
          name: gpu-claim
          name: gpu-claim-2
    Good:
        metadata:
          name: gpu-claim
    """


@rule("DRA003", "template-not-rendered", Severity.WARNING, scope="loader")
def template_not_rendered() -> None:
    """The document is a Helm or Go template; render it first.

    Why:
    Template actions (`{{ ... }}`) are not YAML the apiserver would ever see. dractl skips the
    document instead of reporting misleading syntax errors (the file's other documents are
    linted; `--fix` leaves the whole file alone); lint the rendered output
    (`helm template ... | dractl lint -`). The finding points at the first `{{` of the
    document.

    Bad:
        metadata:
          name: {{ .Values.name }}
    Good:
        metadata:
          name: gpu-claim
    """


@rule("DRA004", "not-a-kubernetes-object", Severity.ERROR, scope="loader")
def not_a_kubernetes_object() -> None:
    """The document is not a Kubernetes object (no mapping, or no `apiVersion`/`kind`).

    Why:
    kubectl refuses documents without `apiVersion` and `kind` ("Object 'Kind' is missing").
    Keys are case-sensitive: when the document has a key that is one of them written
    differently (`apiversion`, `Kind`, `apiVerison`), the finding names it and points at it.

    Reported for documents that look like Kubernetes objects (a `kind` or `metadata` key at the
    top) and for every other document of a file that holds one. Files with no such document (CI
    workflows, docker-compose files, Helm's Chart.yaml and values, tsconfig.json) are other YAML
    and JSON: they are skipped without a diagnostic, so that `dractl lint .` and the pre-commit
    hook can run over a whole repository.

    Bad:
        metadata:
          name: gpu-claim
        spec: {}
    Good:
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata:
          name: gpu-claim
        spec: {}
    """


@rule("DRA005", "input-limit-exceeded", Severity.ERROR, scope="loader")
def input_limit_exceeded() -> None:
    """The document exceeds an input limit (nesting depth, size, alias expansion).

    Why:
    YAML aliases can expand a small file into billions of nodes ("billion laughs"); dractl runs
    on untrusted input in CI and refuses such documents in bounded time and memory.

    Bad:
        a: &a [x, x, x, x, x, x, x, x, x]
        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    Good:
        apiVersion: resource.k8s.io/v1
        kind: DeviceClass
        metadata:
          name: gpu.example.com
    """
