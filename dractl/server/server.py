"""The Language Server: pygls wiring of the workspace state to LSP requests and notifications.

Checks are debounced: a change starts a timer and the workspace is linted when typing pauses;
opening, saving and closing a file and changed settings check at once. A request that reads the
lint result (hover, code actions) first runs a check that is due, so it never answers about text
the editor no longer shows. Everything runs on the server's event loop, one check at a time: the
CEL engines and lint's caches are not shared across threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from dractl import __version__
from dractl.server.diagnostics import Converter, by_file
from dractl.server.workspace import Snapshot, WorkspaceState

if TYPE_CHECKING:
    from dractl.load import Limits

log = logging.getLogger(__name__)

# A cursor after these is where a CEL name or a value starts: `device.`, `attributes["`, `: `
TRIGGER_CHARACTERS = ['"', ".", " "]
# What `dractl lint FOLDER` reads: manifests and the configuration files.
WATCHED = ["**/*.{yaml,yml,json}", "**/pyproject.toml"]


class DractlServer(LanguageServer):
    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__("dractl", __version__)
        self.limits = limits
        self.state = WorkspaceState(None, limits)
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.problems: list[str] = []
        self._timer: asyncio.TimerHandle | None = None

    # --- checking -------------------------------------------------------------------------------

    def schedule(self, delay: float | None = None) -> None:
        """Check after ``delay`` seconds (default: the debounce setting); a later call replaces
        an earlier one that has not run."""
        if self._timer is not None:
            self._timer.cancel()
        if delay is None:
            delay = self.state.settings.debounce_ms / 1000
        self._timer = asyncio.get_running_loop().call_later(delay, self.check)

    def flush(self) -> Snapshot | None:
        """The current lint result, after running a check that is due."""
        if self._timer is not None or self.state.snapshot is None:
            self.check()
        return self.state.snapshot

    def check(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            snapshot = self.state.check(self.buffers())
        except Exception as exc:  # an editor's server must outlive a bug: say it and go on
            log.exception("check failed")
            self._show(types.MessageType.Error, f"dractl: the check failed: {exc!r}")
            return
        if snapshot.problems != self.problems:
            self.problems = snapshot.problems
            for problem in snapshot.problems:
                self._show(types.MessageType.Warning, f"dractl: {problem}")
        self.publish(snapshot)

    def buffers(self) -> dict[str, str]:
        """Open documents' unsaved text by file path (documents that are no files left out)."""
        out = {}
        for uri, document in self.workspace.text_documents.items():
            path = to_fs_path(uri)
            if path and uri.startswith("file:"):
                out[os.path.abspath(path)] = document.source
        return out

    def converter(self, snapshot: Snapshot) -> Converter:
        texts = {f.path: f.text for f in snapshot.loaded.files}
        return Converter(texts, self.workspace.position_codec.client_num_units, _uri)

    def publish(self, snapshot: Snapshot) -> None:
        """Diagnostics of every file whose list changed (an empty list clears a file's)."""
        found = by_file(snapshot, self.converter(snapshot))
        versions = {
            os.path.abspath(to_fs_path(uri) or ""): doc.version
            for uri, doc in self.workspace.text_documents.items()
        }
        for path in sorted(set(found) | set(self.published)):
            diagnostics = found.get(path, [])
            if self.published.get(path) == diagnostics and path not in versions:
                continue
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=_uri(path), diagnostics=diagnostics, version=versions.get(path)
                )
            )
        self.published = {p: d for p, d in found.items() if d}

    def _show(self, kind: types.MessageType, message: str) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))


def _uri(path: str) -> str:
    return from_fs_path(path) or path


def _root(params: types.InitializeParams) -> str | None:
    if params.workspace_folders:
        return to_fs_path(params.workspace_folders[0].uri)
    if params.root_uri:
        return to_fs_path(params.root_uri)
    return params.root_path


def build(limits: Limits | None = None) -> DractlServer:
    """A server with every feature registered (not started)."""
    server = DractlServer(limits)

    @server.feature(types.INITIALIZE)
    def initialize(ls: DractlServer, params: types.InitializeParams) -> None:
        ls.state = WorkspaceState(_root(params), ls.limits)
        ls.state.configure(params.initialization_options)

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
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DractlServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DractlServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DractlServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.schedule(0)  # the file's content on disk counts again

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_files(ls: DractlServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.schedule(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: DractlServer, params: types.DidChangeConfigurationParams
    ) -> None:
        ls.state.configure(params.settings)
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
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
        )

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
            ls.state.snapshot, lines, where.line, where.character,
            _column_position(ls, where.line, line_text),
        )
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.RefactorRewrite]),
    )
    def code_action(ls: DractlServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        from dractl.server.actions import conversions

        uri = params.text_document.uri
        path = to_fs_path(uri)
        if not path:
            return []
        document = ls.workspace.get_text_document(uri)
        lines = [line.rstrip("\r\n") for line in document.lines]
        where = document.range_from_client_units(params.range)
        actions = []
        for found in conversions(os.path.abspath(path), document.source, where.start.line, where.end.line):
            end_text = lines[found.end_line] if found.end_line < len(lines) else ""
            edit = types.TextEdit(
                range=types.Range(
                    start=types.Position(line=found.start, character=0),
                    end=_column_position(ls, found.end_line, end_text)(found.end_column),
                ),
                new_text=found.text,
            )
            actions.append(
                types.CodeAction(
                    title=found.title,
                    kind=types.CodeActionKind.RefactorRewrite,
                    edit=types.WorkspaceEdit(changes={uri: [edit]}),
                )
            )
        return actions

    return server


def _at(ls: DractlServer, uri: str, position: types.Position) -> tuple[Snapshot, str, int, int] | None:
    """The lint result and 0-based line and character column of a client position."""
    path = to_fs_path(uri)
    snapshot = ls.flush()
    if not path or snapshot is None:
        return None
    document = ls.workspace.get_text_document(uri)
    where = document.position_from_client_units(position)
    return snapshot, os.path.abspath(path), where.line, where.character


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
