"""The CPU-cheapest read path: gzip members inflated in verified runs by the parsing thread.

``inflate_threads: 0`` (WARC) and the ARC reader start no thread (a second thread doing Python
work per member costs GIL hand-overs and more CPU time in all), and read exactly what the
threaded paths read, damage included."""

from __future__ import annotations

import random
import threading

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.record import Provenance, Record, RecordKind
from crawlmill.formats.codecs.compression import iter_pieces
from crawlmill.plugins.readers import warc as warc_plugin

from tests.helpers import gz, warc_record


@pytest.fixture
def started(monkeypatch) -> list[str]:
    """Names of the threads started while the test runs."""
    names: list[str] = []
    real = threading.Thread.start

    def start(self):
        names.append(self.name)
        return real(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    return names


def _big_warc(tmp_path, damage: bool = False):
    rng = random.Random(3)
    members = [gz(warc_record(i)) for i in range(50)]
    blobs = []
    for i in range(600):
        body = rng.randbytes(2500)
        head = (
            "WARC/1.0\r\nWARC-Type: resource\r\n"
            f"WARC-Target-URI: http://example.com/{i}\r\n"
            "WARC-Date: 2020-01-01T00:00:00Z\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        blobs.append(gz(head + body + b"\r\n\r\n"))
    if damage:
        bad = bytearray(blobs[300])
        bad[40:50] = b"\x99" * 10
        blobs[300] = bytes(bad)
    path = tmp_path / "big.warc.gz"
    path.write_bytes(b"".join(members + blobs))
    assert path.stat().st_size > warc_plugin.PREFETCH_MIN_BYTES
    return path


@pytest.mark.parametrize("damage", [False, True])
def test_inflate_threads_0_converts_without_a_thread(tmp_path, started, damage):
    src = _big_warc(tmp_path, damage)
    outs = {}
    for threads in (0, 1):
        out = tmp_path / f"out{threads}"
        started.clear()
        code = main(
            ["convert", str(src), "--from", "warc", "--to", "warc", "-o", str(out), "--workers", "1",
             "--option", "gzip_backend=zlib", "--reader-option", f"inflate_threads={threads}",
             "--progress", "never"]
        )  # fmt: skip
        assert code == (3 if damage else 0)
        inflate = [n for n in started if "inflate" in n or "gzip" in n]
        if threads == 0:
            assert inflate == []  # before: a crawlmill-inflate prefetch thread
        outs[threads] = sorted((p.name, p.read_bytes()) for p in out.rglob("*.warc.gz"))
    assert outs[0] == outs[1] and outs[0]


def test_arc_reader_inflates_without_a_thread(tmp_path, started):
    line = b"filedesc://x.arc 0.0.0.0 20080430204825 text/plain 76\n"
    desc = b"1 1 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"
    members = [gz(line + desc[: 76 - 0] + b"\n")]
    rng = random.Random(4)
    for i in range(500):
        body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + rng.randbytes(2500)
        head = f"http://example.com/{i} 10.0.0.1 20080430204825 text/html {len(body)}\n"
        members.append(gz(head.encode() + body + b"\n"))
    src = tmp_path / "x.arc.gz"
    src.write_bytes(b"".join(members))
    out = tmp_path / "out"
    code = main(
        [
            "convert",
            str(src),
            "--from",
            "arc",
            "--to",
            "warc",
            "-o",
            str(out),
            "--progress",
            "never",
        ]
    )
    assert code in (0, 2)  # a filedesc quirk may warn
    assert not [n for n in started if n == "crawlmill-inflate"]  # before: the prefetch thread
    assert list(out.rglob("*.warc.gz"))


def test_inline_batches_are_the_threaded_ones(tmp_path):
    path = _big_warc(tmp_path, damage=True)
    views = []
    for threads in (0, 1):
        with open(path, "rb") as fh:
            items = list(iter_pieces(fh, "gzip", threads=threads, batch=True))
        views.append(
            [(type(i).__name__, i.data if hasattr(i, "members") else i.reason) for i in items]
        )
    assert views[0] == views[1]


def test_quick_init_is_the_dataclass_init():
    r = Record(RecordKind.RESPONSE, url="u", payload=b"p")
    assert r == Record(kind=RecordKind.RESPONSE, url="u", payload=b"p")
    assert r.outlinks == [] and r.extras == {} and r.changed == frozenset()
    assert r.outlinks is not Record(RecordKind.RESPONSE).outlinks  # a fresh default each
    assert Provenance("p", 1) == Provenance(path="p", offset=1, length=None)
    with pytest.raises(TypeError):
        Record()  # kind is required
    with pytest.raises(TypeError):
        Record(RecordKind.RESPONSE, nope=1)
    with pytest.raises(AttributeError):
        r.url = "x"  # frozen
    assert "<factory>" in str(__import__("inspect").signature(Record))


def test_quick_init_refuses_a_class_with_post_init():
    """The quick ``__init__`` does not call ``__post_init__``: a class with one is refused
    when decorated, not silently left unvalidated."""
    import dataclasses

    from crawlmill.core.record import _quick_init

    @dataclasses.dataclass(frozen=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x >= 0

    with pytest.raises(TypeError, match="__post_init__"):
        _quick_init(Checked)
