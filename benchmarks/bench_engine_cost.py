"""Benchmark: the engine's cost. The CPU of a whole ``crawlmill convert`` process beside the CPU
of reading the same file with our reader alone and beside independent tools, as ratios measured
in one run (issue 20).

Cases (each on the inputs of both generators where it applies):

* ``warc->warc``: ``crawlmill convert IN --to warc`` (a verbatim copy: unchanged records);
* ``warc->warc+filter``: the same with a filter that changes every record (appends a byte to
  the payload: every record is serialised and compressed anew);
* ``arc->warc``: ``crawlmill convert IN.arc.gz --to warc``;
* ``warc->nutch-segment``: ``crawlmill convert IN --to nutch-segment --filter kind
  keep=response,resource`` (a segment holds fetched pages only; it sorts: a shuffle);
* ``seq->seq``: ``crawlmill convert IN.seq --to sequencefile`` (the SequenceFile made from the
  WARC input by crawlmill, not timed).

Beside each: **reader**: the input read with our reader alone (``open_reader`` with the
reader class, every payload touched), in a process of its own; **anchors**: ``warcio
recompress`` (WARC and ARC inputs: warcio reads and writes every record), FastWARC reading the
file (WARC), Hadoop's ``SequenceFile.Reader`` (``java``, JVM start included; SequenceFile
inputs, when Java and pyspark are there). Every figure is the CPU (user + sys) of the whole
child process tree, from ``tree_usage.run`` (pool workers started from multiprocessing's
forkserver included, which ``RUSAGE_CHILDREN`` misses): start-up and imports included, threads
included; the best of ``--repeat`` runs.

Generators: **ours** (``bench_read_warc.generate``: warcinfo, then request/response/metadata
triples, one gzip member each; ``bench_arc2warc.generate`` for ARC) and **warcio** (a plain
``warcio`` ``WARCWriter`` loop of response records with HTML pages; warcio writes no ARC, so
ARC is ours only).

    python benchmarks/bench_engine_cost.py               # 16 MiB inputs, about a minute
    python benchmarks/bench_engine_cost.py --mib 100 --repeat 3 --cache /tmp/cost
"""

from __future__ import annotations

import argparse
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import tree_usage

HERE = Path(__file__).resolve().parent

#: the filter that changes every record (loaded with ``--plugin bench_cost_filter``)
FILTER = '''
"""Appends one byte to every record's payload (bench_engine_cost: a filter that changes every
record)."""

from crawlmill.core import Filter, hookimpl


class Touch(Filter):
    """Appends a newline to every record's payload."""

    name = "bench-touch"

    def apply(self, record):
        return record.evolve(payload=record.payload + b"\\n")


@hookimpl
def crawlmill_register_filters(register):
    register(Touch)
'''

#: reads a file with one of our readers, touching every payload (argv: module, class, path)
READ = """
import importlib, sys
from crawlmill.core import open_reader
cls = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
n = size = 0
with open_reader(sys.argv[3], cls) as records:
    for record in records:
        size += len(record.payload)
        n += 1
print(n, size)
"""

FASTWARC = """
import sys
from fastwarc.warc import ArchiveIterator
n = size = 0
with open(sys.argv[1], "rb") as fh:
    for record in ArchiveIterator(fh):
        size += len(record.reader.read())
        n += 1
print(n, size)
"""

WARCIO_RECOMPRESS = "import sys; from warcio.cli import main; main(sys.argv[1:])"

CASES = ("warc->warc", "warc->warc+filter", "warc->nutch-segment", "arc->warc", "seq->seq")

READERS = {
    "warc": ("crawlmill.plugins.readers.warc", "WarcReader"),
    "arc": ("crawlmill.plugins.readers.arc", "ArcReader"),
    "seq": ("crawlmill.plugins.readers.sequencefile", "SequenceFileReader"),
}


def generate_warcio(path: Path, mib: int, seed: int = 11) -> None:
    """A ``.warc.gz`` of about ``mib`` MiB of HTML responses, written by a plain warcio loop."""
    from synthetic import PageMaker
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    rng = random.Random(seed)
    pages = PageMaker(rng)
    total, i = 0, 0
    tmp = path.with_suffix(".part")
    with open(tmp, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        while total < mib << 20:
            body = pages.page(int(min(1_000_000, rng.lognormvariate(9.6, 0.8))))
            headers = StatusAndHeaders(
                "200 OK",
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            record = writer.create_warc_record(
                f"https://example{i % 500}.org/p/{i}",
                "response",
                payload=io.BytesIO(body),
                http_headers=headers,
            )
            writer.write_record(record)
            total += len(body)
            i += 1
    os.replace(tmp, path)


def inputs(
    cache: Path, mib: int, crawlmill: list[str], kinds: frozenset[str] = frozenset(("arc", "seq"))
) -> dict[str, dict[str, Path]]:
    """generator -> {"warc", "arc", "seq"} -> input path (made once per size in ``cache``);
    the ARC and SequenceFile inputs only when ``kinds`` names them (the WARCs always)."""
    sys.path.insert(0, str(HERE))
    import bench_arc2warc
    import bench_read_warc

    made: dict[str, dict[str, Path]] = {"ours": {}, "warcio": {}}
    ours, plain = cache / f"ours-{mib}.warc.gz", cache / f"warcio-{mib}.warc.gz"
    if not ours.exists():
        bench_read_warc.generate(ours, mib)
    if not plain.exists():
        generate_warcio(plain, mib)
    made["ours"]["warc"] = ours
    made["warcio"]["warc"] = plain
    if "arc" in kinds:
        arc = made["ours"]["arc"] = cache / f"ours-{mib}.arc.gz"
        if not arc.exists():
            bench_arc2warc.generate(arc, mib)
    for gen, files in made.items() if "seq" in kinds else ():
        seq_dir = cache / f"{gen}-{mib}-seq"
        if not seq_dir.exists():
            subprocess.run(
                [*crawlmill, "convert", str(files["warc"]), "--to", "sequencefile",
                 "-o", str(seq_dir)],
                check=True, capture_output=True,
            )  # fmt: skip
        (seq,) = [p for p in seq_dir.rglob("*") if p.is_file() and not p.name.startswith(".")
                  and p.suffix not in (".json", ".txt") and p.read_bytes()[:3] == b"SEQ"]  # fmt: skip
        files["seq"] = seq
    return made


def cpu_of(
    cmd: list[str], repeat: int, env: dict | None = None, clean: Path | None = None
) -> float:
    """The least CPU (user + sys, seconds) of ``repeat`` runs of ``cmd`` (a child process)."""
    best = float("inf")
    for _ in range(repeat):
        if clean is not None:
            shutil.rmtree(clean, ignore_errors=True)
        done = tree_usage.run(cmd, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        if tree_usage.describe(done):
            print(f"  {' '.join(cmd[:3])}...: {tree_usage.describe(done)}", file=sys.stderr)
        cpu = done.cpu
        best = min(best, cpu)
    return best


def java_reader(tmp: Path) -> list[str] | None:
    """Hadoop's SequenceFile reader (bench_sequencefile's SeqRead), or ``None``."""
    sys.path.insert(0, str(HERE))
    try:
        import bench_sequencefile

        return bench_sequencefile.java_setup(tmp)
    except (ImportError, OSError, subprocess.CalledProcessError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=16, help="uncompressed MiB per input")
    parser.add_argument("--repeat", type=int, default=1, help="runs per figure (the least CPU)")
    parser.add_argument("--cache", type=Path, help="folder keeping the inputs between runs")
    parser.add_argument(
        "--cases", nargs="+", choices=CASES, metavar="CASE", help=f"only these ({', '.join(CASES)})"
    )
    parser.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="also run each convert with this checkout's crawlmill (a folder holding an older "
        "tree), in the same run: the 'before' column",
    )
    parser.add_argument(
        "--no-anchors",
        action="store_true",
        help="measure the converts and the reader only (no warcio, FastWARC or Hadoop runs)",
    )
    parser.add_argument(
        "--compile-each-run",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE when it is set (every process compiles the modules "
        "it imports; otherwise their bytecode is cached in the cache folder, as an install has)",
    )
    opts = parser.parse_args(argv)

    py = sys.executable
    crawlmill = [py, "-m", "crawlmill.core.cli"]  # the console script's module: what `crawlmill` runs
    cache = opts.cache or Path(tempfile.mkdtemp(prefix="crawlmill-cost-"))
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="crawlmill-cost-out-"))
    (work / "bench_cost_filter.py").write_text(textwrap.dedent(FILTER))
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")])
    )
    started = time.perf_counter()
    print(f"load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not opts.compile_each_run:
        # as an installed package is run: modules compiled once, not in every process
        for environ in (os.environ, env):
            environ.pop("PYTHONDONTWRITEBYTECODE", None)
            environ["PYTHONPYCACHEPREFIX"] = str(cache / "pycache")
        print(f"bytecode cached in {cache / 'pycache'} (PYTHONDONTWRITEBYTECODE was set)")
    kinds = {"arc->warc": "arc", "seq->seq": "seq"}
    files = inputs(
        cache, opts.mib, crawlmill, frozenset(kinds.get(c, "warc") for c in opts.cases or CASES)
    )
    java = java_reader(work) if "seq->seq" in (opts.cases or CASES) else None
    out = work / "out"

    before_env = None
    if opts.before:
        from bench_read_warc import _before_path

        before_env = dict(
            env, PYTHONPATH=os.pathsep.join([_before_path(opts.before), env["PYTHONPATH"]])
        )

    def convert(src: Path, *args: str, env: dict = env) -> float:
        cmd = [*crawlmill, "convert", str(src), *args, "-o", str(out)]
        return cpu_of(cmd, opts.repeat, env=env, clean=out)

    def reader(kind: str, src: Path) -> float:
        return cpu_of([py, "-c", READ, *READERS[kind], str(src)], opts.repeat)

    def recompress(src: Path) -> float:
        dst = str(work / "recompressed.warc.gz")
        return cpu_of([py, "-c", WARCIO_RECOMPRESS, "recompress", str(src), dst], opts.repeat)

    #: case -> (input kind, convert arguments)
    args = {
        "warc->warc": ("warc", ["--to", "warc"]),
        "warc->warc+filter": (
            "warc",
            ["--to", "warc", "--plugin", "bench_cost_filter", "--filter", "bench-touch"],
        ),
        "warc->nutch-segment": (
            "warc",
            ["--to", "nutch-segment", "--filter", "kind", "keep=response,resource"],
        ),
        "arc->warc": ("arc", ["--to", "warc"]),
        "seq->seq": ("seq", ["--to", "sequencefile"]),
    }
    rows = []
    for gen, by_kind in files.items():
        read: dict[str, float] = {}
        anchors: dict[str, dict[str, float]] = {}
        for case in opts.cases or CASES:
            kind, conv_args = args[case]
            if kind not in by_kind:
                continue  # (ARC: ours only)
            src = by_kind[kind]
            if kind not in read:
                read[kind] = reader(kind, src)
                if opts.no_anchors:
                    anchors[kind] = {}
                elif kind == "warc":
                    anchors[kind] = {
                        "warcio recompress": recompress(src),
                        "FastWARC read": cpu_of([py, "-c", FASTWARC, str(src)], opts.repeat),
                    }
                elif kind == "arc":
                    anchors[kind] = {"warcio recompress": recompress(src)}
                else:
                    hadoop = cpu_of([*java, str(src)], opts.repeat) if java else None
                    anchors[kind] = {"Hadoop reader": hadoop} if hadoop else {}
            before = convert(src, *conv_args, env=before_env) if before_env else None
            rows.append((gen, case, convert(src, *conv_args), before, read[kind], anchors[kind]))

    print(f"inputs: {opts.mib} MiB uncompressed each; CPU seconds (user + sys) of whole processes,")
    print(f"best of {opts.repeat}; ratios are convert / reader and convert / anchor")
    print()
    print(f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    head = (f"{'generator':<9} {'case':<20} {'convert':>8} {'before':>7} {'reader':>7} "
            f"{'conv/read':>9} {'before/read':>11}  anchors")  # fmt: skip
    print(head)
    print("-" * len(head))
    for gen, case, conv, before, read, anchors in rows:
        anchor_text = "; ".join(
            f"{name} {cpu:.2f}s: conv/anchor {conv / cpu:.2f}, read/anchor {read / cpu:.2f}"
            for name, cpu in anchors.items()
        )
        b, br = (f"{before:.2f}s", f"{before / read:.2f}") if before else ("-", "-")
        print(f"{gen:<9} {case:<20} {conv:>7.2f}s {b:>7} {read:>6.2f}s {conv / read:>9.2f} "
              f"{br:>11}  {anchor_text}")  # fmt: skip
    print(f"\n({time.perf_counter() - started:.0f} s; inputs in {cache})")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
