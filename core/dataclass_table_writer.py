"""Regenerates :mod:`crawlmill.core.dataclass_table` (``python -m
crawlmill.core.dataclass_table_writer``): records the method texts ``dataclasses`` compiles
while a one-record WARC -> WARC convert runs through the console script, in a fresh process,
and writes them (:mod:`crawlmill.core.dataclass_code` says why). A module of its own: the
console script imports :mod:`~crawlmill.core.dataclass_code`, and this one imports the
console script."""

from __future__ import annotations

from pathlib import Path

from .dataclass_code import record_texts, table_source

__all__ = ["one_record_convert", "write_table"]


def one_record_convert() -> None:
    """A WARC -> WARC convert of one record, in this process (what the table is made for)."""
    import contextlib
    import gzip
    import io
    import tempfile

    from .cli import main  # the console script (it leaves a recording in place)

    record = (
        b"WARC/1.1\r\nWARC-Type: resource\r\n"
        b"WARC-Record-ID: <urn:uuid:8d5e8b3c-0b1e-4c36-9a1e-2f1f3f6c1a01>\r\n"
        b"WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://example.com/\r\n"
        b"Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "one.warc.gz")
        src.write_bytes(gzip.compress(record, mtime=0))
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["convert", str(src), "--to", "warc", "-o", str(Path(tmp, "out"))])
        if code != 0:
            raise RuntimeError(f"the one-record convert exited {code}: {out.getvalue()}")


def write_table(path: Path | None = None) -> int:
    """Record the texts of a one-record convert run in this (fresh) process and write them to
    ``path`` (the table module's file); returns how many."""
    texts = record_texts(one_record_convert)
    if not texts:
        raise RuntimeError("no dataclass was created: run this in a fresh interpreter")
    target = path or Path(__file__).with_name("dataclass_table.py")
    target.write_text(table_source(texts), encoding="utf-8")
    return len(texts)


if __name__ == "__main__":
    print(f"{write_table()} method texts written")
