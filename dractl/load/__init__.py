"""Reading manifests: paths → source files → documents (with positions) → Kubernetes objects."""

from __future__ import annotations

from collections.abc import Iterable

from dractl.diagnostics import Diagnostic
from dractl.load.documents import Document, SourceFile
from dractl.load.lists import Omit, omit_parts
from dractl.load.objects import KubeObject, objects_of_file
from dractl.load.parse import Limits, parse_source
from dractl.load.sources import expand_paths, read_source
from dractl.records import Record

__all__ = [
    "Document",
    "KubeObject",
    "Limits",
    "LoadResult",
    "Omit",
    "SourceFile",
    "load_paths",
    "load_text",
]


class LoadResult(Record):
    __slots__ = ("diagnostics", "files", "objects", "skipped", "unreadable")

    def __init__(
        self,
        files: list[SourceFile] | None = None,
        objects: list[KubeObject] | None = None,
        diagnostics: list[Diagnostic] | None = None,
        unreadable: list[str] | None = None,
        skipped: list[str] | None = None,
    ) -> None:
        self.files = [] if files is None else files
        self.objects = [] if objects is None else objects
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.unreadable = [] if unreadable is None else unreadable  # one-line messages; exit code 2
        # one-line notes on what a folder held but was not read (a FIFO, a device): a warning
        self.skipped = [] if skipped is None else skipped

    @property
    def failed(self) -> bool:
        """Whether some input could not be read or parsed (exit code 2)."""
        return bool(self.unreadable) or any(
            d.rule in ("DRA001", "DRA002", "DRA005") for d in self.diagnostics
        )

    def extend(self, other: LoadResult) -> None:
        self.files += other.files
        self.objects += other.objects
        self.diagnostics += other.diagnostics
        self.unreadable += other.unreadable
        self.skipped += other.skipped


def load_source(
    source: SourceFile, limits: Limits, result: LoadResult, *, comments: bool = True,
    omit: Omit | None = None, marks: bool = True, jobs: int = 1,
) -> None:
    result.files.append(source)
    result.diagnostics += parse_source(source, limits, comments=comments, omit=omit, marks=marks, jobs=jobs)
    for item in objects_of_file(source):
        if isinstance(item, KubeObject):
            if omit is not None:
                omit_parts(item.raw, item.api_version, item.kind, omit)
            result.objects.append(item)
        else:
            result.diagnostics.append(item)


def load_paths(
    paths: Iterable[str],
    *,
    stdin: bytes | None = None,
    limits: Limits | None = None,
    comments: bool = True,
    omit: Omit | None = None,
    marks: bool = True,
    jobs: int = 1,
) -> LoadResult:
    """Read every path (files, folders, ``-``); problems become diagnostics, never exceptions.

    ``comments=False``: the trees hold values and positions but no comments, which makes large
    inputs many times faster to read (see :mod:`dractl.load.fast`); ``lint`` and ``explain`` read
    so (inline suppressions are found in the text), ``convert`` needs the comments to keep them.
    ``omit``: parts of objects the caller does not read (``explain``), left out of the trees
    (and not checked); a cluster dump is then read item by item without them.
    ``marks=False`` (with ``comments=False``): positions are found when a message first asks
    for one (the document is read again), which makes reading cheaper where few are asked for
    (``explain``). ``jobs``: processes that read a long stream's documents (see
    :mod:`dractl.load.forked`).

    A path that does not exist raises :class:`dractl.errors.InputError` (a usage error).
    """
    from dractl.errors import InputError

    limits = limits or Limits()
    result = LoadResult()
    for path in expand_paths(paths, result.skipped):
        try:
            source = read_source(path, limits.max_file_bytes, stdin)
        except InputError as exc:
            result.unreadable.append(str(exc))
            continue
        load_source(source, limits, result, comments=comments, omit=omit, marks=marks, jobs=jobs)
    return result


def load_text(
    text: str, path: str = "<string>", *, limits: Limits | None = None, comments: bool = True,
    omit: Omit | None = None, marks: bool = True, jobs: int = 1,
) -> LoadResult:
    """Load YAML or JSON text (tests, editors)."""
    fmt = "json" if path.endswith(".json") else "yaml"
    result = LoadResult()
    load_source(SourceFile(path, text, fmt), limits or Limits(), result, comments=comments, omit=omit,
                marks=marks, jobs=jobs)
    return result
