"""The JSON payload of the Nutch readers' metadata records keeps binary values: a
CrawlDatum's MD5 ``signature`` (bytes >= 0x80 included) is base64, never decoded as text, so
CrawlDB -> WARC keeps the MD5, and :func:`plain_json.loads` restores every value to the bytes
it was read from (checked with warcio reading the WARC and crawlmill's encoder).

The file formats page: "Nutch maintains a CrawlDB containing CrawlDatum objects." and its
table: "data org.apache.hadoop.io.Text org.apache.nutch.crawl.CrawlDatum"."""

from __future__ import annotations

import hashlib
import json

from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop import plain_json
from crawlmill.formats.hadoop.nutch import CRAWL_DATUM, decode_nutch, encode_nutch, from_plain
from crawlmill.formats.hadoop.sequencefile import iter_entries, read_header
from crawlmill.formats.hadoop.writables import MapValue, content_of

from tests.conftest import need
from tests.plugins.nutch_inputs import PAGES, write_warc

TEXT = "org.apache.hadoop.io.Text"


def test_bytes_are_base64_text_stays_text_and_invalid_bytes_survive():
    plain = {
        "signature": bytes(range(0x70, 0x90)),
        "title": "caf\u00e9 \udcff",  # a Text field with one invalid byte (surrogate escape)
        "metadata": {
            "@": "MapValue",
            "classes": [],
            "entries": [[TEXT, b"Content-Type", TEXT, b"text/html \xff"]],
        },  # fmt: skip
    }
    data = plain_json.dumps(plain)
    text = data.decode("utf-8")  # valid UTF-8
    assert "\ufffd" not in text and "caf\u00e9" in text and "Content-Type" in text
    parsed = json.loads(text)
    assert parsed["signature"] == {"$b64": "cHFyc3R1dnd4eXp7fH1+f4CBgoOEhYaHiImKi4yNjo8="}
    assert parsed["title"] == "caf\u00e9 \udcff"  # JSON's own \udcff escape
    back = plain_json.loads(data)
    assert back["signature"] == plain["signature"]
    assert back["title"] == plain["title"]
    assert back["metadata"]["entries"] == [[TEXT, b"Content-Type", TEXT, b"text/html \xff"]]
    mv = from_plain(back["metadata"])
    assert isinstance(mv, MapValue) and mv.as_dict() == {b"Content-Type": b"text/html \xff"}


def _warc_json(path):
    """URL -> the JSON payload of every metadata record of the WARCs under ``path`` (warcio)."""
    from warcio.archiveiterator import ArchiveIterator

    out = {}
    for f in sorted(path.rglob("*.warc*")):
        with open(f, "rb") as fh:
            for r in ArchiveIterator(fh):
                if r.rec_type == "metadata":
                    out[r.rec_headers.get_header("WARC-Target-URI")] = r.content_stream().read()
    return out


def _db_values(folder):
    out = {}
    for data_path in sorted(folder.rglob("data")):
        data = data_path.read_bytes()
        h = read_header(data)
        for e in iter_entries(data, h):
            out[content_of(h.key_class, e.key).decode()] = e.value
    return out


def test_crawldb_to_warc_keeps_each_md5_and_every_datum_byte(tmp_path):
    need("warcio")
    src = write_warc(tmp_path / "in.warc")
    assert main(["convert", str(src), "--to", "nutch-crawldb", "-o", str(tmp_path / "db"),
                 "--workers", "1"]) == 0  # fmt: skip
    assert main(["convert", str(tmp_path / "db"), "--to", "warc", "-o", str(tmp_path / "w"),
                 "--workers", "1"]) == 0  # fmt: skip
    payloads, values = _warc_json(tmp_path / "w"), _db_values(tmp_path / "db")
    assert set(payloads) == set(values) and len(values) == 4
    high = 0
    for url, body in PAGES.items():
        md5 = hashlib.md5(body).digest()
        datum = plain_json.loads(payloads[url])["crawl_datum"]
        assert datum["signature"] == md5  # the MD5 itself, not U+FFFD in its place
        assert datum["signature_hex"] == md5.hex()
        high += any(b >= 0x80 for b in md5)
    assert high  # the case of the issue: a signature byte >= 0x80
    for url, raw in values.items():
        datum = plain_json.loads(payloads[url])["crawl_datum"]
        assert encode_nutch(CRAWL_DATUM, from_plain(datum)) == raw


def test_a_real_crawldb_through_warc_restores_every_value(samples, tmp_path):
    need("warcio")
    db = samples / "apache-nutch" / "testcrawl" / "crawldb"
    assert main(["convert", str(db), "--to", "warc", "-o", str(tmp_path / "w"),
                 "--workers", "1"]) == 0  # fmt: skip
    payloads, values = _warc_json(tmp_path / "w"), _db_values(db)
    assert set(payloads) == set(values) and values
    signed = 0
    for url, raw in values.items():
        datum = plain_json.loads(payloads[url])["crawl_datum"]
        assert encode_nutch(CRAWL_DATUM, from_plain(datum)) == raw
        original = decode_nutch(CRAWL_DATUM, raw).signature
        assert datum["signature"] == original
        signed += original is not None
    assert signed
