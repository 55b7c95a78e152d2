"""The FailedScheduling text: ``FitError.Error()`` of the scheduling framework, and the event's
1024-byte cut (``pkg/scheduler/framework/types.go``, ``schedule_one.go``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

NO_NODES = "no nodes available to schedule pods"
EVENT_LIMIT = 1024


def fit_error(all_nodes: int, node_reasons: Iterable[tuple[str, ...]], *, absent: tuple[str, ...] = (),
              absent_count: int = 0, pre_filter_message: str = "", post_filter_message: str = "") -> str:
    """``0/N nodes are available: ...``.

    ``node_reasons``: the reasons of every node with a status of its own; ``absent``: the
    reasons given to the ``absent_count`` nodes outside a PreFilter result. Each reason counts
    once per node; entries ``"<count> <reason>"`` are sorted as strings, as upstream sorts them.
    """
    text = f"0/{all_nodes} nodes are available:"
    if pre_filter_message:
        text += f" {pre_filter_message}."
    else:
        histogram: Counter[str] = Counter()
        for reasons in node_reasons:
            for reason in reasons:
                histogram[reason] += 1
        if absent_count > 0:
            for reason in absent:
                histogram[reason] += absent_count
        entries = sorted(f"{count} {reason}" for reason, count in histogram.items())
        if entries:
            text += " " + ", ".join(entries) + "."
    if post_filter_message:
        text += " " + post_filter_message
    return text


def event_note(message: str) -> str:
    """The FailedScheduling event's note: past 1024 bytes, the first 1020 and " ..."."""
    encoded = message.encode()
    if len(encoded) <= EVENT_LIMIT:
        return message
    return encoded[: EVENT_LIMIT - 4].decode(errors="ignore") + " ..."
