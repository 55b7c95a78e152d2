"""A repository's other YAML and JSON (workflows, compose files, Helm values, tsconfig.json)
passes silently; documents that are, or look like, Kubernetes objects are still checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dractl.load import load_paths, load_text

OTHER_FILES = Path(__file__).parent / "other-files"
OTHER = sorted(p for p in OTHER_FILES.rglob("*") if p.is_file())


@pytest.mark.parametrize("path", OTHER, ids=lambda p: str(p.relative_to(OTHER_FILES)))
def test_other_files_are_skipped_without_a_diagnostic(path: Path) -> None:
    loaded = load_paths([str(path)])
    assert loaded.diagnostics == [] and loaded.unreadable == []
    assert loaded.objects == []
    (source,) = loaded.files
    assert source.kubernetes is False


def test_the_folder_of_other_files_lints_clean_and_quiet(run_dractl) -> None:
    out = run_dractl("lint", "--quiet", str(OTHER_FILES))
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    out = run_dractl("lint", str(OTHER_FILES))
    assert out.returncode == 0
    assert out.stdout == f"0 errors, 0 warnings (0 objects in {len(OTHER)} files)\n"


def test_large_json_is_decided_without_the_round_trip_parser() -> None:
    # "kind" appears in the text (an npm package name), so only the structure can tell.
    lock = {
        "name": "example",
        "packages": {f"node_modules/p{i}": {"version": "1.0.0"} for i in range(20_000)},
    }
    lock["packages"]["node_modules/kind-of"] = {"version": "6.0.3"}
    loaded = load_text(json.dumps(lock, indent=2), "package-lock.json")
    (source,) = loaded.files
    assert source.kubernetes is False and loaded.diagnostics == []
    assert all(doc.raw is None for doc in source.documents)  # never parsed by ruamel


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        (
            "no-kind.yaml",
            "metadata:\n  name: gpu-claim\nspec: {}\n",
            [
                (
                    "DRA004",
                    1,
                    "not a Kubernetes object: apiVersion and kind are missing or not a string",
                )
            ],
        ),
        (
            "no-kind.yaml",
            "apiVersion: resource.k8s.io/v1\nmetadata: {name: gpu-claim}\n",
            [("DRA004", 1, "not a Kubernetes object: kind is missing or not a string")],
        ),
        (
            "no-version.yaml",
            "kind: ResourceClaim\nspec: {}\n",
            [("DRA004", 1, "not a Kubernetes object: apiVersion is missing or not a string")],
        ),
        (
            "second-document.yaml",
            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n---\n"
            "replicaCount: 1\n",
            [
                (
                    "DRA004",
                    5,
                    "not a Kubernetes object: apiVersion and kind are missing or not a string",
                )
            ],
        ),
        (
            "scalar-after-object.yaml",
            "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: a}\n---\n"
            "just text\n",
            [("DRA004", 4, "not a Kubernetes object: the document is a string, not a mapping")],
        ),
        (
            "list-of-objects.yaml",
            "- apiVersion: resource.k8s.io/v1\n  kind: DeviceClass\n  metadata: {name: a}\n",
            [("DRA004", 1, "not a Kubernetes object: the document is a list, not a mapping")],
        ),
        (
            "broken.json",
            '{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",, }\n',
            [("DRA001", 1, None)],
        ),
        ("broken.yaml", "kind: DeviceClass\nmetadata: {name: a\n", [("DRA001", 3, None)]),
        # Nothing in it could make a Kubernetes object: not dractl's to judge (use a YAML linter).
        ("broken-other.yaml", "steps: [a, b\n", []),
        (
            "objects-elsewhere.json",
            '[{"apiVersion": "v1", "kind": "ConfigMap"}]',
            [
                ("DRA004", 1, "not a Kubernetes object: the document is a list, not a mapping"),
            ],
        ),
    ],
)
def test_documents_that_look_like_objects_are_checked(
    name: str, text: str, expected: list[tuple[str, int, str | None]]
) -> None:
    loaded = load_text(text, name)
    got = [(d.rule, d.position.line if d.position else None, d.message) for d in loaded.diagnostics]
    assert [(rule, line) for rule, line, _ in got] == [(rule, line) for rule, line, _ in expected]
    for (_, _, message), (_, _, want) in zip(got, expected, strict=True):
        if want is not None:
            assert message == want


def test_kubernetes_objects_of_other_groups_are_loaded_not_reported() -> None:
    text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n"
    loaded = load_text(text, "kustomization.yaml")
    assert loaded.diagnostics == []
    assert [o.kind for o in loaded.objects] == ["Kustomization"]
