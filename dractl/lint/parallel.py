"""Several processes for many files, with results identical to one process, in the same order.

Two stages are spread over processes, each only above a size where it pays (measured with
``benchmarks/lint.py``):

* loading: contiguous chunks of the file list are parsed in worker processes and the loaded
  files (round-trip trees and all) come back pickled, which costs a fraction of parsing; they
  are joined in the original order;
* per-object rules: forked workers see the whole workspace (cross-object lookups stay exact)
  and each checks a contiguous slice of the objects; the main process runs the whole-workspace
  rules meanwhile, and the diagnostics are joined in the order one process would produce.

Processes are forked, so this runs only where ``fork`` is safe and cheap (Linux); elsewhere,
and below the thresholds, everything runs in the calling process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from dractl.load import Limits, LoadResult

LOAD_MIN_FILES = 48  # fewer files load faster in one process than forking and pickling costs
RULES_MIN_OBJECTS = 300  # fewer objects: per-object rules take less than starting workers
MAX_JOBS = 8
CHUNKS_PER_JOB = 4  # smaller chunks balance uneven files and let progress move

T = TypeVar("T")
Progress = Callable[[int, int], None]  # (done, total)


def can_fork() -> bool:
    import multiprocessing

    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    """One process per idle CPU: on a machine already busy, more processes only compete."""
    cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average (Windows)
        busy = 0.0
    return max(1, min(MAX_JOBS, int(cpus - busy + 0.5)))


def _chunks(count: int, parts: int) -> list[tuple[int, int]]:
    parts = max(1, min(parts, count))
    size, extra = divmod(count, parts)
    bounds, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        bounds.append((start, end))
        start = end
    return [b for b in bounds if b[0] < b[1]]


# --- loading -------------------------------------------------------------------------------


def _load_chunk(files: Sequence[str], limits: Limits) -> LoadResult:
    from dractl.load import load_paths

    return load_paths(files, limits=limits, comments=False)


def load_files(
    files: Sequence[str],
    *,
    stdin: bytes | None = None,
    limits: Limits | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> LoadResult:
    """``load_paths(files)`` (files, not folders), in several processes when that pays.

    Without comments: lint edits nothing, and its suppressions are read from the text."""
    from dractl.load import Limits, LoadResult, load_paths

    limits = limits or Limits()
    result = LoadResult()
    total = len(files)
    parallel = jobs > 1 and total >= LOAD_MIN_FILES and "-" not in files and can_fork()
    bounds = _chunks(total, jobs * CHUNKS_PER_JOB if parallel else (total // 64 or 1))
    pieces = [list(files[a:b]) for a, b in bounds]
    done = 0
    if parallel:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(min(jobs, len(pieces))) as pool:
            for part in pool.imap(partial(_load_chunk, limits=limits), pieces):
                result.extend(part)
                done += len(part.files) + len(part.unreadable)
                if progress:
                    progress(done, total)
        return result
    for piece in pieces:
        result.extend(load_paths(piece, stdin=stdin, limits=limits, comments=False))
        done += len(piece)
        if progress:
            progress(done, total)
    return result


# --- per-object work -----------------------------------------------------------------------

_WORK: Callable[[int, int], Any] | None = None  # set in the parent before forking


def _run_slice(bounds: tuple[int, int]) -> Any:
    assert _WORK is not None
    return _WORK(*bounds)


def map_slices(
    work: Callable[[int, int], list[T]],
    count: int,
    jobs: int,
    meanwhile: Callable[[], None] | None = None,
) -> list[T]:
    """``work(0, count)``, split into slices run by forked workers, joined in order.

    ``meanwhile`` runs in the calling process while the workers work.
    """
    global _WORK
    if jobs <= 1 or count < RULES_MIN_OBJECTS or not can_fork():
        if meanwhile:
            meanwhile()
        return work(0, count)
    import multiprocessing

    bounds = _chunks(count, jobs * CHUNKS_PER_JOB)
    _WORK = work
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(bounds))) as pool:
            pending = pool.map_async(_run_slice, bounds)
            if meanwhile:
                meanwhile()
            parts = pending.get()
    finally:
        _WORK = None
    return [item for part in parts for item in part]
