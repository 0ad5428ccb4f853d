"""The SequenceFile family's intact inputs: files our ``SequenceFileWriter`` writes (NONE,
RECORD and BLOCK, several codecs, sync markers and blocks close together so damage has
neighbours), Hadoop-written samples, Nutch parts read as SequenceFiles and as MapFiles, and
Common Crawl 2012 metadata SequenceFiles read by ``cc-metadata``.

Each :class:`SeqInput` writes its input folder (``make(folder)`` returns the path of the
SequenceFile the damage goes into); ``target(path)`` is what the CLI reads (the file, or its
MapFile directory)."""

from __future__ import annotations

import io
import json
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .readers import samples_dir

__all__ = ["SEQ_INPUTS", "SeqInput"]

TEXT = "org.apache.hadoop.io.Text"
BYTES = "org.apache.hadoop.io.BytesWritable"


@dataclass(frozen=True)
class SeqInput:
    """One intact input of a SequenceFile-family reader."""

    id: str
    make: Callable[[Path], Path]
    sample: bool = False
    #: ``--from`` (``None``: detection, as users run it).
    from_reader: str | None = None
    #: the CLI reads the damaged file's folder (a MapFile directory), not the file.
    directory: bool = False
    #: classes the reader has no Writable for (see :attr:`.seq_oracle.SeqFile.unchecked`).
    unchecked: bool = False

    @property
    def reader(self) -> str:
        """The reader under test (``--from`` when damage hides the format from detection)."""
        return self.from_reader or self.id.split("/", 1)[0].replace("seq", "sequencefile")

    def target(self, path: Path) -> Path:
        """What the CLI is given for the damaged file at ``path``."""
        return path.parent if self.directory else path


def _vint(n: int) -> bytes:
    from crawlmill.formats.hadoop.vint import encode_vlong

    return encode_vlong(n)


def _text(raw: bytes) -> bytes:
    return _vint(len(raw)) + raw


def _bytes_writable(raw: bytes) -> bytes:
    return len(raw).to_bytes(4, "big") + raw


def _entries(seed: int, n: int, binary: bool) -> list[tuple[bytes, bytes]]:
    """``n`` (key, value) pairs: URL Text keys; Text values of 10-400 printable bytes, or
    BytesWritable values of random bytes salted with ``ff ff ff ff`` (a sync escape inside a
    value must not be taken for a marker)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        key = _text(f"http://example.com/{seed}/{i:04d}".encode())
        size = rng.randrange(10, 400)
        if binary:
            raw = bytearray(rng.randbytes(size))
            if i % 3 == 0:
                at = rng.randrange(0, size)
                raw[at:at] = b"\xff\xff\xff\xff"
            out.append((key, _bytes_writable(bytes(raw))))
        else:
            raw = bytes(rng.randrange(0x20, 0x7F) for _ in range(size))
            out.append((key, _text(raw)))
    return out


def _written(
    name: str,
    compression: str,
    codec: str | None,
    *,
    binary: bool = False,
    n: int = 60,
    seed: int = 5,
    sync_interval: int = 900,
    block_size: int = 1500,
    pairs: Callable[[], list[tuple[bytes, bytes]]] | None = None,
    value_class: str | None = None,
) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        from crawlmill.formats.hadoop.codecs import codec_named
        from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

        buf = io.BytesIO()
        w = SequenceFileWriter(
            buf,
            TEXT,
            value_class or (BYTES if binary else TEXT),
            compression=compression,
            codec=codec_named(codec) if codec else None,
            sync=random.Random(seed).randbytes(16),
            sync_interval=sync_interval,
            block_size=block_size,
        )
        for k, v in pairs() if pairs else _entries(seed, n, binary):
            w.append(k, v)
        w.close()
        path = folder / name
        path.write_bytes(buf.getvalue())
        return path

    return make


def _cc_metadata_pairs(seed: int = 7, n: int = 40) -> list[tuple[bytes, bytes]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        url = f"http://example.org/cc/{i:03d}"
        meta = {
            "attempt_time": 1341690154994 + i,
            "disposition": "SUCCESS" if i % 6 else "FAILURE",
            "server_ip": f"192.0.2.{i % 250}",
            "http_result": 200,
            "content": {"title": "t" * rng.randrange(1, 80), "links": [{"href": url + "/a"}]},
        }
        out.append((_text(url.encode()), _text(json.dumps(meta).encode())))
    return out


def _array_file(sub: str) -> Callable[[Path], Path]:
    """A Nutch 0.7 ArrayFile (SEQ2, ``long`` keys, a sync marker before every 10th record) of
    40 pages, built by the fixture script from the documented layout, class names ``net.*``
    (no Writable answers to them: the ``sequencefile`` reader keeps their bytes)."""

    def make(folder: Path) -> Path:
        import importlib.util
        import sys

        from crawlmill.formats.hadoop import nutch_legacy as nl

        script = (
            Path(__file__).resolve().parents[2] / "fixtures" / "nutch-legacy" / "make_segment.py"
        )
        name = "nutch_legacy_make_segment"
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, script)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod  # dataclasses look their module up
            spec.loader.exec_module(mod)
        mk = sys.modules[name]
        kind, values = mk.values(mk.make_pages(40), "0.7")[sub]
        data, _ = nl.encode_array_file(
            kind, values, value_class=mk.class_name(kind, "net"), sync=mk.SYNC
        )
        path = folder / f"{sub}.data"
        path.write_bytes(data)
        return path

    return make


def _sample_file(rel: str, name: str | None = None) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        src = samples_dir() / rel
        path = folder / (name or src.name)
        shutil.copyfile(src, path)
        return path

    return make


def _sample_mapfile(rel: str) -> Callable[[Path], Path]:
    """A MapFile directory of the samples: ``index`` copied, ``data`` is the damaged file."""

    def make(folder: Path) -> Path:
        src = samples_dir() / rel
        d = folder / src.name
        d.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / "index", d / "index")
        shutil.copyfile(src / "data", d / "data")
        return d / "data"

    return make


_HO = "hadoop-oracle-generated/"

SEQ_INPUTS: list[SeqInput] = [
    SeqInput("seq/none", _written("none.seq", "none", None)),
    SeqInput("seq/none-bytes", _written("none-bytes.seq", "none", None, binary=True)),
    SeqInput("seq/record-default", _written("record-default.seq", "record", "default")),
    SeqInput("seq/record-gzip", _written("record-gzip.seq", "record", "gzip", binary=True)),
    SeqInput("seq/block-default", _written("block-default.seq", "block", "default")),
    SeqInput("seq/block-bzip2", _written("block-bzip2.seq", "block", "bzip2", binary=True)),
    SeqInput("seq/block-snappy", _written("block-snappy.seq", "block", "snappy")),
    # many entries per block (about 40 of 200): damage in one block, entries sharing an offset
    SeqInput(
        "seq/block-many",
        _written("block-many.seq", "block", "default", n=200, block_size=20000, sync_interval=4000),
    ),
    SeqInput(
        "seq/sample-none-sync2000", _sample_file(_HO + "text_text_NONE_sync2000.seq"), sample=True
    ),
    SeqInput(
        "seq/sample-record-lz4", _sample_file(_HO + "text_text_RECORD_Lz4Codec.seq"), sample=True
    ),
    SeqInput(
        "seq/sample-nutch-content",
        _sample_file("apache-nutch/test-segments/20150309101656/content/part-00000/data"),
        sample=True,
    ),
    SeqInput(
        "mapfile/sample-record-iv16",
        _sample_mapfile(_HO + "mapfile_record_deflate_iv16"),
        sample=True,
        directory=True,
    ),
    SeqInput(
        "mapfile/sample-nutch-crawldb",
        _sample_mapfile("apache-nutch/testcrawl/crawldb/current/part-00000"),
        sample=True,
        directory=True,
    ),
    SeqInput(
        "seq/nutch-legacy-content",
        _array_file("content"),
        from_reader="sequencefile",
        unchecked=True,
    ),
    SeqInput(
        "cc-metadata/block-gzip",
        _written("metadata-00000", "block", "gzip", pairs=_cc_metadata_pairs, block_size=2500),
    ),
    SeqInput(
        "cc-metadata/sample-text-gzip",
        _sample_file("cc2012-synthetic/text-gzip/metadata-00000"),
        sample=True,
    ),
]
