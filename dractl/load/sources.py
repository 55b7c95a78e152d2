"""Find and read inputs: files, folders (recursively) and ``-`` for stdin."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator

from dractl.errors import InputError
from dractl.load.documents import SourceFile

SUFFIXES = (".yaml", ".yml", ".json")


def expand_paths(paths: Iterable[str]) -> Iterator[str]:
    """Yield the files to read; folders are walked recursively in sorted order."""
    for raw in paths:
        if raw == "-":
            yield raw
            continue
        if os.path.isdir(raw):
            found = []
            for root, dirs, files in os.walk(raw):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                found.extend(os.path.join(root, f) for f in files if f.lower().endswith(SUFFIXES))
            yield from sorted(found)
        elif os.path.exists(raw):
            yield raw
        else:
            raise InputError(f"{raw}: no such file or directory")


def decode(data: bytes, name: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InputError(f"{name}: not valid UTF-16 ({exc.reason})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: byte {exc.start} is not valid UTF-8; dractl reads UTF-8 (as kubectl does)"
        ) from None


def read_stdin(max_bytes: int) -> bytes:
    """Standard input, but never more than one byte past ``max_bytes`` (the size check sees it)."""
    return sys.stdin.buffer.read(max_bytes + 1)


def _too_large(name: str, max_bytes: int) -> str:
    return f"{name}: larger than the limit of {max_bytes} bytes (raise it with --max-file-size SIZE)"


def read_source(path: str, max_bytes: int, stdin: bytes | None = None) -> SourceFile:
    if path == "-":
        data = stdin if stdin is not None else sys.stdin.buffer.read(max_bytes + 1)
        name, real = "<stdin>", None
    else:
        try:
            with open(path, "rb") as fh:
                if os.fstat(fh.fileno()).st_size > max_bytes:  # refused unread
                    raise InputError(_too_large(path, max_bytes))
                data = fh.read(max_bytes + 1)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None
        name, real = path, path
    if len(data) > max_bytes:
        raise InputError(_too_large(name, max_bytes))
    text = decode(data, name)
    is_json = path.lower().endswith(".json") or (
        path == "-" and text.lstrip().startswith(("{", "["))
    )
    return SourceFile(name, text, "json" if is_json else "yaml", real_path=real)
