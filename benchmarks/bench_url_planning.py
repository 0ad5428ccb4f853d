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

With ``--latency MS`` the objects are read as ``slowlocal:///...`` (each holding one
small WARC record, as a real crawl's objects start with one): the files behind a
filesystem whose every lookup (``info``, a ``HEAD``) and open (a ranged ``GET``) waits ``MS``
milliseconds first, as a request to S3 does (listing adds nothing: S3 lists 1,000 objects
with their sizes a request); the plan is then timed
with detection's reads one after another (``CRAWLMILL_DETECT_THREADS=0``, the code before
core/detect_prefetch.py) and read ahead by its default pool (32 threads), interleaved.

    nice -n 19 .venv/bin/python benchmarks/bench_url_planning.py --counts 10000,100000
    nice -n 19 .venv/bin/python benchmarks/bench_url_planning.py --counts 2000 --latency 20 \
        --skip-shadow
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import contextlib, json, os, shutil, sys, tempfile, time
what, root, n, latency = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[5])
from crawlmill.core import remote_tree, storage
from crawlmill.core.registry import Registry
registry = Registry.load()
url = "local://" + root
if latency:
    import fsspec
    from fsspec.implementations.local import LocalFileSystem

    class SlowLocal(LocalFileSystem):
        protocol = ("slowlocal",)

        @classmethod
        def _strip_protocol(cls, path):
            path = str(path)
            return super()._strip_protocol(path[len("slowlocal://"):]
                                           if path.startswith("slowlocal://") else path)

        listing = False

        def ls(self, path, detail=False, **kw):  # a LIST: its objects' details in bulk
            self.listing = True
            try:
                return super().ls(path, detail=detail, **kw)
            finally:
                self.listing = False

        def info(self, path, **kw):
            if not self.listing:
                time.sleep(latency)  # a HEAD
            return super().info(path, **kw)

        def _open(self, path, *args, **kw):
            time.sleep(latency)  # a ranged GET
            return super()._open(path, *args, **kw)

    fsspec.register_implementation("slowlocal", SlowLocal, clobber=True)
    url = "slowlocal://" + root
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


#: one gzip member holding a small WARC record: what each object of ``--latency`` holds.
RECORD = gzip.compress(
    b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:0>\r\n"
    b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n",
    mtime=0,
)


def tree(data: Path, n: int, content: bytes = b"") -> Path:
    """The cached folder of ``n`` objects holding ``content`` (empty: none) below ``data``."""
    tag = "-warc" if content else ""
    root = data / f"prefix-{n}{tag}"
    stamp = data / f"prefix-{n}{tag}.complete"
    if stamp.is_file():
        return root
    for i in range(n):
        folder = root / "segments" / f"1700000000{i // 1000:03d}.0" / "warc"
        if i % 1000 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"CC-MAIN-20240000-{i:06d}.warc.gz").write_bytes(content)
    stamp.touch()
    return root


def child(
    what: str, root: Path, n: int, out: str = "", latency: float = 0.0, threads: str | None = None
) -> dict:
    env = None  # the environment's CRAWLMILL_DETECT_THREADS, if any
    if threads is not None:
        env = dict(os.environ, CRAWLMILL_DETECT_THREADS=threads)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(root), str(n), out, str(latency)],
        capture_output=True, text=True, check=False, env=env,
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
    ap.add_argument("--latency", type=float, default=0.0, help="ms added to each request")
    args = ap.parse_args()
    if args.latency:
        slow(args)
        return
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


def slow(args: argparse.Namespace) -> None:
    """Per count: the plan with ``--latency`` ms per request, detection's reads one after
    another (``threads 0``) then read ahead (32 threads), interleaved, twice."""
    for n in (int(c) for c in args.counts.split(",")):
        root = tree(Path(args.data), n, RECORD)
        for _ in range(2):
            for threads in ("0", "32"):
                load = os.getloadavg()[0]
                with tempfile.TemporaryDirectory() as out:
                    p = child("plan", root, n, os.path.join(out, "out"), args.latency / 1000,
                              threads)  # fmt: skip
                print(
                    f"{n:>7,} objects, {args.latency:g} ms a request, detection threads "
                    f"{threads}: plan {p['plan_cpu']:.1f} s CPU "
                    f"({p['plan_wall']:.1f} s wall), peak RSS {p['rss'] / 1e6:.0f} MB, exit "
                    f"{p['code']}; load {load:.1f}-{os.getloadavg()[0]:.1f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
