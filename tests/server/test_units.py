"""The server's pieces without a client: where a cursor is, settings, completion contexts."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from dractl.api.releases import DEFAULT_RELEASE
from dractl.load import load_text
from dractl.server.completion import complete
from dractl.server.diagnostics import Converter, by_file
from dractl.server.positions import path_at, token_span
from dractl.server.settings import ServerSettings
from dractl.server.workspace import WorkspaceState
from tests.server.conftest import CLAIM

ROOT = Path(__file__).resolve().parents[2]


# CLAIM's lines (0-based): 9 `      exactly:`, 10 `deviceClassName`, 11 `count: -1`, 14 `expression`
@pytest.mark.parametrize(
    ("line", "column", "path", "on_key"),
    [
        (0, 3, ("apiVersion",), True),
        (0, 20, ("apiVersion",), False),
        (3, 10, ("metadata", "name"), False),
        (8, 4, ("spec", "devices", "requests", 0, "name"), True),  # on the list's dash
        (10, 10, ("spec", "devices", "requests", 0, "exactly", "deviceClassName"), True),
        (11, 16, ("spec", "devices", "requests", 0, "exactly", "count"), False),
        (
            14,
            40,
            ("spec", "devices", "requests", 0, "exactly", "selectors", 0, "cel", "expression"),
            False,
        ),
    ],
)
def test_path_at(line: int, column: int, path: tuple[Any, ...], on_key: bool) -> None:
    document = load_text(CLAIM, "claim.yaml", comments=False).files[0].documents[0]
    assert path_at(document, line, column) == (path, on_key)


def test_path_at_reads_a_block_scalar_as_its_entry() -> None:
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "spec:\n  selectors:\n  - cel:\n      expression: |\n        device.driver ==\n          'x'\n"
    )
    document = load_text(text, "c.yaml", comments=False).files[0].documents[0]
    assert path_at(document, 7, 12) == (("spec", "selectors", 0, "cel", "expression"), False)


@pytest.mark.parametrize(
    ("line", "column", "span"),
    [
        ("        count: -1", 16, (15, 17)),  # a negative number, not a dash
        ("    - name: gpus", 5, (4, 5)),  # a list's dash
        ('    key: "a b" # c', 10, (9, 14)),
        ("  name: gpu.example.com", 3, (2, 6)),
    ],
)
def test_token_span(line: str, column: int, span: tuple[int, int]) -> None:
    assert token_span(line, column) == span


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"kubernetesVersion": "1.35"}, {"kubernetes_version": "1.35"}),
        (
            {"dractl": {"featureGates": {"A": True, "B": False}}},
            {"feature_gates": "A=true,B=false"},
        ),
        (
            {"celEngine": "cel-python", "configFile": "x.yaml"},
            {"cel_engine": "cel-python", "config_file": "x.yaml"},
        ),
        ({"debounceMs": 0}, {"debounce_ms": 0}),
        ({"unknown": 1}, {}),
        (None, {}),
    ],
)
def test_settings_are_updated_from_what_a_client_sends(
    options: Any, expected: dict[str, Any]
) -> None:
    before = ServerSettings(kubernetes_version="1.34")
    after = before.updated(options)
    changed = {
        name: getattr(after, name)
        for name in after.__slots__
        if getattr(after, name) != getattr(before, name)
    }
    assert changed == expected


def position(column: int) -> types.Position:
    return types.Position(line=0, character=column)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["kind: Res"], ["DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"]),
        (
            ["        expression: device."],
            ["driver", "attributes", "capacity", "allowMultipleAllocations"],
        ),
        (
            ["      expression: |", "        device.dri"],
            ["driver", "attributes", "capacity", "allowMultipleAllocations"],
        ),
        (["  name: x"], []),
        (["        expression: 'a' + "], None),  # functions and `device`
    ],
)
def test_completion_contexts(lines: list[str], expected: list[str] | None) -> None:
    line = len(lines) - 1
    labels = [i.label for i in complete(None, lines, line, len(lines[line]), position)]
    if expected is None:
        assert "device" in labels and "quantity" in labels
    else:
        assert labels == expected


def check(folder: Path, buffers: dict[str, str] | None = None) -> dict[str, list[types.Diagnostic]]:
    state = WorkspaceState(str(folder))
    snapshot = state.check(buffers or {})
    converter = Converter(
        {f.path: f.text for f in snapshot.loaded.files}, len, lambda p: Path(p).as_uri()
    )
    return {Path(p).name: d for p, d in by_file(snapshot, converter).items()}


def test_a_cross_object_finding_points_at_the_other_object(tmp_path: Path) -> None:
    shutil.copy(ROOT / "examples/bad/admin-access-namespace-v1.yaml", tmp_path / "ns.yaml")
    found = check(tmp_path)["ns.yaml"]
    related = [r for d in found if d.code == "DRA310" for r in d.related_information or ()]
    assert [r.message for r in related] == ['namespace "gpu-monitoring"', 'namespace "gpu-debug"']
    assert all(r.location.uri == (tmp_path / "ns.yaml").as_uri() for r in related)


def test_a_buffer_with_a_syntax_error_gets_its_position(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("")
    found = check(
        tmp_path,
        {str(path): "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: x\n"},
    )
    assert [d.code for d in found["broken.yaml"]] == ["DRA001"]


@pytest.mark.parametrize(
    ("options", "config", "release", "problems"),
    [
        ({}, None, DEFAULT_RELEASE, []),
        ({"kubernetesVersion": "1.34"}, None, "1.34", []),
        ({}, "kubernetes-version: '1.35'\n", "1.35", []),
        ({"kubernetesVersion": "1.34"}, "kubernetes-version: '1.35'\n", "1.34", []),  # settings win
        ({"configFile": "ci/dractl.yaml"}, None, "1.35", []),
        (
            {"featureGates": {"NoSuchGate": True}},
            None,
            DEFAULT_RELEASE,
            ["settings: unknown feature gate"],
        ),
        ({}, "kubernetes-version: [\n", DEFAULT_RELEASE, ["configuration: "]),
    ],
)
def test_settings_and_the_configuration_file(
    tmp_path: Path, options: dict[str, Any], config: str | None, release: str, problems: list[str]
) -> None:
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "dractl.yaml").write_text("kubernetes-version: '1.35'\n")
    if config is not None:
        (tmp_path / ".dractl.yaml").write_text(config)
    state = WorkspaceState(str(tmp_path))
    state.configure(options)
    snapshot = state.check({})
    assert snapshot.settings.features.release == release
    assert len(snapshot.problems) == len(problems)
    for found, start in zip(snapshot.problems, problems, strict=True):
        assert found.startswith(start), found
