"""The local shuffle's disk use: WARC -> nutch-segment over generated HTML pages, run files
compressed (zstd) or not; prints the output size, the run's own ``shuffle`` report
(``run_bytes``, ``peak_scratch_bytes``), the output folder's peak as polled every 20 ms, and
the wall time.

    python benchmarks/bench_shuffle_disk.py --mb 64 --memory 8388608 --fan-in 8
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
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


def folder_bytes(root: Path) -> int:
    total = 0
    for where, _dirs, names in os.walk(root):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.path.getsize(os.path.join(where, name))
    return total


def run(work: Path, data: Path, compress: bool, memory: int, fan_in: int) -> dict:
    from crawlmill.algorithms.sorted_runs import merge, runfile
    from crawlmill.core.commands.cli import main

    runfile.COMPRESS = compress
    merge.FAN_IN = fan_in
    out = work / ("zstd" if compress else "plain")
    config = work / f"{out.name}.yaml"
    config.write_text(
        f"version: 1\ninputs: [{data}]\nwriter: {{name: nutch-segment, segment: '20240101000000',"
        f" partitions: 4}}\noutput: {out}\nrun: {{workers: 1, shuffle_memory: {memory}}}\n"
    )
    peak, stop = [0], threading.Event()

    def poll() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], folder_bytes(out))
            time.sleep(0.02)

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    started = time.monotonic()
    code = main(["run", str(config), "--progress", "never"])
    seconds = time.monotonic() - started
    stop.set()
    thread.join()
    report = json.loads((out / ".crawlmill/report.json").read_text())
    final = folder_bytes(out) - folder_bytes(out / ".crawlmill")
    return {
        "compress": compress,
        "exit": code,
        "seconds": round(seconds, 1),
        "final_output_bytes": final,
        "polled_peak_folder_bytes": peak[0],
        **report["shuffle"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--memory", type=int, default=8 << 20)
    ap.add_argument("--fan-in", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = work / "in.warc"
        rnd, i = random.Random(1), 0
        with open(data, "wb") as fh:
            while fh.tell() < args.mb << 20:
                fh.write(page(i, rnd))
                i += 1
        print(json.dumps({"input_bytes": data.stat().st_size, "records": i}))
        for compress in (False, True):
            print(json.dumps(run(work, data, compress, args.memory, args.fan_in)))


if __name__ == "__main__":
    main()
