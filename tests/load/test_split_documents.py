"""Documents of a stream are split at ``---`` marker lines as a line-by-line reading splits them,
also for the line breaks other than ``\\n`` (found without making a list of the text's lines)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from dractl.load.documents import split_documents

_MARKER = re.compile(r"^(?:---|\.\.\.)(?:[ \t]|\r?$)")


def by_lines(text: str) -> list[tuple[int, str]]:
    """The definition: a chunk starts at each line that is a ``---`` marker, but the first."""
    lines = text.splitlines(keepends=True)
    if not lines:
        return [(0, "")]
    out, start = [], 0
    for i, line in enumerate(lines):
        if i > start and line.startswith("---") and _MARKER.match(line):
            out.append((start, "".join(lines[start:i])))
            start = i
    out.append((start, "".join(lines[start:])))
    return out


PARTS = ["---\n", "--- \n", "---x\n", "--- # c\n", "---", "---\r\n", "...\n", " ---\n", "a: 1\n",
         "b\r\n", "\n", "# c\n", "\r", "\x0c", "\u2028"]


@given(st.lists(st.sampled_from(PARTS), max_size=10))
def test_split_as_lines_are_split(parts: list[str]) -> None:
    text = "".join(parts)
    chunks = list(split_documents(text))
    assert chunks == by_lines(text)
    assert "".join(chunk for _, chunk in chunks) == text


def test_a_single_document_is_not_copied() -> None:
    text = "kind: A\n" * 1000
    [(line, chunk)] = split_documents(text)
    assert line == 0 and chunk is text
