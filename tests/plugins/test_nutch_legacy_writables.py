"""The Nutch 0.4-0.7 classes as Writables (plugins/writables/nutch_legacy.py): the plain
``sequencefile`` reader, ``crawlmill inspect`` and ``crawlmill get`` decode the ArrayFiles of
an old segment (fixtures/nutch-legacy), SequenceFile -> SequenceFile stays byte-exact, and the
names Nutch 1.x shares (``org.apache.nutch.protocol.Content``, the ``Content`` alias, ...) go
to the layout the bytes are in."""

from __future__ import annotations

import importlib.util
import io
import json
import struct
import sys

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry
from crawlmill.formats.hadoop import nutch as n
from crawlmill.formats.hadoop import nutch_legacy as nl
from crawlmill.formats.hadoop.sequencefile import (
    Entry,
    SequenceFileWriter,
    iter_entries,
    read_header,
)
from crawlmill.plugins.writables.lookup import find_writable
from crawlmill.plugins.writables.nutch import NutchWritable
from crawlmill.plugins.writables.nutch_legacy import AliasWritable, LegacyWritable

from tests.conftest import FIXTURES

_spec = importlib.util.spec_from_file_location(
    "nutch_legacy_make_segment_w", FIXTURES / "nutch-legacy" / "make_segment.py"
)
make = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = make
_spec.loader.exec_module(make)

SEGMENT = FIXTURES / "nutch-legacy" / "20050301120000"
SUBS = {"fetchlist": "FetchListEntry", "fetcher": "FetcherOutput", "content": "Content",
        "parse_text": "ParseText", "parse_data": "ParseData"}  # fmt: skip


def _entries(path):
    data = path.read_bytes()
    return [e for e in iter_entries(data, read_header(data)) if isinstance(e, Entry)]


@pytest.mark.parametrize("sub", SUBS)
def test_inspect_names_the_old_class_and_reads_every_value(capsys, sub):
    assert main(["inspect", str(SEGMENT / sub / "data"), "-n", "12"]) == 0
    out = capsys.readouterr().out
    what = next(line for line in out.splitlines() if line.startswith("what it is:"))
    assert "Nutch 0.4-0.7" in what or "Nutch 0.5-0.7" in what
    assert "value-not-its-class" not in out and "12 record(s) shown" in out


@pytest.mark.parametrize("sub", SUBS)
def test_convert_keeps_every_byte_and_the_reader_decodes_the_old_values(tmp_path, sub):
    src = SEGMENT / sub / "data"
    out = tmp_path / "out"
    args = ["convert", str(src), "--from", "sequencefile", "--to", "sequencefile", "-o", str(out)]
    assert main([*args, "--workers", "1"]) == 0
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert (report["read"], report["written"], report["damages"], report["warnings"]) == (12, 12, [], {})
    (copy,) = [p for p in out.iterdir() if p.is_file()]
    assert copy.read_bytes() == src.read_bytes()
    kind = SUBS[sub]
    with open_reader(str(src), "sequencefile") as records:
        got = [r.extras["sequencefile"]["decoded"] for r in records]
        assert records.warnings == []
    expect = [nl.to_plain(nl.decode_value(kind, e.value)) for e in _entries(src)]
    assert [d["value"] for d in got] == expect
    assert {d["value"]["@"] for d in got} == {"nutch-legacy." + kind}
    assert [d["key"] for d in got] == list(range(12))


def test_get_prints_the_decoded_fetcher_output(capsys):
    assert main(["get", str(SEGMENT / "fetcher"), "3", "--json"]) == 0
    value = json.loads(capsys.readouterr().out)["value"]
    assert value["@"] == "nutch-legacy.FetcherOutput"
    assert value["entry"]["page"]["url"] == "http://www.example.com/page3.html"
    assert value["protocol_status"]["code"] == 1 and value["fetch_date"] == make.BASE_MS + 3000


@pytest.mark.parametrize(("flavour", "names"), [("0.7", "org"), ("0.5", "net"), ("0.4", "net"), ("0.6", "alias")])
def test_every_class_name_style_decodes_as_the_old_class(tmp_path, flavour, names):
    folder = tmp_path / "seg"
    make.build_segment(str(folder), 11, flavour, names)
    for data in sorted(folder.glob("*/data")):
        header = read_header(data.read_bytes())
        with open_reader(str(data), "sequencefile") as records:
            values = [r.extras["sequencefile"]["decoded"]["value"] for r in records]
            assert records.warnings == [], (data, header.value_class)
        assert len(values) == 11
        kind = nl.class_kind(header.value_class)
        if header.value_class == n.PARSE_TEXT:  # 1.x's ParseText version 1 is this layout
            assert {v["@"] for v in values} == {"ParseText"}
            olds = [nl.decode_value(kind, e.value) for e in _entries(data)]
            assert [v["text"] for v in values] == [o.text for o in olds]
        else:
            assert {v["@"] for v in values} == {"nutch-legacy." + kind}


def test_which_writable_answers_to_which_name():
    registry = Registry.load()
    table = {
        "FetcherOutput": "FetcherOutput", "org.apache.nutch.fetcher.FetcherOutput": "FetcherOutput",
        "net.nutch.fetcher.FetcherOutput": "FetcherOutput", "Page": "Page",
        "org.apache.nutch.db.Page": "Page", "net.nutch.pagedb.FetchListEntry": "FetchListEntry",
        "org.apache.nutch.db.Link": "Link", "net.nutch.fetcher.FetcherContent": "FetcherContent",
        "net.nutch.protocol.Content": "Content", "net.nutch.parse.ParseData": "ParseData",
    }  # fmt: skip
    for name, kind in table.items():
        for cls in (find_writable(name), registry.writable(name)):
            assert issubclass(cls, LegacyWritable) and cls.kind == kind, name
    for alias in ("Content", "ParseText", "ParseData"):
        for cls in (find_writable(alias), registry.writable(alias)):
            assert issubclass(cls, AliasWritable) and cls.name == alias
    for full in (n.CONTENT, n.PARSE_TEXT, n.PARSE_DATA, n.CRAWL_DATUM):  # Nutch 1.x keeps its names
        for cls in (find_writable(full), registry.writable(full)):
            assert issubclass(cls, NutchWritable) and cls.name == full


def _sample_values(samples, sub, cls_name):
    seg = samples / "apache-nutch" / "testcrawl" / "segments" / "20060919213635"
    entries = _entries(seg / sub / "part-00000" / "data")
    assert read_header((seg / sub / "part-00000" / "data").read_bytes()).value_class == cls_name
    return entries


@pytest.mark.parametrize("alias", ["Content", "ParseData"])
def test_an_alias_reads_nutch_08_bytes_as_the_1x_class(samples, alias):
    full = n.ALIASES[alias]
    sub = {"Content": "content", "ParseText": "parse_text", "ParseData": "parse_data"}[alias]
    entries = _sample_values(samples, sub, full)
    assert entries
    writable = find_writable(alias)()
    for e in entries:
        value = writable.read(e.value)
        assert not value["@"].startswith("nutch-legacy.")
        assert value == find_writable(full)().read(e.value)
        assert writable.write(value) == e.value


def test_parse_text_version_1_is_one_layout_in_both_eras_and_version_2_is_1x(samples):
    # Nutch 0.8 still wrote ParseText version 1 (gzip), the 0.5-0.7 layout: both read it alike
    entries = _sample_values(samples, "parse_text", n.PARSE_TEXT)
    alias, modern = find_writable("ParseText")(), find_writable(n.PARSE_TEXT)()
    for e in entries:
        old, new = alias.read(e.value), modern.read(e.value)
        assert (old["@"], new["@"]) == ("nutch-legacy.ParseText", "ParseText")
        assert old["text"] == new["text"] and alias.write(old) == modern.write(new) == e.value
    from crawlmill.formats.hadoop.nutch_parse import ParseText

    raw = n.encode_nutch(n.PARSE_TEXT, ParseText("caf\u00e9 text", 2))  # version 2: Text, 1.x only
    value = alias.read(raw)
    assert value == {"@": "ParseText", "text": "caf\u00e9 text", "version": 2}
    assert alias.write(value) == raw


@pytest.mark.parametrize("alias", ["Content", "ParseData"])
def test_the_1x_names_read_old_bytes_only_when_no_1x_value_reads(alias):
    (entry, *_) = _entries(SEGMENT / {"Content": "content", "ParseText": "parse_text",
                                      "ParseData": "parse_data"}[alias] / "data")  # fmt: skip
    modern = find_writable(n.ALIASES[alias])()
    value = modern.read(entry.value)
    assert value["@"] == "nutch-legacy." + alias
    assert modern.write(value) == entry.value
    with pytest.raises(ValueError, match="neither layout"):
        modern.read(entry.value + b"\x00")


def _values():
    md5 = bytes(range(16))
    page = nl.Page("http://a.example/", md5, 5, 1, 30, 2, 1.5, 0.5, 4)
    entry = nl.FetchListEntry(True, page, ["a", "b"], 2)
    yield "Page", page
    for v in (1, 2, 3):
        yield "Page", nl.Page("http://a.example/", md5, 5, 1, 30, 2 if v > 2 else 0, 1.5 if v > 1 else 1.0, 1.0, v)
    yield "FetchListEntry", entry
    yield "FetcherOutput", nl.FetcherOutput(entry, md5, None, nl.ProtocolStatus(14, 7, ["x", None]), None, [], 9, 5)
    yield "FetcherOutput", nl.FetcherOutput(entry, md5, 2, None, "t", [nl.Outlink("http://b/", "B")], 9, 3)
    yield "Content", nl.Content("http://a/", "http://a/", b"\x00\xff body", "text/html", [("K", "V")])
    yield "Content", nl.Content("http://a/", "http://a/", None, "", [])
    yield "ParseText", nl.ParseText("caf\u00e9")
    yield "ParseData", nl.ParseData("T", [nl.Outlink("http://b/", "x")], [("k", "v")], nl.ParseStatus(2, 3, ["e"]), 2)
    yield "ParseData", nl.ParseData("T", [], [], None, 1)
    yield "FetcherContent", nl.FetcherContent(b"abc")
    yield "FetcherText", nl.FetcherText("text")
    for v in (1, 4, 5):
        yield "Link", nl.Link(md5, "http://c/", "anchor", 77 if v > 4 else 0, v > 3, v)


@pytest.mark.parametrize(("kind", "value"), list(_values()))
def test_every_old_class_reads_to_plain_data_and_writes_the_same_bytes(kind, value):
    raw = nl.encode_value(kind, value)
    assert nl.decode_value(kind, raw) == value
    writable = find_writable(nl.java_names(kind)[0])()
    plain = writable.read(raw)
    assert plain == nl.to_plain(value) and plain["@"] == "nutch-legacy." + type(value).__name__
    assert nl.from_plain(plain) == value
    assert writable.write(plain) == raw and writable.write(value) == raw
    assert writable.read_at(b"xy" + raw + b"z", 2) == (plain, 2 + len(raw))
    with pytest.raises(ValueError):
        writable.read(raw + b"\x00")


def test_link_bytes_follow_the_version_5_layout():
    md5 = bytes(range(16))
    raw = nl.encode_value("Link", nl.Link(md5, "u", "a", 3, True, 5))
    assert raw == b"\x05" + md5 + b"\x00\x01u" + struct.pack(">q", 3) + b"\x00\x01a\x01"
    assert nl.encode_value("Link", nl.Link(md5, "u", "a", 0, False, 3)) == b"\x03" + md5 + b"\x00\x01u\x00\x01a"


def test_a_webdb_pages_by_url_mapfile_copies_through_the_cli(tmp_path):
    buf = io.BytesIO()
    w = SequenceFileWriter(buf, "UTF8", "Page", version=2, sync=bytes(16), sync_interval=None)
    pages = [nl.Page(f"http://a.example/{i}", bytes([i]) * 16, i, 0, 30, i, 1.0, 1.0, 4) for i in range(3)]
    for p in pages:
        w.append(nl.write_utf8(p.url), nl.encode_value("Page", p), sync=False)
    src = tmp_path / "pagesByURL.seq"
    src.write_bytes(buf.getvalue())
    out = tmp_path / "out"
    args = ["convert", str(src), "--from", "sequencefile", "--to", "sequencefile", "-o", str(out)]
    assert main([*args, "--workers", "1"]) == 0
    assert (out / "pagesByURL.seq").read_bytes() == src.read_bytes()
    with open_reader(str(src), "sequencefile") as records:
        got = [(r.url, r.extras["sequencefile"]["decoded"]["value"]) for r in records]
    assert got == [(p.url, nl.to_plain(p)) for p in pages]
