"""A lint set: what one lint run reads, with the editor's unsaved buffers in place of the files.

A set is a workspace folder, read as ``dractl lint FOLDER`` reads it (its files, its configuration
file), or one document alone: a file outside every folder, as ``dractl lint FILE`` run in the
file's folder reads it, or a buffer that is no file (``untitled:``), with the settings only. Every
check of a set is one lint run over all of it (cross-object rules relate a claim in one file to a
class in another), so a change anywhere refreshes every file it affects.

A file is parsed again only when its text changed: the loader's result is kept per path and text
(:class:`Loader`, shared by the sets, so a file of nested folders is read once). A check of a set
that has devices (ResourceSlices) runs in a child forked from the server (:mod:`.isolated`), after
a warm-up in the server's own process the first time and whenever the settings change
(:mod:`.warmup`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dractl.errors import DractlError
from dractl.records import Record
from dractl.server import isolated
from dractl.server.keys import inside, is_file
from dractl.server.settings import ServerSettings
from dractl.server.warmup import warm_up

if TYPE_CHECKING:
    from pathlib import Path

    from dractl.api.model import ApiObject
    from dractl.lint.config import Config
    from dractl.lint.engine import LintResult, Settings
    from dractl.load import Document, Limits, LoadResult


class Snapshot(Record):
    """One lint run: what was read, what lint said, and with which settings."""

    __slots__ = ("_objects", "loaded", "problems", "result", "settings")

    def __init__(
        self, loaded: LoadResult, result: LintResult, settings: Settings, problems: list[str]
    ) -> None:
        self.loaded = loaded
        self.result = result
        self.settings = settings
        self.problems = problems  # settings or configuration that could not be used, as messages
        self._objects: list[ApiObject] | None = None

    @property
    def objects(self) -> list[ApiObject]:
        """The model of every object read (slices for hover, classes for completion), made when
        first asked for. The documents' trees are the data, not a copy: nothing here changes
        them."""
        if self._objects is None:
            from dractl.api.model import build_all

            self._objects = build_all(self.loaded.objects, share=True)
        return self._objects

    def document_at(self, path: str, line: int) -> Document | None:
        """The document of ``path`` holding 0-based ``line`` (None: no such file or document)."""
        for source in self.loaded.files:
            if source.path != path:
                continue
            found = None
            for document in source.documents:
                if document.start_line <= line:
                    found = document
            return found
        return None

    def text_of(self, path: str) -> str | None:
        return next((f.text for f in self.loaded.files if f.path == path), None)


class Loader:
    """The loader's result per file, reused while the text (or the file's modification time) is
    the same."""

    def __init__(self, limits: Limits | None = None) -> None:
        from dractl.load import Limits

        self.limits = limits or Limits()
        self._loaded: dict[str, tuple[str | None, float | None, LoadResult]] = {}

    def load(self, path: str, text: str | None, fmt: str | None = None) -> LoadResult:
        """One file (``text``: the buffer's, else the file's) or a buffer that is no file
        (``text`` given, ``path`` its key); ``fmt`` "json" or "yaml", else told by the name."""
        from dractl.errors import InputError
        from dractl.load import LoadResult, SourceFile, load_source
        from dractl.load.sources import read_source

        mtime = None
        if text is None:
            try:
                mtime = os.stat(path).st_mtime
            except OSError:
                mtime = None
        cached = self._loaded.get(path)
        if cached is not None and cached[0] == text and cached[1] == mtime:
            return cached[2]
        result = LoadResult()
        try:
            if text is None:
                source = read_source(path, self.limits.max_file_bytes)
            else:
                fmt = fmt or ("json" if path.lower().endswith(".json") else "yaml")
                source = SourceFile(path, text, fmt, real_path=path if is_file(path) else None)
        except InputError as exc:
            result.unreadable.append(str(exc))
        else:
            # as lint reads: without comments (suppressions are found in the text)
            load_source(source, self.limits, result, comments=False)
        self._loaded[path] = (text, mtime, result)
        return result

    def cached(self) -> set[str]:
        return set(self._loaded)

    def keep(self, paths: set[str]) -> None:
        """Forget every file but ``paths`` (those no set reads any more)."""
        for gone in set(self._loaded) - paths:
            del self._loaded[gone]


class WorkspaceState:
    """A lint set (a folder ``root``, or the document ``alone``), its settings and its last
    lint run."""

    def __init__(
        self,
        root: str | None,
        limits: Limits | None = None,
        *,
        alone: str | None = None,
        loader: Loader | None = None,
    ) -> None:
        if (root is None) == (alone is None):
            raise ValueError("a lint set is a folder or a document alone")
        self.root = os.path.abspath(root) if root is not None else None
        self.alone = alone
        self.loader = loader or Loader(limits)
        self.settings = ServerSettings()
        self.snapshot: Snapshot | None = None
        self.paths: list[str] = []  # what the last check read
        self._config: tuple[tuple[str, int, int], Config] | None = None
        self._warmed: Settings | None = None  # the settings of the last warm-up

    def configure(self, options: object) -> None:
        self.settings = self.settings.updated(options)

    def reads(self, key: str) -> bool:
        """Whether a check of this set reads the document ``key``."""
        if self.root is not None:
            return inside(key, self.root)
        return key == self.alone

    # --- one lint run -------------------------------------------------------------------------

    def check(
        self, buffers: Mapping[str, str], formats: Mapping[str, str] | None = None
    ) -> Snapshot:
        """Lint the set, ``buffers`` (key -> unsaved text) in place of their files; ``formats``
        ("json" or "yaml", by key) for buffers whose name does not tell."""
        from dractl.lint.engine import lint
        from dractl.load import LoadResult

        problems: list[str] = []
        config, settings = self._settings(problems)
        paths = self._paths(config, buffers, problems)
        loaded = LoadResult()
        for path in paths:
            loaded.extend(self.loader.load(path, buffers.get(path), (formats or {}).get(path)))
        if settings != self._warmed:
            warm_up(loaded, settings)
            self._warmed = settings
        if any(o.kind == "ResourceSlice" for o in loaded.objects):
            result = isolated.run(lambda: lint(loaded, settings))
        else:  # without devices nothing is evaluated: no need to pay for a fork
            result = lint(loaded, settings)
        self.paths = paths
        self.snapshot = Snapshot(loaded, result, settings, problems)
        return self.snapshot

    def _settings(self, problems: list[str]) -> tuple[Config, Settings]:
        """Configuration and settings as ``dractl lint`` in the folder would use them; what cannot
        be used is reported and left out (an editor must keep checking with the rest)."""
        from dractl.lint.config import Config, build_settings

        config = Config()
        try:
            found = self._config_path()
            if found is not None:
                config = self._read_config(found)
        except DractlError as exc:
            problems.append(f"configuration: {exc}")
        chosen = self.settings
        try:
            return config, build_settings(
                config,
                kubernetes_version=chosen.kubernetes_version,
                feature_gates=chosen.feature_gates,
                cel_engine=chosen.cel_engine,
            )
        except DractlError as exc:
            problems.append(f"settings: {exc}; using the defaults")
        try:
            return config, build_settings(config)
        except DractlError as exc:
            problems.append(f"configuration: {exc}; using the defaults")
            return Config(), build_settings(Config())

    def _config_path(self) -> Path | None:
        """The configuration file of the set: the ``configFile`` setting (relative to the folder;
        for a document alone only when absolute), else the one found from the folder (the file's
        folder) upwards; a buffer that is no file has none."""
        from pathlib import Path

        from dractl.lint.config import find_config

        given = Path(self.settings.config_file) if self.settings.config_file else None
        if self.root is not None:
            if given is not None:
                return given if given.is_absolute() else Path(self.root) / given
            return find_config(Path(self.root))
        if given is not None and given.is_absolute():
            return given
        if self.alone is not None and is_file(self.alone):
            return find_config(Path(os.path.dirname(self.alone)))
        return None

    def _read_config(self, path: Path) -> Config:
        """The configuration file, read again only when it changed (checks run per keystroke;
        validating the file against its schema each time would be a good part of one)."""
        from dractl.lint.config import read_config

        try:
            info = os.stat(path)
            key = (str(path), info.st_mtime_ns, info.st_size)
        except OSError:
            key = None  # read_config says why it cannot be read
        if key is None or self._config is None or self._config[0] != key:
            config = read_config(path)
            if key is None:
                return config
            self._config = (key, config)
        return self._config[1]

    def _paths(self, config: Config, buffers: Mapping[str, str], problems: list[str]) -> list[str]:
        """The folder's files as ``dractl lint FOLDER`` finds them, then its open buffers that are
        not among them (a file not saved yet); or the document alone."""
        from dractl.load.sources import SUFFIXES, expand_paths

        if self.alone is not None:
            wanted = self.alone in buffers or is_file(self.alone)
            return [self.alone] if wanted and not config.excluded(self.alone) else []
        found: list[str] = []
        try:
            found = [p for p in expand_paths([str(self.root)]) if not config.excluded(p)]
        except DractlError as exc:
            problems.append(str(exc))
        known = set(found)
        extra = sorted(
            p
            for p in buffers
            if p not in known
            and self.reads(p)
            and is_file(p)
            and p.lower().endswith(SUFFIXES)
            and not config.excluded(p)
        )
        return found + extra
