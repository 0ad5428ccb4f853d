"""Benchmark: planning a URL prefix of N objects (issue 22, "planning at the scale of a real
crawl"): the shadow tree discovery runs on (``core/remote_tree.py``) and the whole plan.

The prefix is a folder of N empty ``.warc.gz`` files laid out as a Common Crawl crawl is
(``segments/SEGMENT/warc/CC-MAIN-...warc.gz``, 1,000 a folder), created once in ``--data``
and read as ``local:///...``: fsspec's local filesystem behind a URL, so planning takes the
path of any remote store (listing, shadow, discovery, paths mapped back to URLs, detection)
without a server's cost in the figures. Per N, each in a child process:

* ``shadow``: ``remote_tree.build`` of the listing (N objects, nothing fetched: no reader
  declares a discovery read of a ``.warc.gz``), then the shadow's removal: CPU (user +
  system) and wall seconds;
* ``plan``: ``crawlmill convert local:///PREFIX/ -o OUT --dry-run`` in-process (its listing
  of the plan sent to ``/dev/null``): CPU, wall and peak RSS (``VmHWM``) of the process.

    nice -n 19 .venv/bin/python benchmarks/bench_url_planning.py --counts 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import contextlib, json, os, shutil, sys, tempfile, time
what, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
from crawlmill.core import remote_tree, storage
from crawlmill.core.registry import Registry
registry = Registry.load()
url = "local://" + root
c0, w0 = os.times(), time.monotonic()
if what == "shadow":
    found = [(url + "/" + os.path.relpath(os.path.join(d, f), root), 0)
             for d, _, files in os.walk(root) for f in files]
    assert len(found) == n, len(found)
    c0, w0 = os.times(), time.monotonic()
    if hasattr(remote_tree, "shadow_folder"):  # where planning makes it (older code: temp)
        shadow = remote_tree.shadow_folder(found, registry, "bench-shadow-")
    else:
        shadow = tempfile.mkdtemp(prefix="bench-shadow-")
    remote_tree.build(url, found, shadow, registry)
    c1, w1 = os.times(), time.monotonic()
    shutil.rmtree(shadow)
    c2, w2 = os.times(), time.monotonic()
    out = {"build_cpu": c1.user + c1.system - c0.user - c0.system, "build_wall": w1 - w0,
           "rm_cpu": c2.user + c2.system - c1.user - c1.system, "rm_wall": w2 - w1}
else:
    from crawlmill.core.commands.cli import main
    with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
        try:
            code = main(["convert", url + "/", "-o", sys.argv[4], "--dry-run",
                         "--progress", "never"])
        except SystemExit as exc:
            code = exc.code
    c1, w1 = os.times(), time.monotonic()
    with open("/proc/self/status") as fh:
        hwm = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:"))
    out = {"code": code, "plan_cpu": c1.user + c1.system - c0.user - c0.system,
           "plan_wall": w1 - w0, "rss": hwm * 1024}
print(json.dumps(out))
"""


def tree(data: Path, n: int) -> Path:
    """The cached folder of ``n`` empty objects below ``data``."""
    root = data / f"prefix-{n}"
    stamp = data / f"prefix-{n}.complete"
    if stamp.is_file():
        return root
    for i in range(n):
        folder = root / "segments" / f"1700000000{i // 1000:03d}.0" / "warc"
        if i % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"CC-MAIN-20240000-{i:06d}.warc.gz").touch()
    stamp.touch()
    return root


def child(what: str, root: Path, n: int, out: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(root), str(n), out],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    """Print one line per count."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--counts", default="10000,100000")
    ap.add_argument("--data", default=os.path.join(tempfile.gettempdir(), "crawlmill-url-plan"))
    ap.add_argument("--skip-plan", action="store_true", help="the shadow only")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    for n in (int(c) for c in args.counts.split(",")):
        root = tree(Path(args.data), n)
        load = os.getloadavg()[0]
        r = child("shadow", root, n)
        line = (
            f"{n:>7,} objects: shadow build {r['build_cpu']:.1f} s CPU ({r['build_wall']:.1f} s"
            f" wall), removal {r['rm_cpu']:.1f} s CPU ({r['rm_wall']:.1f} s wall)"
        )
        if not args.skip_plan:
            with tempfile.TemporaryDirectory() as out:
                p = child("plan", root, n, os.path.join(out, "out"))
            line += (
                f"; plan {p['plan_cpu']:.1f} s CPU ({p['plan_wall']:.1f} s wall), peak RSS "
                f"{p['rss'] / 1e6:.0f} MB, exit {p['code']}"
            )
        print(f"{line}; load {load:.1f}-{os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
