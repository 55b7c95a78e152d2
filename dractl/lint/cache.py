"""The lint cache: a run whose inputs, settings and dractl are those of an earlier run prints
that run's report again instead of checking anything.

As ruff's: a ``.dractl_cache`` folder in the project (the folder of the configuration file,
else the current one) with a ``.gitignore`` and a ``CACHEDIR.TAG`` of its own, one subfolder
per dractl version; ``--no-cache`` / ``DRACTL_NO_CACHE`` turn it off, ``--cache-dir`` /
``DRACTL_CACHE_DIR`` move it. Deleting the folder is always safe.

Rules look across files (a claim names a DeviceClass of another file), so a report belongs to
the whole run, not to one file. A run has one *slot*, named by everything but the contents of
its inputs: dractl's code (the size and time of each of its files, so that an edited checkout
is never answered from an older one), the installed distributions, the Python version, the
current folder (SARIF paths are relative to it), the command line, the list of files the paths
expand to and the configuration file. The slot holds the digest of the contents (every file,
``--context`` file, the configuration and standard input) and what the run printed: the report,
its lines on stderr and the exit code. A run with other contents overwrites its slot, so a file
edited and linted again and again takes one entry. A hit reads the files and hashes them; it
imports neither the rules, the validation, the YAML reader nor a CEL engine.

Entries are written to a file of their own and renamed into place, so concurrent runs never
see half an entry; an entry that cannot be read or does not hold what is expected is a miss
and is overwritten. A cache that cannot be written is not an error: the run is not stored.

A run that is not answered keeps its selectors' compile results in the same folder
(:func:`selector_store`, :mod:`dractl.cel.compile_store`), named by the same code identity.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dractl import __version__
from dractl.digests import hex_digest, new_digest

if TYPE_CHECKING:
    from dractl.cel.compile_store import CompileStore

FOLDER_NAME = ".dractl_cache"
#: Bumped when the entries' layout changes.
ENTRY_FORMAT = 1
#: Entries kept per dractl version; beyond it the least recently used quarter is removed.
MAX_ENTRIES = 1000
#: Compiled selectors kept per dractl version (a few hundred bytes each).
MAX_SELECTOR_ENTRIES = 10_000
_GITIGNORE = "# Automatically created by dractl.\n*\n"
# https://bford.info/cachedir/
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by dractl.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
_DISTRIBUTION_SUFFIXES = (".dist-info", ".egg-info", ".egg-link")


class StoredRun:
    """What a run printed: the report (stdout or ``--output-file``), stderr lines, exit code."""

    __slots__ = ("errors", "exit_code", "report")

    def __init__(self, report: str, errors: Sequence[str], exit_code: int) -> None:
        self.report = report
        self.errors = list(errors)
        self.exit_code = exit_code


class RunCache:
    """The slot of one run: :meth:`load` the stored run if the contents are unchanged, or
    :meth:`store` this run's."""

    def __init__(self, folder: str, slot: str, contents: str, identity: str) -> None:
        self.folder = folder
        self.identity = identity  # of dractl's code (code_identity)
        self.path = os.path.join(folder, __version__, slot + ".json")
        self.contents = contents

    def load(self) -> StoredRun | None:
        try:
            with open(self.path, encoding="utf-8") as stream:
                entry = json.load(stream)
            if entry["format"] != ENTRY_FORMAT or entry["contents"] != self.contents:
                return None
            report, errors, exit_code = entry["report"], entry["errors"], entry["exit_code"]
            if not (
                isinstance(report, str)
                and isinstance(errors, list)
                and all(isinstance(e, str) for e in errors)
                and type(exit_code) is int
            ):
                return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        with contextlib.suppress(OSError):  # a read-only cache still answers
            os.utime(self.path)  # recently used: pruning keeps it
        return StoredRun(report, errors, exit_code)

    def store(self, run: StoredRun) -> None:
        entry = {
            "format": ENTRY_FORMAT,
            "contents": self.contents,
            "report": run.report,
            "errors": run.errors,
            "exit_code": run.exit_code,
        }
        temporary = f"{self.path}.{os.getpid()}.tmp"
        try:
            self._create_folders()
            with open(temporary, "w", encoding="utf-8") as stream:
                json.dump(entry, stream)
            os.replace(temporary, self.path)
            _prune(os.path.dirname(self.path))
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)

    def _create_folders(self) -> None:
        _create_root(self.folder)
        os.makedirs(os.path.dirname(self.path), exist_ok=True)


def open_cache(
    folder: str,
    *,
    command: dict[str, Any],
    files: Sequence[str],
    context_files: Sequence[str],
    config: str | None,
    stdin: bytes | None,
) -> RunCache | None:
    """The slot of this run, or None when an input cannot be read (the run says why)."""
    identity = code_identity()
    slot = _digest(json.dumps([
        ENTRY_FORMAT, identity, os.getcwd(), command, files, context_files, config,
    ], default=str).encode())
    contents = new_digest()
    try:
        for path in (*files, *context_files, *([config] if config else [])):
            if path == "-":
                continue
            with open(path, "rb") as stream:
                data = stream.read()
            contents.update(b"%d:%s\0" % (len(data), path.encode("utf-8", "surrogateescape")))
            contents.update(data)
    except OSError:
        return None
    if stdin is not None:
        contents.update(b"%d:-\0" % len(stdin))
        contents.update(stdin)
    return RunCache(folder, slot, contents.hexdigest(), identity)


def selector_store(cache: RunCache) -> CompileStore:
    """The compile results of selectors (:mod:`dractl.cel.compile_store`) in the folder of
    ``cache``: a run whose report is not cached still compiles no selector an earlier run
    compiled."""
    from dractl.cel.compile_store import CompileStore

    def prepare() -> None:
        _create_root(cache.folder)

    return CompileStore(os.path.join(cache.folder, __version__, "cel"), cache.identity, prepare)


def code_identity() -> str:
    """dractl's version and code, the installed distributions and the Python version: what
    names a run's slot and a selector's entry besides their own inputs."""
    return _digest(json.dumps([__version__, sys.version, _code_fingerprint(), _distributions()]).encode())


def _create_root(folder: str) -> None:
    if not os.path.isdir(folder):
        os.makedirs(folder, exist_ok=True)
        for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
            with open(os.path.join(folder, name), "w", encoding="utf-8") as stream:
                stream.write(text)


def default_folder(config: str | None) -> str:
    """``.dractl_cache`` beside the configuration file, else in the current folder."""
    return os.path.join(os.path.dirname(os.path.abspath(config)) if config else os.getcwd(), FOLDER_NAME)


def _digest(data: bytes) -> str:
    return hex_digest(data)


def _code_fingerprint() -> list[tuple[str, int, int]]:
    """(path, size, modification time) of every file of the dractl package."""
    import dractl

    root = os.path.dirname(dractl.__file__)
    found: list[tuple[str, int, int]] = []
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for entry in entries:
                if entry.is_dir():
                    if entry.name != "__pycache__":
                        folders.append(entry.path)
                    continue
                stat = entry.stat()
                found.append((os.path.relpath(entry.path, root), stat.st_size, stat.st_mtime_ns))
    found.sort()
    return found


def _distributions() -> list[str]:
    """The installed distributions with their versions (an upgraded CEL engine or YAML
    library can change a report)."""
    names: list[str] = []
    for folder in sys.path:
        try:
            names.extend(n for n in os.listdir(folder or ".") if n.endswith(_DISTRIBUTION_SUFFIXES))
        except OSError:
            continue
    return sorted(names)


def save_selectors(store: CompileStore) -> None:
    """Write the selectors this run compiled, then keep the folder to its size."""
    if store.flush():
        with contextlib.suppress(OSError):
            _prune(store.folder, MAX_SELECTOR_ENTRIES)


def _prune(folder: str, limit: int | None = None) -> None:
    entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
    if len(entries) <= (MAX_ENTRIES if limit is None else limit):
        return
    entries.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in entries[: len(entries) // 4]:
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
