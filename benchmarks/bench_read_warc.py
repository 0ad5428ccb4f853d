"""Benchmark: reading a per-record .warc.gz with warcio, FastWARC and crawlmill's reader.

Generates a realistic Common-Crawl-like WARC (warcinfo, then request/response/metadata triples
with varied HTML-ish payloads, gzip level 6 per record) once per size into a cache folder,
then times each reader in its own subprocess (so peak RSS is separable) on the same file,
with the page cache warm. Each reader iterates all records and touches the payload bytes.

    python benchmarks/bench_read_warc.py                 # 40 and 160 MiB uncompressed
    python benchmarks/bench_read_warc.py --sizes 200 --repeat 3

``crawlmill-inline`` is crawlmill with ``inflate_threads: 0`` (no inflate thread: the least
CPU time, one core); ``crawlmill-inline-pure`` the same with ``CRAWLMILL_PURE=1`` (without the
compiled WARC framing kernel, formats/warc/_warcfast.c). Prints MiB/s (of uncompressed WARC bytes) and records/s per reader, its CPU time (user + sys
of the reading, threads and child processes included), the ratio of crawlmill to each other
reader in wall time and in CPU efficiency (crawlmill inflates in a second thread, so it may
spend more CPU time than wall time; a cluster pays for every core), and the peak RSS of each
run for every file size (memory stays flat in the file size when the peak does not grow).

``--before DIR`` adds the readers ``crawlmill-before`` and ``crawlmill-inline-before``:
crawlmill imported from another checkout (``git worktree add /tmp/base REV``; build its
kernel there, or it runs pure), so a change is measured before and after in one run, on one
machine, interleaved. Every figure is the median of ``--repeat`` runs (the CPU times of each
run are printed too). ``--split`` adds crawlmill's CPU per record outside the inflate (the
pieces inflated ahead, warm; :func:`split_costs`), with and without ``--before``.

    python benchmarks/bench_read_warc.py --before /tmp/base --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from pathlib import Path

from synthetic import PageMaker

READERS = ("warcio", "fastwarc", "crawlmill", "crawlmill-inline", "crawlmill-inline-pure")


# -- test data ---------------------------------------------------------------------------


def _record(wtype: str, uri: str, date: str, ctype: str, block: bytes, extra: str = "") -> bytes:
    head = (
        f"WARC/1.0\r\nWARC-Type: {wtype}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:{uuid.UUID(int=random.getrandbits(128))}>\r\n"
        f"WARC-Target-URI: {uri}\r\n{extra}Content-Type: {ctype}\r\nContent-Length: {len(block)}\r\n\r\n"
    )
    return head.encode() + block + b"\r\n\r\n"


def generate(path: Path, size_mib: int, seed: int = 7) -> dict:
    """Write a per-record gzip WARC of about ``size_mib`` MiB uncompressed to ``path``."""
    rng = random.Random(seed)
    random.seed(seed)
    pages = PageMaker(rng)
    words = pages.words
    target = size_mib << 20
    total = records = 0
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as out:

        def put(raw: bytes) -> None:
            nonlocal total, records
            c = zlib.compressobj(6, zlib.DEFLATED, 31)
            out.write(c.compress(raw) + c.flush())
            total += len(raw)
            records += 1

        put(
            _record(
                "warcinfo",
                "",
                "2024-01-01T00:00:00Z",
                "application/warc-fields",
                b"software: bench\r\nformat: WARC File Format 1.0\r\n",
            )
        )
        i = 0
        while total < target:
            i += 1
            host = f"www.site{rng.randint(1, 3000)}.com"
            uri = f"https://{host}/{rng.choice(words)}/{i}.html"
            date = f"2024-01-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
            req = (
                f"GET /{i}.html HTTP/1.1\r\nHost: {host}\r\nUser-Agent: bench/1.0\r\nAccept: text/html\r\n\r\n"
            ).encode()
            put(_record("request", uri, date, "application/http; msgtype=request", req))
            body = pages.page(int(min(1_000_000, rng.lognormvariate(10.6, 0.9))))
            http = (
                f"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                f"Server: nginx\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nCache-Control: max-age=600\r\n\r\n"
            ).encode()
            put(
                _record(
                    "response",
                    uri,
                    date,
                    "application/http; msgtype=response",
                    http + body,
                    f"WARC-IP-Address: 10.0.{rng.randint(0, 255)}.{rng.randint(1, 254)}\r\n",
                )
            )
            meta = f"fetchTimeMs: {rng.randint(10, 3000)}\r\ncharset-detected: UTF-8\r\n".encode()
            put(_record("metadata", uri, date, "application/warc-fields", meta))
    os.replace(tmp, path)
    info = {"records": records, "bytes": total, "compressed": path.stat().st_size}
    path.with_suffix(".json").write_text(json.dumps(info))
    return info


# -- the readers (run in a subprocess each) --------------------------------------------------


def load_warcio():
    """Import warcio; return a function that reads a file and touches every raw payload."""
    from warcio.archiveiterator import ArchiveIterator

    def run(path: str) -> tuple[int, int]:
        n = size = 0
        with open(path, "rb") as fh:
            for record in ArchiveIterator(fh):
                size += len(record.raw_stream.read())
                n += 1
        return n, size

    return run


def load_fastwarc():
    """Import FastWARC; return a function that reads a file and touches every payload."""
    from fastwarc.warc import ArchiveIterator

    def run(path: str) -> tuple[int, int]:
        n = size = 0
        with open(path, "rb") as fh:
            for record in ArchiveIterator(fh):
                size += len(record.reader.read())
                n += 1
        return n, size

    return run


def load_crawlmill(**options):
    """Import crawlmill's WARC reader; return a function that reads a file's records (reader
    ``options``: ``inflate_threads=0`` is the ``crawlmill-inline`` row)."""
    from crawlmill.core import open_reader
    from crawlmill.plugins.readers.warc import WarcReader

    def run(path: str) -> tuple[int, int]:
        n = size = 0
        # the class, not the name "warc": no registry to load inside the timed run
        with open_reader(path, WarcReader, **options) as records:
            for record in records:
                size += len(record.payload)
                n += 1
        if records.damages:
            raise SystemExit(f"unexpected damage: {records.damages[:3]}")
        return n, size

    return run


def _cpu() -> float:
    """CPU seconds (user + sys) of this process, its threads and its waited-for children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def split_costs(path: str, runs: int = 9) -> dict:
    """CPU per record of crawlmill's ``inflate_threads: 0`` reader outside the inflate: the
    file's pieces are inflated once into memory, then read through ``open_reader`` (least of
    ``runs`` warm runs: the reader's own work, without load or first-run effects); and of the
    gzip member-start scan over the compressed bytes (1 MiB chunks, as the reader scans)."""
    import gc

    from crawlmill.core import open_reader
    from crawlmill.formats.codecs import gzip_parallel
    from crawlmill.formats.codecs.compression import iter_pieces
    from crawlmill.plugins.readers import warc as reader_module

    with open(path, "rb") as fh:
        pieces = list(iter_pieces(fh, "gzip", batch=True, max_member_bytes=1 << 28))
        fh.seek(0)
        compressed = memoryview(fh.read())

    class Ahead:  # the inflated pieces, handed out again for each run
        def __init__(self, *args, **kw) -> None:
            self.it = iter(pieces)

        def __iter__(self):
            return self.it

        def close(self) -> None:
            pass

    def read() -> int:
        n = 0
        with open_reader(path, reader_module.WarcReader, inflate_threads=0) as records:
            for record in records:
                n += len(record.payload) >= 0
        return n

    def scan() -> int:
        for i in range(0, len(compressed), 1 << 20):
            gzip_parallel._member_starts(compressed[i : i + (1 << 20)], None)
        return 0

    real, reader_module.iter_pieces = reader_module.iter_pieces, Ahead
    try:
        best = {}
        for name, fn in (("read", read), ("scan", scan)):
            for _ in range(runs):
                gc.collect()
                t = time.process_time()
                n = fn() or best.get("records", 0)
                t = time.process_time() - t
                best[name] = min(best.get(name, t), t)
                best.setdefault("records", n)
    finally:
        reader_module.iter_pieces = real
    n = best["records"]
    return {"outside_inflate_us": best["read"] / n * 1e6, "scan_us": best["scan"] / n * 1e6}


def _child(reader: str, path: str) -> None:
    if reader.removesuffix("-before") == "crawlmill-split":
        print(json.dumps({"reader": reader, **split_costs(path)}))
        return
    loaders = {
        "warcio": load_warcio,
        "fastwarc": load_fastwarc,
        "crawlmill": load_crawlmill,
        "crawlmill-inline": lambda: load_crawlmill(inflate_threads=0),
        "crawlmill-inline-pure": lambda: load_crawlmill(inflate_threads=0),
    }
    fn = loaders[reader.removesuffix("-before")]()
    cpu0 = _cpu()
    t0 = time.perf_counter()
    n, size = fn(path)
    elapsed = time.perf_counter() - t0
    cpu = _cpu() - cpu0
    after = resource.getrusage(resource.RUSAGE_SELF)
    result = {"reader": reader, "seconds": elapsed, "cpu": cpu, "records": n, "payload": size}
    result["peak_rss"] = after.ru_maxrss * 1024
    print(json.dumps(result))


def _before_path(checkout: str) -> str:
    """A folder holding a ``crawlmill`` package whose modules are ``checkout``'s (its
    ``src_crawlmill/__init__.py``, or an empty one for a checkout from before it: a regular
    package, so it comes before the installed one on ``PYTHONPATH``)."""
    root = Path(tempfile.gettempdir()) / f"crawlmill-bench-before-{os.getpid()}"
    (root / "crawlmill").mkdir(parents=True, exist_ok=True)
    top = Path(checkout).resolve()
    for layer in ("core", "formats", "algorithms", "plugins"):
        link = root / "crawlmill" / layer
        if (top / layer).is_dir() and not link.is_symlink():
            link.symlink_to(top / layer)
    init = root / "crawlmill" / "__init__.py"
    if not init.exists() and not init.is_symlink():
        if (top / "src_crawlmill" / "__init__.py").is_file():
            init.symlink_to(top / "src_crawlmill" / "__init__.py")
        else:
            init.touch()
    return str(root)


def run_once(reader: str, path: Path, before: str | None = None) -> dict:
    """One timed read of ``path`` by ``reader`` in a fresh subprocess (``crawlmill-before``:
    crawlmill imported from the checkout ``before``)."""
    env = dict(os.environ)
    env["CRAWLMILL_PURE"] = "1" if reader.endswith("-pure") else "0"
    if reader.endswith("-before"):
        assert before is not None
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [_before_path(before), env.get("PYTHONPATH")])
        )
    out = subprocess.run(
        [sys.executable, __file__, "--child", reader, str(path)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def measure(
    readers: list[str], path: Path, repeat: int, before: str | None = None
) -> dict[str, dict]:
    """Median of ``repeat`` runs per reader (wall time and CPU time each its own median), the
    readers interleaved so that load from other processes on the machine hits them alike."""
    runs: dict[str, list[dict]] = {r: [] for r in readers}
    for _ in range(repeat):
        for reader in readers:
            runs[reader].append(run_once(reader, path, before))
    out = {}
    for reader, results in runs.items():
        out[reader] = {
            **results[0],
            "seconds": statistics.median(r["seconds"] for r in results),
            "cpu": statistics.median(r["cpu"] for r in results),
            "peak_rss": max(r["peak_rss"] for r in results),
            "cpu_runs": sorted(r["cpu"] for r in results),
        }
    return out


def main() -> None:
    """Generate the files (once), time every reader on each, print the table and ratios."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[40, 160], help="uncompressed MiB per file"
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per reader (the median is kept)"
    )
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "crawlmill-bench"))
    parser.add_argument("--readers", nargs="+", default=list(READERS), choices=READERS)
    parser.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="also time crawlmill from this checkout (reader crawlmill-before)",
    )
    parser.add_argument(
        "--split",
        action="store_true",
        help="also print crawlmill's CPU per record outside the inflate (and before's)",
    )
    parser.add_argument("--child", nargs=2, metavar=("READER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    from crawlmill.formats.codecs.compression import inflate_backend

    print(
        f"cores: {os.cpu_count()}, crawlmill inflate backend: {inflate_backend()}, "
        f"median of {args.repeat}"
    )
    for size in args.sizes:
        path = cache / f"bench-{size}mib.warc.gz"
        if not path.exists() or not path.with_suffix(".json").exists():
            print(f"generating {path} ...", flush=True)
            generate(path, size)
        info = json.loads(path.with_suffix(".json").read_text())
        mib = info["bytes"] / (1 << 20)
        print(
            f"\n{path.name}: {info['records']} records, {mib:.1f} MiB uncompressed, "
            f"{info['compressed'] / (1 << 20):.1f} MiB gzip"
        )
        readers = list(args.readers)
        if args.before:
            readers += [f"{r}-before" for r in ("crawlmill", "crawlmill-inline") if r in readers]
        results = measure(readers, path, args.repeat, args.before)
        print(
            f"{'reader':24} {'seconds':>8} {'cpu s':>7} {'MiB/s':>8} {'rec/s':>9} {'peak RSS MiB':>13}"
        )
        for r, res in results.items():
            if res["records"] != info["records"]:
                print(f"  ! {r} read {res['records']} records, expected {info['records']}")
            print(
                f"{r:24} {res['seconds']:8.2f} {res['cpu']:7.2f} {mib / res['seconds']:8.1f} "
                f"{res['records'] / res['seconds']:9.0f} "
                f"{res['peak_rss'] / (1 << 20):13.1f}   cpu runs: "
                + " ".join(f"{c:.2f}" for c in res["cpu_runs"])
            )
        if "crawlmill" in results:
            ours = results["crawlmill"]
            for r, res in results.items():
                if r != "crawlmill":
                    print(
                        f"crawlmill / {r}: {res['seconds'] / ours['seconds']:.2f}x throughput "
                        f"(wall time), {res['cpu'] / ours['cpu']:.2f}x CPU efficiency"
                    )
        if args.split:
            for r in ["crawlmill-split"] + (["crawlmill-split-before"] if args.before else []):
                got = run_once(r, path, args.before)
                print(
                    f"{r.replace('-split', '')}: {got['outside_inflate_us']:.1f} us per record "
                    f"outside the inflate (pieces inflated ahead, least of 9 warm runs), "
                    f"{got['scan_us']:.2f} us per record scanning for member starts"
                )
        if "fastwarc" in results:
            fw = results["fastwarc"]
            for r in ("crawlmill-before", "crawlmill-inline", "crawlmill-inline-before"):
                if r in results:
                    res = results[r]
                    print(
                        f"{r} / fastwarc: {fw['seconds'] / res['seconds']:.2f}x throughput "
                        f"(wall time), {fw['cpu'] / res['cpu']:.2f}x CPU efficiency"
                    )


if __name__ == "__main__":
    main()
