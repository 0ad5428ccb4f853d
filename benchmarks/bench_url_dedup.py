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
    python benchmarks/bench_url_dedup.py --workers 2 --reduce-memory 16000000  # split reduce

Prints seconds and records/s per row and pass, the driver process's peak RSS (its workers'
not included), and the accounting line of the dedup run.
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
    code = "import sys; from crawlmill.core.commands.cli import main; sys.exit(main(sys.argv[1:]))"
    args = [str(src), "--to", "warc", "--option", "compression=none", "-o", str(out)]
    args += ["--workers", str(workers), "--progress", "never", *extra]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, "convert", *args], check=True, capture_output=True)
    seconds = time.perf_counter() - start
    return seconds, json.loads((out / ".crawlmill" / "report.json").read_text())


def _pipeline(src: Path, out: Path, workers: int, reduce_memory: int | None) -> list[str]:
    """CLI arguments of the url-dedup conversion (a pipeline file when ``reduce_memory``)."""
    if reduce_memory is None:
        args = [str(src), "--to", "warc", "--option", "compression=none", "-o", str(out)]
        args += ["--workers", str(workers), "--progress", "never", "--filter", "url-dedup"]
        return ["convert", *args]
    config = out.parent / f"{out.name}.json"
    run = {"workers": workers, "progress": "never", "reduce_memory": reduce_memory}
    spec = {
        "version": 1,
        "inputs": [str(src)],
        "filters": [{"name": "url-dedup"}],
        "writer": {"name": "warc", "compression": "none"},
        "output": str(out),
        "run": run,
    }
    config.write_text(json.dumps(spec))
    return ["run", str(config)]


def dedup_passes(
    src: Path, out: Path, workers: int, reduce_memory: int | None = None
) -> tuple[dict[str, float], dict]:
    """The url-dedup conversion, timed per pass from its ``crawlmill: pass`` lines (read as
    they come) and the pass folder's reduce markers; ``reduce_memory``: the run's
    ``run.reduce_memory`` (below the rows' size: the reduce runs in partitions)."""
    shutil.rmtree(out, ignore_errors=True)
    code = (
        "import atexit, sys; from crawlmill.core.commands.cli import main; "
        "atexit.register(lambda: print('peak', open('/proc/self/status').read()"
        ".split('VmHWM:')[1].split()[0], file=sys.stderr)); sys.exit(main(sys.argv[1:]))"
    )
    start = time.time()
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *_pipeline(src, out, workers, reduce_memory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: dict[str, float] = {}
    assert proc.stderr is not None
    peak = 0
    for line in proc.stderr:
        if line.startswith("peak "):
            peak = int(line.split()[1])  # the driver's own VmHWM in KiB (not its workers')
        for event in ("collecting", "reduced"):
            if line.startswith("crawlmill: pass ") and f": {event} " in line:
                seen.setdefault(event, time.time())
    if proc.wait() != 0:
        raise SystemExit(f"the url-dedup run failed (exit {proc.returncode})")
    end = time.time()
    [pass_dir] = list((out / ".crawlmill" / "passes").iterdir())
    reduce_started = json.loads((pass_dir / "reduce.start.json").read_text())["started"]
    marker = json.loads((pass_dir / "done.json").read_text())
    reduce_seconds = marker["seconds"]
    phases = {
        "partitions": len(marker.get("tables") or [None]),
        "driver_peak_mib": peak / 1024,
        "rows_mib": sum(p.stat().st_size for p in (pass_dir / "tasks").glob("*.arrow")) / 2**20,
        "start": seen["collecting"] - start,
        "collect": reduce_started - seen["collecting"],
        "reduce": reduce_seconds,
        "final": end - seen["reduced"],
        "total": end - start,
    }
    return phases, json.loads((out / ".crawlmill" / "report.json").read_text())


def _outputs(out: Path) -> dict[str, str]:
    """Output file -> SHA-256 (the bookkeeping under ``.crawlmill`` left out)."""
    import hashlib

    return {
        str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.rglob("*"))
        if p.is_file() and ".crawlmill" not in p.parts
    }


def reduce_alone(out: Path) -> tuple[float, int]:
    import pyarrow as pa
    from crawlmill.core import ReduceContext
    from crawlmill.core.run.tables import load_table
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
        "--reduce-memory",
        type=int,
        metavar="BYTES",
        help="also run url-dedup with this run.reduce_memory (below the rows' size: the "
        "reduce is split into partitions run by the workers)",
    )
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
            f"  url-dedup passes (driver peak RSS {phases['driver_peak_mib']:.0f} MiB): "
            f"start {phases['start']:.1f} s | "
            + " | ".join(
                f"{name} {phases[name]:.1f} s {n / max(phases[name], 1e-9):9.0f} rec/s"
                for name in ("collect", "reduce", "final")
            )
        )
        if opts.reduce_memory is not None:
            split, _ = dedup_passes(src, cache / "out-split", workers, opts.reduce_memory)
            same = _outputs(cache / "out-split") == _outputs(cache / "out-dedup")
            print(
                f"  url-dedup, reduce_memory {opts.reduce_memory}: {split['total']:.1f} s, "
                f"reduce in {split['partitions']} partitions {split['reduce']:.1f} s "
                f"(collect {split['collect']:.1f} s, final {split['final']:.1f} s), "
                f"driver peak RSS {split['driver_peak_mib']:.0f} MiB, rows "
                f"{split['rows_mib']:.0f} MiB, outputs {'identical' if same else 'DIFFER'}"
            )
    seconds, rows = reduce_alone(cache / "out-dedup")
    print(f"reduce alone: {rows} rows in {seconds:.2f} s ({rows / seconds:.0f} rows/s)")


if __name__ == "__main__":
    main()
