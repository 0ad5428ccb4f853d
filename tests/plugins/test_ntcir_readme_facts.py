"""Facts of the NTCIR NW100G-01 README.data checked with trees and WARCs built here (issue 19):
each test quotes the README line it checks (../shared/specs/source-docs/
ntcir-nw100g-01-readme-data.txt)."""

from __future__ import annotations

import json
from pathlib import Path

from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.ntcir.lists import ListItem, read_list, write_list
from crawlmill.formats.ntcir.meta import CTYPE, DATE, DOCID, HTTPH, URL, parse_meta, write_meta
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests.conftest import ROOT, need_command

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


def _one_utf8_page(tmp_path: Path, page: str) -> tuple[dict[str, bytes], dict]:
    """The three trees' ``.data`` of one UTF-8 page converted from a WARC (exit 0), and the
    run's report."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(
        warc([("http://a.example.jp/", head("text/html; charset=UTF-8"), page.encode())])
    )
    code, report = convert(src, tmp_path / "nw")
    assert code == 0
    (got,) = _tree_pages(tmp_path / "nw").values()
    return got, report


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


#: the NW100G-01 README.data (../shared/specs/source-docs).
README_DATA = ROOT.parent / "shared" / "specs" / "source-docs" / "ntcir-nw100g-01-readme-data.txt"
#: README.data, section 1 and section 9: the only words it has on the euc tree.
EUC_WORDS_1 = "Document data with Japanese characters converted to EUC code"
EUC_WORDS_9 = (
    'The subdirectory structure and the naming scheme are same as the "raw" directory, except '
    "that the two-byte characters of JIS code set in web page data were converted to Japanese "
    "EUC code."
)
#: README.data, section 10, rules (6) and (7): its only words on entity references.
RULE_6 = "(6) Character code entity references are removed"
RULE_7 = (
    "(7) Character entity references are replaced as follows:",
    "alphabets with diacritical marks ==> corresponding alphabets without diacritical marks",
    "Æ ==> AE",
    "ß ==> ss",
    "others are replaced with a single space character (' ').",
)


def _readme() -> str:
    """README.data's text (a missing copy fails the test: the shared specs are required)."""
    assert README_DATA.exists(), f"README.data not found at {README_DATA}"
    return README_DATA.read_text(encoding="utf-8")


def _iconv(data: bytes, src: str, dst: str) -> bytes:
    """``data`` converted by the system's iconv (an oracle independent of Python's codecs)."""
    import subprocess

    return subprocess.run([need_command("iconv"), "-f", src, "-t", dst], input=data,
                          capture_output=True, check=True).stdout  # fmt: skip


def test_the_euc_tree_converts_jis_characters_and_keeps_the_rest_as_references(tmp_path):
    """1. "euc/...: Document data with Japanese characters converted to EUC code"; 9. "except
    that the two-byte characters of JIS code set in web page data were converted to Japanese
    EUC code." The README names no entity rule for the euc tree (rules 6 and 7 are section
    10's, the cooked tree's) and says nothing of characters EUC cannot hold. So today's rule
    is what it says: the JIS characters become EUC-JP (the bytes iconv gives), everything
    else stays the page, and a character EUC-JP lacks is written as an HTML numeric
    reference, which an HTML parser reads back as the very same character (nothing lost,
    never "?"), counted ``euc-unmappable``."""
    text = _readme()
    assert EUC_WORDS_1 in text and EUC_WORDS_9 in text
    euc_section = text.split('9. "euc" document data')[1].split('10. "cooked"')[0]
    assert "entit" not in euc_section.lower() and "reference" not in euc_section.lower()
    assert "cannot" not in euc_section.lower()

    import html

    page = f"<html><p title='é'>{JA}: Café € 😀 &eacute;&#233;</p></html>"
    got, report = _one_utf8_page(tmp_path, page)
    euc = got["euc"]
    # valid EUC-JP for an independent decoder, the JIS characters as iconv encodes them
    as_utf8 = _iconv(euc, "EUC-JP", "UTF-8").decode("utf-8")
    jis = _iconv(JA.encode(), "UTF-8", "EUC-JP")
    assert jis in euc
    # only the JIS characters became EUC codes: every other byte of the page is ASCII
    assert all(b < 0x80 for b in euc.replace(jis, b""))
    # the page's own references stay as written; what EUC lacks is a reference to itself
    assert "&eacute;&#233;" in as_utf8 and b"?" not in euc
    assert html.unescape(as_utf8) == html.unescape(page)
    assert as_utf8.count("&#") == 4 + 1  # é (twice), €, 😀; and the page's own &#233;
    assert '"euc-unmappable": 4' in json.dumps(report)


def test_the_cooked_tree_treats_a_character_as_rule_7_treats_its_entity(tmp_path):
    """10. "(6) Character code entity references are removed (e.g. ...)" and "(7) Character
    entity references are replaced as follows: ... alphabets with diacritical marks ==>
    corresponding alphabets without diacritical marks Æ ==> AE ... ß ==> ss ... others are
    replaced with a single space character (' ')." The cooked tree is EUC (rule 7: "in EUC").
    A character EUC-JP lacks, written as itself in a UTF-8 page, becomes what rule 7 makes of
    the entity naming it (``é`` as ``&eacute;``: ``e``; ``€`` as ``&euro;``: a space), counted
    ``cooked-unmappable``, never "?"; a numeric reference is removed (rule 6); a Greek letter
    EUC-JP holds stays itself."""
    text = _readme()
    assert RULE_6 in text and all(words in text for words in RULE_7)

    page = "<p>é|&eacute;|&#233;|Æ|&AElig;|ß|&szlig;|€|&euro;|Α|&Alpha;</p>"
    got, report = _one_utf8_page(tmp_path, page)
    cooked = _iconv(got["cooked"], "EUC-JP", "UTF-8").decode("utf-8")
    assert cooked == "e|e||AE|AE|ss|ss| | |Α|Α"
    assert b"?" not in got["cooked"]
    assert '"cooked-unmappable": 4' in json.dumps(report)  # é Æ ß €; Α is in JIS X 0208
