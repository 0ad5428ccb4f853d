"""Live progress of Spark tasks: a status channel from the Python workers to the driver.

Spark gives a task's results (and accumulator updates) to the driver only when the task ends,
so a long task (a 1 GB input) would show no progress until then. Instead each task's
``("progress", key, records, bytes)`` events, which :class:`~crawlmill.core.run.progress.TaskReporter`
posts at most every 0.25 s, also go, as they happen, over one TCP connection per Python worker
to a :class:`StatusServer` in the driver (bound to the driver's address as Spark knows it),
which hands them to the running executor (:meth:`StatusServer.route`). The connection carries
JSON lines, after a random token the driver ships with the tasks (``CRAWLMILL_SPARK_STATUS``:
``host:port:token``); nothing from it is unpickled, and a line without the token closes it.

The channel is best effort and for display only: a worker that cannot connect sends nothing
and its task's progress arrives with its result, as before. The task's own events (returned
with its result) stay the truth: the executor posts, when a task ends, the difference between
its final counts and what arrived live (:class:`LiveTally`), so a task whose first attempt died
on a lost worker counts once in the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["ENV_VAR", "LiveTally", "StatusServer", "send_progress"]

#: the variable (shipped to the workers with the driver's ``CRAWLMILL_*`` ones) naming the
#: driver's status channel: ``host:port:token``.
ENV_VAR = "CRAWLMILL_SPARK_STATUS"
#: a line longer than this closes the connection (a progress line is < 200 bytes).
MAX_LINE = 4096


class StatusServer:
    """The driver's end: accepts workers' connections, checks the token, and passes each
    ``(key, records, bytes)`` to the current route (a callable, or nobody)."""

    def __init__(self, host: str) -> None:
        self.token = secrets.token_hex(16)
        self._sock = socket.create_server((host, 0))
        self.host = host
        self.port = self._sock.getsockname()[1]
        self._route: Callable[[str, int, int], None] | None = None
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, name="crawlmill-spark-status", daemon=True).start()

    @property
    def address(self) -> str:
        """``host:port:token``, the value of :data:`ENV_VAR` for the workers."""
        return f"{self.host}:{self.port}:{self.token}"

    def route(self, to: Callable[[str, int, int], None] | None) -> None:
        """Hand the events from now on to ``to`` (``None``: drop them)."""
        with self._lock:
            self._route = to

    def _accept(self) -> None:
        while not self._closed:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as lines:
            first = lines.readline(MAX_LINE).strip()
            if not secrets.compare_digest(first, self.token.encode()):
                return
            for line in iter(lambda: lines.readline(MAX_LINE), b""):
                try:
                    key, records, nbytes = json.loads(line)
                    event = (str(key), int(records), int(nbytes))
                except (ValueError, TypeError):
                    return
                with self._lock:
                    route = self._route
                if route is not None:
                    route(*event)

    def close(self) -> None:
        """Stop accepting (open connections end with their workers)."""
        self._closed = True
        with contextlib.suppress(OSError):
            self._sock.close()


class LiveTally:
    """What arrived live per key, so a task's final events post only the rest."""

    def __init__(self, post: Callable[[tuple], None]) -> None:
        self._post = post
        self._live: dict[str, list[int]] = {}
        self._ended: set[str] = set()
        self._lock = threading.Lock()

    def live(self, key: str, records: int, nbytes: int) -> None:
        """A live event: posted unless its task already ended (a late line)."""
        with self._lock:
            if key in self._ended:
                return
            tally = self._live.setdefault(key, [0, 0])
            tally[0] += records
            tally[1] += nbytes
            self._post(("progress", key, records, nbytes))

    def final(self, events: list[tuple]) -> None:
        """A task's returned events: log lines posted as they are, each key's progress as
        the difference between its final counts and what arrived live."""
        totals: dict[str, list[int]] = {}
        for event in events:
            if event[0] == "progress":
                tally = totals.setdefault(event[1], [0, 0])
                tally[0] += event[2]
                tally[1] += event[3]
            else:
                self._post(event)
        with self._lock:
            for key, (records, nbytes) in totals.items():
                self._ended.add(key)
                seen = self._live.pop(key, [0, 0])
                if records != seen[0] or nbytes != seen[1]:
                    self._post(("progress", key, records - seen[0], nbytes - seen[1]))


class _Sender:
    """A Python worker's end: one connection, opened at the first event, reused by the
    worker's later tasks; any error turns it off for good (the result carries the counts)."""

    def __init__(self) -> None:
        self.address = ""
        self.sock: socket.socket | None = None
        self.off = False
        self.lock = threading.Lock()

    def send(self, key: str, records: int, nbytes: int) -> None:
        address = os.environ.get(ENV_VAR, "")
        with self.lock:
            if address != self.address:  # another driver process (or none): start over
                self._drop()
                self.address, self.off = address, not address
            if self.off:
                return
            try:
                if self.sock is None:
                    host, port, token = address.rsplit(":", 2)
                    self.sock = socket.create_connection((host, int(port)), timeout=2)
                    self.sock.sendall(token.encode() + b"\n")
                self.sock.sendall(json.dumps([key, records, nbytes]).encode() + b"\n")
            except (OSError, ValueError):
                self._drop()
                self.off = True

    def _drop(self) -> None:
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
        self.sock = None


_SENDER = _Sender()


def send_progress(event: tuple) -> None:
    """In a Spark worker: send a ``("progress", key, records, bytes)`` event to the driver
    now (best effort; see the module docstring)."""
    _SENDER.send(str(event[1]), int(event[2]), int(event[3]))


def server_host(conf: Any) -> str:
    """The address the driver's status server binds to: Spark's driver bind address, else
    its driver host (what the executors reach the driver by), else 127.0.0.1."""
    for key in ("spark.driver.bindAddress", "spark.driver.host"):
        value = conf.get(key, None)
        if value:
            return value
    return "127.0.0.1"
