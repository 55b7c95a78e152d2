"""``dractl server`` over stdio with several workspace folders, folders that come and go, files
outside every folder and buffers that are no files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.conftest import CLAIM, DEVICE_CLASS, SLICE
from tests.server.test_lsp import change, codes, complete_at, diagnostics, hover_at, open_file

pytestmark = pytest.mark.asyncio

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "dractl", "server"])


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    """``a`` ignores DRA120 in its configuration file, ``b`` does not; both hold a class, a slice
    and the claim; ``a/inner`` holds a copy of the claim and a configuration file of its own,
    which ignores DRA210 instead."""
    for name in ("a", "b", "a/inner"):
        (tmp_path / name).mkdir(parents=True)
    for name in ("a", "b"):
        (tmp_path / name / "deviceclass.yaml").write_text(DEVICE_CLASS)
        (tmp_path / name / "slice.yaml").write_text(SLICE)
        (tmp_path / name / "claim.yaml").write_text(CLAIM)
    (tmp_path / "a" / ".dractl.yaml").write_text("ignore: [DRA120]\n")
    (tmp_path / "a" / "inner" / "claim.yaml").write_text(CLAIM)
    (tmp_path / "a" / "inner" / ".dractl.yaml").write_text("ignore: [DRA210]\n")
    return tmp_path


def folder(path: Path) -> types.WorkspaceFolder:
    return types.WorkspaceFolder(uri=path.as_uri(), name=path.name)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, folders: Path):  # type: ignore[no-untyped-def]
    # VS Code's capabilities say it registers file watches when asked; so does this client
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=(folders / "a").as_uri(),
            workspace_folders=[folder(folders / "a"), folder(folders / "b")],
            initialization_options={"debounceMs": 50},
        )
    )
    yield
    await lsp_client.shutdown_session()


async def test_each_folder_is_checked_with_its_own_configuration(
    client: LanguageClient, folders: Path
) -> None:
    a = open_file(client, folders / "a" / "claim.yaml")
    b = open_file(client, folders / "b" / "claim.yaml")
    assert codes(await diagnostics(client, b, lambda d: bool(d))) == ["DRA120", "DRA210"]
    assert codes(await diagnostics(client, a, lambda d: bool(d))) == ["DRA210"]
    # a change in b is checked with b's files only: a's claim keeps its diagnostics
    change(client, b, 2, 11, 15, 17, "2")
    assert codes(await diagnostics(client, b, lambda d: "DRA120" not in codes(d))) == ["DRA210"]


async def test_a_folder_added_later_owns_its_files(client: LanguageClient, folders: Path) -> None:
    inner = open_file(client, folders / "a" / "inner" / "claim.yaml")
    # in a: a's configuration, a's class and slice
    assert codes(await diagnostics(client, inner, lambda d: bool(d))) == ["DRA210"]
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[folder(folders / "a" / "inner")], removed=[]
            )
        )
    )
    # in its own folder: its configuration file, no slice to evaluate the selector on
    assert codes(await diagnostics(client, inner, lambda d: "DRA210" not in codes(d))) == ["DRA120"]
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[], removed=[folder(folders / "a" / "inner")]
            )
        )
    )
    assert codes(await diagnostics(client, inner, lambda d: "DRA120" not in codes(d))) == ["DRA210"]


async def test_a_file_outside_every_folder_is_checked_alone(
    client: LanguageClient, folders: Path
) -> None:
    outside = folders / "outside.yaml"
    outside.write_text(CLAIM)
    uri = open_file(client, outside)
    # no slice among its inputs: no DRA210
    assert codes(await diagnostics(client, uri, lambda d: bool(d))) == ["DRA120"]
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not await diagnostics(client, uri, lambda d: not d)


@pytest.mark.parametrize(
    ("uri", "language", "text"),
    [
        ("untitled:Untitled-1", "yaml", CLAIM),
        ("vscode-vfs://github/org/repo/claim.yaml", "yaml", CLAIM),
        (
            "untitled:Untitled-2",
            "json",
            '{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",\n'
            ' "metadata": {"name": "j"}, "spec": {"devices": {"requests": [{"name": "g", "exactly":\n'
            ' {"deviceClassName": "gpu.example.com", "count": -1}}]}}}\n',
        ),
    ],
)
async def test_a_buffer_that_is_no_file(
    client: LanguageClient, folders: Path, uri: str, language: str, text: str
) -> None:
    before = sorted(folders.rglob("*"))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=1, text=text
            )
        )
    )
    found = await diagnostics(client, uri, lambda d: bool(d))
    assert codes(found) == ["DRA120"]
    if language == "yaml":
        assert "DRA120" in await hover_at(client, uri, 11, 16)  # count: -1
        assert "**deviceClassName**" in await hover_at(client, uri, 10, 12)
        change(client, uri, 2, 1, 0, 100, "kind: Res")
        assert "ResourceClaim" in await complete_at(client, uri, 1, 9)
    # code actions answer (an error would raise here)
    await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not await diagnostics(client, uri, lambda d: not d)
    assert sorted(folders.rglob("*")) == before
