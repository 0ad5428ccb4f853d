"""``algorithms/simhash.py``: 64- and 128-bit codes equal to the PyPI ``simhash`` package 2.1.2
(the oracle) on real pages of the WARC samples (a subset stratified by sample file and
charset) and on random Unicode strings, and equal
to an independent weighted-majority reference where the package overflows (a shingle more
than 255 times: it raises with numpy >= 2, 1e0ng/simhash #74)."""

from __future__ import annotations

import glob
import hashlib
import random
import re
from collections import Counter

import numpy as np
import pytest
from crawlmill import RecordKind, open_reader
from crawlmill.algorithms.simhash import joined_words, simhash, simhash64_128, simhash_bytes
from crawlmill.algorithms.simhash_text import body_text, decode

from tests.conftest import SAMPLES, need

SAMPLE_DIRS = ["webrecorder-warcio", "iipc-jwarc", "real-world-2026-11"]


def shingle_counts(text: str) -> Counter:
    """The package's features written out independently: lowercase, word runs joined,
    4-character shingles (the whole string when shorter) counted."""
    joined = "".join(re.findall(r"[\w\u4e00-\u9fcc]+", text.lower()))
    return Counter(joined[i : i + 4] for i in range(max(len(joined) - 4 + 1, 1)))


def reference128(text: str, counts: Counter | None = None) -> int:
    """The package's definition: ``md5`` per shingle, int64 weighted bit sums, majority
    with ties to 0. Never overflows."""
    counts = shingle_counts(text) if counts is None else counts
    digests = b"".join(hashlib.md5(s.encode("utf-8")).digest() for s in counts)
    bits = np.unpackbits(np.frombuffer(digests, dtype=np.uint8)).reshape(-1, 128)
    weights = np.array(list(counts.values()), dtype=np.int64)
    sums = weights @ bits.astype(np.int64)
    total = int(weights.sum())
    return int.from_bytes(np.packbits(sums * 2 > total).tobytes(), "big")


def max_weight(text: str) -> int:
    """The largest shingle count of ``text`` (the package overflows above 255)."""
    return max(shingle_counts(text).values())


def package(text: str) -> tuple[int, int]:
    """``(Simhash(text).value, Simhash(text, f=128).value)`` from the package."""
    simhash_pkg = need("simhash")
    return simhash_pkg.Simhash(text).value, simhash_pkg.Simhash(text, f=128).value


def check(text: str, use_package: bool = True) -> str:
    """Compare ``simhash64_128(text)`` with the package, or with the reference when the
    package would overflow (or ``use_package`` is false); returns which oracle decided."""
    ours = simhash64_128(text)
    counts = shingle_counts(text)
    if use_package and max(counts.values()) <= 255:
        assert ours == package(text), repr(text[:80])
        return "package"
    ref = reference128(text, counts)
    assert ours == (ref & (2**64 - 1), ref), repr(text[:80])
    return "reference"


def sample_pages() -> list[tuple[str, object]]:
    """Every response/resource record with a payload in the WARC samples."""
    files = sorted(
        f
        for d in SAMPLE_DIRS
        for f in glob.glob(str(SAMPLES / d / "**" / "*.warc*"), recursive=True)
    )
    assert len(files) >= 40, "the WARC samples are missing"
    pages = []
    for path in files:
        for record in open_reader(path, "warc"):
            if record.kind in (RecordKind.RESPONSE, RecordKind.RESOURCE) and record.payload:
                pages.append((path, record))
    return pages


def test_known_values():
    """Values the spec measured, and the package's documented behaviour."""
    empty = int.from_bytes(hashlib.md5(b"").digest(), "big")
    assert simhash("") == 16825458760271544958 == empty & (2**64 - 1)
    assert simhash("!!! ... ???") == simhash("")
    assert simhash("How are you? I AM fine.") == simhash("howareyouiamfine")
    assert simhash("abc", 128) == int.from_bytes(hashlib.md5(b"abc").digest(), "big")
    v64, v128 = simhash64_128("The quick brown fox jumps over the lazy dog")
    assert v64 == v128 & (2**64 - 1)
    with pytest.raises(ValueError):
        simhash("x", 32)


def test_short_and_boundary_texts():
    """0..6 characters around the 4-character shingle width, ASCII and not, and texts whose
    non-word characters are the only non-ASCII ones (the fast path)."""
    alphabet = ["a", "B", "_", "7", "é", "中", "İ", "\u212a", " ", "—", "\u00a0", "😀"]
    rnd = random.Random(4)
    for n in range(7):
        for _ in range(60):
            check("".join(rnd.choice(alphabet) for _ in range(n)))
    for text in ["İstanbul", "\u212aelvin", "ﬁne ﬂow", "ß" * 3, "ΣΑΣ σας", "“quoted” — ok…"]:
        check(text)


def test_random_unicode_strings():
    """Random strings over ASCII, Latin, Cyrillic, CJK, astral planes, controls and
    combining marks: equal to the package on both widths."""
    rnd = random.Random(11)
    ranges = [(0x20, 0x7F), (0x20, 0x7F), (0xA0, 0x250), (0x400, 0x4FF), (0x300, 0x36F),
              (0x4E00, 0x9FFF), (0x3000, 0x30FF), (0x1F300, 0x1F6FF), (0x10000, 0x1000F),
              (0x0, 0x20), (0xFF00, 0xFFEF)]  # fmt: skip
    oracles = Counter()
    for _ in range(400):
        picks = rnd.sample(ranges, rnd.randint(1, 3))
        length = rnd.choice([rnd.randint(0, 12), rnd.randint(0, 400), rnd.randint(0, 3000)])
        text = "".join(chr(rnd.randint(*rnd.choice(picks))) for _ in range(length))
        oracles[check(text)] += 1
    assert oracles["package"] >= 390


def test_overflow_against_reference():
    """Weights above 255: the package raises (numpy >= 2) or upcasts (numpy 1.x); ours is
    the correct weighted majority, checked against the reference, and it still equals the
    package on the same text cut below the overflow."""
    simhash_pkg = need("simhash")
    for text in ["a" * 1000, "abcd" * 400 + "xyz", "<div>" * 600 + "hello", "é中" * 700]:
        assert max_weight(text) > 255
        ref = reference128(text)
        assert simhash64_128(text) == (ref & (2**64 - 1), ref)
        if int(np.__version__.split(".")[0]) >= 2:
            with pytest.raises(OverflowError):
                simhash_pkg.Simhash(text)
    # a shingle exactly 255 times stays within the package's range and matches it
    check("a" * 258)
    assert max_weight("a" * 258) == 255


def test_bytes_entry():
    """``simhash_bytes``: ASCII bytes take the byte fast path; other bytes are decoded
    (invalid UTF-8 replaced, which removes it)."""
    data = b"Hello, World! <b>bold</b> 123_x"
    assert simhash_bytes(data) == simhash64_128(data.decode())
    mixed = "Grüße, Köln 中文".encode() + b"\xff\xfe tail"
    assert simhash_bytes(mixed) == simhash64_128(mixed.decode("utf-8", "replace"))
    assert simhash_bytes("Grüße".encode("latin-1"), "latin-1") == simhash64_128("Grüße")


#: every how-many-th page of each (sample file, charset) group the package checks (the first
#: page of each group always).
STRIDE = 10
#: the payload size up to which a chosen page's HTML and whole block are checked too (89 of
#: the 107 chosen pages): the package takes about 2 s per MB of HTML, and the few pages above
#: it (up to 2.5 MB) cost more than all the others together, for no shape the smaller pages
#: and the synthetic texts above do not have.
WHOLE_PAGE_MAX = 32 << 10


def stratified(pages: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """A deterministic subset of ``pages`` covering every sample file and every charset in it:
    the first page of each (file, charset) group, then every :data:`STRIDE`-th of the group."""
    seen: Counter = Counter()
    chosen = []
    for path, record in pages:
        key = (path, record.charset)
        if seen[key] % STRIDE == 0:
            chosen.append((path, record))
        seen[key] += 1
    return chosen


@pytest.mark.slow
def test_real_pages_of_the_samples():
    """Real pages of the warcio, jwarc and real-world-2026-11 WARC samples, a stratified
    subset (:func:`stratified`: every sample file and charset, 1 page in 10 of each): the
    extracted body text of each equal to the package; its HTML without headers and its
    payload with the HTTP headers (pages up to :data:`WHOLE_PAGE_MAX`) equal to the package,
    or to the reference where the package overflows (most raw HTML); the payload through
    the bytes entry equal to the text entry. The chosen texts take both of our paths (ASCII
    fast path, general path)."""
    pages = sample_pages()
    assert len(pages) >= 500
    chosen = stratified(pages)
    files = {path for path, _ in pages}
    assert {path for path, _ in chosen} == files
    assert {(p, r.charset) for p, r in chosen} == {(p, r.charset) for p, r in pages}
    oracles, general = Counter(), 0
    for _path, record in chosen:
        text = body_text(record.payload, record.charset)
        general += not joined_words(text).isascii()  # a non-ASCII word character
        oracles[check(text)] += 1
        block = decode(record.block)
        assert simhash_bytes(record.block) == simhash64_128(block)
        if len(record.payload) <= WHOLE_PAGE_MAX:
            oracles[check(decode(record.payload, record.charset))] += 1
            oracles[check(block)] += 1
    assert len(chosen) >= 100 and general >= 25, (len(chosen), general)
    assert oracles["package"] >= 250 and oracles["reference"] >= 5, oracles


def test_more_than_65536_distinct_characters():
    """A text of more than 2**16 distinct characters: its shingles no longer fit one 64-bit
    key of dense character ranks (the general path's second keying)."""
    ranges = [(0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x20000, 0x2A6DF)]
    chars = [chr(c) for lo, hi in ranges for c in range(lo, hi + 1) if chr(c).isalnum()]
    assert len(chars) > 1 << 16
    random.Random(2).shuffle(chars)
    text = "".join(chars[:70000]) + "".join(chars[:3000])  # some shingles twice
    assert check(text) == "package"
