"""formats/warc/builder.py: the WARC record rules without a record model."""

from __future__ import annotations

import base64
import hashlib

from crawlmill.formats.warc.builder import (
    can_copy_verbatim,
    content_length_tail,
    fix_digests,
    get_header,
    new_digest_headers,
    reframe_headers,
    remove_header,
    set_header,
    warcinfo_record,
)
from crawlmill.formats.warc.digest import sha1_base32
from crawlmill.formats.warc.writer import framing_for

BLOCK = b"HTTP/1.1 200 OK\r\n\r\nhello"
PAYLOAD = b"hello"


def _b16(data: bytes) -> bytes:
    return b"sha1:" + hashlib.sha1(data).hexdigest().upper().encode()


def test_a_matching_digest_keeps_its_spelling_and_a_wrong_one_is_recomputed_alike():
    right = _b16(BLOCK)
    wrong = b"sha1:" + base64.b32encode(hashlib.sha1(b"x").digest())
    headers = [(b"WARC-Block-Digest", right), (b"WARC-Payload-Digest", wrong)]
    out, notes = fix_digests(headers, BLOCK, PAYLOAD, mode="keep", revisit=False, http_payload=True)
    assert out[0] == (b"WARC-Block-Digest", right)  # base16 kept as written
    assert out[1] == (b"WARC-Payload-Digest", f"sha1:{sha1_base32(PAYLOAD)[5:]}".encode())
    assert [text for _, text in notes] == ["digest recomputed"]


def test_digest_modes_none_and_missing_digests():
    stale = [(b"WARC-Block-Digest", _b16(b"old")), (b"Content-Type", b"text/plain")]
    out, notes = fix_digests(stale, BLOCK, PAYLOAD, mode="none", revisit=False, http_payload=True)
    assert out == [(b"Content-Type", b"text/plain")]
    assert [text for _, text in notes] == ["stale digest of a changed record removed"]
    added, notes = fix_digests(
        [(b"Content-Type", b"x")],
        BLOCK,
        PAYLOAD,
        mode="recompute",
        revisit=False,
        http_payload=True,
    )
    assert [k for k, _ in added] == [b"WARC-Block-Digest", b"WARC-Payload-Digest", b"Content-Type"]
    assert [text for _, text in notes] == []


def test_a_revisit_payload_digest_is_never_touched_and_unknown_algorithms_are_kept():
    headers = [(b"WARC-Payload-Digest", _b16(b"original")), (b"WARC-Block-Digest", b"md6:abc")]
    out, notes = fix_digests(headers, BLOCK, b"", mode="recompute", revisit=True, http_payload=True)
    assert out == headers
    assert [text for _, text in notes] == ["digest in an unknown algorithm kept unchecked"]


def test_verbatim_copy_needs_the_framing_a_right_length_and_a_date():
    framing = framing_for("1.1")
    rid = b"<urn:uuid:12345678-1234-1234-1234-123456789abc>"
    raw = (
        b"WARC/1.1\r\nWARC-Record-ID: " + rid + b"\r\nWARC-Date: 2020-01-01T00:00:00Z\r\n"
        b"Content-Length: 5\r\n\r\n"
    )
    headers = [
        (b"WARC-Record-ID", rid),
        (b"WARC-Date", b"2020-01-01T00:00:00Z"),
        (b"Content-Length", b"5"),
    ]
    kw = dict(version="1.1", line_ending=b"\r\n", cl_includes_separator=False, separator=None)
    assert can_copy_verbatim(raw, headers, 5, framing, **kw)
    no_id = headers[1:]  # WARC-Record-ID is mandatory: rebuilt with one, never copied
    assert not can_copy_verbatim(raw, no_id, 5, framing, **kw)
    assert not can_copy_verbatim(raw, headers, 6, framing, **kw)  # Content-Length disproved
    assert not can_copy_verbatim(raw, headers, 5, framing_for("1.0"), **kw)  # other version
    no_date = [headers[0], headers[2]]
    assert not can_copy_verbatim(raw, no_date, 5, framing, **kw)
    lf = raw.replace(b"\r\n", b"\n")
    assert not can_copy_verbatim(lf, headers, 5, framing, **{**kw, "line_ending": b"\n"})


def test_reframing_wraps_bare_ids_drops_the_length_and_notes_bad_dates():
    pairs = [
        (b"WARC-Record-ID", b"12345678-1234-1234-1234-123456789abc"),
        (b"WARC-Date", b"2009-03-65"),
        (b"Content-Length", b"9"),
        (b"X-Note", b"a\r\n b"),
    ]
    headers, notes = reframe_headers(pairs, "1.1")
    assert headers[0] == (b"WARC-Record-ID", b"<urn:uuid:12345678-1234-1234-1234-123456789abc>")
    assert get_header(headers, b"content-length") is None
    assert b"\n" not in get_header(headers, b"x-note")
    # (an invalid date in 1.x is the writer's to replace, keeping the original: issue 19)
    assert [text for _, text in notes] == [
        "bare record id wrapped as <urn:uuid:...>",
        "line break inside a WARC header value replaced by a space",
    ]
    assert [code for code, _ in notes] == ["record-id-wrapped", "line-break-in-header"]
    kept, notes = reframe_headers(pairs[:1], "0.18")
    assert kept == pairs[:1] and notes == []
    _, notes = reframe_headers(pairs[1:2], "0.18")  # 0.18 keeps it as ClueWeb09 wrote it
    assert notes == [("invalid-date-kept", "invalid WARC-Date kept as written")]


def test_header_helpers_insert_before_content_type():
    headers = [(b"WARC-Type", b"resource"), (b"Content-Type", b"text/plain")]
    set_header(headers, b"WARC-IP-Address", b"192.0.2.1")
    set_header(headers, b"warc-type", b"metadata")
    assert headers == [
        (b"WARC-Type", b"metadata"),
        (b"WARC-IP-Address", b"192.0.2.1"),
        (b"Content-Type", b"text/plain"),
    ]
    remove_header(headers, b"warc-ip-address")
    assert len(headers) == 2


def test_new_digests_and_the_018_tail():
    tail = content_length_tail(framing_for("0.18"))
    assert tail == b"\n\n" and content_length_tail(framing_for("1.1")) == b""
    block, payload = new_digest_headers(b"HEAD", PAYLOAD, tail, http_payload=True)
    assert block[1].resolve() == sha1_base32(b"HEAD" + PAYLOAD + tail).encode()
    assert payload[1].resolve() == sha1_base32(PAYLOAD + tail).encode()
    assert len(new_digest_headers(b"", PAYLOAD, b"", http_payload=False)) == 1


def test_a_warcinfo_record_reads_back(need):
    ArchiveIterator = need("warcio.archiveiterator").ArchiveIterator
    import io

    data, block = warcinfo_record(
        framing_for("1.1"),
        [("software", "x/1"), ("format", "WARC File Format 1.1")],
        record_id=b"<urn:uuid:12345678-1234-1234-1234-123456789abc>",
        date=b"2020-01-01T00:00:00Z",
        filename=b"a.warc.gz",
        digest=True,
    )
    record = next(iter(ArchiveIterator(io.BytesIO(data))))
    assert record.rec_type == "warcinfo"
    assert record.rec_headers.get_header("WARC-Block-Digest") == sha1_base32(block)
    assert (
        record.content_stream().read()
        == block
        == b"software: x/1\r\nformat: WARC File Format 1.1\r\n"
    )
