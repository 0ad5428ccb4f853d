"""``algorithms/simhash_cluster.py``: the exact pigeonhole join finds every pair within tau
(0..8, several block counts, each pair once) on sets with planted pairs at known distances,
compared with brute force; the 128-bit check; the paper's bucketing recall against its
formula; union-find against a breadth-first search; representatives by rank."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
import pytest
from crawlmill.algorithms.simhash_cluster import (
    UnionFind,
    block_layout,
    bucketing_pairs,
    bucketing_recall,
    choose_blocks,
    cluster,
    exact_pairs,
    popcount,
    representatives,
)


def flip(code: int, distance: int, rng: np.random.Generator) -> int:
    """``code`` with ``distance`` distinct random bits flipped."""
    for bit in rng.choice(64, size=distance, replace=False).tolist():
        code ^= 1 << bit
    return code


def planted(n: int, tau: int, seed: int) -> np.ndarray:
    """``n`` distinct codes: random ones, chains and stars of copies at distances 0..tau+2
    (pairs just inside and just outside tau), shuffled."""
    rng = np.random.default_rng(seed)
    codes: list[int] = []
    while len(codes) < n:
        base = int(rng.integers(0, 2**64, dtype=np.uint64))
        codes.append(base)
        for _ in range(int(rng.integers(0, 4))):
            src = codes[int(rng.integers(0, len(codes)))] if rng.random() < 0.5 else base
            codes.append(flip(src, int(rng.integers(1, tau + 3)), rng))
    out = np.unique(np.array(codes[:n], dtype=np.uint64))
    rng.shuffle(out)
    return out


def brute_pairs(codes: np.ndarray, tau: int, hi=None, tau128=None) -> set[tuple[int, int]]:
    """All pairs within tau (and tau128 on 128 bits), by comparing every pair."""
    x = codes[:, None] ^ codes[None, :]
    d = popcount(x.ravel()).reshape(x.shape)
    ok = d <= tau
    if tau128 is not None:
        d128 = d + popcount((hi[:, None] ^ hi[None, :]).ravel()).reshape(x.shape)
        ok &= d128 <= tau128
    a, b = np.nonzero(np.triu(ok, 1))
    return set(zip(a.tolist(), b.tolist(), strict=True))


def collect(batches) -> list[tuple[int, int]]:
    """Pairs from batches, each as (smaller, larger)."""
    out = []
    for a, b in batches:
        out += zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist(), strict=True)
    return out


def test_block_layout():
    assert block_layout(5) == [(51, 13), (38, 13), (25, 13), (12, 13), (0, 12)]
    for b in range(1, 65):
        layout = block_layout(b)
        assert sum(w for _, w in layout) == 64 and layout[-1][0] == 0
    with pytest.raises(ValueError):
        block_layout(0)


@pytest.mark.parametrize("tau", range(9))
def test_exact_finds_every_pair_once(tau):
    """Every pair within tau, none outside, none twice, for the chosen block count and for
    tau+1 (the fewest tables) to tau+4 blocks."""
    codes = planted(500, tau, seed=tau)
    want = brute_pairs(codes, tau)
    if tau:
        assert any(int(popcount(np.array([codes[a] ^ codes[b]]))[0]) == tau for a, b in want), (
            "no pair at distance exactly tau was planted"
        )
    for blocks in sorted({choose_blocks(codes.size, tau), tau + 1, tau + 2, tau + 4}):
        got = collect(exact_pairs(codes, tau, blocks))
        assert len(got) == len(set(got)), f"a pair came out twice (blocks={blocks})"
        assert set(got) == want, f"blocks={blocks}"


def test_exact_128_bit_check():
    """With the high halves and tau128, exactly the pairs within both thresholds."""
    rng = np.random.default_rng(3)
    lo = planted(400, 6, seed=9)
    hi = lo.copy()
    hi[rng.random(lo.size) < 0.5] ^= np.uint64(1)  # near pairs differ in 0..2 high bits
    hi[rng.random(lo.size) < 0.3] ^= np.uint64(6)
    for tau, tau128 in [(6, 6), (6, 7), (4, 10), (6, 128)]:
        want = brute_pairs(lo, tau, hi, tau128)
        got = collect(exact_pairs(lo, tau, None, hi, tau128))
        assert sorted(got) == sorted(want)


def test_cluster_collapses_identical_codes_and_labels_by_smallest_row():
    codes = np.array([5, 7, 5, 1 << 40, 7 ^ (1 << 3), 2**63], dtype=np.uint64)
    r = cluster(codes, tau=1)
    # 5 and 7 differ in one bit; 7 and 7^8 in one bit: rows 0,1,2,4 form one cluster
    assert r.cluster.tolist() == [0, 0, 0, 3, 0, 5]
    assert r.size.tolist() == [4, 4, 4, 1, 4, 1]
    assert r.nodes == 5
    # tau 0: only identical codes
    assert cluster(codes, tau=0).cluster.tolist() == [0, 1, 0, 3, 4, 5]
    # the 128-bit check splits identical 64-bit codes whose high halves differ too much
    hi = np.array([0, 0, 0b111, 0, 0, 0], dtype=np.uint64)
    assert cluster(codes, 1, hi=hi, tau128=2).cluster.tolist() == [0, 0, 2, 3, 0, 5]


def test_cluster_exact_equals_brute_force_components():
    codes = planted(800, 3, seed=5)
    codes = np.concatenate([codes, codes[:50]])  # exact duplicates as rows
    r = cluster(codes, 3)
    pairs = brute_pairs(codes, 3)
    assert r.cluster.tolist() == bfs_components(codes.size, pairs)
    b = cluster(codes, 3, "bucketing", bits=16, rounds=200, seed=1)
    assert b.cluster.tolist() == r.cluster.tolist()  # 200 rounds: recall 1 - 1e-27 at d=3


def bfs_components(n: int, pairs) -> list[int]:
    """The smallest member of each node's connected component, by breadth-first search."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in pairs:
        adj[a].append(b)
        adj[b].append(a)
    comp = [-1] * n
    for s in range(n):
        if comp[s] >= 0:
            continue
        comp[s] = s
        queue = deque([s])
        while queue:
            for v in adj[queue.popleft()]:
                if comp[v] < 0:
                    comp[v] = s
                    queue.append(v)
    return comp


def test_union_find_against_bfs():
    rng = np.random.default_rng(7)
    for n, m in [(10, 0), (50, 30), (2000, 1800), (2000, 5000)]:
        a = rng.integers(0, n, m)
        b = rng.integers(0, n, m)
        uf = UnionFind(n)
        for lo in range(0, m, 97):  # in batches, as the join delivers them
            uf.union(a[lo : lo + 97], b[lo : lo + 97])
        assert uf.labels().tolist() == bfs_components(n, zip(a.tolist(), b.tolist(), strict=True))


def test_union_find_long_chain():
    n = 5000
    uf = UnionFind(n)
    order = np.random.default_rng(1).permutation(n - 1)
    uf.union(order, order + 1)
    assert uf.labels().tolist() == [0] * n


def test_bucketing_recall_matches_the_papers_formula():
    """Pairs planted at distance h, bucketed with B=16 bits and T rounds over many seeds: the
    share found is the paper's 1 - (1 - C(64-h, B)/C(64, B))**T within sampling error."""
    assert bucketing_recall(6) == pytest.approx(0.9720, abs=1e-4)  # the paper's ">97%"
    assert bucketing_recall(3) > 0.9999  # the paper enumerates exactly for tau <= 3
    rng = np.random.default_rng(12)
    pairs_per_distance = 60
    for h, rounds in [(4, 2), (6, 2), (6, 5), (8, 4), (12, 6)]:
        found = total = 0
        for seed in range(30):
            base = rng.integers(0, 2**64, pairs_per_distance, dtype=np.uint64)
            near = np.array([flip(int(c), h, rng) for c in base], dtype=np.uint64)
            codes = np.concatenate([base, near])
            got = set(collect(bucketing_pairs(codes, h, 16, rounds, seed)))
            k = pairs_per_distance
            found += sum((i, i + k) in got for i in range(k))
            total += k
        p = bucketing_recall(h, 16, rounds)
        sigma = math.sqrt(p * (1 - p) / total)
        assert abs(found / total - p) <= 4 * sigma + 0.005, (h, rounds, found / total, p)


def test_bucketing_only_reports_pairs_within_tau():
    codes = planted(400, 5, seed=2)
    want = brute_pairs(codes, 5)
    got = set(collect(bucketing_pairs(codes, 5, 16, 20, 0)))
    assert got <= want
    assert len(got) >= 0.9 * len(want)


def test_representatives_by_rank():
    label = np.array([0, 0, 2, 0, 2, 5])
    rank = np.array([3, 1, 9, 2, 4, 0])
    assert representatives(label, rank).tolist() == [1, 1, 4, 1, 4, 5]
