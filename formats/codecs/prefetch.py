"""Running a piece stream one step ahead in a background thread."""

from __future__ import annotations

from collections.abc import Iterator

from .pieces import Broken, Piece

__all__ = ["prefetch"]

_DONE = object()


def prefetch(
    items: Iterator[Piece | Broken], *, batch_bytes: int = 1 << 20, depth: int = 8
) -> Iterator[Piece | Broken]:
    """Run ``items`` (typically :func:`iter_pieces`) in a background thread, ``depth`` batches
    of about ``batch_bytes`` ahead, so inflating (which releases the GIL in isal and zstd)
    overlaps with parsing. Order and content are unchanged; exceptions are re-raised here.
    Closing the returned generator stops and joins the thread."""
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(obj) -> bool:
        while not stop.is_set():
            try:
                q.put(obj, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        batch: list = []
        size = 0
        try:
            for item in items:
                batch.append(item)
                size += len(item.data)
                if size >= batch_bytes or len(batch) >= 256:
                    if not put(batch):
                        return
                    batch, size = [], 0
            if batch and not put(batch):
                return
            put(_DONE)
        except BaseException as exc:  # handed to the consumer
            put(exc)

    thread = threading.Thread(target=produce, name="crawlmill-inflate", daemon=True)
    thread.start()
    try:
        while True:
            batch = q.get()
            if batch is _DONE:
                return
            if isinstance(batch, BaseException):
                raise batch
            yield from batch
    finally:
        stop.set()
        thread.join()
