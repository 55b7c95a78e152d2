"""Find and read inputs: files, folders (recursively) and ``-`` for stdin."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from dractl.errors import InputError
from dractl.load.documents import SourceFile

SUFFIXES = (".yaml", ".yml", ".json")


def expand_paths(paths: Iterable[str], skipped: list[str] | None = None) -> Iterator[str]:
    """Yield the files to read; folders are walked recursively in sorted order.

    In a folder, only regular files (and symlinks to them) are read: a FIFO named ``x.yaml``
    would be read forever, a device as long as it gives bytes, a broken symlink not at all. Each one passed over is told in
    ``skipped`` (one line each). A path named on the command line is read whatever it is, within
    the size limit, as ``cat`` would.
    """
    for raw in paths:
        if raw == "-":
            yield raw
            continue
        if os.path.isdir(raw):
            found = []
            for root, dirs, files in os.walk(raw):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.lower().endswith(SUFFIXES):
                        continue
                    path = os.path.join(root, name)
                    what = _not_regular(path)
                    if what is None:
                        found.append(path)
                    elif skipped is not None:
                        skipped.append(f"{path}: {what}, not a regular file; skipped")
            yield from sorted(found)
        elif os.path.exists(raw):
            yield raw
        else:
            raise InputError(f"{raw}: no such file or directory")


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _not_regular(path: str) -> str | None:
    """What ``path`` is if it is not a regular file (through symlinks), else None; one that
    cannot be looked at is left to the reader, which says why."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        # a symlink whose target is gone: passed over as the odd files are, not a stop
        return "a broken symbolic link" if os.path.islink(path) else None
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def decode(data: bytes, name: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(_not_utf16(data, name, exc)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")  # valid up to there
        line = before.count("\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1  # in bytes, as editors' "go to"
        raise InputError(
            f"{name}: byte {exc.start} is not valid UTF-8 (line {line}, byte {column} of the line, "
            f"0x{data[exc.start]:02x}); dractl reads UTF-8 (as kubectl does)"
        ) from None


def _not_utf16(data: bytes, name: str, exc: UnicodeDecodeError) -> str:
    """Where UTF-16 text stops being valid, as FILE:LINE:COLUMN (in characters, as editors count
    them once they have read the file as UTF-16)."""
    before = data[: exc.start].decode("utf-16", errors="replace")  # valid up to there
    line_start = before.rfind("\n") + 1
    line, column = before.count("\n") + 1, len(before) - line_start + 1
    what = "ends in the middle of a character" if exc.end >= len(data) and exc.reason == "truncated data" \
        else exc.reason
    return (f"{name}:{line}:{column}: not valid UTF-16 ({what}, byte {exc.start}); "
            "dractl reads UTF-8, or UTF-16 with a byte-order mark")


def read_stdin(max_bytes: int) -> bytes:
    """Standard input, but never more than one byte past ``max_bytes`` (the size check sees it)."""
    return read_at_most(sys.stdin.buffer, max_bytes + 1)


_CHUNK = 16 * 1024 * 1024


def read_at_most(stream: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes, read as they come: ``read(limit)`` would set aside ``limit`` bytes
    first, which a large ``--max-file-size`` makes more than the machine has."""
    chunks: list[bytes] = []
    total = 0
    while total < limit:
        chunk = stream.read(min(limit - total, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(name: str, max_bytes: int) -> str:
    return f"{name}: larger than the limit of {max_bytes} bytes (raise it with --max-file-size SIZE)"


def read_source(path: str, max_bytes: int, stdin: bytes | None = None) -> SourceFile:
    if path == "-":
        data = stdin if stdin is not None else read_stdin(max_bytes)
        name, real = "<stdin>", None
    else:
        try:
            with open(path, "rb") as fh:
                info = os.fstat(fh.fileno())
                if info.st_size > max_bytes:  # refused unread
                    raise InputError(_too_large(path, max_bytes))
                if stat.S_ISREG(info.st_mode):  # its size known: read at once
                    data = fh.read(info.st_size + 1)
                    if len(data) > info.st_size:  # it grew meanwhile
                        data += read_at_most(fh, max_bytes + 1 - len(data))
                else:  # a FIFO or device named on the command line: as stdin
                    data = read_at_most(fh, max_bytes + 1)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None
        name, real = path, path
    if len(data) > max_bytes:
        raise InputError(_too_large(name, max_bytes))
    text = decode(data, name)
    is_json = path.lower().endswith(".json") or (
        path == "-" and text.lstrip().startswith(("{", "["))
    )
    bom = data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"))
    return SourceFile(name, text, "json" if is_json else "yaml", real_path=real, bom=bom)
