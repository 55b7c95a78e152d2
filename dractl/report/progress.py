"""Progress of a long run on stderr, only when stderr is a terminal (never in files or CI logs)."""

from __future__ import annotations

import sys
import time
from typing import IO

MIN_FILES = 200  # shorter runs finish before a progress line would help
MIN_INTERVAL = 0.1  # seconds between redraws


class Progress:
    def __init__(self, total: int, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.enabled = total >= MIN_FILES and bool(getattr(self.stream, "isatty", bool)())
        self._last = 0.0
        self._shown = False

    def files(self, done: int, total: int) -> None:
        self._draw(f"dractl: reading files {done:,}/{total:,}", done == total)

    def stage(self, text: str) -> None:
        self._draw(f"dractl: {text}", True)

    def _draw(self, text: str, force: bool) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < MIN_INTERVAL:
            return
        self._last = now
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self._shown = True

    def done(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = False
