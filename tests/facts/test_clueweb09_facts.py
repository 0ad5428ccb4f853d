"""Facts of the ClueWeb09 dataset page (../shared/specs/source-docs/clueweb09-dataset-information.txt)
checked with inputs built here from the page's words; docs/source-facts.md lists each fact and
its test. Line numbers ("L18") are the page's."""

from __future__ import annotations

import gzip
import hashlib
import importlib
import re
from pathlib import Path

from crawlmill.core import open_reader

from tests import helpers

PAGE = Path(__file__).resolve().parents[3] / "shared" / "specs" / "source-docs"
PAGE = PAGE / "clueweb09-dataset-information.txt"


def _cw():
    """The ClueWeb09 naming module."""
    return importlib.import_module("crawlmill.formats.clueweb09.collection")


def _page() -> str:
    assert PAGE.exists(), f"the shared specs are required: {PAGE}"
    return PAGE.read_text(encoding="utf-8")


def _record(headers: list[tuple[str, str]], block: bytes, version: str = "0.18") -> bytes:
    """One WARC record built by hand: version line, headers, blank line, block, two CRLFs."""
    head = f"WARC/{version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers)
    head += f"Content-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


_HTTP = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=Shift_JIS\r\n\r\n"
    b"<html><title>\x93\xfa\x96\x7b</title></html>"
)


def _clueweb_file() -> bytes:
    """A ClueWeb09-style file: a warcinfo and one response carrying WARC-TREC-ID (L18)."""
    info = _record(
        [("WARC-Type", "warcinfo"), ("WARC-Date", "2009-03-65T08:43:19-0800")],
        b"software: Nutch 1.0-dev (modified for clueweb09)\r\n",
    )
    response = _record(
        [
            ("WARC-Type", "response"),
            ("WARC-Target-URI", "http://example.jp/"),
            ("WARC-Date", "2009-03-65T08:43:19-0800"),
            ("WARC-TREC-ID", "clueweb09-ja0000-00-00000"),
            ("Content-Type", "application/http;msgtype=response"),
            ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000001>"),
        ],
        _HTTP,
    )
    return gzip.compress(info) + gzip.compress(response)


def test_segment_names_and_their_counts_table():
    """L6 "ClueWeb09_<language>_<segment #>"; L46-71 the table of the 24 segments; L35-44
    the ten languages; L72 "2-letter language identifers ... conform to the ISO 639"."""
    cw = _cw()
    text = _page()
    listed = re.findall(
        r"^(ClueWeb09_([A-Za-z]+)_(\d+)) \| [\d,]+ pages \| \1_counts\.txt \|$", text, re.M
    )
    assert len(listed) == 24
    assert sorted(name for name, _, _ in listed) == sorted(cw.SEGMENTS)
    for name, language, number in listed:
        assert cw.segment_name(language, int(number)) == name
        assert cw.parse_segment_name(name) == (language, int(number))
    languages = re.findall(r"^([A-Z][a-z]+) \| [\d,]+ pages \|$", text, re.M)
    assert sorted(languages) == sorted(cw.LANGUAGES)
    iso_639_1 = {"English": "en", "Chinese": "zh", "Spanish": "es", "Japanese": "ja",
                 "French": "fr", "German": "de", "Portuguese": "pt", "Arabic": "ar",
                 "Italian": "it", "Korean": "ko"}  # fmt: skip
    assert iso_639_1 == cw.LANGUAGES


def test_directory_and_file_names():
    """L8 "<language><directory #>"; L20 "a 4-digit (padded) directory number"; L10 from
    "00.warc.gz" up to "99.warc.gz" ("up to 100 files", L9); L13 the example path; L15
    "enwp<wikipedia directory #> where <wikipedia directory #> is 00, 01, 02, or 03"."""
    cw = _cw()
    assert cw.dir_name("en", 0) == "en0000" and cw.dir_name("en", 42) == "en0042"
    assert cw.file_name(0) == "00.warc.gz" and cw.file_name(99) == "99.warc.gz"
    try:
        cw.file_name(100)
    except ValueError:
        pass
    else:  # pragma: no cover - the assertion below names the failure
        raise AssertionError("a 101st file in a directory was named")
    place = cw.parse_file_path("ClueWeb09_English_1/en0000/00.warc.gz")
    assert place is not None
    assert (place.segment, place.directory.code, place.directory.number, place.file) == (
        ("English", 1), "en", 0, 0)  # fmt: skip
    for n in ("00", "01", "02", "03"):
        parsed = cw.parse_dir_name("enwp" + n)
        assert parsed is not None and parsed.wikipedia and parsed.number == int(n)
    assert cw.parse_dir_name("en42") is None  # not 4 digits


def test_trec_id_format():
    """L19-22 "clueweb09-<directory>-<file>-<record>": directory <language><4 digits>, "a
    2-digit (padded)" file number, "a 5-digit (padded)" record number."""
    cw = _cw()
    assert cw.trec_id("en0000", 22, 7) == "clueweb09-en0000-22-00007"
    assert tuple(cw.parse_trec_id("clueweb09-en0042-15-34617")) == ("en0042", 15, 34617)
    assert cw.parse_trec_id("clueweb09-en0042-5-34617") is None  # file not 2 digits
    assert cw.parse_trec_id("clueweb09-en0042-15-3461") is None  # record not 5 digits
    assert cw.parse_trec_id("clueweb09-enwp01-15-34617") == ("enwp01", 15, 34617)


def test_md5_and_counts_lines_of_the_page():
    """L24-26 "<md5 checksum hash> <file>", e.g. "98f91370de2dbc9c6d358f6251e591d6
    *./en0000/22.warc.gz"; L29-31 "<file> <# of records>", e.g. "*./en0042/15.warc.gz 34618";
    read by our parsers and written by our formatters in exactly that form."""
    cw = _cw()
    md5_line = "98f91370de2dbc9c6d358f6251e591d6 *./en0000/22.warc.gz"
    count_line = "*./en0042/15.warc.gz 34618"
    assert md5_line in _page() and count_line in _page()
    entries, bad = cw.parse_md5_list(md5_line + "\n")
    assert not bad and [(e.path, e.md5) for e in entries] == [
        ("en0000/22.warc.gz", "98f91370de2dbc9c6d358f6251e591d6")
    ]
    assert cw.format_md5_list([("en0000/22.warc.gz", entries[0].md5)]) == (md5_line + "\n").encode()
    counts, bad = cw.parse_counts(count_line + "\n")
    assert not bad and [(c.path, c.count) for c in counts] == [("en0042/15.warc.gz", 34618)]
    assert cw.format_counts([("en0042/15.warc.gz", 34618)]) == (count_line + "\n").encode()
    assert cw.md5_file_name("ClueWeb09_English_1").startswith("ClueWeb_")  # "ClueWeb_*.md5"
    assert cw.md5_file_name("ClueWeb09_English_1").endswith(".md5")
    assert cw.counts_file_name("ClueWeb09_English_1").endswith("ClueWeb09_English_1_counts.txt")


def test_a_hand_built_0_18_file_is_read_with_its_trec_id_and_charset(tmp_path):
    """L16 "WARC ISO 28500 final draft ... version 018"; L18 the "WARC-TREC-ID" field of the
    response header; L73 "the content encoding appears in the individual HTTP header ...
    "Content-Type"" (a non-English page's encoding is the server's)."""
    path = tmp_path / "ClueWeb09_Japanese_1" / "ja0000" / "00.warc.gz"
    path.parent.mkdir(parents=True)
    path.write_bytes(_clueweb_file())
    with open_reader(path) as records:
        got = [r for r in records if r.kind.value == "response"]
        damages = records.damages
    assert not damages
    assert [(r.doc_id, r.url) for r in got] == [("clueweb09-ja0000-00-00000", "http://example.jp/")]
    assert got[0].charset is not None and got[0].charset.lower().replace("-", "_") == "shift_jis"


def test_the_clueweb09_layout_writes_what_the_page_describes(tmp_path):
    """The writer against the page: L13 the first file "ClueWeb09_English_1/en0000/00.warc.gz",
    L16 version 0.18, L18-22 WARC-TREC-ID on the response, L23-26 the md5 list names the file
    with its true md5, L28-31 the counts list gives its records."""
    src = tmp_path / "in.warc"
    src.write_bytes(
        _record(
            [
                ("WARC-Type", "response"),
                ("WARC-Target-URI", "http://example.com/"),
                ("WARC-Date", "2009-01-02T03:04:05Z"),
                ("WARC-Record-ID", "<urn:uuid:00000000-0000-4000-8000-000000000002>"),
                ("Content-Type", "application/http;msgtype=response"),
            ],
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>",
            version="1.0",
        )
    )
    out = tmp_path / "out"
    result = helpers.convert(src, "warc", out, option=["layout=clueweb09", "version=0.18"])
    assert result.exit_code == 0, result.stderr
    warc = out / "ClueWeb09_English_1" / "en0000" / "00.warc.gz"
    data = gzip.decompress(warc.read_bytes())
    # the page names no line ending; the writer's 0.18 uses ClueWeb09's own (LF)
    assert re.match(rb"WARC/0\.18\r?\n", data)
    assert re.search(rb"\nWARC-TREC-ID: clueweb09-en0000-00-00000\r?\n", data)
    digest = hashlib.md5(warc.read_bytes()).hexdigest()
    md5_lists = [p for p in out.rglob("*.md5")]
    assert [p.name for p in md5_lists] == ["ClueWeb_English_1.md5"]
    assert md5_lists[0].read_text() == f"{digest} *./en0000/00.warc.gz\n"
    counts = [p for p in out.rglob("*_counts.txt")]
    assert [p.name for p in counts] == ["ClueWeb09_English_1_counts.txt"]
    assert counts[0].read_text() == "*./en0000/00.warc.gz 1\n"
