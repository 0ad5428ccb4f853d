"""The ``nutch-legacy`` reader on segments built from the documented Nutch 0.4-0.7 layout
(fixtures/nutch-legacy/make_segment.py): detected as a collection, one Record per fetched
entry joining the ArrayFiles by record number, every flavour and class-name style; to WARC
through the CLI and read back by warcio; damage in any file reported with file and offset and
resynced at the next sync marker; missing subdirectories and unknown classes."""

from __future__ import annotations

import filecmp
import importlib.util
import json
import shutil
import struct
import sys

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry
from crawlmill.formats.hadoop.sequencefile import Entry, iter_entries, read_header
from crawlmill.plugins.readers.nutch_legacy import NutchLegacyReader, rebuild_head

from tests.conftest import FIXTURES

_spec = importlib.util.spec_from_file_location(
    "nutch_legacy_make_segment", FIXTURES / "nutch-legacy" / "make_segment.py"
)
make = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = make  # dataclasses look their module up
_spec.loader.exec_module(make)

SEGMENT = FIXTURES / "nutch-legacy" / "20050301120000"


def _read(folder):
    units = NutchLegacyReader.discover(str(folder), NutchLegacyReader.Options())
    assert units is not None
    records, damages, checks, warnings = [], [], [], []
    for unit in units:
        with open_reader(unit, "nutch-legacy") as found:
            records.extend(found)
            damages += found.damages
            checks += found.checks
            warnings += found.warnings
    return records, damages, checks, warnings


def _assert_page(record, page, *, text=True, outlinks=True):
    assert record.url == page.url
    assert record.extras["nutch-legacy"]["record"] == page.number
    assert record.date is not None and record.date.timestamp() * 1000 == page.fetch_date
    assert record.payload == page.body
    if text:
        assert record.text == page.text
    if outlinks:
        assert [(o.url, o.anchor) for o in record.outlinks] == page.outlinks


def test_the_shipped_fixture_is_what_the_script_builds(tmp_path):
    make.build_segment(str(tmp_path / "seg"), 12, "0.7", "alias")
    for sub in ("fetchlist", "fetcher", "content", "parse_text", "parse_data"):
        for name in ("data", "index"):
            assert filecmp.cmp(SEGMENT / sub / name, tmp_path / "seg" / sub / name, shallow=False)


def test_the_fixture_segment_is_one_unit_with_every_page():
    assert Registry.load().detect(str(SEGMENT), b"")[0] == ("nutch-legacy", 0.9)
    units = NutchLegacyReader.discover(str(SEGMENT), NutchLegacyReader.Options())
    assert [u.relpath for u in units] == ["20050301120000"]
    assert sorted(units[0].parts) == sorted(
        f"{s}/{n}" for s in ("fetchlist", "fetcher", "content", "parse_text", "parse_data")
        for n in ("data", "index")
    )  # fmt: skip
    records, damages, checks, warnings = _read(SEGMENT)
    pages = make.make_pages(12)
    assert (damages, checks, warnings) == ([], [], [])
    assert len(records) == 12
    for record, page in zip(records, pages, strict=True):
        _assert_page(record, page)
        extras = record.extras["nutch-legacy"]
        assert extras["fetch_list_entry"]["page"]["url"] == page.url
        assert extras["fetch_list_entry"]["fetch"] is page.fetch
        if page.fetch:
            assert record.kind == "response"
            assert record.http_status == 200
            assert record.content_type == "text/html" and record.charset is not None
            assert extras["fetcher_output"]["protocol_name"] == "success"
            assert extras["content"]["metadata"] == [list(h) for h in page.headers]
            assert extras["parse_data"]["title"] == page.title
        else:  # not to be fetched: Nutch wrote an empty Content, no headers
            assert record.kind == "resource" and record.http_head is None
            assert extras["fetcher_output"]["protocol_name"] == "notfetching"
    assert records[1].url == "http://www.example.com/caf\u00e9-1.html"
    assert records[1].outlinks[0].anchor == "Caf\u00e9 suivant"
    # page 3 was sent chunked: Nutch stored the de-chunked bytes, so the head says so
    head3 = records[3].http_head
    assert b"\r\nX-Crawler-Transfer-Encoding: chunked\r\n" in head3
    assert b"\r\nContent-Length: %d\r\n" % len(records[3].payload) in head3
    assert records[0].source.path.endswith("fetcher/data")


def test_to_warc_through_the_cli_read_back_by_warcio(tmp_path, capsys, need):
    warcio = need("warcio.archiveiterator")
    out = tmp_path / "out"
    code = main(["convert", str(SEGMENT), "--to", "warc", "-o", str(out), "--progress", "never"])
    assert code == 0, capsys.readouterr().err
    files = sorted(out.glob("*.warc.gz"))
    assert [f.name for f in files] == ["20050301120000.warc.gz"]
    pages = make.make_pages(12)
    got = []
    with open(files[0], "rb") as fh:
        for rec in warcio.ArchiveIterator(fh):
            if rec.rec_type == "warcinfo":
                continue
            status = rec.http_headers.get_statuscode() if rec.http_headers else None
            got.append((rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI"),
                        rec.rec_headers.get_header("WARC-Date"), status,
                        rec.content_stream().read()))  # fmt: skip
    assert len(got) == 12
    for (kind, url, date, status, body), page in zip(got, pages, strict=True):
        assert url == page.url and body == page.body
        assert date == f"2005-03-01T12:00:{page.number:02d}Z"
        assert (kind, status) == (("response", "200") if page.fetch else ("resource", None))
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["damages"] == [] and report["checks_failed"] == []


@pytest.mark.parametrize(
    ("flavour", "names"),
    [("0.7", "alias"), ("0.7", "org"), ("0.6", "alias"), ("0.6", "org"), ("0.5", "net"),
     ("0.4", "net"), ("0.4", "alias")],
)  # fmt: skip
def test_every_flavour_and_class_name_style(tmp_path, flavour, names):
    pages = make.build_segment(str(tmp_path / "20050301"), 11, flavour, names)
    records, damages, checks, warnings = _read(tmp_path / "20050301")
    assert (damages, checks, warnings) == ([], [], [])
    assert len(records) == 11
    for record, page in zip(records, pages, strict=True):
        _assert_page(record, page)
        fo = record.extras["nutch-legacy"]["fetcher_output"]
        assert fo["version"] == {"0.7": 5, "0.6": 4, "0.5": 4, "0.4": 3}[flavour]
        assert fo["protocol_name"] == ("success" if page.fetch else ("notfetching" if flavour == "0.7" else "retry"))
    if flavour == "0.4":  # no headers in 0.4: no HTTP head; the title was in FetcherOutput
        assert {r.kind for r in records} == {"resource"}
        assert records[0].extras["nutch-legacy"]["fetcher_output"]["title"] == "Page 0"
        assert read_header((tmp_path / "20050301" / "fetcher" / "data").read_bytes()).version == 1
    else:
        assert records[0].kind == "response" and records[0].http_status == 200


def test_an_empty_segment_has_no_records_and_no_problems(tmp_path):
    make.build_segment(str(tmp_path / "s"), 0)
    assert _read(tmp_path / "s") == ([], [], [], [])


def test_one_entry(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 1)
    records, damages, checks, _ = _read(tmp_path / "s")
    assert (damages, checks) == ([], [])
    assert len(records) == 1
    _assert_page(records[0], pages[0])


@pytest.mark.parametrize("count", [9, 10, 11])
def test_the_sync_interval_boundary(tmp_path, count):
    pages = make.build_segment(str(tmp_path / "s"), count)
    data = (tmp_path / "s" / "content" / "data").read_bytes()
    syncs = [e.sync_before for e in iter_entries(data) if isinstance(e, Entry)]
    assert syncs.count(True) == (count >= 10) and (count < 10 or syncs[9])
    records, damages, checks, _ = _read(tmp_path / "s")
    assert (damages, checks) == ([], [])
    assert [r.url for r in records] == [p.url for p in pages]


def _offsets(path):
    return [e.offset for e in iter_entries(path.read_bytes()) if isinstance(e, Entry)]


def test_a_cut_file_is_damage_and_the_other_files_still_deliver(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 11)
    content = tmp_path / "s" / "content" / "data"
    record6 = _offsets(content)[6]
    content.write_bytes(content.read_bytes()[: record6 + 30])  # cut inside record 6
    records, damages, checks, _ = _read(tmp_path / "s")
    assert [(d.path, d.offset, d.length, d.code) for d in damages] == [
        (str(content), record6, 30, "truncated-record")
    ]
    assert "content/data" in damages[0].reason
    assert len(records) == 11  # the fetcher's entries are all there
    for record, page in zip(records, pages, strict=True):
        if page.number < 6:
            _assert_page(record, page)
        else:  # the content is lost; URL, date, status and parse remain
            assert record.url == page.url and record.payload == b"" and record.http_head is None
            assert record.text == page.text


def test_a_wrong_record_length_resyncs_at_the_next_sync_marker(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 12)
    fetcher = tmp_path / "s" / "fetcher" / "data"
    offsets = _offsets(fetcher)
    raw = bytearray(fetcher.read_bytes())
    length = struct.unpack_from(">i", raw, offsets[4])[0]
    struct.pack_into(">i", raw, offsets[4], length + 3)  # record 4 claims 3 more bytes
    fetcher.write_bytes(bytes(raw))
    records, damages, checks, _ = _read(tmp_path / "s")
    sync_at = offsets[9] - 20  # the marker before the 10th record
    assert [(d.path, d.offset, d.length, d.code) for d in damages] == [
        (str(fetcher), offsets[4], sync_at - offsets[4], "bad-length")
    ]
    # records 4-8 of fetcher/ are lost: they come from content/ (URL, payload, head unknown)
    assert [r.url for r in records] == [p.url for p in pages]
    for record, page in zip(records, pages, strict=True):
        if 4 <= page.number <= 8:
            assert record.source.path.endswith("content/data")
            assert record.date is None and record.payload == page.body
            assert "fetcher_output" not in record.extras["nutch-legacy"]
        else:
            _assert_page(record, page)
            assert record.source.path.endswith("fetcher/data")


def test_damage_through_the_cli_exits_3_with_file_and_offset(tmp_path, capsys):
    make.build_segment(str(tmp_path / "s"), 11)
    parse_text = tmp_path / "s" / "parse_text" / "data"
    parse_text.write_bytes(parse_text.read_bytes()[:-5])
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "s"), "--to", "warc", "-o", str(out), "--progress", "never"])
    assert code == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    [damage] = report["damages"]
    assert damage["code"] == "truncated-record"
    assert damage["path"].endswith("parse_text/data") and damage["offset"] > 0
    # 11 records delivered (the last without its text) and the damaged range quarantined
    assert report["accounting"].startswith("read 12 + added 1 by the writer = written 12 ")
    assert report["accounting"].endswith("quarantined 1")


def test_a_missing_subdirectory_is_a_failed_check_and_records_are_delivered(tmp_path, capsys):
    pages = make.build_segment(str(tmp_path / "s"), 4, skip=("parse_text",))
    (tmp_path / "s" / "parse_data" / "index").unlink()
    records, damages, checks, _ = _read(tmp_path / "s")
    assert damages == []
    assert sorted((c.path.rsplit("/s/", 1)[1], c.check, c.ok) for c in checks) == [
        ("parse_data/index", "present", False), ("parse_text", "present", False)
    ]  # fmt: skip
    assert len(records) == 4
    for record, page in zip(records, pages, strict=True):
        _assert_page(record, page, text=False)
        assert record.text is None
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "s"), "--to", "warc", "-o", str(out), "--progress", "never"])
    assert code == 3
    assert "checks: 0 passed, 2 failed" in capsys.readouterr().err


def test_without_fetcher_the_content_drives_and_the_fetchlist_joins(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 3, skip=("fetcher",))
    records, damages, checks, warnings = _read(tmp_path / "s")
    assert damages == [] and warnings == []
    assert [(c.path.rsplit("/s/", 1)[1], c.ok) for c in checks] == [("fetcher", False)]
    assert [r.url for r in records] == [p.url for p in pages]
    assert records[0].kind == "response"  # a Content with headers: the plugins' 200
    assert records[0].extras["nutch-legacy"]["fetch_list_entry"]["page"]["url"] == pages[0].url


def test_an_unknown_class_name_is_a_clear_error(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 3)
    fetcher = tmp_path / "s" / "fetcher" / "data"
    raw = fetcher.read_bytes()
    renamed = raw.replace(b"\x00\x0dFetcherOutput", b"\x00\x14net.nutch.Unexpected", 1)
    fetcher.write_bytes(renamed)
    records, damages, checks, _ = _read(tmp_path / "s")
    assert [(d.path, d.offset, d.length, d.code) for d in damages] == [
        (str(fetcher), 0, len(renamed), "unknown-class")
    ]
    assert "'net.nutch.Unexpected' is no Nutch 0.4-0.7 class" in damages[0].reason
    assert "FetcherOutput" in damages[0].reason  # the known names are listed
    assert [r.url for r in records] == [p.url for p in pages]  # from content/


def test_a_file_of_another_known_class_is_refused(tmp_path):
    make.build_segment(str(tmp_path / "s"), 2)
    shutil.copy(tmp_path / "s" / "parse_text" / "data", tmp_path / "s" / "parse_data" / "data")
    _, damages, _, _ = _read(tmp_path / "s")
    assert [d.code for d in damages] == ["unknown-class"]
    assert "parse_data/ holds ParseData" in damages[0].reason


def test_a_folder_of_segments_is_one_unit_per_segment(tmp_path):
    make.build_segment(str(tmp_path / "segments" / "20050302"), 2)
    make.build_segment(str(tmp_path / "segments" / "20050301"), 3)
    (tmp_path / "segments" / "notes").mkdir()
    units = NutchLegacyReader.discover(str(tmp_path / "segments"), NutchLegacyReader.Options())
    assert [u.relpath for u in units] == ["20050301", "20050302"]
    assert Registry.load().detect(str(tmp_path / "segments"), b"")[0][0] == "nutch-legacy"
    assert NutchLegacyReader.discover(str(tmp_path / "segments" / "notes"), None) is None
    assert len(_read(tmp_path / "segments")[0]) == 5


def test_rebuild_head_renames_what_the_stored_bytes_contradict():
    head, renamed = rebuild_head(
        [("Content-Length", "99"), ("Content-Encoding", "gzip"), ("Server", "a\r\nb")], b"abc"
    )
    assert renamed == ["Content-Length", "Content-Encoding"]
    assert head == (b"HTTP/1.0 200 OK\r\nX-Crawler-Content-Length: 99\r\n"
                    b"X-Crawler-Content-Encoding: gzip\r\nServer: a  b\r\n"
                    b"Content-Length: 3\r\n\r\n")  # fmt: skip
    head, renamed = rebuild_head([("Content-Length", "3")], b"abc")
    assert renamed == [] and head == b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n"


def test_damage_in_a_seq1_file_of_04_runs_to_its_end(tmp_path):
    pages = make.build_segment(str(tmp_path / "s"), 11, "0.4", "net")
    text = tmp_path / "s" / "fetcher_text" / "data"
    offsets = _offsets(text)
    raw = bytearray(text.read_bytes())
    struct.pack_into(">i", raw, offsets[2], struct.unpack_from(">i", raw, offsets[2])[0] + 1)
    text.write_bytes(bytes(raw))
    records, damages, _, _ = _read(tmp_path / "s")
    # SEQ1 has no sync hash: nothing to resync on, the rest of the file is damage (here the
    # record's value, not its class, then bytes that frame no record up to the end)
    assert damages[0].offset == offsets[2] and damages[-1].offset + damages[-1].length == len(raw)
    assert all(a.offset + a.length == b.offset for a, b in zip(damages, damages[1:], strict=False))
    assert all(d.path == str(text) for d in damages)
    assert [r.text for r in records] == [p.text for p in pages[:2]] + [None] * 9
    assert [r.payload for r in records] == [p.body for p in pages]


def test_a_fetchlist_in_another_order_is_not_joined(tmp_path):
    from crawlmill.formats.hadoop import nutch_legacy as nl

    pages = make.build_segment(str(tmp_path / "s"), 3, skip=("fetcher",))
    kind, entries = make.values(pages, "0.7")["fetchlist"]
    data, index = nl.encode_array_file(kind, entries[::-1], sync=make.SYNC)
    (tmp_path / "s" / "fetchlist" / "data").write_bytes(data)
    records, damages, _, warnings = _read(tmp_path / "s")
    assert damages == []
    assert [w.code for w in warnings] == ["fetchlist-mismatch", "fetchlist-mismatch"]
    assert [r.url for r in records] == [p.url for p in pages]  # the content's URLs
    assert "fetch_list_entry" in records[1].extras["nutch-legacy"]  # the middle one matches
    assert "fetch_list_entry" not in records[0].extras["nutch-legacy"]


def test_a_segment_only_generated_gives_its_fetchlist(tmp_path):
    pages = make.build_segment(
        str(tmp_path / "s"), 2, skip=("fetcher", "content", "parse_text", "parse_data")
    )
    records, damages, checks, _ = _read(tmp_path / "s")
    assert damages == []
    assert sorted(c.path.rsplit("/s/", 1)[1] for c in checks if not c.ok) == [
        "content", "fetcher", "parse_data", "parse_text"
    ]  # fmt: skip
    assert [(r.kind, r.url, r.payload) for r in records] == [("resource", p.url, b"") for p in pages]
