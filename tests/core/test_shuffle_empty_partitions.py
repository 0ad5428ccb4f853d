"""A sorted shuffle asked for N partitions writes N part files, also for partitions no record
reached (Hadoop writes empty part files too): the partition pass runs every partition's task
with ``WriteContext.require_output`` and a file writer then starts a file without records.

What the WARC writer writes for an empty partition follows its own per-file rule: crawlmill's
warcinfo when it adds one to every file (``warcinfo: always``); with ``auto`` (a warcinfo
only when converting from another format: no record, no format) or ``never``, an empty file,
which WARC readers read as zero records. A plain conversion is unchanged: an input whose
records are all dropped still gives no file."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path

import pytest
from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.plugins.writers.warc_sorted import url_key

from tests.helpers import convert, warc_record


def _inputs(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc_record(1) + warc_record(2))
    (src / "b.warc").write_bytes(warc_record(3))
    return src


def _convert(src: Path, out: Path, partitions: int, *extra: str) -> int:
    sorted_ = json.dumps({"partitions": partitions, "partitioning": "hash"})
    return convert(src, "warc", out, *extra, option=["sorted=" + sorted_], workers=1).exit_code


def _partition_urls(partitions: int) -> list[list[str]]:
    """The URLs each hash partition gets, computed here (CRC-32 of the SURT key)."""
    parts: list[list[str]] = [[] for _ in range(partitions)]
    for i in (1, 2, 3):
        url = f"http://example.com/{i}"
        from crawlmill.core import Record

        key = url_key(Record(kind=RecordKind.RESOURCE, url=url))
        parts[zlib.crc32(key) % partitions].append(url)
    return parts


@pytest.mark.parametrize("warcinfo", ["auto", "always"])
def test_every_partition_gets_its_part_file(tmp_path, capsys, warcinfo):
    partitions = 8  # 3 URLs: at least 5 partitions stay empty
    out = tmp_path / "out"
    extra = ["--option", f"warcinfo={warcinfo}"]
    assert _convert(_inputs(tmp_path), out, partitions, *extra) == 0, capsys.readouterr().err
    names = sorted(p.name for p in out.iterdir() if p.is_file())
    assert names == [f"part-{i:05d}.warc.gz" for i in range(partitions)]
    expected = _partition_urls(partitions)
    assert sum(1 for urls in expected if not urls) >= 5
    warcinfos = 0
    for i, urls in enumerate(expected):
        path = out / f"part-{i:05d}.warc.gz"
        with open_reader(path) as records:
            got = list(records)
        assert not records.damages and not records.warnings
        kinds = [r.kind for r in got]
        if warcinfo == "always":  # one warcinfo per file, empty partition or not
            assert kinds[0] == RecordKind.WARCINFO and kinds.count(RecordKind.WARCINFO) == 1
        else:
            assert RecordKind.WARCINFO not in kinds
        if not urls:
            assert path.stat().st_size == 0 if warcinfo == "auto" else path.stat().st_size > 0
        assert [r.url for r in got if r.kind != RecordKind.WARCINFO] == sorted(urls)
        warcinfos += kinds.count(RecordKind.WARCINFO)
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    # the added warcinfos are counted: read + added = written + dropped + quarantined
    assert (report["read"], report["written"]) == (3, 3 + warcinfos)
    assert sorted(report["outputs"]) == names


@pytest.mark.parametrize("warcinfo", ["auto", "always"])
def test_empty_part_files_are_read_by_warcio(tmp_path, capsys, need, warcinfo):
    warcio = need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    out = tmp_path / "out"
    assert _convert(_inputs(tmp_path), out, 8, "--option", f"warcinfo={warcinfo}") == 0
    head = ["warcinfo"] if warcinfo == "always" else []
    for i, urls in enumerate(_partition_urls(8)):
        with open(out / f"part-{i:05d}.warc.gz", "rb") as fh:
            types = [r.rec_type for r in ArchiveIterator(fh)]
        assert types == head + ["resource"] * len(urls)
    assert warcio


def test_a_plain_conversion_of_an_input_with_every_record_dropped_still_writes_nothing(tmp_path):
    out = tmp_path / "out"
    code = main(
        ["convert", str(_inputs(tmp_path)), "--to", "warc", "-o", str(out), "--workers", "1",
         "--progress", "never", "--filter", "url-match", "include=nomatch"]
    )  # fmt: skip
    assert code == 0
    assert [p.name for p in out.iterdir() if p.is_file()] == []


class _Kept(io.BytesIO):
    """An output stream whose bytes survive ``close``."""

    def close(self) -> None:
        self.kept = self.getvalue()
        super().close()


@pytest.mark.parametrize("required", [False, True])
def test_a_file_writer_without_records_starts_a_file_only_when_required(required):
    """At the mechanism: ``FileWriter.ensure_output`` honours ``WriteContext.require_output``
    (what the partition task sets), here through the WARC writer."""
    from crawlmill.core import InputFile
    from crawlmill.core.plugin import WriteContext
    from crawlmill.plugins.writers.warc import WarcWriter, WarcWriterOptions

    created: dict[str, _Kept] = {}

    def create(relpath: str) -> _Kept:
        created[relpath] = _Kept()
        return created[relpath]

    ctx = WriteContext(
        input=InputFile(path="x", relpath="part-00003", index=3, stem="part-00003"),
        input_count=8,
        create=create,
        quarantine=lambda record, reason: None,
        require_output=required,
    )
    writer = WarcWriter(WarcWriterOptions(warcinfo="always", gzip_backend="zlib"))
    writer.open(ctx)
    writer.close()
    assert list(created) == (["part-00003.warc.gz"] if required else [])
    if required:
        assert gzip.decompress(created["part-00003.warc.gz"].kept).startswith(b"WARC/1.1\r\n")
        assert b"WARC-Type: warcinfo" in gzip.decompress(created["part-00003.warc.gz"].kept)
        assert ctx.added_records == 1
