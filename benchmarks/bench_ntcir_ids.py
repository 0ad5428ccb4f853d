"""Benchmark: the ``ntcir`` writer's id allocation (its reduce, in the driver) over N synthetic
pages (default 1M), with the peak RSS of the process that runs it, beside the same process
only loading the rows (the anchor: what the memory-mapped rows themselves cost).

The rows are what the collect pass writes (host, port, URL, three outlinks: two to pages of
the run, one to one of N/2 URLs that are no page, so N/2 link targets; a duplicate URL every
tenth page; 20,000 hosts), as one memory-mapped Arrow IPC file, generated once into a
cache folder. Each measurement runs in a fresh subprocess (peak RSS is per process):

* ``load``: map the rows and touch every column (the anchor);
* ``allocate``: the reduce (:func:`crawlmill.plugins.writers.ntcir_ids.allocate`) and the
  table written as the pass writes it;
* ``lists``: the first task's ``list_rows`` over that table (all six lists, consumed);
* ``--old FILE``: the same ``allocate`` step from another copy of ``ntcir_ids.py`` (for
  example ``git show REV:plugins/writers/ntcir_ids.py > /tmp/old/ntcir_ids.py``).

Prints seconds, peak RSS and RSS above the anchor per page.

    python benchmarks/bench_ntcir_ids.py --pages 1000000 [--old /tmp/old/ntcir_ids.py]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = r"""
import importlib.util, resource, sys, time
import pyarrow as pa
from crawlmill.core.run.tables import load_table, write_table
mode, rows_path, out, module = sys.argv[1:5]
rows = load_table(rows_path)
class Ctx:
    def count(self, *a): pass
start = time.perf_counter()
if mode == "load":  # touch every page of every buffer
    for col in rows.columns:
        for chunk in col.chunks:
            for buf in chunk.buffers():
                if buf is not None and buf.size:
                    bytes(memoryview(buf)[::4096])
elif mode == "lists":
    from crawlmill.plugins.writers.ntcir_ids import list_rows
    table = load_table(out)
    for name, items in list_rows(table, {}, lambda n: None).items():
        for _ in items:
            pass
else:
    spec = importlib.util.spec_from_file_location("ids_under_test", module)
    ids = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ids)
    write_table(out, ids.allocate(rows, None, Ctx()))
seconds = time.perf_counter() - start
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def generate(folder: Path, pages: int) -> Path:
    import pyarrow as pa
    from crawlmill.core.run.tables import write_table
    from crawlmill.plugins.writers.ntcir import _schema

    path = folder / f"ntcir-rows-{pages}.arrow"
    if path.is_file():
        return path
    schema = pa.schema([*_schema(), ("input", pa.int32()), ("seq", pa.int64())])
    batches = []
    per_input = 10_000
    half = max(1, pages // 2)
    for start in range(0, pages, 100_000):
        n = min(100_000, pages - start)
        ids = range(start, start + n)
        hosts = [f"www{(i * 7919) % 20000}.example.jp" for i in ids]
        columns = {
            "host": hosts,
            "port": [80 if i % 50 else 8080 for i in ids],
            "url": [f"http://{h}/dir/page{i}.html" for h, i in zip(hosts, ids, strict=True)],
            "links": [
                [
                    f"http://{hosts[(k * 31 + j) % n]}/dir/page{start + (k * 31 + j) % n}.html"
                    for j in range(2)
                ]
                + [f"http://www1.example.jp/new/{i * 7 % half}"]  # a target, on a site of the run
                for k, i in enumerate(ids)
            ],  # fmt: skip
            "dups": [[f"http://mirror.example.jp/{i}"] if i % 10 == 0 else [] for i in ids],
            "site_hint": [None] * n,
            "page_hint": [None] * n,
            "doc_hint": [None] * n,
            "scheme": ["http"] * n,
            "aliases": [[] for _ in ids],
            "digest": [f"{i:040x}" for i in ids],
            "input": [i // per_input for i in ids],
            "seq": [i % per_input for i in ids],
        }
        batches.append(pa.Table.from_pydict(columns, schema=schema))
    write_table(str(path), pa.concat_tables(batches))
    return path


def measure(mode: str, rows: Path, out: Path, module: str) -> tuple[float, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(rows), str(out), module],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    seconds, peak = done.stdout.split()
    return float(seconds), int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1_000_000)
    parser.add_argument("--old", help="another ntcir_ids.py to measure beside this one")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "crawlmill-bench"))
    opts = parser.parse_args()
    from crawlmill.plugins.writers import ntcir_ids

    cache = Path(opts.cache)
    cache.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    rows = generate(cache, opts.pages)
    print(f"{opts.pages} pages of rows ({rows.stat().st_size / 2**20:.0f} MiB Arrow IPC, "
          f"ready in {time.perf_counter() - start:.1f} s)")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "table.arrow"
        seconds, anchor = measure("load", rows, out, "")
        print(f"{'load rows (anchor)':24} {seconds:7.2f} s  peak RSS {anchor:7.0f} MiB")
        cases = [("allocate", ntcir_ids.__file__)]
        if opts.old:
            cases.append(("allocate (old)", opts.old))
        for label, module in cases:
            seconds, peak = measure("allocate", rows, out, module)
            per = (peak - anchor) * 2**20 / opts.pages
            print(f"{label:24} {seconds:7.2f} s  peak RSS {peak:7.0f} MiB  "
                  f"= anchor + {per:5.0f} bytes/page")  # fmt: skip
        seconds, peak = measure("allocate", rows, out, ntcir_ids.__file__)  # the new table
        seconds, peak = measure("lists", rows, out, "")
        per = (peak - anchor) * 2**20 / opts.pages
        print(f"{'lists (first task)':24} {seconds:7.2f} s  peak RSS {peak:7.0f} MiB  "
              f"= anchor + {per:5.0f} bytes/page")  # fmt: skip


if __name__ == "__main__":
    main()
