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
            return bom + text.removeprefix("\ufeff").encode(encoding)
    return text.encode("utf-8")


def write_atomic(path: str, text: str, *, expected_original: str | None = None) -> bool:
    """Replace the file at ``path`` (its target, if it is a symlink) with ``text``; return
    whether anything was written.

    The new content goes to a temporary file in the same folder, is flushed to disk and renamed
    over the original, so a reader sees either the old or the new file, never a mix. The
    original's permission bits (and owner, where allowed) are kept. With ``expected_original``,
    a file whose text changed since it was read is left alone (:class:`InputError`), unless it
    holds ``text`` already: one file named twice among the inputs (a hard link, a symlink and
    its target) is converted under its first name, and found done under the others.

    Only a regular file is replaced so: a device (``/dev/null``), a FIFO or a standard stream
    (``/dev/stdout``) is written in place and never read (``/dev/zero`` never ends), and a file
    with other hard links is rewritten in place, which keeps the links (see :func:`_rewrite`).
    """
    info = _target_info(path)
    if (info is not None and not stat.S_ISREG(info.st_mode)) or _is_stream_path(path):
        if expected_original is not None:
            raise InputError(f"{path}: not a regular file; not written")
        _write_in_place(path, text.encode("utf-8"))
        return True
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        original, info = _read_regular(target)
    except FileNotFoundError:
        original, info = b"", None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None
    if original is None:  # replaced by a device or FIFO since the stat above
        raise InputError(f"{path}: not a regular file; not written")
    if expected_original is not None and info is not None:
        from dractl.load.sources import decode

        try:
            current = decode(original, path)
        except InputError:  # no longer text at all
            current = None
        if current == text:
            return False
        if current != expected_original:
            raise InputError(f"{path}: changed on disk while it was being converted; not written")
    data = encode_like(text, original)
    with _terminate_through_an_exception():
        if info is not None and info.st_nlink > 1:
            _rewrite(path, target, folder, data, original)
        else:
            _replace(path, target, folder, data, info)
    _sync_folder(folder)
    return True


def _read_regular(target: str) -> tuple[bytes | None, os.stat_result | None]:
    """The bytes of ``target`` if it is a regular file; opened without blocking (a FIFO) and
    checked before reading (``/dev/zero``). ``(None, None)`` for anything else."""
    fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    with open(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, None
        return fh.read(), info


def _target_info(path: str) -> os.stat_result | None:
    """What ``path`` names (through symlinks), without opening it; None if nothing yet."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


def _is_stream_path(path: str) -> bool:
    """``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``: the standard streams as the shell set
    them up. Renaming over what they resolve to would replace the file the shell redirected to
    (and lose what ``>>`` appends to), so they are written in place even when that is a file."""
    absolute = os.path.abspath(path)
    return absolute.startswith(("/dev/fd/", "/proc/")) or absolute in (
        "/dev/stdout",
        "/dev/stderr",
        "/dev/stdin",
        "/dev/tty",
    )


def _write_in_place(path: str, data: bytes) -> None:
    """Write to a device, FIFO or stream as ``>>`` would (appending to a stream's file)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NOCTTY)
    except OSError as error:
        raise InputError(f"{path}: not written: {error.strerror or error}") from None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        raise InputError(f"{path}: not written: {error.strerror or error}") from None
    finally:
        os.close(fd)


def _rewrite(path: str, target: str, folder: str, data: bytes, original: bytes) -> None:
    """A file with more than one hard link, rewritten in place: renaming a new file over one of
    its names would part that name from the others. That cannot be atomic, so the new text is
    first written whole beside it (a full disk shows before the file is touched), Ctrl-C and
    SIGTERM wait until the rewrite is done, and the original is put back if it fails.

    The file is then changed by two system calls, one write of the whole text and, when it is
    shorter than the old one, a truncation: a SIGKILL, which nothing can hold, between the two
    is the one moment that leaves the file neither old nor new (the new text followed by the
    end of the old one).
    """
    _replace(path, target, folder, data, None, keep=False)
    try:
        with _signals_held():
            fd = os.open(target, os.O_RDWR | os.O_NOCTTY)
            try:
                try:
                    _write_at_start(fd, data)
                    os.ftruncate(fd, len(data))
                    os.fsync(fd)
                except OSError:
                    _write_at_start(fd, original)
                    os.ftruncate(fd, len(original))
                    raise
            finally:
                os.close(fd)
    except OSError as error:
        raise InputError(f"{path}: not written: {error.strerror or error}") from None


def _write_at_start(fd: int, data: bytes) -> None:
    """``data`` at offset 0, in one system call when the system takes it whole."""
    view = memoryview(data)
    offset = 0
    while offset < len(data):
        offset += os.pwrite(fd, view[offset:], offset)


def _replace(
    path: str,
    target: str,
    folder: str,
    data: bytes,
    info: os.stat_result | None,
    *,
    keep: bool = True,
) -> None:
    """``keep=False``: only check that ``data`` can be written whole in ``folder``."""
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
        if not keep:
            os.unlink(temporary)
            return
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
