"""Benchmark: ``url-dedup`` over N records (default 1M) in several WARC files, beside the same
conversion without the filter, with the time of each pass of the dedup run.

Generates ``--files`` uncompressed WARC files of small resource records (one URL in
``--dup`` of the records repeats an earlier URL, in another file or the same one) into a cache
folder (cheap: about a second per 100k records, once; later runs reuse it), then runs in
subprocesses, each timed from start to end:

* ``crawlmill convert IN --to warc -o OUT`` (the plain conversion);
* the same with ``--filter url-dedup``, split into its passes: *start* (imports, planning),
  the *collect* pass (from its ``collecting`` line to the reduce's start marker), the
  *reduce* (the seconds its pass marker holds) and the *final* pass (from the ``reduced``
  line to the end of the process: conversion, report);

and, in this process, the reduce alone on the rows of the collect pass (read back from the
pass folder), which is the part that needs the whole collection in one place.

    python benchmarks/bench_url_dedup.py                 # 1M records, 4 files, workers 1 and 2
    python benchmarks/bench_url_dedup.py --records 200000 --workers 2

Prints seconds and records/s per row and pass, and the accounting line of the dedup run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def record(n: int, url: str) -> bytes:
    body = f"capture {n} of {url}\n".encode()
    head = (
        f"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: {url}\r\n"
        f"WARC-Date: 2020-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


def generate(folder: Path, records: int, files: int, dup: float) -> Path:
    src = folder / f"in-{records}-{files}-{dup}"
    if src.is_dir():
        return src
    tmp = folder / "tmp-in"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    rng = random.Random(7)
    per = records // files
    urls = 0
    for f in range(files):
        with open(tmp / f"part-{f:02d}.warc", "wb") as fh:
            for i in range(per):
                n = f * per + i
                if urls and rng.random() < dup:
                    k = rng.randrange(urls)  # an earlier URL again
                else:
                    k, urls = urls, urls + 1
                url = f"http://host{k % 997}.example/p{k}"
                fh.write(record(n, url))
    tmp.rename(src)
    return src


def convert(src: Path, out: Path, workers: int, *extra: str) -> tuple[float, dict]:
    shutil.rmtree(out, ignore_errors=True)
    code = "import sys; from crawlmill.core.cli import main; sys.exit(main(sys.argv[1:]))"
    args = [str(src), "--to", "warc", "--option", "compression=none", "-o", str(out)]
    args += ["--workers", str(workers), "--progress", "never", *extra]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, "convert", *args], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, json.loads((out / ".crawlmill" / "report.json").read_text())


def dedup_passes(src: Path, out: Path, workers: int) -> tuple[dict[str, float], dict]:
    """The url-dedup conversion, timed per pass from its ``crawlmill: pass`` lines (read as
    they come) and the pass folder's reduce markers."""
    shutil.rmtree(out, ignore_errors=True)
    code = "import sys; from crawlmill.core.cli import main; sys.exit(main(sys.argv[1:]))"
    args = [str(src), "--to", "warc", "--option", "compression=none", "-o", str(out)]
    args += ["--workers", str(workers), "--progress", "never", "--filter", "url-dedup"]
    start = time.time()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "convert", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: dict[str, float] = {}
    assert proc.stderr is not None
    for line in proc.stderr:
        for event in ("collecting", "reduced"):
            if line.startswith("crawlmill: pass ") and f": {event} " in line:
                seen.setdefault(event, time.time())
    if proc.wait() != 0:
        raise SystemExit(f"the url-dedup run failed (exit {proc.returncode})")
    end = time.time()
    [pass_dir] = list((out / ".crawlmill" / "passes").iterdir())
    reduce_started = json.loads((pass_dir / "reduce.start.json").read_text())["started"]
    reduce_seconds = json.loads((pass_dir / "done.json").read_text())["seconds"]
    phases = {
        "start": seen["collecting"] - start,
        "collect": reduce_started - seen["collecting"],
        "reduce": reduce_seconds,
        "final": end - seen["reduced"],
        "total": end - start,
    }
    return phases, json.loads((out / ".crawlmill" / "report.json").read_text())


def reduce_alone(out: Path) -> tuple[float, int]:
    import pyarrow as pa
    from crawlmill.core import ReduceContext
    from crawlmill.core.tables import load_table
    from crawlmill.plugins.filters.url_dedup import UrlDedupFilter

    [pass_dir] = list((out / ".crawlmill" / "passes").iterdir())
    rows = pa.concat_tables(
        load_table(str(p)) for p in sorted((pass_dir / "tasks").glob("*.arrow"))
    )
    start = time.perf_counter()
    UrlDedupFilter.reduce(rows, UrlDedupFilter.Options(), ReduceContext([], str(out)))
    return time.perf_counter() - start, rows.num_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--dup", type=float, default=0.2, help="share of repeated URLs")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--cache", default=os.path.join(tempfile.gettempdir(), "crawlmill-bench-dedup")
    )
    opts = parser.parse_args()
    cache = Path(opts.cache)
    cache.mkdir(parents=True, exist_ok=True)
    src = generate(cache, opts.records, opts.files, opts.dup)
    n = opts.records // opts.files * opts.files
    print(
        f"{n} records in {opts.files} files ({sum(p.stat().st_size for p in src.iterdir()) / 2**20:.0f} MiB)"
    )
    for workers in opts.workers:
        plain, _ = convert(src, cache / "out-plain", workers)
        phases, report = dedup_passes(src, cache / "out-dedup", workers)
        dedup = phases["total"]
        print(
            f"workers {workers}: plain {plain:6.1f} s {n / plain:9.0f} rec/s | "
            f"url-dedup {dedup:6.1f} s {n / dedup:9.0f} rec/s | {report['accounting']}"
        )
        print(
            f"  url-dedup passes: start {phases['start']:.1f} s | "
            + " | ".join(
                f"{name} {phases[name]:.1f} s {n / max(phases[name], 1e-9):9.0f} rec/s"
                for name in ("collect", "reduce", "final")
            )
        )
    seconds, rows = reduce_alone(cache / "out-dedup")
    print(f"reduce alone: {rows} rows in {seconds:.2f} s ({rows / seconds:.0f} rows/s)")


if __name__ == "__main__":
    main()
