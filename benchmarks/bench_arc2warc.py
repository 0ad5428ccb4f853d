"""Benchmark: converting .arc.gz -> .warc.gz with crawlmill beside ``warcio recompress``.

Generates one realistic ARC file per size (Heritrix-style filedesc with XML metadata, then
HTML pages of varied size and vocabulary, some images, redirects and ``dns:`` records, a few
URLs with spaces; one gzip member per record at level 6) into a cache folder, then runs on the
same file, each in its own subprocess (peak RSS is the child's own ``VmHWM``):

* ``warcio recompress in.arc.gz out.warc.gz`` (the command users run today);
* ``crawlmill convert in.arc.gz --to warc -o out/``, the command users run: the whole engine
  (config, plugin registry, output root and lock, atomic commit with fsync, completion
  marker, run report) around the ``arc`` reader and the ``warc`` writer (the IIPC
  conversion: warcinfo, filedesc metadata record, SHA-1 block and payload digests, gzip per
  record at the default level). This is the row the project's speed target is about;
* the same reader and writer classes called directly (no engine), at the default gzip level
  and at level 1: the difference to the row above is the engine's cost;
* crawlmill's ``arc`` reader alone (where the time goes: the rest is the WARC writer).

Every row does the same work on the same input: read the whole ARC file and write a gzip
WARC with digests (the output's record count is checked with warcio). Both tools' CLIs run
the same way: ``python -c`` importing the tool's ``main`` (what its console script does).
Python modules run from bytecode caches, as from any installed package: crawlmill's are
compiled before measuring (``compileall``), since an editable checkout under
``PYTHONDONTWRITEBYTECODE`` would otherwise recompile its sources on every start.

    python benchmarks/bench_arc2warc.py                      # 25 and 100 MiB uncompressed
    python benchmarks/bench_arc2warc.py --sizes 100 --repeat 3
    python benchmarks/bench_arc2warc.py --baseline /tmp/old/.venv/bin/python  # before/after

Prints seconds, MiB/s of uncompressed ARC, records/s, the ratio of each run's speed to
``warcio recompress`` and the peak RSS; memory is flat when the peak does not grow with the
file size. "wall" times include interpreter start-up and imports for every tool alike;
"work" times are measured inside each child from after its imports to the end of the
conversion; "cpu" is the child's user + system time on all its threads (what a busy or
shared machine pays, and what a cluster pays for). ``--baseline PYTHON`` adds the CLI row
run by another interpreter (e.g. the virtualenv of an older checkout), in the same rounds, so
a change is measured before and after in one run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import tree_usage
from synthetic import PageMaker

# -- test data ---------------------------------------------------------------------------

_FILEDESC_XML = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<arcmetadata xmlns:dc="http://purl.org/dc/elements/1.1/" '
    b'xmlns="http://archive.org/arc/1.0/">\n<arc:software>Heritrix 1.14.4 http://crawler.archive.org'
    b"</arc:software>\n<arc:hostname>bench</arc:hostname>\n<dc:format>ARC file version 1.1</dc:format>\n"
    b"</arcmetadata>\n"
)


def _member(data: bytes) -> bytes:
    comp = zlib.compressobj(6, zlib.DEFLATED, 31)
    return comp.compress(data) + comp.flush()


def generate(path: Path, size_mib: int, seed: int = 2008) -> tuple[int, int]:
    """Write a per-record gzip ARC of about ``size_mib`` MiB uncompressed; return
    ``(uncompressed bytes, records)``."""
    rng = random.Random(seed)
    pages = PageMaker(rng)
    words = pages.words
    body = (
        b"1 1 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"
        + _FILEDESC_XML
    )
    first = b"filedesc://%s 0.0.0.0 20080430204825 text/plain %d\n" % (
        path.name.encode(),
        len(body),
    )
    target = size_mib << 20
    written = records = 0
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as out:
        data = first + body + b"\n"
        out.write(_member(data))
        written += len(data)
        records += 1
        while written < target:
            host = f"site{rng.randint(1, 400)}.example"
            ip = f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
            date = f"2008{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}{rng.randint(0, 59):02d}"
            kind = rng.random()
            if kind < 0.03:
                url, mime = f"dns:{host}", "text/dns"
                block = f"{date}\n{host}.\t3600\tIN\tA\t{ip}\n".encode()
            else:
                path_part = "/".join(rng.choices(words, k=rng.randint(1, 4)))
                if rng.random() < 0.01:
                    path_part += " with space"
                url = f"http://{host}/{path_part}.html"
                if kind < 0.08:
                    mime, status, payload = (
                        "image/jpeg",
                        "200 OK",
                        rng.randbytes(rng.randint(2000, 40000)),
                    )
                elif kind < 0.12:
                    mime, status, payload = "text/html", "301 Moved Permanently", b""
                else:
                    mime, status = "text/html", "200 OK"
                    payload = pages.page(
                        int(rng.lognormvariate(9.6, 0.8)), host="http://site{n}.example"
                    )
                head = (
                    f"HTTP/1.1 {status}\r\nDate: Wed, 30 Apr 2008 20:48:25 GMT\r\nServer: Apache/2.2.3\r\n"
                    f"Content-Type: {mime}{'; charset=utf-8' if mime == 'text/html' else ''}\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
                ).encode()
                block = head + payload
            line = f"{url} {ip} {date} {mime} {len(block)}\n".encode()
            data = line + block + b"\n"
            out.write(_member(data))
            written += len(data)
            records += 1
    tmp.rename(path)
    return written, records


# -- children ------------------------------------------------------------------------------


def child_crawlmill(src: str, dst_dir: str, level: int | None, read_only: bool) -> dict:
    """Convert (or only read) ``src`` in this process; return counts and timing."""
    from crawlmill.core import InputFile, WriteContext, open_reader
    from crawlmill.plugins.readers.arc import ArcReader
    from crawlmill.plugins.writers.warc import WarcWriter

    inp = InputFile(src, os.path.basename(src))
    started = time.perf_counter()
    records = 0
    # the class, not the name "arc": no registry to load inside the timed run
    reader = open_reader(inp, ArcReader)
    if read_only:
        for record in reader:
            records += 1
            _ = len(record.payload)
    else:
        writer = WarcWriter(WarcWriter.Options(level=level))

        def create(rel: str):
            target = os.path.join(dst_dir, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            return open(target, "wb")

        writer.open(WriteContext(inp, 1, create, lambda r, why: None))
        for record in reader:
            writer.write(record)
            records += 1
        writer.close()
    return {
        "records": records,
        "damage": len(reader.damages),
        "inner_seconds": time.perf_counter() - started,
        "vmhwm_mib": _vmhwm_mib(),
    }


def _vmhwm_mib() -> float | None:
    """This process's peak resident set (``VmHWM``), in MiB; ``None`` off Linux."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


#: runs a tool's CLI ``main`` in a child and reports that child's own peak RSS (the console
#: scripts ``warcio`` and ``crawlmill`` do exactly ``sys.exit(main())``); ``{module}`` is the
#: CLI module and ``{call}`` how its ``main`` takes the arguments.
CLI_CHILD = """
import json, sys, time
from {module} import main
started = time.perf_counter()
code = 0
try:
    code = {call}
finally:
    inner = time.perf_counter() - started
    peak = None
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    print(json.dumps({{"vmhwm_mib": peak, "inner_seconds": inner}}))
sys.exit(code)
"""
WARCIO_CHILD = CLI_CHILD.format(module="warcio.cli", call="main(sys.argv[1:])")
CRAWLMILL_CHILD = CLI_CHILD.format(module="crawlmill.core.commands.cli", call="main(sys.argv[1:])")


def _compile_crawlmill() -> None:
    """Write bytecode caches for crawlmill's modules (as installing a package does)."""
    import compileall
    import importlib

    for name in ("crawlmill.core", "crawlmill.formats", "crawlmill.plugins"):
        for folder in importlib.import_module(name).__path__:
            compileall.compile_dir(folder, quiet=1)


def _measure(cmd: list[str]) -> dict:
    """Run ``cmd``; wall and CPU seconds of its whole process tree (``tree_usage``: a pool's
    workers, children of multiprocessing's forkserver, included), the peak RSS of its largest
    process and the JSON it printed last.

    The command's own peak RSS is what it reports from ``/proc/self/status`` (``VmHWM``, its
    own address space); ``ru_maxrss`` from ``wait4`` is only the fallback, because Linux
    carries the parent's high-water mark into a vfork+exec child."""
    run, info = tree_usage.run_json(cmd)
    peak = info.pop("vmhwm_mib", None)
    info.update(
        seconds=run.wall,
        cpu_seconds=run.cpu,
        peak_rss_mib=max(peak, run.orphan_peak_rss / 2**20)
        if peak is not None
        else run.peak_rss_mib,
    )
    return info


# -- main ------------------------------------------------------------------------------------


def _warcio_count(path: Path) -> int:
    from warcio.archiveiterator import ArchiveIterator

    with (
        open(path, "rb") as fh,
        open(os.devnull, "w") as null,
        contextlib.redirect_stdout(null),
        contextlib.redirect_stderr(null),
    ):
        return sum(1 for _ in ArchiveIterator(fh))


def _best_of(runs: dict, repeat: int, cache: Path) -> dict[str, dict]:
    """Run every tool ``repeat`` times, interleaved (round after round, so a load change on
    the machine hits all tools alike), and keep each tool's fastest run. The WARC a
    converting tool wrote is counted with warcio in the first round."""
    best: dict[str, dict] = {}
    for round_no in range(repeat):
        for name, make in runs.items():
            out = Path(tempfile.mkdtemp(prefix="arc2warc-", dir=cache))
            try:
                info = _measure(make(out))
                warcs = list(out.rglob("*.warc.gz"))
                if round_no == 0 and warcs:
                    info["warc_records"] = _warcio_count(warcs[0]) if len(warcs) == 1 else None
                    info["warc_bytes"] = warcs[0].stat().st_size if len(warcs) == 1 else None
            finally:
                shutil.rmtree(out, ignore_errors=True)
            if name not in best or info["seconds"] < best[name]["seconds"]:
                info.setdefault("warc_records", best.get(name, {}).get("warc_records"))
                info.setdefault("warc_bytes", best.get(name, {}).get("warc_bytes"))
                best[name] = info
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[25, 100], help="uncompressed MiB")
    parser.add_argument(
        "--repeat", type=int, default=3, help="interleaved runs per tool (best time is kept)"
    )
    parser.add_argument(
        "--cache", default=os.path.join(tempfile.gettempdir(), "crawlmill-bench-arc")
    )
    parser.add_argument(
        "--baseline",
        metavar="PYTHON",
        help="also run the CLI with this interpreter (an older checkout's venv), same rounds",
    )
    parser.add_argument("--child", choices=["crawlmill", "read"], help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--level", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        info = child_crawlmill(args.input, args.output, args.level, args.child == "read")
        print(json.dumps(info))
        return 0

    warcio_cmd = shutil.which("warcio")
    if warcio_cmd is None:
        print("warcio is not installed (pip install warcio)", file=sys.stderr)
        return 1
    from crawlmill.formats.warc.writer import DEFAULT_LEVELS

    default_level = DEFAULT_LEVELS["gzip"]
    _compile_crawlmill()
    if args.baseline:  # the baseline's modules run from bytecode caches too
        subprocess.run(
            [
                args.baseline,
                "-c",
                f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
                "from bench_arc2warc import _compile_crawlmill; _compile_crawlmill()",
            ],
            check=True,
        )
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    me = [sys.executable, os.path.abspath(__file__)]
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; gzip level default {default_level}"
    )
    header = (
        f"{'input':>9} {'tool':<34} {'wall s':>7} {'MiB/s':>7} {'rec/s':>8} {'x warcio':>8} "
        f"{'work s':>7} {'x warcio':>8} {'cpu s':>7} {'x warcio':>8} {'peak RSS':>9}"
    )
    for size in args.sizes:
        src = cache / f"bench-{size}mib.arc.gz"
        meta = cache / f"bench-{size}mib.json"
        if not src.exists() or not meta.exists():
            t = time.perf_counter()
            raw, count = generate(src, size)
            meta.write_text(json.dumps({"bytes": raw, "records": count}))
            print(
                f"generated {src} ({raw / 2**20:.0f} MiB uncompressed, {count} records) in {time.perf_counter() - t:.1f}s"
            )
        facts = json.loads(meta.read_text())
        mib = facts["bytes"] / 2**20
        runs = {
            "warcio recompress": lambda out, src=src: [
                sys.executable,
                "-c",
                WARCIO_CHILD,
                "recompress",
                str(src),
                str(out / "out.warc.gz"),
            ],
            "crawlmill convert (CLI)": lambda out, src=src: [
                sys.executable,
                "-c",
                CRAWLMILL_CHILD,
                "convert",
                str(src),
                "--to",
                "warc",
                "-o",
                str(out),
            ],
        }
        if args.baseline:
            runs["crawlmill convert (CLI, baseline)"] = lambda out, src=src: [
                args.baseline,
                "-c",
                CRAWLMILL_CHILD,
                "convert",
                str(src),
                "--to",
                "warc",
                "-o",
                str(out),
            ]
        runs |= {
            f"  classes only (gzip {default_level})": lambda out, src=src: [
                *me,
                "--child",
                "crawlmill",
                "--input",
                str(src),
                "--output",
                str(out),
            ],
            "  classes only (gzip 1)": lambda out, src=src: [
                *me,
                "--child",
                "crawlmill",
                "--input",
                str(src),
                "--output",
                str(out),
                "--level",
                "1",
            ],
            "crawlmill arc reader only": lambda out, src=src: [
                *me,
                "--child",
                "read",
                "--input",
                str(src),
                "--output",
                str(out),
            ],
        }
        best = _best_of(runs, args.repeat, cache)
        print()
        print(header)
        base = best["warcio recompress"]
        for name, info in best.items():
            rate = mib / info["seconds"]
            print(
                f"{size:>6}MiB {name:<34} {info['seconds']:7.2f} {rate:7.1f} "
                f"{facts['records'] / info['seconds']:8.0f} {base['seconds'] / info['seconds']:7.1f}x "
                f"{info['inner_seconds']:7.2f} {base['inner_seconds'] / info['inner_seconds']:7.1f}x "
                f"{info['cpu_seconds']:7.2f} {base['cpu_seconds'] / info['cpu_seconds']:7.1f}x "
                f"{info['peak_rss_mib']:7.0f}MiB"
                + (
                    f"  ({info['warc_records']} WARC records, {info['warc_bytes'] / 2**20:.1f} MiB)"
                    if info.get("warc_records")
                    else ""
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
