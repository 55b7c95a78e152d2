"""``dractl server``'s fixes end to end (pytest-lsp over stdio): each finding's fix as a quick
fix, "Fix all dractl safe fixes" as ``source.fixAll.dractl``, the conversion to v1 as the quick
fix of a deprecated version; an action applied gives the fixed text."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.test_lsp import codes, diagnostics, open_file

pytestmark = pytest.mark.asyncio

MANIFEST = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: tpu.example.com
spec:
  selectors:
  - cel:
    expression: device.driver == "tpu.example.com"
---
apiVersion: v1
kind: Namespace
metadata:
  name: tpu-debug
  labels:
    tpu-admin: yes                 # a string: "yes"
    resource.k8s.io/admin-access: "true"
---
apiVersion: resource.k8s.io/v1beta1   # deprecated
kind: DeviceClass
metadata:
  name: old.example.com
spec:
  selectors:
  - cel: {expression: device.driver == "old.example.com"}
"""
INDENTED = MANIFEST.replace("    expression:", "      expression:")
QUOTED = MANIFEST.replace("tpu-admin: yes                 #", 'tpu-admin: "yes"               #')
RENAMED = MANIFEST.replace("resource.k8s.io/admin-access", "resource.kubernetes.io/admin-access")
CONVERTED = MANIFEST.replace(
    "resource.k8s.io/v1beta1   # deprecated", "resource.k8s.io/v1   # deprecated"
)
EVERY_SAFE_FIX = (
    MANIFEST.replace("    expression:", "      expression:")
    .replace("tpu-admin: yes                 #", 'tpu-admin: "yes"               #')
    .replace("resource.k8s.io/v1beta1   # deprecated", "resource.k8s.io/v1   # deprecated")
)


def applied(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with non-overlapping LSP edits applied (positions in UTF-16 units; ASCII here)."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


async def actions_at(
    client: LanguageClient, uri: str, line: int, only: list[str] | None = None
) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=line, character=4),
                end=types.Position(line=line, character=4),
            ),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return list(action.edit.changes[uri])


@pytest_asyncio.fixture
async def opened(client: LanguageClient, folder: Path) -> str:
    path = folder / "fixable.yaml"
    path.write_text(MANIFEST)
    uri = open_file(client, path)
    found = await diagnostics(client, uri, lambda d: "DRA311" in codes(d))
    assert codes(found) == ["DRA010", "DRA110", "DRA311", "DRA400", "DRA510"]
    return uri


@pytest.mark.parametrize(
    ("line", "title", "preferred", "rule", "expected"),
    [
        (7, "Indent expression under cel", True, "DRA010", INDENTED),
        (14, 'Quote yes: "yes"', True, "DRA510", QUOTED),
        (
            15,
            "Rename the label to resource.kubernetes.io/admin-access (unsafe)",
            False,
            "DRA311",
            RENAMED,
        ),
        (17, "Convert DeviceClass old.example.com to v1", True, "DRA400", CONVERTED),
    ],
)
async def test_a_quick_fix_applied_gives_the_fixed_text(
    client: LanguageClient,
    opened: str,
    line: int,
    title: str,
    preferred: bool,
    rule: str,
    expected: str,
) -> None:
    (action,) = await actions_at(client, opened, line)
    assert action.title == title
    assert action.kind == types.CodeActionKind.QuickFix
    assert bool(action.is_preferred) is preferred
    assert [d.code for d in action.diagnostics or []] == [rule]
    assert applied(MANIFEST, edits_of(action, opened)) == expected


async def test_fix_all_applies_every_safe_fix(client: LanguageClient, opened: str) -> None:
    (action,) = await actions_at(client, opened, 0, only=[types.CodeActionKind.SourceFixAll])
    assert action.title == "Fix all dractl safe fixes"
    assert action.kind == "source.fixAll.dractl"
    assert applied(MANIFEST, edits_of(action, opened)) == EVERY_SAFE_FIX
    # a client asking for source actions gets it too; one asking for quick fixes does not
    assert [a.kind for a in await actions_at(client, opened, 0, only=["source"])] == [
        "source.fixAll.dractl"
    ]
    assert await actions_at(client, opened, 0, only=[types.CodeActionKind.QuickFix]) == []


async def test_nothing_to_fix_gives_no_fix_all(client: LanguageClient, folder: Path) -> None:
    uri = open_file(client, folder / "deviceclass.yaml")
    assert await actions_at(client, uri, 0, only=[types.CodeActionKind.SourceFixAll]) == []


@pytest.mark.parametrize("uri", ["untitled:Untitled-1", "vscode-vfs://github/org/repo/fix.yaml"])
async def test_a_buffer_that_is_no_file_gets_its_fixes(
    client: LanguageClient, folder: Path, uri: str
) -> None:
    before = sorted((p, p.stat().st_mtime_ns) for p in folder.rglob("*"))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="yaml", version=1, text=MANIFEST
            )
        )
    )
    found = await diagnostics(client, uri, lambda d: "DRA311" in codes(d))
    assert codes(found) == ["DRA010", "DRA110", "DRA311", "DRA400", "DRA510"]
    (indent,) = await actions_at(client, uri, 7)
    assert applied(MANIFEST, edits_of(indent, uri)) == INDENTED
    (convert,) = await actions_at(client, uri, 17)
    assert applied(MANIFEST, edits_of(convert, uri)) == CONVERTED
    (fix_all,) = await actions_at(client, uri, 0, only=[types.CodeActionKind.SourceFixAll])
    assert applied(MANIFEST, edits_of(fix_all, uri)) == EVERY_SAFE_FIX
    assert sorted((p, p.stat().st_mtime_ns) for p in folder.rglob("*")) == before  # no file
