"""Near-duplicate clusters of 64-bit simhash codes: pairs within Hamming distance ``tau``,
union-find, one representative per cluster. numpy only; imports nothing else of crawlmill.

Pairs (on the distinct codes; identical codes are one node, so exact duplicates cost nothing):

* **exact** (:func:`exact_pairs`): the pigeonhole join of Manku, Jain and Das Sarma (WWW
  2007). The 64 bits are cut into ``b > tau`` contiguous blocks; two codes within distance
  ``tau`` differ in at most ``tau`` blocks, so they agree on some ``b - tau`` of them. One
  table per choice of ``b - tau`` blocks (``C(b, tau)`` tables): the codes are sorted by those
  blocks (key and row index packed into one uint64 when they fit) and compared inside each run
  of equal keys. Every pair within ``tau`` is found (recall 1). A pair that agrees on several
  choices is emitted only by the lexicographically first choice among its agreeing blocks, so
  each pair comes out once. ``b`` is picked by a cost model (sorts against random collisions)
  unless given.
* **bucketing** (:func:`bucketing_pairs`): the Chuweb21D paper's Algorithm 3, for faithful
  replication: ``rounds`` times, ``bits`` bit positions drawn without replacement
  (``numpy.random.default_rng(seed)``), codes bucketed by those bits, pairs within ``tau``
  inside a bucket. A pair at distance ``h`` is found in one round with probability
  ``C(64 - h, B) / C(64, B)`` (:func:`bucketing_recall` gives ``1 - (1 - p)**T``).
* the **128-bit second check** (the paper's Algorithm 4): with ``hi`` (the high 64 bits of
  the 128-bit codes; their low half is the 64-bit code) and ``tau128``, a pair is kept only
  when its 128-bit distance is at most ``tau128`` as well.

:class:`UnionFind` joins the pairs (arrays: a parent per node, hooking the larger root under
the smaller, pointer jumping), so memory is linear in the number of codes plus one table's
pairs. :func:`cluster` runs the whole step; :func:`representatives` keeps one document per
cluster by a ranking the caller gives (first seen, smallest doc id, earliest date, longest
text are ranks of the filter that uses this module).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Clusters",
    "UnionFind",
    "block_layout",
    "bucketing_pairs",
    "bucketing_recall",
    "choose_blocks",
    "cluster",
    "exact_pairs",
    "popcount",
    "representatives",
]

_U64 = np.uint64

if hasattr(np, "bitwise_count"):  # numpy >= 2.0

    def popcount(x: np.ndarray) -> np.ndarray:
        """Set bits of each uint64 of ``x`` (int64)."""
        return np.bitwise_count(x).astype(np.int64)

else:  # pragma: no cover - numpy 1.x
    _POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)

    def popcount(x: np.ndarray) -> np.ndarray:
        """Set bits of each uint64 of ``x`` (int64)."""
        x = np.ascontiguousarray(x, dtype=np.uint64)
        return _POP8[x.view(np.uint8).reshape(-1, 8)].sum(axis=1)


def block_layout(blocks: int) -> list[tuple[int, int]]:
    """``(shift, width)`` of each of ``blocks`` contiguous blocks of a 64-bit code, most
    significant first; the first ``64 % blocks`` blocks are one bit wider."""
    if not 1 <= blocks <= 64:
        raise ValueError(f"blocks must be 1..64, not {blocks}")
    widths = [64 // blocks + (1 if i < 64 % blocks else 0) for i in range(blocks)]
    layout, top = [], 64
    for w in widths:
        top -= w
        layout.append((top, w))
    return layout


def choose_blocks(n: int, tau: int) -> int:
    """The block count of the least estimated cost for ``n`` distinct codes at ``tau``:
    ``C(b, tau)`` tables, each a sort of ``n`` keys and the random collisions inside its
    runs (``n**2 / 2**(keybits + 1)``), which cost about the same per item (measured)."""
    if tau == 0:
        return 1
    best, best_cost = tau + 1, math.inf
    for b in range(tau + 1, min(64, tau + 12) + 1):
        tables = math.comb(b, tau)
        keybits = 64 * (b - tau) // b  # the narrowest choice of blocks
        cost = tables * (n + n * n / 2 ** (keybits + 1))  # measured: sort ~ compare per item
        if cost < best_cost:
            best, best_cost = b, cost
    return best


def _key(codes: np.ndarray, layout: list[tuple[int, int]], chosen: tuple[int, ...]) -> np.ndarray:
    """The chosen blocks of each code packed into the low bits of a uint64."""
    key = np.zeros(codes.size, dtype=_U64)
    for j in chosen:
        shift, width = layout[j]
        key <<= _U64(width)
        key |= (codes >> _U64(shift)) & _U64((1 << width) - 1)
    return key


def _sorted_runs(key: np.ndarray, keybits: int) -> tuple[np.ndarray, np.ndarray]:
    """``key`` sorted, and the row index of each sorted entry."""
    n = key.size
    idxbits = max(1, (n - 1).bit_length())
    if keybits + idxbits <= 64:
        packed = np.sort((key << _U64(idxbits)) | np.arange(n, dtype=_U64))
        return packed >> _U64(idxbits), (packed & _U64((1 << idxbits) - 1)).astype(np.int64)
    order = np.argsort(key, kind="stable")
    return key[order], order


def _run_pairs(keys: np.ndarray) -> Iterator[tuple[np.ndarray, int]]:
    """Positions ``i`` with ``keys[i] == keys[i + d]``, for d = 1, 2, ... (keys sorted):
    every pair inside every run of equal keys, once."""
    pos = np.flatnonzero(keys[:-1] == keys[1:])
    d = 1
    while pos.size:
        yield pos, d
        d += 1
        pos = pos[pos + d < keys.size]
        pos = pos[keys[pos + d] == keys[pos]]


@dataclass(frozen=True)
class _Check:
    """The distance test of a candidate pair: 64-bit ``tau``, optional 128-bit ``tau128``."""

    codes: np.ndarray
    tau: int
    hi: np.ndarray | None = None
    tau128: int | None = None

    def __call__(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(x, ok)``: the xor of the 64-bit codes and which pairs pass."""
        x = self.codes[a] ^ self.codes[b]
        d = popcount(x)
        ok = d <= self.tau
        if self.hi is not None and self.tau128 is not None:
            ok &= d + popcount(self.hi[a] ^ self.hi[b]) <= self.tau128
        return x, ok


def exact_pairs(
    codes: np.ndarray,
    tau: int,
    blocks: int | None = None,
    hi: np.ndarray | None = None,
    tau128: int | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Every pair ``(a, b)`` (row indices, ``a`` != ``b``) of distinct ``codes`` within
    Hamming distance ``tau`` (and, with ``hi`` and ``tau128``, within ``tau128`` on the 128-bit
    codes), each pair once, as arrays per table."""
    codes = np.ascontiguousarray(codes, dtype=_U64)
    if not 0 <= tau <= 32:
        raise ValueError(f"tau must be 0..32, not {tau}")
    if codes.size < 2:
        return
    b = blocks or choose_blocks(codes.size, tau)
    if b <= tau:
        raise ValueError(f"the exact method needs more blocks than tau ({b} <= {tau})")
    layout = block_layout(b)
    check = _Check(codes, tau, hi, tau128)
    keep = b - tau
    for chosen in itertools.combinations(range(b), keep):
        keybits = sum(layout[j][1] for j in chosen)
        mine = sum(1 << j for j in chosen)
        keys, rows = _sorted_runs(_key(codes, layout, chosen), keybits)
        for pos, d in _run_pairs(keys):
            a, c = rows[pos], rows[pos + d]
            x, ok = check(a, c)
            if not ok.any():
                continue
            a, c, x = a[ok], c[ok], x[ok]
            if tau:  # only the first agreeing choice of blocks emits a pair
                zero = np.stack(
                    [((x >> _U64(s)) & _U64((1 << w) - 1)) == 0 for s, w in layout], axis=1
                )
                first = zero & (np.cumsum(zero, axis=1) <= keep)
                canon = (first.astype(np.int64) << np.arange(b, dtype=np.int64)).sum(axis=1)
                own = canon == mine
                a, c = a[own], c[own]
            if a.size:
                yield a, c


def bucketing_pairs(
    codes: np.ndarray,
    tau: int,
    bits: int = 16,
    rounds: int = 20,
    seed: int = 0,
    hi: np.ndarray | None = None,
    tau128: int | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs within ``tau`` found by the paper's randomized bucketing (``rounds`` rounds of
    ``bits`` sampled bit positions, ``seed``): a pair may come out in several rounds, and a
    pair is missed with the probability :func:`bucketing_recall` complements."""
    codes = np.ascontiguousarray(codes, dtype=_U64)
    if not 1 <= bits <= 64:
        raise ValueError(f"bits must be 1..64, not {bits}")
    if codes.size < 2:
        return
    rng = np.random.default_rng(seed)
    check = _Check(codes, tau, hi, tau128)
    for _ in range(rounds):
        positions = np.sort(rng.choice(64, size=bits, replace=False))
        key = np.zeros(codes.size, dtype=_U64)
        for p in positions.tolist():
            key <<= _U64(1)
            key |= (codes >> _U64(p)) & _U64(1)
        keys, rows = _sorted_runs(key, bits)
        for pos, d in _run_pairs(keys):
            a, c = rows[pos], rows[pos + d]
            _, ok = check(a, c)
            if ok.any():
                yield a[ok], c[ok]


def bucketing_recall(distance: int, bits: int = 16, rounds: int = 20) -> float:
    """The paper's probability that a pair at ``distance`` shares a bucket in at least one
    of ``rounds`` rounds: ``1 - (1 - C(64 - h, B) / C(64, B))**T``."""
    p = math.comb(64 - distance, bits) / math.comb(64, bits)
    return 1.0 - (1.0 - p) ** rounds


class UnionFind:
    """Disjoint sets of ``n`` nodes in one array: every root is the smallest node of its set
    (a union hooks the larger root under the smaller one), so the partition and the labels
    do not depend on the order of the pairs."""

    def __init__(self, n: int) -> None:
        self.parent = np.arange(n, dtype=np.int64)

    def find(self, x: np.ndarray) -> np.ndarray:
        """The roots of nodes ``x``."""
        parent = self.parent
        r = parent[x]
        while True:
            up = parent[r]
            if np.array_equal(up, r):
                return r
            r = up

    def union(self, a: np.ndarray, b: np.ndarray) -> None:
        """Join the sets of ``a[i]`` and ``b[i]`` for every ``i``."""
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        while a.size:
            ra, rb = self.find(a), self.find(b)
            apart = ra != rb
            if not apart.any():
                break
            lo = np.minimum(ra[apart], rb[apart])
            hi = np.maximum(ra[apart], rb[apart])
            np.minimum.at(self.parent, hi, lo)
            a, b = lo, hi
            self._compress()

    def _compress(self) -> None:
        parent = self.parent
        while True:
            up = parent[parent]
            if np.array_equal(up, parent):
                return
            parent[:] = up

    def labels(self) -> np.ndarray:
        """The root of every node (int64)."""
        self._compress()
        return self.parent.copy()


def _distinct(
    codes: np.ndarray, hi: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Distinct codes (pairs of codes with ``hi``), their ``hi``, and each row's node (one
    sort; ``np.unique`` is several times slower here)."""
    order = np.argsort(codes) if hi is None else np.lexsort((hi, codes))
    c = codes[order]
    start = np.ones(c.size, dtype=bool)
    start[1:] = c[1:] != c[:-1]
    h = None
    if hi is not None:
        h = hi[order]
        start[1:] |= h[1:] != h[:-1]
        h = h[start]
    inverse = np.empty(c.size, dtype=np.int64)
    inverse[order] = np.cumsum(start) - 1
    return c[start], h, inverse


@dataclass
class Clusters:
    """The result of :func:`cluster`, per document (row): ``label`` (the set's smallest
    node, in distinct-code space), ``cluster`` (the smallest row of the set), ``size`` (rows
    in the set), and what was done: ``nodes`` (distinct codes), ``pairs`` (node pairs found)."""

    label: np.ndarray
    cluster: np.ndarray
    size: np.ndarray
    nodes: int
    pairs: int


def cluster(
    codes: np.ndarray,
    tau: int,
    method: str = "exact",
    *,
    blocks: int | None = None,
    bits: int = 16,
    rounds: int = 20,
    seed: int = 0,
    hi: np.ndarray | None = None,
    tau128: int | None = None,
) -> Clusters:
    """Cluster 64-bit ``codes`` (one per document) at Hamming distance ``tau`` by ``method``
    (``exact`` or ``bucketing``), with the optional 128-bit check (``hi``: the high halves of
    the 128-bit codes, ``tau128``)."""
    codes = np.ascontiguousarray(codes, dtype=_U64)
    check_hi = None if tau128 is None else np.ascontiguousarray(hi, dtype=_U64)
    if tau128 is not None and (check_hi is None or check_hi.shape != codes.shape):
        raise ValueError("the 128-bit check needs the high halves of the 128-bit codes")
    nodes, node_hi, inverse = _distinct(codes, check_hi)
    uf = UnionFind(nodes.size)
    if method == "exact":
        batches = exact_pairs(nodes, tau, blocks, node_hi, tau128)
    elif method == "bucketing":
        batches = bucketing_pairs(nodes, tau, bits, rounds, seed, node_hi, tau128)
    else:
        raise ValueError(f"unknown method {method!r} (exact or bucketing)")
    found = 0
    pending: list[tuple[np.ndarray, np.ndarray]] = []
    held = 0
    flush_at = max(1 << 20, nodes.size // 4)  # pairs held before a union (bounded memory)
    for a, b in batches:
        found += a.size
        pending.append((a, b))
        held += a.size
        if held >= flush_at:
            uf.union(
                np.concatenate([p[0] for p in pending]), np.concatenate([p[1] for p in pending])
            )
            pending, held = [], 0
    if pending:
        uf.union(np.concatenate([p[0] for p in pending]), np.concatenate([p[1] for p in pending]))
    label = uf.labels()[inverse]
    first = np.full(nodes.size, codes.size, dtype=np.int64)
    np.minimum.at(first, label, np.arange(codes.size, dtype=np.int64))
    counts = np.bincount(label, minlength=nodes.size)
    return Clusters(label, first[label], counts[label], int(nodes.size), found)


def representatives(label: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Each row's representative: the row of least ``rank`` in its cluster (``label``).
    ``rank`` must be distinct per row (add the row order as the last tie-break)."""
    order = np.argsort(rank, kind="stable")
    labels, first = np.unique(label[order], return_index=True)
    best = np.empty(int(labels[-1]) + 1 if labels.size else 0, dtype=np.int64)
    best[labels] = order[first]
    return best[label]
