"""Live progress of a run, and the log lines tasks send to the parent.

Tasks report through the executor's channel (:mod:`crawlmill.core.run.executor`), cheaply: a
:class:`TaskReporter` posts one ``("progress", key, records, bytes)`` event at most every
0.25 s per task, and ``("log", line)`` for damage and failures. In the parent a
:class:`ProgressMonitor` thread drains the channel, prints log lines, and, when enabled, redraws
one status line at most 4 times a second: the pass it belongs to when a run has more than one
(``collect (pass 1/2, url-dedup)``, ``write (final pass)``, ``shuffle map``...), inputs
done/total, records, bytes, rates and the time left (ETA: from the bytes done of the bytes to
read, or from the inputs done when their sizes are not known), rendered by
:func:`render_status` from the numbers alone. Our own line, not rich's or tqdm's: one line
redrawn in place, beside log lines printed above it, is all a run needs, and no dependency.

Progress is shown for ``progress: always``, or ``auto`` when the stream is a terminal; log
lines are always printed.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

from .executor import Channel

__all__ = ["ProgressMonitor", "TaskReporter", "human_bytes", "human_duration", "render_status"]

REFRESH_SECONDS = 0.25
#: how long the monitor's thread waits for an event before it looks at its stop flag again:
#: :meth:`ProgressMonitor.stop` returns within it. (An in-process queue is woken at once,
#: ``Channel.wake``; a pool's event queue is not posted to by the parent: it may be locked
#: for good by a worker that died while posting.)
POLL_SECONDS = 0.02


def human_bytes(n: float) -> str:
    """``1.5 MB`` style sizes (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"  # pragma: no cover


def human_duration(seconds: float) -> str:
    """``0:07``, ``12:30``, ``2:05:00`` (m:ss below an hour, h:mm:ss above)."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def render_status(
    label: str | None,
    inputs_done: int,
    inputs_total: int,
    records: int,
    nbytes: int,
    bytes_total: int,
    elapsed: float,
    final: bool = False,
    since_first: tuple[float, float] | None = None,
) -> str:
    """The progress line for these numbers: ``crawlmill: [LABEL: ]D/T inputs, R records,
    B of TOTAL (P%), rates, ETA m:ss`` (``done in m:ss`` when ``final``, ``finishing`` once
    every input is done). The ETA assumes the rest goes at the rate so far, in bytes when the
    total is known, else in inputs; ``since_first`` is ``(seconds, amount done)`` counted
    from the first progress the tasks sent, so the workers' start-up does not count as slow
    reading (default: from the start). ``ETA --:--`` before anything is done."""
    elapsed = max(elapsed, 1e-6)
    share = f" ({100 * nbytes / bytes_total:.0f}%)" if bytes_total else ""
    done, total = (nbytes, bytes_total) if bytes_total else (inputs_done, inputs_total)
    seconds, amount = since_first if since_first is not None else (elapsed, done)
    if final:
        when = f"done in {human_duration(elapsed)}"
    elif inputs_total and inputs_done >= inputs_total:
        when = "finishing"
    elif amount > 0 and total:
        when = f"ETA {human_duration(seconds * max(total - done, 0) / amount)}"
    else:
        when = "ETA --:--"
    return (
        f"crawlmill: {label + ': ' if label else ''}{inputs_done}/{inputs_total} inputs, "
        f"{records:,} records, {human_bytes(nbytes)} of {human_bytes(bytes_total)}{share}, "
        f"{records / elapsed:,.0f} rec/s, {human_bytes(nbytes / elapsed)}/s, {when}"
    )


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
        self,
        channel: Channel,
        stream: TextIO,
        mode: str,
        inputs_total: int,
        bytes_total: int,
        label: str | None = None,
    ) -> None:
        """``label`` names the pass the line belongs to (``None``: a run of one pass)."""
        self.channel = channel
        self.label = label
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
        #: (time, bytes, inputs done) at the first progress event: the ETA's origin.
        self._first: tuple[float, int, int] | None = None
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
            self.channel.wake()  # the thread ends now, not after its poll's timeout
            self._thread.join()
        while (event := self.channel.get(0)) is not None:
            self._handle(event)
        if self.enabled:
            self._draw(final=True)

    def task_done(self, key: str, size: int) -> None:
        """Count one finished input of ``size`` bytes (corrects the byte total)."""
        with self._lock:
            if self._first is None:
                self._first = (time.monotonic(), self.bytes, self.inputs_done)
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
            event = self.channel.get(POLL_SECONDS)
            if event is not None:
                self._handle(event)
            if self.enabled and time.monotonic() - self._drawn >= REFRESH_SECONDS:
                self._draw()

    def _handle(self, event: tuple) -> None:
        if event[0] == "progress":
            _, key, records, nbytes = event
            with self._lock:
                if self._first is None:
                    self._first = (time.monotonic(), self.bytes, self.inputs_done)
                self.records += records
                if key not in self._finished:  # a late event: the input's size is counted
                    self.bytes += nbytes
                    self._per_key[key] = self._per_key.get(key, 0) + nbytes
        elif event[0] == "log":
            self.log(event[1])

    def status(self, final: bool = False) -> str:
        """The current one-line status (:func:`render_status`)."""
        now = time.monotonic()
        since = None
        if self._first is not None:
            first_time, first_bytes, first_inputs = self._first
            done = (
                (self.bytes - first_bytes)
                if self.bytes_total
                else (self.inputs_done - first_inputs)
            )
            since = (now - first_time, done)
        return render_status(
            self.label, self.inputs_done, self.inputs_total, self.records, self.bytes,
            self.bytes_total, now - self._start, final, since,
        )  # fmt: skip

    def _clear(self) -> None:
        if self._line_shown:
            self.stream.write("\r\x1b[K")
            self._line_shown = False

    def _draw(self, final: bool = False) -> None:
        with self._lock:
            self._clear()
            self.stream.write(self.status(final) + ("\n" if final else ""))
            self.stream.flush()
            self._line_shown = not final
            self._drawn = time.monotonic()
