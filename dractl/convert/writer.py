"""Writing converted files safely: all or nothing, same permissions, through symlinks."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator

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
    with _terminate_through_an_exception():
        _replace(path, target, folder, data, info)
    _sync_folder(folder)


def _replace(path: str, target: str, folder: str, data: bytes, info: os.stat_result | None) -> None:
    temporary: str | None = None
    try:
        # Ctrl-C between creating the temporary file and knowing its name would leave it behind.
        with _signals_held():
            try:
                fd, temporary = tempfile.mkstemp(
                    prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
                )
            except OSError as error:
                message = f"{path}: cannot write in {folder}: {error.strerror or error}"
                raise InputError(message) from None
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
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(error, OSError):
            raise InputError(f"{path}: not written: {error.strerror or error}") from None
        raise


@contextlib.contextmanager
def _terminate_through_an_exception() -> Iterator[None]:
    """While a file is written, SIGTERM (``kill``, ``timeout``, a cancelled CI job) ends the
    process as Ctrl-C does, through an exception, so that the temporary file is removed.

    Python's default for SIGTERM ends the process on the spot. Only the default is replaced
    (a program embedding dractl keeps its own handler), and only in the main thread, where
    Python allows setting one.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.getsignal(signal.SIGTERM)
    except (AttributeError, ValueError):
        yield
        return
    if previous is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM that arrive meanwhile are delivered at the end of the block."""
    held = {signal.SIGINT, signal.SIGTERM}
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    except (AttributeError, OSError, ValueError):  # no POSIX signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


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
