"""The local shuffle's disk use: WARC -> nutch-segment (or ``--writer warc-sorted``: the WARC
writer's ``sorted`` option) over generated HTML pages; prints the
output size, the run's own ``shuffle`` report (``run_bytes``, ``peak_scratch_bytes``), the
output folder's peak as polled (the files' lengths and the blocks they hold on disk, which a
merge that frees what it has read lowers; the whole folder, and its ``.crawlmill`` part: for
a local output the run's work folder is the output root's ``.crawlmill``), the wall and CPU time
(this process and every process below it, the workers sampled: :class:`TreeCPU`) and the load
average.

Two modes:

* forced spills, run files compressed (zstd) or not (the table's first rows)::

    python benchmarks/bench_shuffle_disk.py --mb 64 --memory 4194304 --fan-in 8

* the defaults a user gets (``--defaults``: no ``shuffle_memory``, fan-in, workers or
  partitions set; compressed runs), over ``--files`` inputs of ``--mb`` MiB each, kept in
  ``--data`` between runs (the 4 GB run reuses the 1 GB run's file as its first)::

    nice -n 19 python benchmarks/bench_shuffle_disk.py --defaults --mb 1024 --files 4 \
        --data /tmp/shuffle-disk-data

The generator (:func:`page`) writes plain (uncompressed) WARC response records of ~5.5 KB
HTML pages (600 random words, 8 outlinks), distinct per record.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import tempfile
import threading
import time
from pathlib import Path

WORDS = [
    "crawl",
    "archive",
    "record",
    "segment",
    "page",
    "link",
    "text",
    "index",
    "web",
    "host",
    "content",
    "parse",
]


#: the writers measured: nutch-segment (its defaults: one partition) or a sorted WARC (the
#: ``sorted`` option's defaults: hash, one partition; gzip output about its runs' size).
WRITERS = {
    "nutch-segment": "name: nutch-segment, segment: '20240101000000'",
    "warc-sorted": "name: warc, sorted: {partitions: 1}",
}
#: the same with 4 partitions (the forced-spill rows).
FOUR = {
    "nutch-segment": WRITERS["nutch-segment"] + ", partitions: 4",
    "warc-sorted": "name: warc, sorted: {partitions: 4}",
}


def page(i: int, rnd: random.Random) -> bytes:
    """One WARC response record: an HTML page of a few KiB with outlinks."""
    words = " ".join(rnd.choice(WORDS) + str(rnd.randrange(500)) for _ in range(600))
    links = "".join(
        f'<a href="http://h{rnd.randrange(99)}.example/{rnd.randrange(10**6)}">l</a>'
        for _ in range(8)
    )
    body = f"<html><head><title>p{i}</title></head><body><p>{words}</p>{links}</body></html>"
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body.encode()
    )
    head = (
        f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://h{i % 97}.example/{i}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
        f"Content-Type: application/http; msgtype=response\r\nContent-Length: {len(http)}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


def write_input(path: Path, mb: int, first: int, seed: int) -> int:
    """Write ``path`` of at least ``mb`` MiB of records numbered from ``first``; their count."""
    rnd, i = random.Random(seed), first
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        while fh.tell() < mb << 20:
            fh.write(page(i, rnd))
            i += 1
    os.replace(tmp, path)
    return i - first


def inputs(data: Path, mb: int, files: int) -> list[Path]:
    """``files`` inputs of ``mb`` MiB in ``data`` (file ``n``: seed ``n + 1``, records from
    ``n * 10**8``), written unless there already."""
    data.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(files):
        path = data / f"in-{mb}-{n:03d}.warc"
        if not path.exists():
            write_input(path, mb, n * 10**8, n + 1)
        paths.append(path)
    return paths


def folder_bytes(root: Path, *, disk: bool = False) -> int:
    """The files' bytes below ``root`` (``disk``: the blocks they hold, which a merge that
    frees what it has read lowers while the file keeps its length)."""
    total = 0
    for where, _dirs, names in os.walk(root):
        for name in names:
            with contextlib.suppress(OSError):
                st = os.stat(os.path.join(where, name))
                total += st.st_blocks * 512 if disk else st.st_size
    return total


class TreeCPU:
    """User + system CPU of this process and of every process below it: the workers are
    children of the pool's fork server, never reaped by this process, so they are sampled
    (psutil, every ``every`` seconds; the last fraction of a second of a worker is lost)
    and each one's most recent figure counted."""

    def __init__(self, every: float = 0.5) -> None:
        import psutil

        self.me = psutil.Process()
        self.seen: dict[int, float] = {}
        self.every = every
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        import psutil

        while not self.stop.is_set():
            self.sample(psutil)
            time.sleep(self.every)

    def sample(self, psutil) -> None:
        for p in self.me.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                t = p.cpu_times()
                self.seen[p.pid] = max(self.seen.get(p.pid, 0.0), t.user + t.system)

    def __enter__(self) -> TreeCPU:
        own = resource.getrusage(resource.RUSAGE_SELF)
        self.start = own.ru_utime + own.ru_stime
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        import psutil

        self.sample(psutil)
        self.stop.set()
        self.thread.join()
        own = resource.getrusage(resource.RUSAGE_SELF)
        self.seconds = own.ru_utime + own.ru_stime - self.start + sum(self.seen.values())


def run(out: Path, data: list[Path], run_yaml: str, writer_yaml: str, every: float) -> dict:
    """Convert ``data`` into ``out`` polling its bytes every ``every`` seconds."""
    from crawlmill.core.commands.cli import main

    shutil.rmtree(out, ignore_errors=True)
    config = out.with_name(out.name + ".yaml")
    config.write_text(
        f"version: 1\ninputs: [{', '.join(str(p) for p in data)}]\n"
        f"writer: {{{writer_yaml}}}\n"
        f"output: {out}\n{run_yaml}"
    )
    peak, disk_peak, meta_peak, stop = [0], [0], [0], threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], folder_bytes(out))
            disk_peak[0] = max(disk_peak[0], folder_bytes(out, disk=True))
            meta_peak[0] = max(meta_peak[0], folder_bytes(out / ".crawlmill", disk=True))
            time.sleep(every)

    load = os.getloadavg()
    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    started = time.monotonic()
    with TreeCPU() as cpu:
        code = main(["run", str(config), "--progress", "never"])
    seconds = time.monotonic() - started
    stop.set()
    thread.join()
    report = json.loads((out / ".crawlmill/report.json").read_text())
    final = folder_bytes(out) - folder_bytes(out / ".crawlmill")
    final_disk = folder_bytes(out, disk=True) - folder_bytes(out / ".crawlmill", disk=True)
    return {
        "exit": code,
        "input_bytes": sum(p.stat().st_size for p in data),
        "inputs": len(data),
        "final_output_bytes": final,
        "final_output_disk_bytes": final_disk,
        "polled_peak_folder_bytes": peak[0],
        "polled_peak_folder_disk_bytes": disk_peak[0],
        "polled_peak_work_disk_bytes": meta_peak[0],
        "peak_over_output": round(peak[0] / final, 3) if final else None,
        "disk_peak_over_output": round(disk_peak[0] / final_disk, 3) if final_disk else None,
        **report["shuffle"],
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu.seconds, 1),
        "load_before": [round(x, 1) for x in load],
        "load_after": [round(x, 1) for x in os.getloadavg()],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=64, help="MiB per input file")
    ap.add_argument("--files", type=int, default=1, help="input files")
    ap.add_argument("--memory", type=int, default=8 << 20)
    ap.add_argument("--fan-in", type=int, default=8)
    ap.add_argument("--defaults", action="store_true", help="the settings a user gets")
    ap.add_argument("--data", type=Path, help="where inputs are kept (default: a temp folder)")
    ap.add_argument("--out", type=Path, help="folder of the outputs (default: a temp folder)")
    ap.add_argument("--poll", type=float, default=0.02, help="seconds between polls")
    ap.add_argument("--writer", choices=sorted(WRITERS), default="nutch-segment")
    args = ap.parse_args()
    writer = WRITERS[args.writer]  # --defaults
    with tempfile.TemporaryDirectory(dir=args.out) as tmp:
        work = Path(tmp)
        data = inputs(args.data or work / "data", args.mb, args.files)
        print(json.dumps({"input_bytes": sum(p.stat().st_size for p in data)}), flush=True)
        if args.defaults:
            print(json.dumps(run(work / "out", data, "", writer, args.poll)), flush=True)
            return
        from crawlmill.algorithms.sorted_runs import merge, runfile

        merge.FAN_IN = args.fan_in
        settings = f"run: {{workers: 1, shuffle_memory: {args.memory}}}\n"
        for compress in (False, True):
            runfile.COMPRESS = compress
            out = work / ("zstd" if compress else "plain")
            row = run(out, data, settings, FOUR[args.writer], args.poll)
            print(json.dumps({"compress": compress, **row}), flush=True)


if __name__ == "__main__":
    main()
