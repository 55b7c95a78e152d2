"""What ``dractl convert`` prints: converted streams and unified diffs."""

from __future__ import annotations

import difflib
import re

_MARKER = re.compile(r"^---(?:[ \t]|\r?\n|\r|$)")


def join_outputs(texts: list[str]) -> str:
    """Several files' texts as one YAML stream (a ``---`` line between files that need one)."""
    out = ""
    for text in texts:
        if out:
            if not out.endswith(("\n", "\r")):
                out += "\n"
            if not _MARKER.match(text):
                out += "---\n"
        out += text
    return out


def unified_diff(path: str, before: str, after: str) -> str:
    """A ``git diff``-style unified diff of one file (marks a missing final line break)."""
    relative = not path.startswith(("/", "<")) and ":" not in path[:3]
    old, new = (f"a/{path}", f"b/{path}") if relative else (path, path)
    lines = difflib.unified_diff(_lines(before), _lines(after), fromfile=old, tofile=new)
    return "".join(lines)


def _lines(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines
