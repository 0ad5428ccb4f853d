"""Benchmark: simhash codes (both widths) beside the ``simhash`` package on the same texts, and
near-duplicate clustering of N random 64-bit codes (time and peak memory).

Hashing, one process, single-threaded, documents/s for 64 + 128 bits together (the package
needs two calls, ``Simhash(t)`` and ``Simhash(t, f=128)``; crawlmill one,
``simhash64_128``):

* ``text``: 5 KB windows of English text (the stdlib's ``pydoc_data`` topics, seeded offsets);
* ``html``: the HTML payloads of the real WARC samples (``../shared/samples``: warcio, jwarc,
  real-world-2026-11) and the Chuweb21D case files. With numpy >= 2 the package raises
  ``OverflowError`` on any page with a shingle more than 255 times (1e0ng/simhash #74): it is
  timed on the pages it completes, and crawlmill on those same pages and on all.

crawlmill's md5 table of ASCII shingles fills as texts arrive: the first pass over a corpus
("cold") pays for it, later passes ("warm") show the steady state of a long run.

Clustering, one subprocess per case (so its peak RSS is its own): N codes, 20% of them planted
copies of another code with 0..tau random bit flips, ``cluster(codes, tau)`` (exact) timed, and
the peak resident memory of the process reported beside the codes' own 8 bytes per code.
Beside it, the Chuweb21D paper's own methods on the same codes:

* tau <= 3, **flip-mask enumeration** (every code within tau probed in a Python ``set`` of the
  codes, ``sum(C(64, i), i <= tau)`` probes per code): timed on a sample of the codes and
  extrapolated to all of them at the measured probe rate (running it whole takes hours);
* tau > 3, **bucketing** (``method="bucketing"``, the paper's B=16 bits, T=20 rounds) run
  whole, with its pairs and the share of the exact method's clusters it reproduces.

    python benchmarks/bench_simhash.py                     # hashing, 1M codes at tau 3 and 6
    python benchmarks/bench_simhash.py --codes 10000000    # clustering of 10M codes
    python benchmarks/bench_simhash.py --skip-hash --codes 1000000 --taus 3
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))


def english_windows(n: int, size: int = 5000, seed: int = 1) -> list[str]:
    """``n`` windows of ``size`` characters of English documentation text."""
    import pydoc_data.topics

    corpus = "\n".join(pydoc_data.topics.topics.values())
    rnd = random.Random(seed)
    return [corpus[o : o + size] for o in (rnd.randrange(len(corpus) - size) for _ in range(n))]


def html_pages() -> list[str]:
    """The HTML payloads of the sample WARC pages and the Chuweb21D case files, as text."""
    from crawlmill import RecordKind, open_reader
    from crawlmill.algorithms.simhash_text import decode

    pages = []
    for d in ("webrecorder-warcio", "iipc-jwarc", "real-world-2026-11"):
        for path in sorted(glob.glob(str(SAMPLES / d / "**" / "*.warc*"), recursive=True)):
            for record in open_reader(path, "warc"):
                if (
                    record.kind in (RecordKind.RESPONSE, RecordKind.RESOURCE)
                    and record.payload
                    and (record.content_type or "").startswith("text/html")
                ):
                    pages.append(decode(record.payload, record.charset))
    cases = SAMPLES / "chuzhumin98-Chuweb21D" / "materials" / "cases"
    for path in sorted(cases.glob("*/*.html")):
        pages.append(decode(path.read_bytes()))
    return pages


def time_ours(texts: list[str]) -> float:
    from crawlmill.algorithms.simhash import simhash64_128

    start = time.perf_counter()
    for t in texts:
        simhash64_128(t)
    return time.perf_counter() - start


def time_package(texts: list[str]) -> tuple[float, list[str]]:
    """Seconds of both widths on the texts the package completes, and those texts."""
    from simhash import Simhash

    done, seconds = [], 0.0
    for t in texts:
        start = time.perf_counter()
        try:
            Simhash(t)
            Simhash(t, f=128)
        except OverflowError:
            continue
        seconds += time.perf_counter() - start
        done.append(t)
    return seconds, done


def bench_hash(corpora: dict[str, list[str]]) -> None:
    import numpy
    from crawlmill.algorithms.simhash import _CACHE, _TABLE

    print(f"hashing, 64 + 128 bits, numpy {numpy.__version__}, one core")
    for name, texts in corpora.items():
        chars = sum(map(len, texts))
        _TABLE.table = _TABLE.filled = None
        _CACHE.clear()
        cold = time_ours(texts)
        warm = time_ours(texts)
        pkg, done = time_package(texts)
        ours_done = time_ours(done)
        mb = chars / 1e6
        print(
            f"  {name}: {len(texts)} docs, {mb:.1f} M chars; crawlmill cold {len(texts) / cold:,.0f}"
            f" docs/s ({mb / cold:.1f} M chars/s), warm {len(texts) / warm:,.0f} docs/s"
            f" ({mb / warm:.1f} M chars/s)"
        )
        if done:
            dmb = sum(map(len, done)) / 1e6
            print(
                f"    package on the {len(done)} docs it completes ({dmb:.1f} M chars): "
                f"{len(done) / pkg:,.1f} docs/s ({dmb / pkg:.2f} M chars/s); crawlmill warm on"
                f" the same: {len(done) / ours_done:,.0f} docs/s = {pkg / ours_done:.1f}x"
            )
        if len(done) < len(texts):
            print(f"    package raises OverflowError on {len(texts) - len(done)} docs")


def planted_codes(n: int, tau: int, seed: int = 0):
    """``n`` random codes, the last 20% copies of earlier ones with 0..tau bit flips."""
    import numpy as np

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    k = n // 5
    src = rng.integers(0, n - k, k)
    flips = rng.integers(0, tau + 1, k)
    near = codes[src].copy()
    for j in range(tau):
        bit = rng.integers(0, 64, k).astype(np.uint64)
        near ^= np.where(flips > j, np.uint64(1) << bit, np.uint64(0))
    codes[n - k :] = near
    return codes


def cluster_case(n: int, tau: int, method: str = "exact", seed: int = 0) -> dict:
    """In this process: plant, cluster by ``method``, report seconds and peak RSS (and, for
    bucketing, how many documents land in the exact method's cluster)."""
    import numpy as np
    from crawlmill.algorithms.simhash_cluster import choose_blocks, cluster

    codes = planted_codes(n, tau, seed)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu = time.perf_counter(), time.process_time()
    result = cluster(codes, tau, method)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    agree = None
    if method != "exact":
        exact = cluster(codes, tau).cluster
        joint = np.unique(np.stack([exact, result.cluster]), axis=1).shape[1]
        agree = {
            "clusters": int(np.unique(result.cluster).size),
            "clusters_exact": int(np.unique(exact).size),
            # same partition: every exact cluster is one bucketing cluster and back
            "same_partition": joint == np.unique(exact).size == np.unique(result.cluster).size,
        }
    return {
        "n": n,
        "tau": tau,
        "method": method,
        "agree": agree,
        "blocks": choose_blocks(result.nodes, tau) if method == "exact" else None,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "pairs": result.pairs,
        "clusters": int(np.unique(result.cluster).size),
        "peak_rss_mb": round(peak / 1024, 1),
        "rss_before_mb": round(before / 1024, 1),
    }


def enumeration_case(n: int, tau: int, sample: int = 2000) -> dict:
    """The paper's exact search for tau <= 3: each code XORed with every mask of at most
    ``tau`` bits and probed in a ``set`` of all codes; ``sample`` codes timed, all extrapolated."""
    import itertools
    import math

    codes = [int(c) for c in planted_codes(n, tau)]
    table = set(codes)
    masks = [0]
    for i in range(1, tau + 1):
        for bits in itertools.combinations(range(64), i):
            masks.append(sum(1 << b for b in bits))
    start = time.process_time()
    hits = 0
    for code in codes[-sample:]:  # the planted end: every code has a neighbour to find
        hits += sum((code ^ m) in table for m in masks)
    cpu = time.process_time() - start
    probes = sample * len(masks)
    assert len(masks) == sum(math.comb(64, i) for i in range(tau + 1))
    return {
        "probes_per_s": probes / cpu,
        "masks": len(masks),
        "hits": hits,
        "extrapolated_s": n * len(masks) / (probes / cpu),
    }


def _case(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def bench_cluster(codes: list[int], taus: list[int]) -> None:
    print("clustering, one core; planted: 20% copies at 0..tau flips")
    for n in codes:
        for tau in taus:
            r = _case("--cluster-case", str(n), str(tau), "exact")
            print(
                f"  {n:,} codes, tau {tau}: {r['seconds']} s, CPU {r['cpu_seconds']} s"
                f" ({r['blocks']} blocks), "
                f"{r['pairs']:,} pairs, {r['clusters']:,} clusters; peak RSS {r['peak_rss_mb']} MB"
                f" (codes alone {n * 8 / 2**20:.0f} MB, before clustering {r['rss_before_mb']} MB)"
            )
            if tau <= 3:
                e = _case("--enumeration-case", str(n), str(tau))
                print(
                    f"    paper, mask enumeration ({e['masks']:,} probes per code in a set, "
                    f"{e['probes_per_s'] / 1e6:.1f}M probes/s on a sample): "
                    f"{e['extrapolated_s']:,.0f} s extrapolated = "
                    f"{e['extrapolated_s'] / r['cpu_seconds']:,.0f}x the exact join's CPU"
                )
            else:
                b = _case("--cluster-case", str(n), str(tau), "bucketing")
                a = b["agree"]
                print(
                    f"    paper, bucketing B=16 T=20: {b['seconds']} s, CPU {b['cpu_seconds']} s"
                    f" = {b['cpu_seconds'] / r['cpu_seconds']:.2f}x the exact join's CPU; "
                    f"{b['pairs']:,} pairs, {a['clusters']:,} clusters (exact "
                    f"{a['clusters_exact']:,}; same partition: {a['same_partition']}); "
                    f"peak RSS {b['peak_rss_mb']} MB"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=1000, help="5 KB English windows")
    parser.add_argument("--codes", type=int, nargs="*", default=[1_000_000])
    parser.add_argument("--taus", type=int, nargs="*", default=[3, 6])
    parser.add_argument("--skip-hash", action="store_true")
    parser.add_argument("--skip-cluster", action="store_true")
    parser.add_argument("--cluster-case", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--enumeration-case", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cluster_case:
        n, tau, method = args.cluster_case
        print(json.dumps(cluster_case(int(n), int(tau), method)))
        return
    if args.enumeration_case:
        print(json.dumps(enumeration_case(*args.enumeration_case)))
        return
    if not args.skip_hash:
        bench_hash({"text 5 KB": english_windows(args.docs), "html": html_pages()})
    if not args.skip_cluster:
        bench_cluster(args.codes, args.taus)


if __name__ == "__main__":
    main()
