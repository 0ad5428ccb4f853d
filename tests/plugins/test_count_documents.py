"""``count_documents`` of the ClueWeb09 layout (plugins/writers/layout_clueweb.py): the records
of a written WARC file (its responses), read with the registered ``warc`` reader through
``open_reader``; a damaged file is an error, and a disabled WARC reader is named."""

from __future__ import annotations

import pytest
from crawlmill.core.errors import CrawlmillError, PluginError
from crawlmill.plugins.writers.layout_clueweb import count_documents

from tests.helpers import gz


def warc_record(i: int, kind: str = "response") -> bytes:
    body = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nrecord {i}\n".encode()
    head = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\n"
        f"WARC-Target-URI: http://example.com/{i}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


@pytest.mark.parametrize("members", [True, False], ids=["gzip-members", "plain"])
def test_counts_the_response_records(tmp_path, members):
    # the dataset page: 'One custom field is added to the WARC response header information
    # named "WARC-TREC-ID"': only responses are numbered, and counted
    records = [warc_record(0, "warcinfo"), warc_record(9, "request")]
    records += [warc_record(i) for i in range(1, 4)]
    path = tmp_path / ("x.warc.gz" if members else "x.warc")
    path.write_bytes(b"".join(gz(r) for r in records) if members else b"".join(records))
    assert count_documents(str(path)) == 3


def test_a_damaged_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "x.warc"
    path.write_bytes(warc_record(1) + b"garbage that is no record\r\n" * 3 + warc_record(2))
    with pytest.raises(CrawlmillError, match=r"x\.warc: cannot count records of a damaged output"):
        count_documents(str(path))


def test_a_disabled_warc_reader_is_named(tmp_path, monkeypatch):
    path = tmp_path / "x.warc"
    path.write_bytes(warc_record(1))
    monkeypatch.setenv("CRAWLMILL_DISABLE_PLUGINS", "warc-reader")
    with pytest.raises(PluginError, match="warc-reader"):
        count_documents(str(path))
