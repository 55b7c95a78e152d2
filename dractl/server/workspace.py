"""The workspace as ``dractl lint`` of its folder sees it, with the editor's unsaved buffers.

Every check is one lint run over all the files of the folder (cross-object rules relate a claim in
one file to a class in another), so a change anywhere refreshes every file it affects. A file is
parsed again only when its text changed: the loader's result is kept per path and text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dractl.errors import DractlError
from dractl.records import Record
from dractl.server.settings import ServerSettings

if TYPE_CHECKING:
    from pathlib import Path

    from dractl.api.model import ApiObject
    from dractl.lint.config import Config
    from dractl.lint.engine import LintResult, Settings
    from dractl.load import Document, Limits, LoadResult


class Snapshot(Record):
    """One lint run: what was read, what lint said, and with which settings."""

    __slots__ = ("loaded", "objects", "problems", "result", "settings")

    def __init__(
        self,
        loaded: LoadResult,
        result: LintResult,
        settings: Settings,
        objects: list[ApiObject],
        problems: list[str],
    ) -> None:
        self.loaded = loaded
        self.result = result
        self.settings = settings
        self.objects = objects  # the model of every object read (slices for hover, classes ...)
        self.problems = problems  # settings or configuration that could not be used, as messages

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


class WorkspaceState:
    """A folder (or none: then only the open buffers), its settings and the last lint run."""

    def __init__(self, root: str | None, limits: Limits | None = None) -> None:
        from dractl.load import Limits

        self.root = os.path.abspath(root) if root else None
        self.limits = limits or Limits()
        self.settings = ServerSettings()
        self.snapshot: Snapshot | None = None
        self._loaded: dict[str, tuple[str | None, float | None, LoadResult]] = {}
        self._config: tuple[tuple[str, int, int], Config] | None = None

    def configure(self, options: object) -> None:
        self.settings = self.settings.updated(options)

    # --- one lint run -------------------------------------------------------------------------

    def check(self, buffers: Mapping[str, str]) -> Snapshot:
        """Lint the folder's files, ``buffers`` (path -> unsaved text) in place of their files."""
        from dractl.api.model import build_all
        from dractl.lint.engine import lint
        from dractl.load import LoadResult

        problems: list[str] = []
        config, settings = self._settings(problems)
        paths = self._paths(config, buffers, problems)
        loaded = LoadResult()
        for path in paths:
            loaded.extend(self._load(path, buffers.get(path)))
        for gone in set(self._loaded) - set(paths):
            del self._loaded[gone]
        result = lint(loaded, settings)
        self.snapshot = Snapshot(loaded, result, settings, build_all(loaded.objects), problems)
        return self.snapshot

    def _settings(self, problems: list[str]) -> tuple[Config, Settings]:
        """Configuration and settings as ``dractl lint`` in the folder would use them; what cannot
        be used is reported and left out (an editor must keep checking with the rest)."""
        from pathlib import Path

        from dractl.lint.config import Config, build_settings, find_config

        config = Config()
        try:
            if self.settings.config_file:
                path = Path(self.settings.config_file)
                if not path.is_absolute() and self.root:
                    path = Path(self.root) / path
                config = self._read_config(path)
            elif self.root:
                found = find_config(Path(self.root))
                config = self._read_config(found) if found is not None else Config()
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
        """The folder's files as ``dractl lint FOLDER`` finds them, then open buffers elsewhere."""
        from dractl.load.sources import SUFFIXES, expand_paths

        found: list[str] = []
        if self.root is not None:
            try:
                found = [p for p in expand_paths([self.root]) if not config.excluded(p)]
            except DractlError as exc:
                problems.append(str(exc))
        known = set(found)
        extra = sorted(
            p for p in buffers
            if p not in known and p.lower().endswith(SUFFIXES) and not config.excluded(p)
        )
        return found + extra

    def _load(self, path: str, text: str | None) -> LoadResult:
        """The loader's result for one file (a buffer's text, else the file), reused while the
        text (or the file's modification time) is the same."""
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
                fmt = "json" if path.lower().endswith(".json") else "yaml"
                source = SourceFile(path, text, fmt, real_path=path)
        except InputError as exc:
            result.unreadable.append(str(exc))
        else:
            # as lint reads: without comments (suppressions are found in the text)
            load_source(source, self.limits, result, comments=False)
        self._loaded[path] = (text, mtime, result)
        return result
