"""The documents of a long stream read in forked processes, with the trees, values, positions and
diagnostics of reading them in one.

A stream of thousands of documents (a cluster written out object by object) spends most of a
``dractl explain`` in libyaml's parser and in building the trees. With more than one CPU, the
stream's documents are split into contiguous parts of about equal length; forked children read
every part but the first, which the calling process reads meanwhile. A child reads a document
only if the fast reader reads it whole (:func:`dractl.load.fast.load_fast`), without positions,
and sends the plain trees back with :mod:`marshal`, which takes a few percent of the reading;
anything else (a ``kind: List``, a document left to the round-trip loader, a child that failed)
is read by the caller afterwards, as it would have been. A document's positions are found when a
message first asks for one, by reading its text again (:class:`dractl.load.fast.ReadAgain`).

Processes are forked, so this runs only where ``fork`` is there (not on Windows, and not on
macOS, where forking a process that has loaded system frameworks is unsafe); elsewhere, and for
short streams, the caller reads everything itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dractl.forking import NO_ANSWER, Child, can_fork, fork, processes

if TYPE_CHECKING:
    from dractl.load.documents import Document
    from dractl.load.lists import Omit
    from dractl.load.parse import Limits

__all__ = ["FORK_MIN_CHARS", "Children", "can_fork", "read_plain", "received", "split", "start"]

# A shorter stream reads faster in one process than forking and sending the trees back cost
# (libyaml and the tree builder read about 5 MB per CPU second; a fork of the reading process
# and the transfer cost a few milliseconds).
FORK_MIN_CHARS = 256 * 1024


def split(docs: list[Document], parts: int) -> list[list[Document]]:
    """Contiguous runs of ``docs`` of about equal text length, in order; at most ``parts``."""
    total = sum(len(doc.text) for doc in docs)
    runs: list[list[Document]] = [[]]
    done = 0
    for doc in docs:
        if runs[-1] and done >= total * len(runs) / parts:
            runs.append([])
        runs[-1].append(doc)
        done += len(doc.text)
    return runs


class Children:
    """Forked readers of all but the first part of a stream's documents."""

    def __init__(self, own: list[Document], started: list[tuple[Child, list[Document]]]) -> None:
        self.own = own  # the part the calling process reads
        self.started = started

    def collect(self) -> list[Document]:
        """Wait for the children and give their documents the trees they read; the documents
        they did not read (in order) are left to the caller."""
        unread: list[Document] = []
        for child, docs in self.started:
            readings = child.answer()
            if readings is NO_ANSWER or not isinstance(readings, list) or len(readings) != len(docs):
                unread += docs
                continue
            for doc, reading in zip(docs, readings, strict=True):
                if reading is None:
                    unread.append(doc)
                else:
                    received(doc, *reading)
        return unread


def start(docs: list[Document], limits: Limits, omit: Omit | None, jobs: int) -> Children | None:
    """Fork the children that read ``docs`` but the first part; None: not worth it (or not
    possible), the caller reads them all."""
    if jobs <= 1 or len(docs) < 2 or not can_fork():
        return None
    total = sum(len(doc.text) for doc in docs)
    if total < FORK_MIN_CHARS:
        return None
    runs = split(docs, processes(jobs, total, FORK_MIN_CHARS // 2))
    own = runs[0]
    started: list[tuple[Child, list[Document]]] = []
    for run in runs[1:]:
        child = fork(lambda run=run: [read_plain(doc, limits, omit) for doc in run])  # type: ignore[misc]
        if child is None:
            own = own + run  # no more processes: the caller reads the rest
        else:
            started.append((child, run))
    return Children(own, started) if started else None


def read_plain(doc: Document, limits: Limits, omit: Omit | None) -> tuple[Any, dict[tuple[int, int], str], bool] | None:
    """What a child sends back for one document: ``(tree, yaml11, str_keys)`` as the fast reader
    reads it without positions, or None when the caller must read it (as
    :func:`dractl.load.parse._parse_document` would, which tries a List and the nesting bound
    before the fast reader)."""
    from dractl.load.fast import load_fast
    from dractl.load.lists import looks_like_list
    from dractl.load.parse import _flow_depth_exceeds

    if _flow_depth_exceeds(doc.text, limits.max_depth) or (omit is not None and looks_like_list(doc.text)):
        return None
    read = load_fast(doc.text, limits.max_nodes, limits.max_depth, marks=False)
    if read is None:
        return None
    return read.tree, read.yaml11, read.str_keys


def received(doc: Document, tree: Any, yaml11: dict[tuple[int, int], str], str_keys: bool) -> None:
    """``doc`` given a tree read without positions, as :func:`dractl.load.parse._parse_fast`
    gives it one with them."""
    from dractl.load.fast import ReadAgain

    doc.raw = tree
    doc.plain = str_keys
    doc.yaml11 = {(doc.start_line + line + 1, col + 1): text for (line, col), text in yaml11.items()}
    doc.positions = ReadAgain(doc.text)
