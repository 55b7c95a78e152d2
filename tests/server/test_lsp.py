"""``dractl server`` end to end: a real LSP client (pytest-lsp) over stdio."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import CLAIM

pytestmark = pytest.mark.asyncio

Diagnostics = Sequence[types.Diagnostic]


async def diagnostics(
    client: LanguageClient, uri: str, until: Callable[[Diagnostics], bool], timeout: float = 30
) -> Diagnostics:
    """The diagnostics of ``uri`` once they satisfy ``until`` (they come after debouncing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = client.diagnostics.get(uri)
        if found is not None and until(found):
            return found
        remaining = deadline - loop.time()
        if remaining <= 0:
            raise AssertionError(f"diagnostics of {uri}: {found}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), remaining
            )


def codes(found: Diagnostics) -> list[str]:
    return sorted(str(d.code) for d in found)


def open_file(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri,
                language_id="yaml",
                version=version,
                text=path.read_text() if text is None else text,
            )
        )
    )
    return uri


def change(
    client: LanguageClient, uri: str, version: int, line: int, start: int, end: int, text: str
) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=line, character=start),
                        end=types.Position(line=line, character=end),
                    ),
                    text=text,
                )
            ],
        )
    )


async def test_diagnostics_of_an_open_file_follow_its_changes(
    client: LanguageClient, folder: Path
) -> None:
    uri = open_file(client, folder / "claim.yaml")
    found = await diagnostics(client, uri, lambda d: "DRA120" in codes(d))
    assert codes(found) == ["DRA120", "DRA210"]
    count = next(d for d in found if d.code == "DRA120")
    # `count: -1`: the value, as `dractl lint` underlines it
    assert count.range == types.Range(
        start=types.Position(line=11, character=15), end=types.Position(line=11, character=17)
    )
    assert count.severity == types.DiagnosticSeverity.Error
    assert count.source == "dractl"
    assert count.code_description is not None
    assert count.code_description.href.endswith("docs/rules.md#dra120")
    assert "must be greater than zero" in count.message
    selector = next(d for d in found if d.code == "DRA210")
    assert selector.severity == types.DiagnosticSeverity.Warning
    assert (selector.range.start.line, selector.range.start.character) == (14, 61)

    # one keystroke: -1 becomes 2; the unsaved buffer is what counts
    change(client, uri, 2, 11, 15, 17, "2")
    found = await diagnostics(client, uri, lambda d: "DRA120" not in codes(d))
    assert codes(found) == ["DRA210"]


async def test_a_change_in_one_file_refreshes_the_files_it_affects(
    client: LanguageClient, folder: Path
) -> None:
    claim = open_file(client, folder / "claim.yaml")
    await diagnostics(client, claim, lambda d: "DRA120" in codes(d))
    # renaming the class in another (unsaved) file leaves the claim's class outside the inputs
    classes = open_file(client, folder / "deviceclass.yaml")
    change(client, classes, 2, 3, 20, 23, "org")
    found = await diagnostics(client, claim, lambda d: "DRA301" in codes(d))
    class_ref = next(d for d in found if d.code == "DRA301")
    assert class_ref.range.start == types.Position(line=10, character=25)
    # and back
    change(client, classes, 3, 3, 20, 23, "com")
    await diagnostics(client, claim, lambda d: "DRA301" not in codes(d))


async def test_a_file_nobody_opened_gets_the_folders_diagnostics(
    client: LanguageClient, folder: Path
) -> None:
    (folder / "other.yaml").write_text(CLAIM.replace("two-gpus", "other"))
    open_file(client, folder / "slice.yaml")
    found = await diagnostics(client, (folder / "other.yaml").as_uri(), lambda d: bool(d))
    assert "DRA120" in codes(found)


async def test_settings_change_the_release(client: LanguageClient, folder: Path) -> None:
    uri = open_file(client, folder / "claim.yaml")
    await diagnostics(client, uri, lambda d: "DRA120" in codes(d))
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"dractl": {"kubernetesVersion": "9.99"}})
    )
    message = await client.wait_for_notification(types.WINDOW_SHOW_MESSAGE)
    assert "9.99" in message.message
    # the check goes on with the defaults
    assert "DRA120" in codes(await diagnostics(client, uri, lambda d: bool(d)))


async def hover_at(client: LanguageClient, uri: str, line: int, character: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert found is not None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


async def test_hover_on_a_field_a_diagnostic_and_a_selector(
    client: LanguageClient, folder: Path
) -> None:
    uri = open_file(client, folder / "claim.yaml")
    await diagnostics(client, uri, lambda d: "DRA120" in codes(d))

    field = await hover_at(client, uri, 10, 12)  # deviceClassName
    assert "**deviceClassName**" in field
    assert "DeviceClass" in field

    rule = await hover_at(client, uri, 11, 16)  # -1
    assert "DRA120" in rule
    assert "**count**" in rule

    selector = await hover_at(client, uri, 14, 30)
    assert "true on 2 of 3 devices; runtime error on 1: no such key: memory" in selector


async def complete_at(client: LanguageClient, uri: str, line: int, character: int) -> list[str]:
    found = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert isinstance(found, types.CompletionList)
    return [item.label for item in found.items]


async def test_completion_of_names_the_workspace_publishes(
    client: LanguageClient, folder: Path
) -> None:
    uri = open_file(client, folder / "claim.yaml")
    await diagnostics(client, uri, lambda d: bool(d))
    # attribute names from the slice in another file
    prefix = '            expression: device.attributes["gpu.example.com"].'
    change(client, uri, 2, 14, 0, 100, prefix)
    assert await complete_at(client, uri, 14, len(prefix)) == ["memory", "model"]
    # capacity names, domains
    prefix = '            expression: device.capacity["gpu.example.com"].m'
    change(client, uri, 3, 14, 0, 100, prefix)
    assert await complete_at(client, uri, 14, len(prefix)) == ["memory"]
    prefix = '            expression: device.attributes["'
    change(client, uri, 4, 14, 0, 100, prefix)
    assert await complete_at(client, uri, 14, len(prefix)) == ["gpu.example.com"]
    # library functions of the release
    prefix = "            expression: devi"
    change(client, uri, 5, 14, 0, 100, prefix)
    assert {"device", "quantity", "semver"} <= set(await complete_at(client, uri, 14, len(prefix)))
    # DeviceClasses of the workspace, apiVersion and kind
    assert await complete_at(client, uri, 10, 25) == ["gpu.example.com"]
    assert "resource.k8s.io/v1" in await complete_at(client, uri, 0, 12)
    assert "ResourceClaim" in await complete_at(client, uri, 1, 6)


V1BETA1 = """\
# a claim written for Kubernetes 1.32
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: one-gpu
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com   # the class
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: other.example.com
"""


async def test_code_action_converts_the_document_to_v1(
    client: LanguageClient, folder: Path
) -> None:
    path = folder / "old.yaml"
    path.write_text(V1BETA1)
    uri = open_file(client, path)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=9, character=8), end=types.Position(line=9, character=8)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert titles == ["Convert ResourceClaim one-gpu to v1"]
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit is not None
    assert action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    text = apply(V1BETA1, edit)
    assert "apiVersion: resource.k8s.io/v1\n" in text
    assert "      exactly:\n        deviceClassName: gpu.example.com   # the class\n" in text
    assert text.startswith("# a claim written for Kubernetes 1.32\n")
    assert text.endswith(V1BETA1.split("---\n")[1])
    # the v1 document has nothing to convert
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=12, character=0), end=types.Position(line=12, character=0)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions


def apply(text: str, edit: types.TextEdit) -> str:
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    return text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]


async def test_the_folders_configuration_file_counts(client: LanguageClient, folder: Path) -> None:
    uri = open_file(client, folder / "claim.yaml")
    await diagnostics(client, uri, lambda d: "DRA210" in codes(d))
    (folder / ".dractl.yaml").write_text("ignore: [DRA210]\n")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(
                    uri=(folder / ".dractl.yaml").as_uri(), type=types.FileChangeType.Created
                )
            ]
        )
    )
    assert codes(await diagnostics(client, uri, lambda d: "DRA210" not in codes(d))) == ["DRA120"]


async def test_a_selector_that_does_not_compile_says_so_on_hover(
    client: LanguageClient, folder: Path
) -> None:
    text = CLAIM.replace("memory >= 40", "memory >=")
    uri = open_file(client, folder / "claim.yaml", text)
    await diagnostics(client, uri, lambda d: bool(d))
    assert "does not compile" in await hover_at(client, uri, 14, 30)
