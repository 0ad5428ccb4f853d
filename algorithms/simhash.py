"""Simhash codes, 64 and 128 bits, equal to those of the PyPI ``simhash`` package 2.1.2.

The package (``Simhash(text)``, ``Simhash(text, f=128)``) computes, for a ``str``:

1. ``text.lower()``, then every run of ``[\\w\\u4e00-\\u9fcc]`` joined with no separator (so
   every character that is not a word character vanishes: ``'How are you?'`` and
   ``'howareyou'`` hash alike);
2. the overlapping 4-character shingles of that joined string (code points), or the whole
   string as the one feature when it is shorter than 4 characters (also ``''``);
3. for each shingle ``s`` with ``w`` occurrences, the last ``f/8`` bytes of
   ``md5(s.encode('utf-8'))`` as bits (most significant bit of each byte first), each set bit
   adding ``w`` to its position;
4. bit ``j`` of the code is 1 iff its sum exceeds half the number of shingles (a tie gives 0).

So the 64-bit code is the low half of the 128-bit code, and both come from one pass here.
The sums are int64 (float64-exact counts), so there is no overflow: the package raises
``OverflowError`` with numpy >= 2 as soon as one shingle occurs more than 255 times
(1e0ng/simhash #74; numpy 1.x upcasts and is correct), and this module gives the
mathematically correct weighted majority, which equals the package's result wherever the
package does not raise. Lone surrogates (which the package cannot encode) are encoded with
``surrogatepass``.

Speed (numpy, no compiled code; numba did not need to earn its dependency): text without
non-ASCII word characters takes the fast path, one ``bytes.translate`` to 37 symbols, each
shingle an integer below 37**4, and the md5 bytes of each such shingle kept in a lazily
filled table (30 MB once full, per process). The shingles are sorted and counted (the
multiset gives the same sums as the occurrences), the sums are one weighted ``np.bincount``
per md5 byte position and a 256 x 8 bit matrix. Other text takes a general path: shingles of
ASCII symbols through the same table, the others counted as distinct code-point 4-grams and
hashed with ``hashlib`` (a bounded cache keeps their md5 bytes).
``benchmarks/bench_simhash.py`` measures both beside the package.

This module imports nothing else of crawlmill.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

__all__ = [
    "WIDTH",
    "joined_words",
    "simhash",
    "simhash64_128",
    "simhash_bytes",
    "split128",
]

#: shingle width of the package (characters).
WIDTH = 4

_WORD = re.compile(r"[\w\u4e00-\u9fcc]+")
#: a word character outside ASCII: its presence sends a text to the general path.
_NON_ASCII_WORD = re.compile(r"[^\W\x00-\x7f]")
_MASK64 = (1 << 64) - 1

# The 37 symbols of lowercase ASCII word characters, in code order 0..36.
_SYMBOLS = "0123456789_abcdefghijklmnopqrstuvwxyz"
_NSYM = len(_SYMBOLS)
_NSHINGLES = _NSYM**WIDTH  # 1,874,161


def _translate_table() -> tuple[bytes, bytes]:
    """``bytes.translate`` table and delete set: A-Z, a-z, 0-9, _ to symbol codes, rest out."""
    table = bytearray(range(256))
    keep = set()
    for code, ch in enumerate(_SYMBOLS):
        table[ord(ch)] = code
        keep.add(ord(ch))
        if ch.isalpha():
            table[ord(ch.upper())] = code
            keep.add(ord(ch.upper()))
    delete = bytes(b for b in range(256) if b not in keep)
    return bytes(table), delete


_TRANSLATE, _DELETE = _translate_table()
# the symbol byte sequence back to text: symbol codes 0..36 -> their lowercase characters
_UNTRANSLATE = bytes([ord(_SYMBOLS[b]) if b < _NSYM else 0 for b in range(256)])
#: bit j of byte value v, most significant first (np.unpackbits order): a 256 x 8 matrix.
_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.int64)


class _Md5Table:
    """md5 bytes of every ASCII shingle (a symbol-coded integer below 37**4), filled lazily:
    a shingle's md5 is computed the first time a text has it (30 MB once full)."""

    def __init__(self) -> None:
        self.table: np.ndarray | None = None
        self.filled: np.ndarray | None = None

    def lookup(self, shingles: np.ndarray) -> np.ndarray:
        """The (n, 16) uint8 md5 rows of distinct ``shingles``."""
        if self.table is None:
            self.table = np.zeros((_NSHINGLES, 16), dtype=np.uint8)
            self.filled = np.zeros(_NSHINGLES, dtype=bool)
        assert self.filled is not None
        missing = shingles[~self.filled[shingles]]
        if missing.size:
            self._fill(missing)
        return self.table[shingles]

    def _fill(self, codes: np.ndarray) -> None:
        assert self.table is not None and self.filled is not None
        digits = np.empty((codes.size, WIDTH), dtype=np.uint8)
        rest = codes.astype(np.int64)
        for k in range(WIDTH - 1, -1, -1):
            digits[:, k] = rest % _NSYM
            rest //= _NSYM
        raw = digits.tobytes().translate(_UNTRANSLATE)
        md5 = hashlib.md5
        digests = b"".join([md5(raw[i : i + WIDTH]).digest() for i in range(0, len(raw), WIDTH)])
        self.table[codes] = np.frombuffer(digests, dtype=np.uint8).reshape(-1, 16)
        self.filled[codes] = True


_TABLE = _Md5Table()


def joined_words(text: str) -> str:
    """The package's tokeniser: ``text`` lowercased, its word-character runs joined."""
    return "".join(_WORD.findall(text.lower()))


def _counted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``values`` and how often each occurs (one sort)."""
    s = np.sort(values)
    starts = np.empty(s.size, dtype=bool)
    starts[:1] = True
    np.not_equal(s[1:], s[:-1], out=starts[1:])
    first = np.flatnonzero(starts)
    return s[first], np.diff(np.append(first, s.size))


def _sums(digests: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted occurrences of each (byte position, byte value): 16 x 256 float64 sums (one
    weighted bincount per byte position, exact: float64 counts below 2**53)."""
    w = weights.astype(np.float64)
    return np.concatenate([np.bincount(digests[:, j], weights=w, minlength=256) for j in range(16)])


def _code(sums: np.ndarray, count: int) -> int:
    """The 128-bit code from the (position, byte) sums: bit j is set iff its weight exceeds
    half of ``count``, the number of shingles."""
    bit_sums = (sums.reshape(16, 256) @ _BITS).reshape(128)
    bits = np.packbits(2 * bit_sums > count)
    return int.from_bytes(bits.tobytes(), "big")


def _short(joined: str) -> int:
    """Fewer than 4 characters: the one feature is the whole string (weight 1)."""
    return int.from_bytes(hashlib.md5(joined.encode("utf-8", "surrogatepass")).digest(), "big")


def _table_sums(shingles: np.ndarray) -> np.ndarray:
    """The (position, byte) sums of symbol-coded ASCII shingles."""
    distinct, counts = _counted(shingles)
    return _sums(_TABLE.lookup(distinct), counts)


def _ascii_shingles(s: np.ndarray) -> np.ndarray:
    """Symbol codes (int32, 0..36) to shingle integers."""
    return ((s[:-3] * _NSYM + s[1:-2]) * _NSYM + s[2:-1]) * _NSYM + s[3:]


def _ascii128(symbols: bytes) -> int:
    """The 128-bit code of a joined ASCII string given as symbol codes 0..36."""
    n = len(symbols)
    if n < WIDTH:
        return _short(symbols.translate(_UNTRANSLATE).decode("ascii"))
    s = np.frombuffer(symbols, dtype=np.uint8).astype(np.int32)
    return _code(_table_sums(_ascii_shingles(s)), n - WIDTH + 1)


# code point (< 128) -> symbol code; the joined lowercase text holds no other ASCII
_SYMBOL_OF = np.zeros(128, dtype=np.int32)
for _code_, _ch in enumerate(_SYMBOLS):
    _SYMBOL_OF[ord(_ch)] = _code_


class _Cache(dict):
    """md5 bytes of non-ASCII shingles seen before (bounded: once full, new shingles are
    hashed without being kept)."""

    LIMIT = 500_000


_CACHE = _Cache()


def _digests(shingles: list[str]) -> bytes:
    """The md5 bytes of ``shingles`` (UTF-8, lone surrogates passed), through the cache."""
    found = list(map(_CACHE.get, shingles))
    missing = [j for j, d in enumerate(found) if d is None]
    if missing:
        md5 = hashlib.md5
        keep = len(_CACHE) + len(missing) <= _Cache.LIMIT
        for j in missing:
            shingle = shingles[j]
            found[j] = md5(shingle.encode("utf-8", "surrogatepass")).digest()
            if keep:
                _CACHE[shingle] = found[j]
    return b"".join(found)


def _general128(joined: str) -> int:
    """The 128-bit code of any joined string (code points): shingles of ASCII symbols through
    the md5 table, the others by distinct shingle and ``hashlib``."""
    n = len(joined)
    if n < WIDTH:
        return _short(joined)
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    wide = cps > 127
    other = wide[:-3] | wide[1:-2] | wide[2:-1] | wide[3:]  # shingles with a non-ASCII char
    symbols = _SYMBOL_OF[np.where(wide, 0, cps)]
    ascii_shingles = _ascii_shingles(symbols)[~other]
    sums = _table_sums(ascii_shingles) if ascii_shingles.size else np.zeros(4096)
    starts = np.flatnonzero(other)
    if starts.size:
        alphabet, dense = np.unique(cps, return_inverse=True)
        d = dense.astype(np.uint64)
        k = np.uint64(alphabet.size)
        if alphabet.size < 1 << 16:  # k**4 fits in 64 bits: one integer per shingle
            keys = ((d[starts] * k + d[starts + 1]) * k + d[starts + 2]) * k + d[starts + 3]
            _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        else:
            pairs = np.stack(
                [d[starts] * k + d[starts + 1], d[starts + 2] * k + d[starts + 3]], axis=1
            )
            _, first, counts = np.unique(pairs, axis=0, return_index=True, return_counts=True)
        digests = _digests([joined[i : i + WIDTH] for i in starts[first].tolist()])
        rows = np.frombuffer(digests, dtype=np.uint8).reshape(-1, 16)
        sums = sums + _sums(rows, counts)
    return _code(sums, n - WIDTH + 1)


def simhash128(text: str) -> int:
    """The 128-bit code of ``text`` (``Simhash(text, f=128).value``, without overflow)."""
    if text.isascii() or not _NON_ASCII_WORD.search(text):
        # no word character outside ASCII: lowercasing and \w are those of ASCII, and every
        # non-ASCII character is a non-word character that lowercases to non-word ones
        return _ascii128(text.encode("ascii", "ignore").translate(_TRANSLATE, _DELETE))
    return _general128(joined_words(text))


def simhash64_128(text: str) -> tuple[int, int]:
    """Both codes of ``text``, ``(Simhash(text).value, Simhash(text, f=128).value)``."""
    v128 = simhash128(text)
    return v128 & _MASK64, v128


def simhash(text: str, f: int = 64) -> int:
    """The ``f``-bit code of ``text`` for ``f`` in (64, 128)."""
    if f == 128:
        return simhash128(text)
    if f == 64:
        return simhash128(text) & _MASK64
    raise ValueError(f"simhash width {f} is not supported (64 or 128)")


def simhash_bytes(data: bytes, encoding: str = "utf-8") -> tuple[int, int]:
    """Both codes of ``data`` decoded with ``encoding`` (invalid bytes replaced, which removes
    them: U+FFFD is not a word character). Pure ASCII bytes skip the decoding."""
    if data.isascii():
        return split128(_ascii128(data.translate(_TRANSLATE, _DELETE)))
    return simhash64_128(data.decode(encoding, "replace"))


def split128(v128: int) -> tuple[int, int]:
    """``(v64, v128)`` from a 128-bit code: the 64-bit code is its low half."""
    return v128 & _MASK64, v128
