"""Facts of the NTCIR NW100G-01 README.data checked with trees and WARCs built here (issue 19):
each test quotes the README line it checks (../shared/specs/source-docs/
ntcir-nw100g-01-readme-data.txt)."""

from __future__ import annotations

import json
from pathlib import Path

from crawlmill import open_reader
from crawlmill.core.cli import main
from crawlmill.formats.ntcir_lists import ListItem, read_list, write_list
from crawlmill.formats.ntcir_meta import CTYPE, DATE, DOCID, HTTPH, URL, parse_meta, write_meta
from crawlmill.plugins.readers.ntcir import NtcirReader

JA = "日本語のページ、カフェ"


def warc(records: list[tuple[str, bytes, bytes]]) -> bytes:
    """A WARC/1.0 file of response records ``(url, http head, body)``."""
    out = b""
    for n, (url, head, body) in enumerate(records):
        block = head + body
        out += (
            (
                f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {url}\r\n"
                f"WARC-Date: 2002-10-01T12:00:0{n % 10}Z\r\n"
                f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
                f"Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(block)}\r\n\r\n"
            ).encode()
            + block
            + b"\r\n\r\n"
        )
    return out


def head(ctype: str = "text/html", extra: str = "") -> bytes:
    return f"HTTP/1.0 200 OK\r\nContent-Type: {ctype}\r\n{extra}\r\n".encode()


def convert(src: Path, out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["convert", str(src), "--to", "ntcir", "-o", str(out), "--progress", "never",
                 *extra])  # fmt: skip
    return code, json.loads((out / ".crawlmill" / "report.json").read_text())


def lists(root: Path, name: str) -> list[list[str]]:
    found = list(read_list((root / name).read_bytes(), name))
    assert all(isinstance(i, ListItem) for i in found), found
    return [list(i.fields) for i in found]


def read_tree(root: Path, **options) -> list:
    records = []
    for unit in NtcirReader.discover(str(root), NtcirReader.Options(**options)):
        with open_reader(unit, "ntcir", **options) as found:
            records.extend(found)
    return records


def one_page_tree(root: Path, fields: list, raw: bytes, euc: bytes) -> Path:
    """A tree of one site, one page (``0001``) with ``.meta`` fields ``fields``."""
    for tree, data in (("raw", raw), ("euc", euc)):
        folder = root / tree / "00" / "0000" / "000001"
        folder.mkdir(parents=True)
        (folder / "0001.data").write_bytes(data)
        (folder / "0001.meta").write_bytes(write_meta(fields))
    (root / "sitelist").write_bytes(write_list("sitelist", [["000001", "http", "a.jp", "80"]]))
    url = dict(fields)[URL].decode()
    (root / "doclist").write_bytes(write_list("doclist", [["NW000000001", url]]))
    (root / "targetlist").write_bytes(write_list("targetlist", [["NW000000001", url]]))
    return root


def test_payload_euc_is_labelled_euc_jp(tmp_path):
    """9. "the two-byte characters of JIS code set in web page data were converted to
    Japanese EUC code": the euc tree's bytes are EUC-JP whatever NW:CTYPE says of the raw
    page (there: Shift_JIS)."""
    page = f"<html><body>{JA}</body></html>"
    fields = [(DOCID, b"NW000000001"), (DATE, b""), (CTYPE, b"text/html; charset=Shift_JIS"),
              (URL, b"http://a.jp/"), (HTTPH, head("text/html; charset=Shift_JIS"))]  # fmt: skip
    root = one_page_tree(tmp_path / "nw", fields, page.encode("cp932"), page.encode("euc_jp"))
    (raw,) = read_tree(root)
    assert raw.charset == "cp932" and raw.payload.decode(raw.charset) == page
    (euc,) = read_tree(root, payload="euc")
    assert euc.charset == "euc_jp" and euc.payload.decode(euc.charset) == page
    assert euc.extras["ntcir"]["charset_stored"] == "cp932"


def test_meta_round_trip_keeps_the_httph_block(tmp_path):
    """8. "NW:HTTPH HTTP header returned from the server when the page was fetched": a block
    stored without the blank line that ends a head is written back as stored, not with one
    more line."""
    block = b"HTTP/1.0 200 OK\r\nDate: Tue, 01 Oct 2002 12:00:00 GMT\r\nContent-Type: text/html\r\n"
    fields = [(DOCID, b"NW000000001"), (DATE, b""), (CTYPE, b"text/html"),
              (URL, b"http://a.jp/"), (HTTPH, block)]  # fmt: skip
    root = one_page_tree(tmp_path / "nw", fields, b"<p>x</p>", b"<p>x</p>")
    (record,) = read_tree(root)
    assert record.http_head == block + b"\r\n"  # a head for the pipeline
    code, _ = convert(root, tmp_path / "again")
    assert code == 0
    (meta,) = (tmp_path / "again" / "raw").rglob("*.meta")
    assert parse_meta(meta.read_bytes()).get(HTTPH) == block
    assert meta.read_bytes() == (root / "raw/00/0000/000001/0001.meta").read_bytes()


def test_an_https_site_is_not_listed_as_http(tmp_path):
    """2. "The server type is fixed to "http". ... The port number is a TCP/IP port number
    with which the site accepted http access." An https site is no http site on port 443: it
    is listed with server type https, and the writer warns that NW100G-01 has no such site."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc([
        ("https://secure.example.jp/", head(), b"<p>s</p>"),
        ("http://plain.example.jp/", head(), b"<p>p</p>"),
    ]))  # fmt: skip
    code, report = convert(src, tmp_path / "nw")
    assert code == 0
    assert (tmp_path / "nw" / "sitelist").read_bytes() == (
        b"000001\thttp\tplain.example.jp\t80\n000002\thttps\tsecure.example.jp\t443\n"
    )
    assert report["warnings"]["sitelist-not-http"] == 1


def _quarantined(root: Path) -> list[dict]:
    lines = []
    for path in (root / ".crawlmill" / "quarantine").glob("*.jsonl"):
        lines.extend(json.loads(x) for x in path.read_text().splitlines())
    return lines


def _tree_pages(root: Path) -> dict[str, dict[str, bytes]]:
    """URL -> tree -> the page's ``.data`` bytes."""
    found: dict[str, dict[str, bytes]] = {}
    for meta in (root / "raw").rglob("*.meta"):
        url = parse_meta(meta.read_bytes()).get(URL).decode()
        rel = meta.relative_to(root / "raw").with_suffix(".data")
        found[url] = {t: (root / t / rel).read_bytes() for t in ("raw", "euc", "cooked")}
    return found


def test_cooked_and_euc_are_euc_jp_for_pages_that_are_not_japanese(tmp_path):
    """10. (7) "Α - Ω ==> corresponding greek upper case letters in EUC ... alphabets
    with diacritical marks ==> corresponding alphabets without diacritical marks ... others
    are replaced with a single space character"; 9. euc: "converted to Japanese EUC code".
    A UTF-8 and a Latin-1 page: euc and cooked are EUC-JP converted from the page's own
    charset; a character EUC-JP lacks is a numeric reference in euc (kept) and replaced as
    rule 7 says in cooked, counted, never "?"."""
    utf8 = "<html><body><p>Café crème €</p>&Alpha;&beta;</body></html>"
    latin = "<html><body><p>Ærø façade</p>&Alpha;&beta;</body></html>"
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc([
        ("http://a.example.jp/u", head("text/html; charset=UTF-8"), utf8.encode("utf-8")),
        ("http://a.example.jp/l", head("text/html; charset=ISO-8859-1"), latin.encode("latin-1")),
        ("http://a.example.jp/j", head("text/html; charset=Shift_JIS"),
         f"<p>{JA}</p>".encode("cp932")),
    ]))  # fmt: skip
    code, report = convert(src, tmp_path / "nw")
    assert code == 0
    pages = _tree_pages(tmp_path / "nw")
    u, latin1, ja = (pages[f"http://a.example.jp/{k}"] for k in "ulj")
    assert u["raw"] == utf8.encode("utf-8") and latin1["raw"] == latin.encode("latin-1")
    assert u["cooked"].decode("euc_jp") == "Cafe creme  Αβ"  # € has no entity: a space
    assert latin1["cooked"].decode("euc_jp") == "AEro facadeΑβ"
    assert ja["cooked"].decode("euc_jp") == JA
    assert b"?" not in u["cooked"] + latin1["cooked"] + u["euc"] + latin1["euc"]
    # euc: the page itself, in EUC-JP; what EUC-JP lacks kept as a numeric reference
    assert u["euc"] == b"<html><body><p>Caf&#233; cr&#232;me &#8364;</p>&Alpha;&beta;</body></html>"
    assert (
        latin1["euc"].decode("euc_jp")
        == "<html><body><p>&#198;r&#248; fa&#231;ade</p>&Alpha;&beta;</body></html>"
    )
    assert ja["euc"] == f"<p>{JA}</p>".encode("euc_jp")
    steps = json.dumps(report)
    assert '"cooked-unmappable": 6' in steps and '"euc-unmappable": 6' in steps
    # our own reader gives the cooked text back (read as EUC-JP)
    texts = {r.url: r.text for r in read_tree(tmp_path / "nw")}
    assert texts["http://a.example.jp/u"] == "Cafe creme  Αβ"


def test_aliaslist_names_the_site_of_the_alias_port_and_survives_a_round_trip(tmp_path):
    """3. "An aliased site name takes a form: ("http://"<host>(":"<port>)?). When the port
    number is "80", the port number part is often omitted. The site id necessarily
    corresponds to a single list item in the "sitelist"." A host with two ports is two sites;
    its alias on each port names that port's site, port kept; reading the tree and writing
    it again keeps aliaslist."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc([
        ("http://a.example.jp/", head(), b"<p>80</p>"),
        ("http://a.example.jp:8080/", head(), b"<p>8080</p>"),
        ("http://www.a.example.jp/x", head(), b"<p>alias 80</p>"),
        ("http://www.a.example.jp:8080/y", head(), b"<p>alias 8080</p>"),
    ]))  # fmt: skip
    code, _ = convert(
        src, tmp_path / "nw", "--option", 'aliases={"www.a.example.jp": "a.example.jp"}'
    )
    assert code == 0
    assert lists(tmp_path / "nw", "sitelist") == [
        ["000001", "http", "a.example.jp", "80"],
        ["000002", "http", "a.example.jp", "8080"],
    ]
    assert lists(tmp_path / "nw", "aliaslist") == [
        ["http://www.a.example.jp", "000001"],
        ["http://www.a.example.jp:8080", "000002"],
    ]
    records = {r.url: r for r in read_tree(tmp_path / "nw")}
    assert records["http://a.example.jp:8080/"].extras["ntcir"]["aliases"] == [
        "http://www.a.example.jp:8080"
    ]
    code, _ = convert(tmp_path / "nw", tmp_path / "again")
    assert code == 0
    assert (tmp_path / "again" / "aliaslist").read_bytes() == (
        tmp_path / "nw" / "aliaslist"
    ).read_bytes()
    assert (tmp_path / "again" / "sitelist").read_bytes() == (
        tmp_path / "nw" / "sitelist"
    ).read_bytes()


def test_the_six_lists_derived_from_a_warc(tmp_path):
    """From WARC captures every list is derived as the README defines it:
    5. duplist: "pages having a same content. When it was detected that a document had
    multiple URL's, URL's which are not included in the "doclist" file are included in this
    list"; 4. doclist: "only one URL which was found first is selected"; 7. linklist: "links
    from pages in the "doclist" to pages in the "targetlist""; 6. targetlist: "a superset of
    the "doclist". The difference between this list and the "doclist" simulates a set of
    documents which are linked from documents already crawled but are not crawled yet"; 2.
    "All the documents in the "doclist" were crawled from these sites" (the crawl's scope: a
    link to another site is no target)."""
    home = (b'<html><body><a href="/b">b</a> <a href="http://a.example.jp/new#top">new</a>'
            b'<a href="http://other.example.com/x">out</a> <img src="/img.png">'
            b'<a href="https://a.example.jp/s">https: another site</a>'
            b'<a href="/b-copy">copy</a></body></html>')  # fmt: skip
    same = b"<html><body>the same content</body></html>"
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc([
        ("http://a.example.jp/", head(), home),
        ("http://a.example.jp/b", head(), same),
        ("http://a.example.jp/b-copy", head(), same),  # same content: a duplicate URL
        ("http://a.example.jp/", head(), b"<p>captured again</p>"),  # the same URL: one doc
    ]))  # fmt: skip
    code, report = convert(src, tmp_path / "nw")
    assert code == 3 and report["quarantined"] == 2 and report["written"] == 2
    root = tmp_path / "nw"
    assert lists(root, "doclist") == [
        ["NW000000001", "http://a.example.jp/"],
        ["NW000000002", "http://a.example.jp/b"],
    ]
    assert lists(root, "duplist") == [["http://a.example.jp/b-copy", "NW000000002"]]
    assert lists(root, "linklist") == [
        ["NW000000001", "http://a.example.jp/b"],
        ["NW000000001", "http://a.example.jp/new"],
        ["NW000000001", "http://a.example.jp/img.png"],
        ["NW000000001", "http://a.example.jp/b-copy"],
    ]
    assert lists(root, "targetlist") == [
        ["NW000000001", "http://a.example.jp/"],
        ["NW000000002", "http://a.example.jp/b"],
        ["NW000000003", "http://a.example.jp/img.png"],
        ["NW000000004", "http://a.example.jp/new"],
    ]
    (done,) = (root / ".crawlmill" / "passes").glob("*/done.json")
    counts = json.loads(done.read_text())["counts"]  # the whole-run step's counts
    assert counts["links-out-of-scope"] == 2 and counts["targets"] == 2
    assert counts["duplicate-urls"] == 1 and counts["duplicate-content"] == 1
    reasons = sorted(q["reason"].split(":")[0] for q in _quarantined(root))
    assert reasons == ["ntcir-duplicate-content", "ntcir-duplicate-url"]
    # the tree passes every check of the lists (issue 18's rules)
    (unit, *_) = NtcirReader.discover(str(root), NtcirReader.Options())
    with open_reader(unit, "ntcir") as found:
        list(found)
    assert [str(c) for c in found.checks if not c.ok] == []


def test_a_gzip_page_is_cooked_from_its_decoded_bytes(tmp_path):
    """10. cooked: "Document data with unnecessary tags removed": the document, not the gzip
    bytes it was sent as (raw keeps the bytes as crawled)."""
    import gzip

    body = gzip.compress(b"<p>Caf&eacute; gz</p>")
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(
        warc([("http://a.example.jp/", head("text/html", "Content-Encoding: gzip\r\n"), body)])
    )
    code, _ = convert(src, tmp_path / "nw")
    assert code == 0
    (page,) = _tree_pages(tmp_path / "nw").values()
    assert page["raw"] == body
    assert page["cooked"] == b"Cafe gz" and page["euc"] == b"<p>Caf&eacute; gz</p>"
