"""Writing converted files safely: all or nothing, same permissions, through symlinks."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from dractl.errors import InputError

_BOMS = (
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)


def encode_like(text: str, original: bytes) -> bytes:
    """``text`` in the encoding (and with the byte-order mark) of ``original``."""
    for bom, encoding in _BOMS:
        if original.startswith(bom):
            return bom + text.encode(encoding)
    return text.encode("utf-8")


def write_atomic(path: str, text: str, *, expected_original: str | None = None) -> None:
    """Replace the file at ``path`` (its target, if it is a symlink) with ``text``.

    The new content goes to a temporary file in the same folder, is flushed to disk and renamed
    over the original, so a reader sees either the old or the new file, never a mix. The
    original's permission bits (and owner, where allowed) are kept. With ``expected_original``,
    a file whose text changed since it was read is left alone (:class:`InputError`).
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        with open(target, "rb") as fh:
            original = fh.read()
        info = os.stat(target)
    except FileNotFoundError:
        original, info = b"", None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None
    if expected_original is not None and info is not None:
        from dractl.load.sources import decode

        if decode(original, path) != expected_original:
            raise InputError(f"{path}: changed on disk while it was being converted; not written")
    data = encode_like(text, original)
    try:
        fd, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
        )
    except OSError as error:
        raise InputError(f"{path}: cannot write in {folder}: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if info is not None:
            os.chmod(temporary, stat.S_IMODE(info.st_mode))
            with contextlib.suppress(OSError):
                os.chown(temporary, info.st_uid, info.st_gid)
        else:
            os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise InputError(f"{path}: not written: {error.strerror or error}") from None
        raise
    _sync_folder(folder)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_folder(folder: str) -> None:
    """Make the rename itself durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
