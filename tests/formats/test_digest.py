"""WARC digest strings: computing, parsing and recomputing in the stored algorithm/encoding."""

from __future__ import annotations

import base64
import hashlib

import pytest
from crawlmill.formats.warc.digest import (
    compute_digest,
    digest_matches,
    parse_digest,
    recompute_like,
    sha1_base32,
)

DATA = b"HTTP/1.1 200 OK\r\n\r\nhello \xff world"


def test_sha1_base32_equals_hashlib():
    expected = "sha1:" + base64.b32encode(hashlib.sha1(DATA).digest()).decode()
    assert sha1_base32(DATA) == expected
    assert len(expected) == len("sha1:") + 32


@pytest.mark.parametrize("algorithm", ["sha1", "md5", "sha256"])
@pytest.mark.parametrize("encoding", ["base32", "base16"])
def test_compute_and_parse_round_trip(algorithm, encoding):
    text = compute_digest(DATA, algorithm, encoding)
    parsed = parse_digest(text)
    assert parsed is not None
    assert parsed.algorithm == algorithm
    assert parsed.encoding == encoding
    assert parsed.raw == hashlib.new(algorithm, DATA).digest()
    assert digest_matches(text, DATA) is True
    assert digest_matches(text, DATA + b"x") is False


def test_base16_value_is_hashlib_hexdigest():
    assert compute_digest(DATA, "sha256", "base16") == "sha256:" + hashlib.sha256(DATA).hexdigest()


def test_parse_accepts_lower_case_base32_and_labels_with_dash():
    value = base64.b32encode(hashlib.sha1(DATA).digest()).decode().lower()
    assert digest_matches(f"SHA-1:{value}", DATA) is True
    assert digest_matches(f"sha1:{value}".encode(), DATA) is True


@pytest.mark.parametrize(
    "bad", ["", "sha1", "crc32:1234", "sha1:NOTBASE32!", "md5:abc", "sha1:" + "A" * 31]
)
def test_unparsable_digests_give_none(bad):
    assert parse_digest(bad) is None
    assert digest_matches(bad, DATA) is None


def test_recompute_like_keeps_label_algorithm_and_encoding():
    old = "sha256:" + hashlib.sha256(b"old").hexdigest()
    new = recompute_like(old, DATA)
    assert new == "sha256:" + hashlib.sha256(DATA).hexdigest()
    old32 = compute_digest(b"old", "md5", "base32", label="md5")
    assert recompute_like(old32, DATA) == compute_digest(DATA, "md5", "base32")
    assert recompute_like("garbage", DATA) == sha1_base32(DATA)
