"""Benchmark: the local shuffle sorts an input several times larger than its memory bound.

Each configuration runs in its own process (peak RSS is the child's own ``VmHWM``). The child
makes synthetic WARC-like records on the fly (HTML-ish pages of 2-30 KB from
``synthetic.PageMaker``, random hosts and paths, random capture dates), so the input is never
held in memory, and runs the shuffle as a sorted WARC writer would:

* **map**: each record is serialised (:mod:`crawlmill.core.run.shuffle.serial`), keyed by the
  WARC writer's ``sort_key`` (SURT url key + timestamp) and hash-partitioned by its
  ``partition_of``, then handed to a :class:`~crawlmill.algorithms.sorted_runs.spill.Spiller` that keeps
  at most ``--memory`` MiB buffered and spills sorted run files;
* **merge**: every partition's runs are merged (``heapq.merge`` over the run readers) and each
  record decoded again; the keys are checked to come out sorted and the count to match.

Printed per configuration: input size (serialised record bytes) and its ratio to the bound,
runs written, the child's RSS right before the map starts (interpreter, imports, page pool),
its peak RSS, **peak - start** against the bound (it must stay under bound + a constant), and
records/s of each phase.

    python benchmarks/bench_shuffle.py                         # 16 MiB bound, 8x; 64 MiB bound, 4x
    python benchmarks/bench_shuffle.py --memory 32 --factor 6 --partitions 4
    python benchmarks/bench_shuffle.py --engine 200            # the whole engine, see below

``--engine SIZE`` measures the command users run instead: ``crawlmill run`` of a config
converting a generated ``SIZE`` MiB ``.warc.gz`` (``bench_read_warc.generate``: realistic
pages, one gzip member per record) to WARC with ``sorted: {partitions: 4}``, one worker (so
the map and partition tasks run in the measured process) and ``run.shuffle_memory`` set to
each ``--memory`` bound, beside the same conversion without ``sorted``: the difference of
the peaks is what the shuffle costs in memory.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _status(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def child(memory_mib: int, factor: float, partitions: int, folder: str, seed: int) -> dict:
    """Run one shuffle in this process; return its figures."""
    sys.path.insert(0, str(HERE))
    from crawlmill.algorithms.sorted_runs.merge import merge, partition_runs
    from crawlmill.algorithms.sorted_runs.spill import Spiller
    from crawlmill.core.record import OffsetSpace, Provenance, Record, RecordKind
    from crawlmill.core.run.shuffle import serial
    from crawlmill.plugins.writers.warc_sorted import partition_of, sort_key
    from synthetic import PageMaker

    rng = random.Random(seed)
    pages = PageMaker(random.Random(seed))
    pool = [pages.page(rng.randrange(2_000, 30_000)) for _ in range(300)]
    start_date = datetime(2009, 1, 1, tzinfo=UTC)
    target = int(memory_mib * factor * 1024 * 1024)
    memory = memory_mib * 1024 * 1024
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
    rss_start = _status("VmRSS")

    spiller = Spiller(folder, partitions, memory, "bench")
    total = records = 0
    t0 = time.perf_counter()
    while total < target:
        host = f"www.site{rng.randrange(50_000)}.example.org"
        url = f"http://{host}/p/{rng.randrange(10**6)}/index.html?q={rng.randrange(100)}"
        record = Record(
            kind=RecordKind.RESPONSE,
            url=url,
            date=start_date + timedelta(seconds=rng.randrange(10**8)),
            http_head=head,
            payload=pool[records % len(pool)],
            content_type="text/html",
            charset="utf-8",
            extras={"warc": {"version": "1.0", "headers": [(b"WARC-Type", b"response")]}},
            source=Provenance("in.warc.gz", records * 1000, 1000, "warc", OffsetSpace.MEMBER),
        )
        blob = serial.encode(record)
        spiller.add(partition_of(record, partitions), sort_key(record), 0, records, blob)
        total += len(blob)
        records += 1
    runs = spiller.close()
    map_seconds = time.perf_counter() - t0

    t1 = time.perf_counter()
    merged = 0
    for p in range(partitions):
        last = b""
        for key, _input, _seq, blob in merge(partition_runs(folder, p)):
            assert key >= last, "merge out of order"
            last = key
            serial.decode(blob)
            merged += 1
    merge_seconds = time.perf_counter() - t1
    assert merged == records, (merged, records)
    return {
        "memory_mib": memory_mib,
        "input_mib": total / 2**20,
        "records": records,
        "runs": len(runs),
        "spills": spiller.spills,
        "rss_start_mib": rss_start,
        "peak_mib": _status("VmHWM"),
        "map_rps": records / map_seconds,
        "merge_rps": records / merge_seconds,
        "map_mib_s": total / 2**20 / map_seconds,
    }


def run_child(memory: int, factor: float, partitions: int, seed: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-shuffle-") as folder:
        code = (
            f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import bench_shuffle as b; "
            f"print(json.dumps(b.child({memory}, {factor!r}, {partitions}, {folder!r}, {seed})))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, capture_output=True, text=True
        ).stdout
    return json.loads(out.strip().splitlines()[-1])


ENGINE_CHILD = """
import json, sys, time
from crawlmill.core.commands.cli import main
started = time.perf_counter()
code = main(sys.argv[1:])
seconds = time.perf_counter() - started
peak = None
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        peak = int(line.split()[1]) / 1024
print(json.dumps({"peak_mib": peak, "seconds": seconds, "code": code}))
"""


def engine(size: int, bounds: list[int], partitions: int, cache: Path) -> None:
    """Peak RSS of ``crawlmill run`` with and without ``sorted``, per memory bound."""
    sys.path.insert(0, str(HERE))
    from bench_read_warc import generate

    cache.mkdir(parents=True, exist_ok=True)
    src = cache / f"bench-{size}mib.warc.gz"
    if not src.exists():
        generate(src, size)
    print(f"input: {src} ({src.stat().st_size / 2**20:.0f} MiB compressed, {size} MiB of records)")
    print("| conversion | shuffle_memory | seconds | peak RSS | peak - plain run's |")
    print("|---|---:|---:|---:|---:|")
    plain = None
    for bound in [None, *bounds]:
        with tempfile.TemporaryDirectory(prefix="bench-shuffle-engine-") as tmp:
            writer = {"name": "warc", "gzip_backend": "zlib"}
            run = {"workers": 1, "progress": "never"}
            if bound is not None:
                writer["sorted"] = {"partitions": partitions}
                run["shuffle_memory"] = bound * 2**20
            config = Path(tmp) / "p.json"
            config.write_text(
                json.dumps(
                    {"version": 1, "inputs": [str(src)], "writer": writer,
                     "output": str(Path(tmp) / "out"), "run": run}
                )
            )  # fmt: skip
            out = subprocess.run(
                [sys.executable, "-c", ENGINE_CHILD, "run", str(config)],
                check=True, capture_output=True, text=True,
            ).stdout  # fmt: skip
        r = json.loads(out.strip().splitlines()[-1])
        assert r["code"] == 0, r
        if bound is None:
            plain = r["peak_mib"]
        label = (
            "plain (one output per input)" if bound is None else f"sorted, {partitions} partitions"
        )
        extra = "" if bound is None else f"{r['peak_mib'] - plain:+.0f} MiB"
        print(
            f"| {label} | {'-' if bound is None else f'{bound} MiB'} | {r['seconds']:.1f} "
            f"| {r['peak_mib']:.0f} MiB | {extra} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memory", type=int, nargs="*", default=[16, 64], help="bounds, MiB")
    parser.add_argument("--factor", type=float, nargs="*", default=[8, 4], help="input / bound")
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--engine", type=int, metavar="SIZE", help="measure crawlmill run on SIZE MiB"
    )
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "crawlmill-bench"))
    args = parser.parse_args()
    if args.engine:
        engine(args.engine, args.memory, args.partitions, Path(args.cache))
        return
    factors = (
        args.factor if len(args.factor) == len(args.memory) else args.factor[:1] * len(args.memory)
    )
    print(
        "| bound | input (x bound) | records | runs | RSS at start | peak RSS | peak - start "
        "| peak - start - bound | map rec/s (MiB/s) | merge rec/s |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for memory, factor in zip(args.memory, factors, strict=True):
        r = run_child(memory, factor, args.partitions, args.seed)
        grown = r["peak_mib"] - r["rss_start_mib"]
        print(
            f"| {memory} MiB | {r['input_mib']:.0f} MiB ({r['input_mib'] / memory:.1f}x) "
            f"| {r['records']:,} | {r['runs']} | {r['rss_start_mib']:.0f} MiB "
            f"| {r['peak_mib']:.0f} MiB | {grown:.0f} MiB | {grown - memory:+.0f} MiB "
            f"| {r['map_rps']:,.0f} ({r['map_mib_s']:.0f}) | {r['merge_rps']:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
