"""Benchmark: Common Crawl 2012 metadata JSON generation beside lxml's own parse of the same
pages (the floor: the generator parses each page once), and the ``ntcir`` writer's throughput.

Pages: every HTML response of the WARC samples in ../shared/samples (real pages of several
languages and sizes), repeated to ``--pages``. Prints pages/s and MiB/s for lxml's
``document_fromstring`` alone, for :func:`page_metadata` (JSON included), their ratio, and
for ``crawlmill convert --to ntcir`` over a WARC of those pages (all three trees), with its
peak RSS.

    python benchmarks/bench_cc_ntcir.py --pages 5000
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import tree_usage

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "samples"
FILES = [
    "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz",
    "sqs-freequery/test/dumps/ClueWeb09_English_Sample",
    "sqs-freequery/test/dumps/ClueWeb09_Chinese_Sample",
]


def pages() -> list:
    from crawlmill import open_reader

    found = []
    for rel in FILES:
        with open_reader(str(SAMPLES / rel)) as records:
            found += [r for r in records if r.kind == "response" and r.http_head]
    return found


#: runs the crawlmill command in-process and prints its own peak RSS (``VmHWM``) last on stderr
CHILD = """
import json, sys
from crawlmill.core.commands.cli import main
try:
    code = main(sys.argv[1:])
finally:
    peak = 0.0
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    print(json.dumps({"vmhwm_mib": peak}), file=sys.stderr)
sys.exit(code)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=3000)
    opts = parser.parse_args()
    import lxml.html
    from crawlmill.formats.cc2012.metadata import page_metadata

    base = pages()
    work = (base * (opts.pages // len(base) + 1))[: opts.pages]
    mib = sum(len(r.payload) for r in work) / 2**20
    start = time.process_time()
    for r in work:
        try:
            lxml.html.document_fromstring(r.payload)
        except Exception:  # noqa: BLE001, S112 - an empty page: lxml refuses it
            continue
    floor = time.process_time() - start
    start = time.process_time()
    for r in work:
        json.dumps(page_metadata(r.url, r.payload, r.http_head, ip=r.ip, fetched=r.date))
    ours = time.process_time() - start
    print(f"{len(work)} pages, {mib:.1f} MiB (from {len(base)} real pages)")
    print(f"lxml parse alone: {len(work) / floor:8.0f} pages/s {mib / floor:6.1f} MiB/s (CPU)")
    print(f"page_metadata:    {len(work) / ours:8.0f} pages/s {mib / ours:6.1f} MiB/s (CPU)"
          f"  = {floor / ours:.2f}x lxml's parse")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in"
        src.mkdir()
        for rel in FILES:
            (src / Path(rel).name).write_bytes((SAMPLES / rel).read_bytes())
        args = [str(src), "--to", "ntcir", "-o", str(Path(tmp) / "out"), "--progress", "never",
                "--workers", "1", "--filter", "kind", "keep=response"]  # fmt: skip
        # the whole process tree (a pool's workers, children of the forkserver, included); the
        # command's own peak is its VmHWM (its ru_maxrss can carry this process's high-water
        # mark over the vfork+exec)
        run = tree_usage.run([sys.executable, "-c", CHILD, "convert", *args], capture_output=True,
                             text=True)  # fmt: skip
        seconds = run.wall
        own = json.loads(run.stderr.strip().splitlines()[-1]).get("vmhwm_mib", 0.0)
        peak = max(own, run.orphan_peak_rss / 2**20)
        if tree_usage.describe(run):
            print(tree_usage.describe(run))
        report = json.loads((Path(tmp) / "out" / ".crawlmill" / "report.json").read_text())
        n = report["written"]
        print(f"ntcir writer: {n} pages in {seconds:.2f} s ({n / seconds:.0f} pages/s, start-up "
              f"and the id pass included), CPU {run.cpu:.2f} s, peak RSS {peak:.0f} MiB (the "
              f"largest process)")  # fmt: skip


if __name__ == "__main__":
    main()
