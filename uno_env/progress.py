"""Progress bars that suit where they are written: on a terminal, tqdm's line redrawn in
place; in a log that is not a terminal (CI's output, a file, a pipe), a line of its own
at most every :data:`LOG_SECONDS` seconds, and the bar's last state when it closes, rather
than a frame a second run together on one line.

    with progress_bar(total=5, desc="uno warm", unit="part") as bar:
        ...
"""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

LOG_SECONDS = 10.0
"""The least time between two lines of a progress bar in a log that is not a terminal."""
LOG_COLUMNS = 100
"""The width of such a line (a log has no width to fit)."""


def progress_bar(*args, file=None, **options) -> tqdm:
    """A tqdm bar on ``file`` (default: standard error), written as :class:`LogLines` where
    that is not a terminal."""
    stream = sys.stderr if file is None else file
    if not is_terminal(stream):
        stream = LogLines(stream)
        options["dynamic_ncols"] = False
        options.setdefault("ncols", LOG_COLUMNS)
    return tqdm(*args, file=stream, **options)


def is_terminal(stream) -> bool:
    """Whether ``stream`` writes to a terminal (False for anything that cannot say)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class LogLines:
    """A stream for a progress bar in a log: each frame tqdm draws (``"\\r..."``) becomes a
    line, at most one every ``every`` seconds (a frame that comes sooner waits, replaced by
    any later one), and the frame waiting is written when the bar closes (tqdm's closing
    ``"\\n"``); a frame the same as the line before it is not written again."""

    def __init__(self, stream, every: float = LOG_SECONDS, clock=time.monotonic):
        self.stream = stream
        self.every = every
        self.clock = clock
        self.last: float | None = None  # when the last line was written
        self.written = ""  # that line
        self.waiting = ""  # the newest frame not written yet

    def write(self, text: str) -> int:
        frame = text.replace("\r", "").rstrip()
        if not frame:
            if "\n" in text:  # the bar closes: its last state
                self._put(self.waiting)
            return len(text)
        now = self.clock()
        if self.last is None or now - self.last >= self.every:
            self._put(frame)
            self.last = now
        else:
            self.waiting = frame
        return len(text)

    def _put(self, frame: str) -> None:
        if frame and frame != self.written:
            self.stream.write(frame + "\n")
            self.stream.flush()
            self.written = frame
        self.waiting = ""

    def flush(self) -> None:
        self.stream.flush()


__all__ = ["LOG_SECONDS", "LogLines", "is_terminal", "progress_bar"]
