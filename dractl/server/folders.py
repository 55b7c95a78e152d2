"""Which lint set a document belongs to, and which sets a change makes due.

Every workspace folder is a set of its own, read as ``dractl lint FOLDER`` reads it; a file
belongs to the innermost folder that holds it, and its diagnostics come from that folder's run
(an outer folder's run reads it too, as ``dractl lint OUTER`` would, but does not report on it).
An open document outside every folder (or no file at all: ``untitled:``) is a set alone, kept
while it is open.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from dractl.server.keys import inside
from dractl.server.settings import ServerSettings
from dractl.server.workspace import Loader, Snapshot, WorkspaceState

if TYPE_CHECKING:
    from dractl.load import Limits


class Workspaces:
    """The lint sets of a session: its folders and its documents alone, the settings they share
    and which of them a change has made due."""

    def __init__(self, roots: Iterable[str] = (), limits: Limits | None = None) -> None:
        self.loader = Loader(limits)
        self.settings = ServerSettings()
        self.folders: dict[str, WorkspaceState] = {}
        self.alone: dict[str, WorkspaceState] = {}
        self.due: set[WorkspaceState] = set()
        self.set_roots(roots)

    def sets(self) -> Iterator[WorkspaceState]:
        yield from self.folders.values()
        yield from self.alone.values()

    def configure(self, options: object) -> None:
        self.settings = self.settings.updated(options)
        for state in self.sets():
            state.settings = self.settings
        self.due.update(self.sets())

    def set_roots(self, roots: Iterable[str]) -> None:
        """The workspace folders are now ``roots`` (a new folder is checked at the next check; the
        files of one that went belong to an enclosing folder, else are documents alone)."""
        wanted = {os.path.abspath(r) for r in roots}
        for gone in set(self.folders) - wanted:
            self.due.discard(self.folders.pop(gone))
        for root in sorted(wanted - set(self.folders)):
            self.folders[root] = self._new(root=root)
            self.due.add(self.folders[root])
        for key in [k for k in self.alone if self.folder_of(k) is not None]:
            self.due.discard(self.alone.pop(key))

    def folder_of(self, key: str) -> WorkspaceState | None:
        """The innermost folder holding ``key`` (None: outside every folder, or no file)."""
        found = None
        for root, state in self.folders.items():
            if inside(key, root) and (found is None or len(root) > len(found.root or "")):
                found = state
        return found

    def owner(self, key: str) -> WorkspaceState | None:
        """The set whose run reports on ``key``: its innermost folder, else its own."""
        return self.folder_of(key) or self.alone.get(key)

    def changed(self, key: str | None = None) -> None:
        """The document ``key`` changed (None: anything may have, a file on disk or the
        configuration): every set that reads it is due."""
        self.due.update(s for s in self.sets() if key is None or s.reads(key))

    # --- checking -------------------------------------------------------------------------------

    def check(
        self, buffers: Mapping[str, str], formats: Mapping[str, str] | None = None
    ) -> list[Exception]:
        """Check the sets that are due, ``buffers`` (key -> text of every open document) in place
        of their files; the failures of sets that could not be checked (the others go on)."""
        self._follow(buffers)
        failures = []
        for state in sorted(self.due, key=_order):
            try:
                state.check(buffers, formats)
            except Exception as exc:  # a set whose check fails keeps its last run
                failures.append(exc)
        self.due.clear()
        self.loader.keep({p for s in self.sets() for p in s.paths})
        return failures

    def _follow(self, buffers: Mapping[str, str]) -> None:
        """A set alone for each open document outside every folder, while it is open."""
        for key in list(self.alone):
            if key not in buffers:
                self.due.discard(self.alone.pop(key))
        for key in buffers:
            if key not in self.alone and self.folder_of(key) is None:
                self.alone[key] = self._new(alone=key)
                self.due.add(self.alone[key])

    def _new(self, *, root: str | None = None, alone: str | None = None) -> WorkspaceState:
        state = WorkspaceState(root, alone=alone, loader=self.loader)
        state.settings = self.settings
        return state

    def reports(self) -> Iterator[tuple[Snapshot, set[str]]]:
        """Each set's last run with the documents it reports on (those it owns)."""
        for state in self.sets():
            if state.snapshot is None:
                continue
            owned = {f.path for f in state.snapshot.loaded.files if self.owner(f.path) is state}
            yield state.snapshot, owned

    def snapshot_of(self, key: str) -> Snapshot | None:
        """The last run that reports on ``key``."""
        owner = self.owner(key)
        return owner.snapshot if owner is not None else None

    def problems(self) -> list[str]:
        """What the sets could not use (settings, configuration files), each message once."""
        found: dict[str, None] = {}
        for state in self.sets():
            if state.snapshot is not None:
                found.update(dict.fromkeys(state.snapshot.problems))
        return list(found)


def _order(state: WorkspaceState) -> tuple[int, str]:
    """Folders before documents alone, in the order of their names (runs are then repeatable)."""
    return (0, state.root) if state.root is not None else (1, state.alone or "")
