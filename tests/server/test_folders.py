"""Lint sets: each workspace folder as ``dractl lint FOLDER`` reads it, a file in the innermost
folder that holds it, documents outside every folder (or no file at all) alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dractl.server.folders import Workspaces
from tests.server.conftest import CLAIM, DEVICE_CLASS, SLICE

UNTITLED = "untitled:Untitled-1"
# The claim as JSON, for a buffer whose language is JSON: count -1 again (DRA120).
CLAIM_JSON = """{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
 "metadata": {"name": "j", "namespace": "ml"},
 "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "gpu.example.com", "count": -1}}]}}}
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def reported(workspaces: Workspaces) -> dict[str, list[str]]:
    """Rule IDs per document, from the run of the set each belongs to (as the server publishes)."""
    out: dict[str, list[str]] = {}
    for snapshot, owned in workspaces.reports():
        for key in owned:
            out[key] = []
        for d in snapshot.result.diagnostics:
            if d.position is not None and d.position.file in owned:
                out[d.position.file].append(d.rule)
    return {k: sorted(v) for k, v in out.items()}


IGNORE_120 = "ignore: [DRA120]\n"
# A class of another name: with classes among its inputs, a set reports the claim's missing class
# (DRA301), which shows what the set does not read.
OTHER_CLASS = DEVICE_CLASS.replace("gpu.example.com", "other.example.com")
FILES = {"deviceclass.yaml": DEVICE_CLASS, "slice.yaml": SLICE, "claim.yaml": CLAIM}


@pytest.mark.parametrize(
    ("layout", "roots", "claim", "expected"),
    [
        # each folder with its own configuration file
        (
            {
                "a/.dractl.yaml": IGNORE_120,
                **{f"a/{k}": v for k, v in FILES.items()},
                **{f"b/{k}": v for k, v in FILES.items()},
            },
            ["a", "b"],
            "a/claim.yaml",
            ["DRA210"],
        ),
        (
            {
                "a/.dractl.yaml": IGNORE_120,
                **{f"a/{k}": v for k, v in FILES.items()},
                **{f"b/{k}": v for k, v in FILES.items()},
            },
            ["a", "b"],
            "b/claim.yaml",
            ["DRA120", "DRA210"],
        ),
        # a folder does not see the classes and slices of another (DRA301: no such class)
        (
            {
                "a/claim.yaml": CLAIM,
                "a/other.yaml": OTHER_CLASS,
                "b/deviceclass.yaml": DEVICE_CLASS,
            },
            ["a", "b"],
            "a/claim.yaml",
            ["DRA120", "DRA301"],
        ),
        # the innermost folder reports, with its configuration, seeing only its own files
        (
            {
                **{f"outer/{k}": v for k, v in FILES.items()},
                "outer/inner/.dractl.yaml": IGNORE_120,
                "outer/inner/claim.yaml": CLAIM,
                "outer/inner/other.yaml": OTHER_CLASS,
            },
            ["outer", "outer/inner"],
            "outer/inner/claim.yaml",
            ["DRA301"],
        ),
        # without the inner folder, the outer one reports on the same file, with the outer files
        # and configuration
        (
            {
                **{f"outer/{k}": v for k, v in FILES.items()},
                "outer/inner/.dractl.yaml": IGNORE_120,
                "outer/inner/claim.yaml": CLAIM,
                "outer/inner/other.yaml": OTHER_CLASS,
            },
            ["outer"],
            "outer/inner/claim.yaml",
            ["DRA120", "DRA210"],
        ),
    ],
)
def test_each_folder_is_linted_as_dractl_lint_folder(
    tmp_path: Path, layout: dict[str, str], roots: list[str], claim: str, expected: list[str]
) -> None:
    write(tmp_path, layout)
    workspaces = Workspaces([str(tmp_path / r) for r in roots])
    assert workspaces.check({}) == []
    assert reported(workspaces)[str(tmp_path / claim)] == expected


def test_nested_folders_read_a_file_once(tmp_path: Path) -> None:
    write(
        tmp_path, {**{f"outer/{k}": v for k, v in FILES.items()}, "outer/inner/claim.yaml": CLAIM}
    )
    workspaces = Workspaces([str(tmp_path / "outer"), str(tmp_path / "outer/inner")])
    workspaces.check({})
    inner = str(tmp_path / "outer/inner/claim.yaml")
    outer_run, inner_run = (
        workspaces.folders[str(tmp_path / r)].snapshot for r in ("outer", "outer/inner")
    )
    assert outer_run is not None and inner_run is not None
    files = [next(f for f in run.loaded.files if f.path == inner) for run in (outer_run, inner_run)]
    assert files[0] is files[1]  # the outer folder's run reads it too, from the same parse
    assert workspaces.owner(inner) is workspaces.folders[str(tmp_path / "outer/inner")]


@pytest.mark.parametrize(
    ("key", "text", "formats", "expected"),
    [
        # outside every folder: alone (no slice, so no DRA210), with the configuration found
        # from its own folder (DRA120 ignored)
        ("elsewhere/claim.yaml", CLAIM, {}, []),
        # no file: the buffer alone, no configuration file (the .dractl.yaml of the current
        # folder does not count)
        (UNTITLED, CLAIM, {}, ["DRA120"]),
        (UNTITLED, CLAIM_JSON, {UNTITLED: "json"}, ["DRA120"]),
        ("vscode-vfs://github/org/repo/claim.yaml", CLAIM, {}, ["DRA120"]),
    ],
)
def test_a_document_outside_every_folder_is_linted_alone(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    key: str,
    text: str,
    formats: dict[str, str],
    expected: list[str],
) -> None:
    write(
        tmp_path,
        {
            **{f"folder/{k}": v for k, v in FILES.items()},
            "elsewhere/.dractl.yaml": IGNORE_120,
            ".dractl.yaml": IGNORE_120,
        },
    )
    monkeypatch.chdir(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    if not key.count(":"):
        key = str(tmp_path / key)
    workspaces = Workspaces([str(tmp_path / "folder")])
    assert workspaces.check({key: text}, formats) == []
    assert reported(workspaces)[key] == expected
    assert workspaces.owner(key) is workspaces.alone[key]
    # nothing written, here or anywhere in the tree
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    # closed, it is no longer checked
    workspaces.check({})
    assert key not in reported(workspaces)


def test_a_change_makes_due_the_sets_that_read_the_document(tmp_path: Path) -> None:
    write(tmp_path, {"a/claim.yaml": CLAIM, "a/inner/claim.yaml": CLAIM, "b/claim.yaml": CLAIM})
    a, inner, b = (str(tmp_path / r) for r in ("a", "a/inner", "b"))
    workspaces = Workspaces([a, inner, b])
    workspaces.check({UNTITLED: CLAIM})
    roots = {s: s.root or s.alone for s in workspaces.sets()}
    for key, due in [
        (os.path.join(a, "claim.yaml"), {a}),
        (os.path.join(inner, "claim.yaml"), {a, inner}),
        (UNTITLED, {UNTITLED}),
        (None, {a, inner, b, UNTITLED}),
    ]:
        workspaces.due.clear()
        workspaces.changed(key)
        assert {roots[s] for s in workspaces.due} == due


def test_folders_come_and_go(tmp_path: Path) -> None:
    write(tmp_path, {**{f"a/{k}": v for k, v in FILES.items()}, "b/claim.yaml": CLAIM})
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    claim_b = os.path.join(b, "claim.yaml")
    workspaces = Workspaces([a])
    workspaces.check({claim_b: CLAIM})
    assert claim_b in workspaces.alone  # open, outside every folder
    workspaces.set_roots([a, b])
    assert claim_b not in workspaces.alone
    assert {s.root for s in workspaces.due} == {b}
    workspaces.check({claim_b: CLAIM})
    assert reported(workspaces)[claim_b] == ["DRA120"]
    workspaces.set_roots([b])
    workspaces.check({})
    assert set(reported(workspaces)) == {claim_b}
    # what no set reads any more is forgotten
    assert workspaces.loader.cached() == {claim_b}
