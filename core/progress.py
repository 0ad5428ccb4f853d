"""Live progress of a run, and the log lines tasks send to the parent.

Tasks report through the executor's channel (:mod:`crawlmill.core.executor`), cheaply: a
:class:`TaskReporter` posts one ``("progress", key, records, bytes)`` event at most every
0.25 s per task, and ``("log", line)`` for damage and failures. In the parent a
:class:`ProgressMonitor` thread drains the channel, prints log lines, and, when enabled, redraws
one status line (inputs done/total, records, bytes, rates) at most 4 times a second.

Progress is shown for ``progress: always``, or ``auto`` when the stream is a terminal; log
lines are always printed.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

from .executor import Channel

__all__ = ["ProgressMonitor", "TaskReporter", "human_bytes"]

REFRESH_SECONDS = 0.25


def human_bytes(n: float) -> str:
    """``1.5 MB`` style sizes (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


class TaskReporter:
    """Task side: accumulates counts and posts them at most every 0.25 s."""

    def __init__(self, channel: Channel, key: str) -> None:
        self.channel = channel
        self.key = key
        self._records = 0
        self._bytes = 0
        self._next = time.monotonic() + REFRESH_SECONDS

    def count(self, records: int, nbytes: int) -> bool:
        """Add ``records`` and ``nbytes``; posts when the interval has passed (one clock read
        per call, about 50 ns) and then returns True (the task checks its stop flag then)."""
        self._records += records
        self._bytes += nbytes
        if time.monotonic() >= self._next:
            self.flush()
            return True
        return False

    def flush(self) -> None:
        """Post what accumulated."""
        if self._records or self._bytes:
            self.channel.post(("progress", self.key, self._records, self._bytes))
            self._records = self._bytes = 0
        self._next = time.monotonic() + REFRESH_SECONDS

    def log(self, line: str) -> None:
        """Ask the parent to print ``line``."""
        self.channel.post(("log", line))


class ProgressMonitor:
    """Parent side: a thread that drains task events, prints logs and draws progress."""

    def __init__(
        self, channel: Channel, stream: TextIO, mode: str, inputs_total: int, bytes_total: int
    ) -> None:
        self.channel = channel
        self.stream = stream
        isatty = getattr(stream, "isatty", lambda: False)
        self.enabled = mode == "always" or (mode == "auto" and bool(isatty()))
        self.inputs_total = inputs_total
        self.bytes_total = bytes_total
        self.inputs_done = 0
        self.records = 0
        self.bytes = 0
        self._per_key: dict[str, int] = {}
        self._finished: set[str] = set()
        self._start = time.monotonic()
        self._drawn = 0.0
        self._line_shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="crawlmill-progress", daemon=True)

    def __enter__(self) -> ProgressMonitor:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Drain what is left, draw the last line and end the thread."""
        if self._thread.is_alive():
            self._stop.set()
            self._thread.join()
        while (event := self.channel.get(0)) is not None:
            self._handle(event)
        if self.enabled:
            self._draw(final=True)

    def task_done(self, key: str, size: int) -> None:
        """Count one finished input of ``size`` bytes (corrects the byte total)."""
        with self._lock:
            self.inputs_done += 1
            self.bytes += size - self._per_key.pop(key, 0)
            self._finished.add(key)

    def log(self, line: str) -> None:
        """Print a line above the progress line."""
        with self._lock:
            self._clear()
            self.stream.write(line.rstrip("\n") + "\n")
            self.stream.flush()

    def _loop(self) -> None:
        while not self._stop.is_set():
            event = self.channel.get(REFRESH_SECONDS)
            if event is not None:
                self._handle(event)
            if self.enabled and time.monotonic() - self._drawn >= REFRESH_SECONDS:
                self._draw()

    def _handle(self, event: tuple) -> None:
        if event[0] == "progress":
            _, key, records, nbytes = event
            with self._lock:
                self.records += records
                if key not in self._finished:  # a late event: the input's size is counted
                    self.bytes += nbytes
                    self._per_key[key] = self._per_key.get(key, 0) + nbytes
        elif event[0] == "log":
            self.log(event[1])

    def status(self) -> str:
        """The current one-line status."""
        elapsed = max(time.monotonic() - self._start, 1e-6)
        share = f" ({100 * self.bytes / self.bytes_total:.0f}%)" if self.bytes_total else ""
        return (
            f"crawlmill: {self.inputs_done}/{self.inputs_total} inputs, {self.records:,} records, "
            f"{human_bytes(self.bytes)} of {human_bytes(self.bytes_total)}{share}, "
            f"{self.records / elapsed:,.0f} rec/s, {human_bytes(self.bytes / elapsed)}/s"
        )

    def _clear(self) -> None:
        if self._line_shown:
            self.stream.write("\r\x1b[K")
            self._line_shown = False

    def _draw(self, final: bool = False) -> None:
        with self._lock:
            self._clear()
            self.stream.write(self.status() + ("\n" if final else ""))
            self.stream.flush()
            self._line_shown = not final
            self._drawn = time.monotonic()
