"""The Language Server: pygls wiring of the workspace's lint sets to LSP requests and
notifications.

Checks are debounced: a change starts a timer and the sets that read the changed document are
linted when typing pauses; opening, saving and closing a file, changed settings and changed
workspace folders check at once. A request that reads the lint result (hover, code actions) first
runs a check that is due, so it never answers about text the editor no longer shows. Everything
runs on the server's event loop, one check at a time: the CEL engines and lint's caches are not
shared across threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path, uri_scheme

from dractl import __version__
from dractl.server.diagnostics import Converter, by_file
from dractl.server.folders import Workspaces
from dractl.server.keys import is_file, key_of, uri_of
from dractl.server.workspace import Snapshot

if TYPE_CHECKING:
    from dractl.load import Limits

log = logging.getLogger(__name__)

# A cursor after these is where a CEL name or a value starts: `device.`, `attributes["`, `: `
TRIGGER_CHARACTERS = ['"', ".", " "]
# What `dractl lint FOLDER` reads: manifests and the configuration files.
WATCHED = ["**/*.{yaml,yml,json}", "**/pyproject.toml"]
# Languages whose buffers are read as JSON when the name does not say (an untitled buffer).
JSON_LANGUAGES = frozenset(("json", "jsonc"))


class DractlServer(LanguageServer):
    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__("dractl", __version__)
        self.limits = limits
        self.workspaces = Workspaces((), limits)
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.problems: list[str] = []
        self.uris: dict[str, str] = {}  # key -> the URI the editor names an open document by
        self._timer: asyncio.TimerHandle | None = None

    # --- checking -------------------------------------------------------------------------------

    def schedule(self, delay: float | None = None) -> None:
        """Check after ``delay`` seconds (default: the debounce setting); a later call replaces
        an earlier one that has not run."""
        if self._timer is not None:
            self._timer.cancel()
        if delay is None:
            delay = self.workspaces.settings.debounce_ms / 1000
        self._timer = asyncio.get_running_loop().call_later(delay, self.check)

    def flush(self, uri: str | None = None) -> Snapshot | None:
        """The lint run that reports on the document ``uri`` (without one: the first folder's),
        after running a check that is due."""
        if self._timer is not None or self.workspaces.due:
            self.check()
        if uri is None:
            first = next(iter(self.workspaces.folders.values()), None)
            return first.snapshot if first is not None else None
        return self.workspaces.snapshot_of(key_of(uri))

    def check(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        buffers, formats = self.buffers()
        # an editor's server must outlive a bug: say it and go on with the other sets
        for exc in self.workspaces.check(buffers, formats):
            log.error("check failed", exc_info=exc)
            self._show(types.MessageType.Error, f"dractl: the check failed: {exc!r}")
        problems = self.workspaces.problems()
        for problem in problems:
            if problem not in self.problems:
                self._show(types.MessageType.Warning, f"dractl: {problem}")
        self.problems = problems
        self.publish()

    def buffers(self) -> tuple[dict[str, str], dict[str, str]]:
        """Open documents' unsaved text by key, and the format of those whose name does not tell
        (a buffer that is no file)."""
        texts: dict[str, str] = {}
        formats: dict[str, str] = {}
        self.uris = {}
        for uri, document in self.workspace.text_documents.items():
            key = key_of(uri)
            texts[key] = document.source
            self.uris[key] = uri
            if not is_file(key):
                formats[key] = "json" if document.language_id in JSON_LANGUAGES else "yaml"
        return texts, formats

    def uri(self, key: str) -> str:
        return self.uris.get(key) or uri_of(key)

    def converter(self, snapshot: Snapshot) -> Converter:
        texts = {f.path: f.text for f in snapshot.loaded.files}
        return Converter(texts, self.workspace.position_codec.client_num_units, self.uri)

    def publish(self) -> None:
        """Diagnostics of every document whose list changed (an empty list clears a document's),
        each from the run of the set it belongs to."""
        found: dict[str, list[types.Diagnostic]] = {}
        for snapshot, owned in self.workspaces.reports():
            for key, diagnostics in by_file(snapshot, self.converter(snapshot)).items():
                if key in owned:
                    found[key] = diagnostics
        versions = {key_of(uri): doc.version for uri, doc in self.workspace.text_documents.items()}
        for key in sorted(set(found) | set(self.published)):
            diagnostics = found.get(key, [])
            if self.published.get(key) == diagnostics and key not in versions:
                continue
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=self.uri(key), diagnostics=diagnostics, version=versions.get(key)
                )
            )
        self.published = {k: d for k, d in found.items() if d}

    def _show(self, kind: types.MessageType, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))


def _code_action_kinds() -> list[str]:
    from dractl.server.actions import KINDS

    return KINDS


def _roots(params: types.InitializeParams) -> list[str]:
    """The workspace folders on disk (a folder of another scheme has no files to read: its
    documents are checked alone), else the root of a client that names no folders."""
    if params.workspace_folders:
        return _folders(params.workspace_folders)
    if params.root_uri:
        return _folders([types.WorkspaceFolder(uri=params.root_uri, name="")])
    return [params.root_path] if params.root_path else []


def _folders(folders: list[types.WorkspaceFolder]) -> list[str]:
    paths = (to_fs_path(f.uri) if uri_scheme(f.uri) == "file" else None for f in folders)
    return [os.path.abspath(p) for p in paths if p]


def build(limits: Limits | None = None) -> DractlServer:
    """A server with every feature registered (not started)."""
    server = DractlServer(limits)

    @server.feature(types.INITIALIZE)
    def initialize(ls: DractlServer, params: types.InitializeParams) -> None:
        ls.workspaces = Workspaces(_roots(params), ls.limits)
        ls.workspaces.configure(params.initialization_options)

    @server.feature(types.INITIALIZED)
    def initialized(ls: DractlServer, params: types.InitializedParams) -> None:
        # Files changed behind the editor's back (a checkout, a generator) are read again by
        # modification time at the next check; a watch makes that check come at once.
        workspace = ls.client_capabilities.workspace
        watched = workspace.did_change_watched_files if workspace is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="dractl-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern=p) for p in WATCHED]
                        ),
                    )
                ]
            )
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DractlServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.workspaces.changed(key_of(params.text_document.uri))
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DractlServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.workspaces.changed(key_of(params.text_document.uri))
        ls.schedule()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DractlServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.workspaces.changed(key_of(params.text_document.uri))
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DractlServer, params: types.DidCloseTextDocumentParams) -> None:
        # the file's content on disk counts again; a document alone is no longer checked
        ls.workspaces.changed(key_of(params.text_document.uri))
        ls.schedule(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_files(ls: DractlServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.workspaces.changed()  # a configuration file may be among them
        ls.schedule(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_folders(ls: DractlServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = set(_folders(list(params.event.removed)))
        kept = [root for root in ls.workspaces.folders if root not in removed]
        ls.workspaces.set_roots([*kept, *_folders(list(params.event.added))])
        ls.schedule(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: DractlServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.workspaces.configure(params.settings)
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DractlServer, params: types.HoverParams) -> types.Hover | None:
        from dractl.server.hover import hover_text

        found = _at(ls, params.text_document.uri, params.position)
        if found is None:
            return None
        snapshot, path, line, column = found
        text = hover_text(snapshot, path, line, column)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    def completion(ls: DractlServer, params: types.CompletionParams) -> types.CompletionList:
        from dractl.server.completion import complete

        document = ls.workspace.get_text_document(params.text_document.uri)
        lines = [line.rstrip("\r\n") for line in document.lines]
        where = document.position_from_client_units(params.position)
        line_text = lines[where.line] if where.line < len(lines) else ""
        items = complete(
            ls.workspaces.snapshot_of(key_of(params.text_document.uri)),
            lines,
            where.line,
            where.character,
            _column_position(ls, where.line, line_text),
        )
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=_code_action_kinds()),
    )
    def code_action(ls: DractlServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        from dractl.server.actions import code_actions

        return code_actions(ls, params)

    return server


def _at(
    ls: DractlServer, uri: str, position: types.Position
) -> tuple[Snapshot, str, int, int] | None:
    """The lint result, the document's key and 0-based line and character column of a client
    position."""
    snapshot = ls.flush(uri)
    if snapshot is None:
        return None
    document = ls.workspace.get_text_document(uri)
    where = document.position_from_client_units(position)
    return snapshot, key_of(uri), where.line, where.character


def _column_position(ls: DractlServer, line: int, text: str) -> Callable[[int], types.Position]:
    units = ls.workspace.position_codec.client_num_units

    def position(column: int) -> types.Position:
        return types.Position(line=line, character=units(text[:column]))

    return position


def serve(limits: Limits | None = None) -> int:
    """Speak LSP on stdin and stdout until the client says exit (or closes stdin); the exit
    code is 1 when the client said exit without shutdown, as the protocol asks.

    The protocol gets its own copy of the output: pygls closes it at exit, and whatever else
    writes to ``sys.stdout`` meanwhile (a stray print) goes to stderr, not into the protocol.
    """
    import contextlib
    import sys

    server = build(limits)
    said: set[str] = set()
    for method in (types.SHUTDOWN, types.EXIT):
        server.feature(method)(lambda *_, method=method: said.add(method))
    sys.stdout.flush()
    output = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    with contextlib.redirect_stdout(sys.stderr):
        server.start_io(sys.stdin.buffer, output)
    return 1 if types.EXIT in said and types.SHUTDOWN not in said else 0
