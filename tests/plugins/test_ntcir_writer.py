"""The ``ntcir`` writer: WARC captures (real Japanese pages, as EUC-JP, Shift_JIS, ISO-2022-JP
and UTF-8, and an English page) -> an NTCIR tree -> Records keeps URL, date, head and payload
bytes; the euc tree holds EUC-JP for Japanese pages only; ids by the documented order, the same
at 1 and 2 workers; a tree written again from its own reading keeps its ids, under both
``.meta`` syntaxes; the lists agree with the trees."""

from __future__ import annotations

from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.formats.ntcir.lists import ListItem, read_list
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests import helpers
from tests.helpers import warc_record  # noqa: F401  (the helpers module must import)
from tests.plugins.ntcir_tree import build_tree, real_pages

CHARSETS = ["EUC-JP", "Shift_JIS", "ISO-2022-JP", "UTF-8"]
CODECS = {"EUC-JP": "euc_jp", "Shift_JIS": "cp932", "ISO-2022-JP": "iso2022_jp", "UTF-8": "utf-8"}


def _warc(n: int, url: str, head: bytes, body: bytes, kind: str = "response") -> bytes:
    block = head + body
    return (
        (
            f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\n"
            f"WARC-Date: 2001-10-0{n % 9 + 1}T12:00:00Z\r\n"
            f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
            f"Content-Type: application/http; msgtype={kind}\r\nContent-Length: {len(block)}\r\n\r\n"
        ).encode()
        + block
        + b"\r\n\r\n"
    )


def make_input(folder: Path) -> tuple[Path, list[dict]]:
    """Two WARC files: Japanese pages in four charsets on three hosts, an English page,
    and a request (no capture)."""
    folder.mkdir()
    pages = []
    sources = real_pages(8)
    for i, (_url, _head, payload) in enumerate(sources):
        charset = CHARSETS[i % 4]
        text = payload.decode("euc_jp", "replace")
        body = text.encode(CODECS[charset], "replace")
        host = ["b.example.jp", "a.example.jp", "c.example.jp:8080"][i % 3]
        head = (
            f"HTTP/1.0 200 OK\r\nDate: Mon, 01 Oct 2001 12:00:0{i} GMT\r\n"
            f"Last-Modified: Sun, 30 Sep 2001 10:00:00 GMT\r\n"
            f"Content-Type: text/html; charset={charset}\r\n\r\n"
        ).encode()
        pages.append(
            {
                "url": f"http://{host}/p{i}",
                "head": head,
                "body": body,
                "charset": charset,
                "text": text,
            }
        )
    english = b"<html><title>Hello</title><body>plain &amp; simple</body></html>"
    pages.append({"url": "http://a.example.jp/en", "head": b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n",
                  "body": english, "charset": None, "text": None})  # fmt: skip
    records = [_warc(n, p["url"], p["head"], p["body"]) for n, p in enumerate(pages)]
    request = _warc(99, "http://a.example.jp/", b"GET / HTTP/1.0\r\n\r\n", b"", "request")
    (folder / "one.warc").write_bytes(b"".join(records[:5]))
    (folder / "two.warc").write_bytes(b"".join(records[5:]) + request)
    return folder, pages


def convert(src: Path, out: Path, *extra: str) -> tuple[int, dict]:
    result = helpers.convert(src, "ntcir", out, *extra)
    return result.exit_code, result.report


def read_tree(root: Path):
    records = []
    for unit in NtcirReader.discover(str(root), NtcirReader.Options()):
        with open_reader(unit, "ntcir") as found:
            records.extend(found)
    return records


def lists(root: Path, name: str) -> list[list[str]]:
    found = list(read_list((root / name).read_bytes(), name))
    assert all(isinstance(i, ListItem) for i in found), found
    return [list(i.fields) for i in found]


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".crawlmill" not in p.parts
    }


def test_warc_to_ntcir_and_back(tmp_path):
    src, pages = make_input(tmp_path / "in")
    code, report = convert(src, tmp_path / "nw", "--workers", "1")
    assert code == 3  # the request is quarantined, not lost
    assert report["quarantined"] == 1 and report["written"] == len(pages)
    records = read_tree(tmp_path / "nw")
    by_url = {r.url: r for r in records}
    assert sorted(by_url) == sorted(p["url"] for p in pages)
    for page in pages:
        record = by_url[page["url"]]
        assert record.payload == page["body"] and record.http_head == page["head"]
        assert record.extras["ntcir"]["fields"][1] == (
            "NW:DATE",
            b"Sun, 30 Sep 2001 10:00:00 GMT" if page["charset"] else b"",
        )
        if page["charset"]:
            assert record.date is not None and record.date.second == pages.index(page)
    # sites by host then port: a.example.jp:80, b.example.jp:80, c.example.jp:8080
    assert lists(tmp_path / "nw", "sitelist") == [
        ["000001", "http", "a.example.jp", "80"],
        ["000002", "http", "b.example.jp", "80"],
        ["000003", "http", "c.example.jp", "8080"],
    ]
    doclist = lists(tmp_path / "nw", "doclist")
    assert [d for d, _ in doclist] == [f"NW{n:09d}" for n in range(1, len(pages) + 1)]
    assert doclist[0][1] == "http://a.example.jp/p1"  # site 1, its first page in input order
    assert {r.doc_id for r in records} == {d for d, _ in doclist}


def test_the_euc_tree_is_euc_jp_for_japanese_pages_only(tmp_path):
    src, pages = make_input(tmp_path / "in")
    convert(src, tmp_path / "nw")
    meta_url = {}
    for meta in (tmp_path / "nw" / "raw").rglob("*.meta"):
        url = meta.read_bytes().split(b"<NW:URL>")[1].split(b"</NW:URL>")[0].decode()
        meta_url[url] = meta.relative_to(tmp_path / "nw" / "raw").with_suffix(".data")
    for page in pages:
        rel = meta_url[page["url"]]
        euc = (tmp_path / "nw" / "euc" / rel).read_bytes()
        cooked = (tmp_path / "nw" / "cooked" / rel).read_bytes()
        if page["charset"] is None:
            assert euc == page["body"]
            assert cooked == b"Helloplain & simple"
            continue
        if page["charset"] == "Shift_JIS":
            # made from EUC-JP pages: back to their bytes, although cp932 decodes six
            # characters to Microsoft's code points
            assert euc == page["text"].encode("euc_jp", "replace")
        else:  # what the page holds (ISO-2022-JP has no half-width katakana: "?" there)
            text = page["body"].decode(CODECS[page["charset"]])
            assert euc == text.encode("euc_jp", "replace"), page["charset"]
        text = cooked.decode("euc_jp")
        assert any("\u3040" <= ch <= "\u30ff" for ch in text) and "<script" not in text


@pytest.mark.parametrize("syntax", ["tagged", "lines"])
def test_a_tree_written_again_keeps_its_ids(tmp_path, syntax):
    build_tree(tmp_path / "nw", syntax)
    first = read_tree(tmp_path / "nw")
    code, _ = convert(tmp_path / "nw", tmp_path / "again", "--option", f"meta_syntax={syntax}")
    assert code == 0
    second = read_tree(tmp_path / "again")
    assert [(r.doc_id, r.url, r.payload, r.http_head) for r in second] == [
        (r.doc_id, r.url, r.payload, r.http_head) for r in first
    ]
    for name in ("sitelist", "doclist", "linklist", "duplist"):
        assert lists(tmp_path / "again", name) == lists(tmp_path / "nw", name), name
    raw = files(tmp_path / "nw")
    again = files(tmp_path / "again")
    assert {k: v for k, v in again.items() if k.startswith("raw/")} == {
        k: v for k, v in raw.items() if k.startswith("raw/")
    }


def test_same_tree_at_1_and_2_workers(tmp_path):
    src, _ = make_input(tmp_path / "in")
    convert(src, tmp_path / "w1", "--workers", "1")
    convert(src, tmp_path / "w2", "--workers", "2")
    assert files(tmp_path / "w1") == files(tmp_path / "w2")


def test_a_changed_content_type_reaches_the_meta_and_missing_fields_are_warned(
    tmp_path, monkeypatch
):
    from tests.helpers import put_fake_plugins_on_path

    put_fake_plugins_on_path(monkeypatch)
    src, pages = make_input(tmp_path / "in")
    code, report = convert(
        src, tmp_path / "nw", "--plugin", "cm_fake", "--filter", "kind", "keep=response",
        "--filter", "fake-set", "content_type=text/x-test", "charset=utf-8",
    )  # fmt: skip
    assert code == 0
    metas = list((tmp_path / "nw" / "raw").rglob("*.meta"))
    assert len(metas) == len(pages)
    assert all(b"<NW:CTYPE>text/x-test; charset=utf-8</NW:CTYPE>" in m.read_bytes() for m in metas)
    # a .meta without NW:URL: the page is read, with a warning naming the file
    victim = metas[0]
    victim.write_bytes(
        b"".join(x for x in victim.read_bytes().splitlines(True) if b"NW:URL" not in x)
    )
    units = NtcirReader.discover(str(tmp_path / "nw"), NtcirReader.Options())
    found, warnings = [], []
    for unit in units:
        with open_reader(unit, "ntcir") as records:
            found.extend(records)
            warnings.extend(records.warnings)
    assert len(found) == len(pages)
    (warning,) = [w for w in warnings if w.code == "meta-field-missing"]
    assert str(victim) in warning.message and "NW:URL" in warning.message
