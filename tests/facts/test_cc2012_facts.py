"""Facts of the Common Crawl 2012 page (../shared/specs/source-docs/commoncrawl-2012-dataset.txt)
checked with SequenceFiles built here by hand (tests/facts/handmade.py) and against what the
cc2012 writer leaves; docs/source-facts.md lists each fact and its test. Line numbers ("L47")
are the page's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from crawlmill.core import open_reader

from tests import helpers
from tests.facts.handmade import GZIP_CODEC, TEXT, header, sequence_file, text, untext
from tests.plugins.nutch_inputs import warc_response

#: L377-382, the page's failure sample (its one valid JSON object, as printed).
FAILURE = {
    "attempt_time": 1328296943586,
    "disposition": "FAILURE",
    "failure_reason": "RedirectFailed",
    "failure_detail": "Alread Visited Redirect Location:http://www.amazon.com/Death-Winter-Star-"
    "Generation-Unnumbered/dp/074349721X",
}
URL = "http://www.amazon.com/dp/074349721X"
#: L53 "All Text Only content (in all languages) can be read using the UTF-8 character set".
WORDS = "Grüße aus 東京 — «text only»"


def test_a_metadata_file_built_from_the_pages_words_is_read(tmp_path):
    """L68/L112 "The Key ... represents the source URL, and the Value represents the JSON
    encoded metadata"; "saved as Hadoop SequenceFiles using GZIP compression"; L112 "file name
    of "metadata-nnnnn""; L74-77 and L377-382 the failure attributes."""
    path = tmp_path / "metadata-00112"
    value = json.dumps(FAILURE, separators=(",", ":"))
    path.write_bytes(sequence_file([(text(URL), text(value))], codec=GZIP_CODEC))
    with open_reader(path) as records:
        got = list(records)
        assert not records.damages
    assert [r.url for r in got] == [URL]
    assert json.loads(got[0].payload) == FAILURE


def test_a_text_only_file_built_from_the_pages_words_is_read(tmp_path):
    """L47 "Text Only files are saved as Hadoop SequenceFiles using GZIP compression. The key
    and value data types are both Text. The key in these files is the URL, and the value is
    the actual text content"; "textData-nnnnn"; L53 UTF-8."""
    path = tmp_path / "textData-00112"
    path.write_bytes(sequence_file([(text(URL), text(WORDS))], codec=GZIP_CODEC))
    with open_reader(path) as records:
        got = list(records)
        assert not records.damages
    assert [(r.url, r.text) for r in got] == [(URL, WORDS)]


@pytest.fixture(scope="module")
def segment(tmp_path_factory) -> Path:
    """One hand-built WARC response of a non-ASCII page written by the cc2012 writer."""
    root = tmp_path_factory.mktemp("cc2012_facts")
    body = "<html><head><title>Grüße</title></head><body><p>" + WORDS + "</p></body></html>"
    src = root / "in.warc"
    meta = '<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head></html>'
    src.write_bytes(
        warc_response("http://example.com/a", body.encode("utf-8"))
        + warc_response("http://example.com/m", meta.encode("cp1252"), n=1,
                        content_type="text/html")
        + warc_response("http://example.com/t", b"<html><body>cut he", n=2).replace(
            b"WARC-Type: response\r\n", b"WARC-Type: response\r\nWARC-Truncated: length\r\n")
    )  # fmt: skip
    result = helpers.convert(src, "cc2012", root / "out")
    assert result.exit_code == 0, result.stderr
    return root / "out"


def test_the_writer_names_and_types_its_files_as_the_page_says(segment):
    """L47/L49/L51 "textData-nnnnn" ("numbers ... sequentially assigned"), L112/L114
    "metadata-nnnnn", both "Hadoop SequenceFiles using GZIP compression" with key and value
    "both Text" (L47, L112; L68 says TextBytes, the other variant: docs/formats/cc2012.md);
    L110 "Records in the Metadata files are in the same order and have the same file numbers
    as the Text Only content"."""
    names = sorted(p.name for p in segment.iterdir() if not p.name.startswith("."))
    meta = [n for n in names if n.startswith("metadata-")]
    texts = [n for n in names if n.startswith("textData-")]
    assert meta and all(re.fullmatch(r"metadata-\d{5}", n) for n in meta)
    assert [n.split("-")[1] for n in texts] == [n.split("-")[1] for n in meta]
    for name in meta + texts:
        version, key, value, compressed, block, codec = header(segment / name)
        assert (key, value, compressed, codec) == (TEXT, TEXT, True, GZIP_CODEC), name


def test_the_writers_json_and_text_follow_the_schema(segment):
    """L74-77 and L81-95: the basic attributes and those of a valid HTTP response; L86
    "mime_type ... (stripped of charset)"; L93 "text_simhash": "A 64 bit simhash"; L94
    "parsed_as": "html"; L99 content "type": "html-doc"; L91-92 "charset_detected",
    "charset_detector"; L53 UTF-8 text."""
    from crawlmill.formats.hadoop.sequencefile import iter_entries

    meta = sorted(segment.glob("metadata-*"))[0]
    text_file = segment / meta.name.replace("metadata-", "textData-")
    entries = {
        bytes(e.key): json.loads(untext(bytes(e.value))) for e in iter_entries(meta.read_bytes())
    }
    assert len(entries) == 3
    doc = entries[text("http://example.com/a")]
    # L91-92, L143-144: "charset_detector": "0 if from headers,1 if from Meta tags"
    assert (doc["charset_detected"].upper(), doc["charset_detector"]) == ("UTF-8", 0)
    by_meta = entries[text("http://example.com/m")]
    assert by_meta["charset_detector"] == 1
    assert by_meta["charset_detected"].lower() == "windows-1252"
    assert doc["disposition"] == "SUCCESS" and isinstance(doc["attempt_time"], int)
    assert doc["http_result"] == 200 and doc["mime_type"] == "text/html"
    assert -(2**63) <= doc["text_simhash"] < 2**63
    assert doc["parsed_as"] == "html" and doc["content"]["type"] == "html-doc"
    assert doc["content"]["title"] == "Grüße"
    texts = {bytes(e.key): untext(bytes(e.value)) for e in iter_entries(text_file.read_bytes())}
    assert WORDS in texts[text("http://example.com/a")].decode("utf-8", "strict")
    # L53 "translated from their native character sets into UTF-8"; L47 the title is text
    assert "Café" in texts[text("http://example.com/m")].decode("utf-8", "strict")


def test_a_truncated_capture_says_download_truncated(segment):
    """L439 "download_size": 523871, "download_truncated": true."""
    from crawlmill.formats.hadoop.sequencefile import iter_entries

    meta = sorted(segment.glob("metadata-*"))[0]
    entries = {
        bytes(e.key): json.loads(untext(bytes(e.value))) for e in iter_entries(meta.read_bytes())
    }
    cut = entries[text("http://example.com/t")]
    assert cut.get("download_truncated") is True
    # after download_size, as ParserMapper added it; absent from a capture that was not cut
    keys = list(cut)
    assert keys.index("download_truncated") == keys.index("download_size") + 1
    assert all("download_truncated" not in e for k, e in entries.items() if b"/t" not in k)
