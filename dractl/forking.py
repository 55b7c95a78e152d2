"""Work done in forked processes whose answers come back as plain data.

A child is forked with the caller's whole state (nothing is sent to it), does its part and
writes the answer, plain data (dicts, lists, strings, numbers, booleans, None), with
:mod:`marshal` to a pipe, which costs a few percent of building it. A child that fails gives no
answer, and the caller then does that part itself: the answers are those of one process.

Only where ``fork`` is there and safe (Linux; macOS forbids forking a process that has loaded
system frameworks, Windows has no fork).
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
from collections.abc import Callable
from typing import Any


def can_fork() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


NO_ANSWER = object()


def processes(jobs: int, size: int, least: int) -> int:
    """How many of ``jobs`` processes to use for work of ``size`` (characters, objects, nodes)
    when a process should have at least ``least`` of it: more would cost more than they save."""
    return max(1, min(jobs, size // least)) if least > 0 else max(1, jobs)


class Child:
    """A forked process working on one part; :meth:`answer` waits for it."""

    __slots__ = ("fd", "pid")

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd

    def answer(self) -> Any:
        """What the child's work returned, or :data:`NO_ANSWER` if it failed."""
        with os.fdopen(self.fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            return NO_ANSWER
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            return NO_ANSWER


# No child is forked from a process that holds more memory than this. A child's new objects land
# in the free space scattered over the heap it shares with its parent, and every page it writes
# is copied: in a process of 1.5 GB (a 15,000-node cluster dump) a child searching half the
# nodes added 0.5 GB.
MAX_RESIDENT = 1 << 30


def resident_bytes() -> int:
    """This process's resident memory (Linux; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def fork(work: Callable[[], Any]) -> Child | None:
    """Run ``work()`` in a forked child; None if no process could be made, or this one holds too
    much memory (:data:`MAX_RESIDENT`): do it yourself.

    The child ends with :func:`os._exit` (no atexit functions, no flushing of the caller's
    buffers: what it printed would be printed twice)."""
    if resident_bytes() > MAX_RESIDENT:
        return None
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the child: never returns
        status = 1
        try:
            # What the child inherits stays out of its collections: a collection writes to every
            # object it walks, and each page written is copied from the parent's.
            gc.freeze()
            os.close(read_end)
            data = marshal.dumps(work())
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return Child(pid, read_end)
