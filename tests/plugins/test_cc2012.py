"""``cc2012``: a 2012 parse-output segment read as one collection (ARC records joined with
their metadata JSON and text by URL, failures as records of their own, through the CLI to WARC
read by warcio) and written from any input (WARC -> cc2012 -> WARC keeps URL, date, headers
and payload; the ARC files read by warcio; the input's own JSON kept when it has one)."""

from __future__ import annotations

import json
import shutil

import pytest
from crawlmill import open_reader
from crawlmill.formats.cc2012.metadata import page_metadata, page_text
from crawlmill.formats.cc2012.segment import VARIANTS, OrderedJoin, SegmentFiles, iter_pairs
from crawlmill.formats.hadoop.sequencefile import read_header

from tests import helpers
from tests.conftest import SAMPLES, need

ARC12 = SAMPLES / "commoncrawl-arc2warc-conversion/test/resources/arc"
REAL = ARC12 / "crawl-2012_1341690165832_1341699469441_1478-7224105.arc.gz"
EXAMPLE_ARC = SAMPLES / "webrecorder-warcio/test/data/example.arc.gz"
SYNTH = SAMPLES / "cc2012-synthetic"
PARSEME = SAMPLES / "real-world-2026-11/N0taN3rd-node-warc/test__files__parseMe.warc.gz"
FAIL = {"attempt_time": 1341699469000, "disposition": "FAILURE",
        "failure_reason": "DNSFailure", "failure_detail": "no such host"}  # fmt: skip


def compact(data) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def captures(path):
    with open_reader(str(path)) as records:
        return [r for r in records if r.kind == "response"]


def write_partition(folder, n, entries, variant="text-gzip"):
    """``metadata-NNNNN`` and ``textData-NNNNN`` of ``(url, json, text)`` entries."""
    with open(folder / f"metadata-{n:05d}", "wb") as meta, \
            open(folder / f"textData-{n:05d}", "wb") as text:  # fmt: skip
        files = SegmentFiles(meta, text, VARIANTS[variant])
        for url, js, txt in entries:
            if js is not None:
                files.add_metadata(url, js)
            files.add_text(url, txt)
        files.close()


def make_segment(folder, arcs, extra_before=(), extra_after=(), variant="text-gzip"):
    """A segment partition per ``(arc file, partition)``: the ARC copied as
    ``<ts>_<n>.arc.gz``, metadata made by formats/cc2012/metadata.py for each capture, a
    failure before them, ``extra_*`` entries around them, textData for each page."""
    folder.mkdir()
    made = {}
    for ts, (arc, n) in enumerate(arcs, start=1341699469441):
        shutil.copy(arc, folder / f"{ts}_{n}.arc.gz")
        entries = [(b"http://failed.example/%d" % n, compact(FAIL), b"")]
        entries += list(extra_before)
        for r in captures(arc):
            data = page_metadata(r.url, r.payload, r.http_head, ip=r.ip, fetched=r.date)
            entries.append((r.url.encode(), compact(data), page_text(r.payload, "utf-8").encode()))
        entries += list(extra_after)
        write_partition(folder, n, entries, variant)
        made[n] = entries
    return made


def read_segment(seg, **options):
    """Records, warnings and damages of every partition of the segment folder ``seg``."""
    from crawlmill.plugins.readers.cc2012 import Cc2012Reader

    assert Cc2012Reader.sniff(str(seg), b"") == 0.9
    got, warnings, damages = [], [], []
    for unit in Cc2012Reader.discover(str(seg), Cc2012Reader.Options(**options)):
        with open_reader(unit, "cc2012", **options) as records:
            got += list(records)
            warnings += list(records.warnings)
            damages += list(records.damages)
    return got, warnings, damages


def convert(src, out, to, *extra) -> tuple[int, dict]:
    result = helpers.convert(src, to, out, *extra)
    return result.exit_code, result.report


def warc_records(folder):
    warcio = need("warcio.archiveiterator")
    out = []
    for path in sorted(folder.glob("*.warc.gz")):
        with open(path, "rb") as fh:
            for rec in warcio.ArchiveIterator(fh):
                out.append((rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI"),
                            rec.content_stream().read(), rec))  # fmt: skip
    return out


def test_a_segment_converts_to_warc_with_the_json_beside_each_response(tmp_path, capsys):
    lone = (b"http://no-arc.example/", compact({**FAIL, "disposition": "SUCCESS"}), b"alone")
    made = make_segment(tmp_path / "seg", [(REAL, 1478), (EXAMPLE_ARC, 7)], extra_after=[lone])
    code, report = convert(tmp_path / "seg", tmp_path / "w", "warc")
    assert code == 0, capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "w").glob("*.warc.gz")) == [
        "partition-00007.warc.gz", "partition-01478.warc.gz"]  # fmt: skip
    found = warc_records(tmp_path / "w")
    # every response is followed by the metadata record of its URL, with the JSON as stored
    for entries in made.values():
        stored = {url.decode(): js for url, js, _ in entries}
        responses = [i for i, x in enumerate(found) if x[0] == "response"]
        for i in responses:
            kind, url, _, rec = found[i + 1]
            if url in stored:
                assert kind == "metadata" and found[i + 1][2] == stored[url]
                assert rec.rec_headers.get_header("Content-Type") == "application/json"
        metadata = {x[1]: x[2] for x in found if x[0] == "metadata" and x[1] in stored}
        assert metadata == stored  # failures and the entry without ARC record too
    payloads = {x[1]: x[2] for x in found if x[0] == "response"}
    for arc in (REAL, EXAMPLE_ARC):
        for r in captures(arc):
            assert payloads[r.url] == r.payload
    assert report["quarantined"] == 0 and report["read"] == report["written"] - 2


def test_records_carry_the_text_and_links_and_failures_stand_alone(tmp_path):
    make_segment(tmp_path / "seg", [(REAL, 1478)])
    got, warnings, _ = read_segment(tmp_path / "seg")
    kinds = [(r.kind.value, r.url) for r in got]
    (page,) = captures(REAL)
    assert kinds == [
        ("metadata", "filedesc://1341699469441_1478.arc.gz"),
        ("metadata", "http://failed.example/1478"),
        ("response", page.url),
        ("metadata", page.url),
    ]
    meta = got[3]
    data = json.loads(meta.payload)
    assert meta.text and meta.text == page_text(page.payload, "utf-8")
    assert [o.url for o in meta.outlinks] == [x["href"] for x in data["content"]["links"]]
    assert got[1].extras["cc_metadata"]["failure_reason"] == "DNSFailure"
    assert got[1].text is None and not warnings


def test_the_synthetic_segments_are_joined_whole(tmp_path):
    for variant in ("text-gzip", "textbytes-snappy"):
        seg = tmp_path / variant
        shutil.copytree(SYNTH / variant, seg)
        data = (seg / "metadata-00000").read_bytes()
        entries = list(iter_pairs(data, read_header(data)))
        texts = dict(
            (k, v) for k, v, _ in iter_pairs((seg / "textData-00000").read_bytes(),
                                             read_header((seg / "textData-00000").read_bytes()))
        )  # fmt: skip
        got, warnings, damages = read_segment(seg)
        assert not warnings and not damages
        assert [r.url.encode() for r in got] == [k for k, _, _ in entries]
        assert [r.payload for r in got] == [v for _, v, _ in entries]
        assert [r.text.encode() if r.text else None for r in got] == [
            texts.get(k) for k, _, _ in entries
        ]
        assert sum(r.text is not None for r in got) == len(texts) == 160


def test_the_join_holds_a_bounded_window_and_loses_nothing(tmp_path):
    items = [(b"k%02d" % i, b"v" * 10, i) for i in range(100)]  # 13 bytes each
    join = OrderedJoin(items, max_bytes=50)
    assert join.take(b"k03") == (b"v" * 10, 3)  # k00-k02 held
    assert join.take(b"k01") == (b"v" * 10, 1)  # from the window
    assert join.take(b"k90") is None  # looks ahead one window only; the oldest slid out
    passed = join.take_passed()
    assert passed and join.evicted == len(passed) and passed[0][2] == 0
    rest = list(join.rest())
    assert sorted(x[2] for x in passed + rest) == [i for i in range(100) if i not in (1, 3)]
    out_of_order = OrderedJoin(reversed(items), max_bytes=10_000, slide=False)
    assert all(out_of_order.take(b"k%02d" % i) == (b"v" * 10, i) for i in range(100))
    no_text = OrderedJoin(items, max_bytes=30, slide=False)
    assert no_text.take(b"missing") is None and no_text.take(b"k00") == (b"v" * 10, 0)
    assert no_text.evicted == 0 and len(list(no_text.rest())) == 99  # stopped at a full window
    failures = [(b"f%02d" % i, b"FAIL", i) for i in range(50)] + [(b"page", b"ok", 50)]
    join = OrderedJoin(failures, max_bytes=40, hold=lambda value: value != b"FAIL")
    rounds, passed, found = 0, [], join.take(b"page")
    while join.paused:  # failures come out a window at a time, never all held at once
        rounds += 1
        batch = join.take_passed()
        assert sum(len(k) + len(v) for k, v, _ in batch) <= 40 + 7
        passed += batch
        found = join.take(b"page")
    passed += join.take_passed()
    assert found == (b"ok", 50) and rounds > 5 and [x[2] for x in passed] == list(range(50))


def test_an_arc_capture_without_metadata_and_text_without_metadata_are_kept(tmp_path):
    seg = tmp_path / "seg"
    seg.mkdir()
    shutil.copy(REAL, seg / "1_3.arc.gz")
    write_partition(seg, 3, [(b"http://text-only.example/", None, b"orphan text")])
    got, warnings, _ = read_segment(seg)
    codes = [w.code for w in warnings]
    assert [r.kind.value for r in got] == ["metadata", "response", "conversion"]
    assert got[2].payload == b"orphan text"
    assert codes == ["cc2012-no-metadata", "cc2012-text-without-metadata"]


@pytest.mark.parametrize("variant", ["text-gzip", "textbytes-snappy"])
def test_warc_to_cc2012_to_warc_keeps_url_date_headers_payload(tmp_path, capsys, variant):
    code, report = convert(PARSEME, tmp_path / "c", "cc2012", "--filter", "kind",
                           "keep=response", "--option", f"variant={variant}")  # fmt: skip
    assert code == 0, capsys.readouterr().err
    names = sorted(p.name for p in (tmp_path / "c").iterdir() if not p.name.startswith("."))
    assert len(names) == 3 and names[1:] == ["metadata-00000", "textData-00000"]
    assert names[0].endswith("_0.arc.gz")
    want = captures(PARSEME)
    # the ARC file is read by warcio
    warcio = need("warcio.archiveiterator")
    with open(tmp_path / "c" / names[0], "rb") as fh:
        arc = [(r.rec_headers.get_header("WARC-Target-URI"), r.content_stream().read())
               for r in warcio.ArchiveIterator(fh, arc2warc=True) if r.rec_type == "response"]  # fmt: skip
    assert [x for x in arc if x[0].startswith("http")] == [
        (r.url, r.payload) for r in want if r.url.startswith("http")
    ]  # warcio reads an ARC record of another scheme as a resource, HTTP head included
    # the SequenceFiles hold the generated JSON of every capture, in the variant's classes
    header = read_header((tmp_path / "c" / "metadata-00000").read_bytes())
    assert header.key_class == VARIANTS[variant].key_class
    data = (tmp_path / "c" / "metadata-00000").read_bytes()
    meta = [(k.decode(), json.loads(v)) for k, v, _ in iter_pairs(data, header)]
    assert [u for u, _ in meta] == [r.url for r in want]
    assert all(
        m["http_result"] == int(r.http_head.split()[1])
        for (_, m), r in zip(meta, want, strict=True)
    )
    # back to WARC: URL, date, HTTP head and payload of every response
    code, _ = convert(tmp_path / "c", tmp_path / "w", "warc")
    assert code == 0, capsys.readouterr().err
    found = warc_records(tmp_path / "w")
    back = [x[3] for x in found if x[0] == "response"]
    assert len(back) == len(want)
    for rec, r in zip(back, want, strict=True):
        assert rec.rec_headers.get_header("WARC-Target-URI") == r.url
        assert rec.rec_headers.get_header("WARC-Date") == r.date.strftime("%Y-%m-%dT%H:%M:%SZ")
        if r.url.startswith("http"):
            assert rec.http_headers.get_statuscode() == r.http_head.split()[1].decode()
    with open_reader(str(tmp_path / "w" / "partition-00000.warc.gz")) as records:
        again = [r for r in records if r.kind == "response"]
    assert [(r.url, r.date, r.http_head, r.payload) for r in again] == [
        (r.url, r.date.replace(microsecond=0), r.http_head, r.payload) for r in want
    ]
    jsons = [x[2] for x in found if x[0] == "metadata" and x[1] and not x[1].startswith("filedesc")]
    assert [json.loads(j) for j in jsons] == [m for _, m in meta]


def test_the_inputs_own_json_is_written_again(tmp_path, capsys):
    made = make_segment(tmp_path / "seg", [(REAL, 1478)])
    code, _ = convert(tmp_path / "seg", tmp_path / "w", "warc")
    assert code == 0
    for src, out in ((tmp_path / "seg", tmp_path / "c1"), (tmp_path / "w", tmp_path / "c2")):
        # segment -> segment; WARC (from it, its warcinfo first) -> segment, the ARC filedesc
        # as the filedesc
        code, report = convert(src, out, "cc2012")
        assert code == 0, capsys.readouterr().err
        assert report["quarantined"] == 0 and report["read"] == report["written"]
        data = (out / "metadata-00000").read_bytes()
        got = [(k, v) for k, v, _ in iter_pairs(data, read_header(data))]
        # the JSON bytes as stored, the captures' with the archiveInfo of the ARC written
        # appended (the stored JSON had none)
        assert [k for k, _ in got] == [url for url, _, _ in made[1478]]
        for (_, js), (_, stored, _) in zip(got, made[1478], strict=True):
            if b"FAILURE" in stored:
                assert js == stored
            else:
                assert js.startswith(stored[:-1] + b',"archiveInfo":{"arcSourceSegmentId":')
        text = (out / "textData-00000").read_bytes()
        texts = [(k, v) for k, v, _ in iter_pairs(text, read_header(text))]
        if out.name == "c1":  # the text as stored
            assert texts == [(url, t) for url, _, t in made[1478] if t]
        else:  # a WARC keeps no text: made from the page, as the JSON says it parsed it
            assert [k for k, _ in texts] == [url for url, _, t in made[1478] if t]
            assert all(v for _, v in texts)


def test_a_capture_the_arc_writer_refuses_gets_no_metadata(tmp_path):
    from datetime import UTC, datetime

    from crawlmill.core import InputFile, Record, RecordKind, WriteContext
    from crawlmill.plugins.writers.cc2012 import Cc2012Writer

    refused = []
    ctx = WriteContext(InputFile(str(tmp_path / "in.warc"), "in.warc"), 1,
                       lambda rel: open(tmp_path / rel, "wb"),  # noqa: SIM115
                       lambda record, why: refused.append((record.url, why)))  # fmt: skip
    writer = Cc2012Writer()
    writer.open(ctx)
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    good = Record(kind=RecordKind.RESPONSE, url="http://a/", http_head=head,
                  date=datetime(2012, 7, 7, tzinfo=UTC), payload=b"<title>a</title>")  # fmt: skip
    for record in (good, good.evolve(url="http://b/\nnewline"), good.evolve(url="http://c/")):
        writer.write(record)
    writer.close()
    data = (tmp_path / "metadata-00000").read_bytes()
    assert [k for k, _, _ in iter_pairs(data, read_header(data))] == [b"http://a/", b"http://c/"]
    assert [url for url, _ in refused] == ["http://b/\nnewline"]
    assert (tmp_path / "1341619200000_0.arc.gz").is_file()


def test_a_metadata_value_that_is_no_json_quarantines_the_files_block(tmp_path):
    """A metadata entry that is no JSON object is damage whose bytes are the input's own at
    the offset it names (the compressed block holding it: the 2012 files are BLOCK), so the
    value can be recovered; the other entries are still joined."""
    seg = tmp_path / "seg"
    make_segment(seg, [(EXAMPLE_ARC, 0)], extra_after=[(b"http://bad.example/", b"not json", b"")])
    meta = (seg / "metadata-00000").read_bytes()
    code, report = convert(seg, tmp_path / "out", "warc")
    assert code == 3, report
    damage = [d for d in report["damages"] if d["code"] == "bad-json-value"]
    assert len(damage) == 1 and damage[0]["offset"] >= read_header(meta).length
    found = []
    for index in (tmp_path / "out" / ".crawlmill" / "quarantine").rglob("*.jsonl"):
        blobs = index.with_suffix(".bin").read_bytes()
        for entry in map(json.loads, index.read_text().splitlines()):
            if entry.get("code") == "bad-json-value":
                found.append(blobs[entry["bin_offset"] : entry["bin_offset"] + entry["bin_length"]])
                assert found[-1] == meta[entry["offset"] : entry["offset"] + len(found[-1])]
    (blob,) = found
    assert blob
    assert b"not json" not in blob  # the block as stored (gzip), not the inflated value
