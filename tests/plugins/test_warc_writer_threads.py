"""The ``warc`` writer compresses on background threads: same files as a one-thread run, and
errors and threads are handled (plugins.writers.warc with formats.warcwriter)."""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from crawlmill.core import InputFile, Provenance, Record, RecordKind, WriteContext
from crawlmill.formats.warc import writer as warcwriter
from crawlmill.plugins.writers import warc as warc_plugin
from crawlmill.plugins.writers.warc import WarcWriter


def _records(count: int, seed: int = 11) -> list[Record]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        payload = rng.randbytes(rng.choice([0, 100, 5000, 30000])) + b"x" * rng.randint(0, 9000)
        http = rng.random() < 0.85
        out.append(
            Record(
                kind=RecordKind.RESPONSE if http else RecordKind.RESOURCE,
                url=f"http://site{i % 7}.example/page {i}",
                date=datetime(2008, 4, 30, 20, 48, i % 60, tzinfo=UTC),
                date_raw=f"200804302048{i % 60:02d}",
                http_head=(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" if http else None),
                payload=payload,
                content_type="text/html" if http else "text/dns",
                ip="10.0.0.1",
                extras={"arc": {"version": "1"}},
                source=Provenance(path="in.arc.gz", offset=1000 * i, length=500, format="arc"),
            )
        )
    return out


def _run(out: Path, records: list[Record], fail_after: int | None = None, **options) -> dict:
    """One task's files as {relpath: bytes}."""

    class Output:
        def __init__(self, path: Path) -> None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.fh = open(path, "wb")  # noqa: SIM115 - closed by the writer

        def write(self, data: bytes) -> int:
            if fail_after is not None and self.fh.tell() + len(data) > fail_after:
                raise OSError(28, "No space left on device")
            return self.fh.write(data)

        def close(self) -> None:
            self.fh.close()

    ctx = WriteContext(
        input=InputFile(path=str(out / "in.arc.gz"), relpath="in.arc.gz"),
        input_count=1,
        create=lambda rel: Output(out / rel),
        quarantine=lambda record, reason: pytest.fail(reason),
    )
    writer = WarcWriter(WarcWriter.Options.model_validate(options))
    writer.open(ctx)
    try:
        for record in records:
            writer.write(record)
    finally:
        writer.close()
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def _writer_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("crawlmill-warc-writer")]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"cdxj": True},
        {"cdxj": True, "max_bytes": 60_000},
        {"max_records": 7, "compression": "zstd"},
        {"version": "0.18", "compression": "none"},
    ],
)
def test_threaded_files_equal_a_one_thread_run(tmp_path, monkeypatch, options):
    if options.get("compression") == "zstd":
        pytest.importorskip("zstandard")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the warcinfo's conversion date
    threaded = _run(tmp_path / "threads", _records(120), **options)
    assert not _writer_threads()  # close() stopped them

    plain_init = warcwriter.WarcFileWriter.__init__

    def one_thread(self, *args, background=False, **kwargs):
        plain_init(self, *args, background=False, **kwargs)

    monkeypatch.setattr(warc_plugin.WarcFileWriter, "__init__", one_thread)
    plain = _run(tmp_path / "plain", _records(120), **options)
    assert threaded == plain
    if "max_bytes" in options or "max_records" in options:
        assert len([p for p in plain if ".warc" in p and not p.endswith(".cdxj")]) > 2


def test_an_output_error_surfaces_from_the_writer_and_leaves_no_thread(tmp_path):
    with pytest.raises(OSError, match="No space left"):
        _run(tmp_path / "out", _records(200), fail_after=100_000, compression="none")
    assert not _writer_threads()
