"""Benchmark: the scale curve (issue 22): ``crawlmill convert`` of 100 MB, 1 GB and 4 GB of
``.warc.gz`` on the local executor and on a Spark standalone cluster.

For each size, a collection of generated ``.warc.gz`` files (``synthetic.WarcCollection``:
per-record gzip members with digests, request/response/metadata per capture, 10% of the
captures revisiting an earlier URL; at least 8 files, about 125 MB each above 1 GB, so the
cluster has tasks to spread), cached in ``--data`` (a rerun does not generate again). Then
two jobs, each on two engines:

* jobs: ``convert`` (WARC -> WARC: ``crawlmill convert IN -o OUT``) and ``url-dedup`` (the
  same with ``--filter url-dedup rule=latest``: a whole-collection pass, its collect tables
  and reduce in ``OUT/.crawlmill``, then the final pass; the pipeline of issue 22's cluster
  must-show that suits this collection: its pages repeat under other URLs, so simhash-dedup
  would drop most of them);
* engines: ``local`` (``--workers 2``: a pool of two worker processes) and ``cluster``
  (``--spark-master spark://127.0.0.1:PORT``: a master and two workers of one core each,
  started once from the pyspark package on 127.0.0.1 as tests/core/test_spark_cluster.py
  starts them, with the launcher of tests/core/spark_cluster.py; inputs and outputs on the
  local disk, which the workers share: ``-o`` a local folder on a cluster must be a shared one).

Each run is one driver process (``crawlmill``'s ``main`` in-process) started by this script.
Measured per run:

* wall seconds of the driver process;
* driver CPU: the driver's own user + system seconds, plus for Spark its JVM (a child of the
  driver, waited for before the driver reports); all CPU: every process this script started
  and their descendants (the local pool's workers, the cluster's master and worker daemons,
  executors and Spark's Python workers), as user + system seconds of the live processes plus
  the children they (and this script, a child subreaper so orphans come to it) waited for,
  read from ``/proc`` before and after the run, plus the Python workers pyspark's daemon
  forks, sampled every 0.5 s (the daemon ignores SIGCHLD, so their CPU reaches no parent's
  account: without them the cluster's figure missed most of the conversion's CPU);
* peak RSS: the driver's (its ``VmHWM``), its JVM's, and the largest worker's: a pool worker
  process (local: the largest Python process below the driver, since pool workers are forked
  by the forkserver, a child of the driver) or one cluster worker's executor JVM and its
  Python workers together,
  sampled every 0.5 s from ``/proc``;
* peak work-folder bytes above the run's start (sampled every second): ``OUT/.crawlmill``
  (markers, collect tables, reduce parts) and the scratch (the driver's ``TMPDIR`` and
  ``SPARK_LOCAL_DIRS``, the cluster workers' work and temporary folders);
* output bytes (``OUT`` without ``.crawlmill``), input records per second of wall.

The cluster's start (master and both workers registered) is timed on its own. The engines'
reports must agree (records read, written, dropped) or the script says so.

    nice -n 19 .venv/bin/python benchmarks/bench_scale_curve.py --data /tmp/scale-data
    nice -n 19 .venv/bin/python benchmarks/bench_scale_curve.py --sizes 100M,1G --engines local
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

#: the driver: runs one crawlmill command in-process; with Spark, stops the context and waits
#: for its JVM, so that the JVM's CPU is in this process's children's usage; prints its figures.
CHILD = """
import json, os, resource, sys, time
from crawlmill.core.commands.cli import main
argv = json.loads(sys.argv[1])
t = time.monotonic()
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
wall = time.monotonic() - t
if "pyspark" in sys.modules:
    from pyspark import SparkContext
    from crawlmill.core.run import spark_executor
    spark_executor.stop_context()
    gateway = SparkContext._gateway
    if gateway is not None:
        gateway.shutdown()
        gateway.proc.stdin.close()  # the JVM ends when its stdin does
        gateway.proc.wait(timeout=120)
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
# the peak of this process's own memory: ru_maxrss would also hold the RSS of the parent that
# forked it (Linux keeps the larger of the old and new address spaces' peaks across exec)
with open("/proc/self/status") as fh:
    hwm = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:"))
print(json.dumps({"code": code, "wall": wall, "cpu": me.ru_utime + me.ru_stime,
                  "children_cpu": kids.ru_utime + kids.ru_stime,
                  "rss": hwm * 1024}), file=sys.stderr)
"""

MB = 10**6
#: per-file size of the larger collections.
FILE_BYTES = 125 * MB
PAGE = os.sysconf("SC_PAGE_SIZE")
TICKS = os.sysconf("SC_CLK_TCK")


def parse_size(text: str) -> int:
    """``100M``, ``1G``, ``4G`` (decimal units) as bytes."""
    text = text.strip().upper().rstrip("B")
    units = {"K": 10**3, "M": 10**6, "G": 10**9}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def label(size: int) -> str:
    """``100M``, ``1G`` ..."""
    return f"{size // 10**9}G" if size % 10**9 == 0 else f"{size // MB}M"


def collection(data: Path, size: int) -> tuple[Path, dict]:
    """The cached collection of ``size`` compressed bytes below ``data`` (generated once);
    its folder and stamp (files, records, captures, revisits, bytes)."""
    from synthetic import WarcCollection

    folder = data / label(size)
    stamp = folder / "stamp.json"
    if stamp.is_file():
        return folder / "warc", json.loads(stamp.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "warc").mkdir(parents=True)
    files = max(8, math.ceil(size / FILE_BYTES))
    maker = WarcCollection(seed=22)
    totals = {"files": files, "records": 0, "captures": 0, "revisits": 0, "bytes": 0}
    started = time.monotonic()
    for n in range(files):
        part = size * (n + 1) // files - size * n // files
        got = maker.write(folder / "warc" / f"crawl-{n:03d}.warc.gz", part)
        for key in ("records", "captures", "revisits", "bytes"):
            totals[key] += got[key]
    totals["seconds"] = round(time.monotonic() - started, 1)
    stamp.write_text(json.dumps(totals))
    return folder / "warc", totals


# -- /proc accounting ----------------------------------------------------------------------------


def _stats() -> dict[int, tuple]:
    """Every process: ``pid: (ppid, state, cpu_ticks_self, cpu_ticks_waited, rss_bytes,
    name, start_ticks)``."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                raw = fh.read().decode(errors="replace")
        except OSError:
            continue
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        f = raw[raw.rindex(")") + 2 :].split()
        # fields from 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17, rss 24
        out[int(entry.name)] = (
            int(f[1]),
            f[0],
            int(f[11]) + int(f[12]),
            int(f[13]) + int(f[14]),
            int(f[21]) * PAGE,
            name,
            int(f[19]),
        )
    return out


def _descendants(stats: dict[int, tuple], root: int) -> set[int]:
    kids: dict[int, list[int]] = {}
    for pid, s in stats.items():
        kids.setdefault(s[0], []).append(pid)
    found, todo = set(), [root]
    while todo:
        for kid in kids.get(todo.pop(), ()):
            if kid not in found:
                found.add(kid)
                todo.append(kid)
    return found


def _subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux ``prctl``), so their CPU
    reaches this process's children's usage rather than init's."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


def _folder_bytes(folder: Path) -> int:
    total = 0
    stack = [str(folder)]
    while stack:
        try:
            with os.scandir(stack.pop()) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            stack.append(e.path)
                        elif e.is_file(follow_symlinks=False):
                            total += e.stat(follow_symlinks=False).st_size
                    except OSError:
                        pass
        except OSError:
            pass
    return total


class Meter:
    """Samples the process tree below this script and the work folders while a run goes on."""

    def __init__(self, owned: set[int]) -> None:
        self.me = os.getpid()
        #: our own children that :mod:`subprocess` waits for (never reaped here).
        self.owned = owned

    def total_cpu(self) -> float:
        """CPU seconds of every descendant: live ones (their own and what they waited for) and
        those this process waited for. Orphans that ended are reaped first."""
        stats = _stats()
        mine = _descendants(stats, self.me)
        for pid in mine:
            if stats[pid][0] == self.me and stats[pid][1] == "Z" and pid not in self.owned:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
        stats = _stats()
        mine = _descendants(stats, self.me)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        live = sum(stats[p][2] + stats[p][3] for p in mine) / TICKS
        return live + kids.ru_utime + kids.ru_stime

    def watch(self, driver: int, workers: list[int], folders: dict[str, list[Path]]) -> dict:
        """Sample until :meth:`stop`; the peaks go into the returned dict (filled as it goes).
        ``workers``: the cluster's worker daemons (empty for the local executor)."""
        base = {k: sum(_folder_bytes(f) for f in fs) for k, fs in folders.items()}
        peaks = {"driver_jvm_rss": 0, "worker_rss": 0, "python_worker_rss": 0}
        peaks.update({f"{k}_bytes": 0 for k in folders})
        peaks["work_bytes"] = 0
        self._stop = threading.Event()
        #: each process's CPU ticks when the run began (0 for a process born after) and the
        #: last seen: their differences add up to a lower bound of the run's CPU, a check of
        #: :meth:`total_cpu` (a process's CPU after its last sample is missing).
        stats = _stats()
        self.base = {(p, stats[p][6]): stats[p][2] for p in _descendants(stats, self.me)}
        self.seen: dict[tuple[int, int], tuple[str, int]] = {}
        self.forked: set[tuple[int, int]] = set()
        seen = self.seen

        def loop() -> None:
            tick = 0
            while not self._stop.is_set():
                stats = _stats()
                below = _descendants(stats, driver)
                for pid in _descendants(stats, self.me):
                    s = stats[pid]  # the last CPU seen of each process (a lower bound)
                    seen[(pid, s[6])] = (s[5], s[2])
                    parent = stats.get(s[0])
                    grand = stats.get(parent[0]) if parent else None
                    if (
                        s[5].startswith("python")
                        and parent
                        and parent[5].startswith("python")
                        and grand
                        and grand[5] == "java"
                    ):
                        self.forked.add((pid, s[6]))  # a Python worker pyspark's daemon forked
                for pid in below:
                    ppid, _, _, _, rss, name, _ = stats[pid]
                    if name == "java":
                        peaks["driver_jvm_rss"] = max(peaks["driver_jvm_rss"], rss)
                    elif not workers and name.startswith("python"):
                        # a pool worker: forked by the forkserver (a child of the driver), so
                        # any Python process below the driver (the forkserver, smaller, too)
                        peaks["worker_rss"] = max(peaks["worker_rss"], rss)
                        peaks["python_worker_rss"] = max(peaks["python_worker_rss"], rss)
                for daemon in workers:
                    node = 0
                    for pid in _descendants(stats, daemon):
                        rss, name = stats[pid][4], stats[pid][5]
                        node += rss
                        if name.startswith("python"):
                            peaks["python_worker_rss"] = max(peaks["python_worker_rss"], rss)
                    peaks["worker_rss"] = max(peaks["worker_rss"], node)
                if tick % 2 == 0:
                    now = {
                        k: max(0, sum(_folder_bytes(f) for f in fs) - base[k])
                        for k, fs in folders.items()
                    }
                    for k, v in now.items():
                        peaks[f"{k}_bytes"] = max(peaks[f"{k}_bytes"], v)
                    peaks["work_bytes"] = max(peaks["work_bytes"], sum(now.values()))
                tick += 1
                self._stop.wait(0.5)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()
        return peaks

    def stop(self) -> None:
        """End the sampling."""
        self._stop.set()
        self._thread.join()

    def forked_cpu(self) -> float:
        """The sampled CPU seconds of the Python workers pyspark's daemon forked: the daemon
        ignores SIGCHLD, so they are reaped by the kernel and their CPU reaches no parent's
        children's usage (missing from :meth:`total_cpu`)."""
        return sum(self.seen[k][1] - self.base.get(k, 0) for k in self.forked) / TICKS

    def sampled_cpu(self) -> dict[str, float]:
        """The run's CPU seconds by process name as sampled (a lower bound, see :meth:`watch`)."""
        out: dict[str, float] = {}
        for key, (name, ticks) in self.seen.items():
            name = "python" if name.startswith("python") else name
            out[name] = out.get(name, 0.0) + (ticks - self.base.get(key, 0)) / TICKS
        return {k: round(v, 1) for k, v in out.items()}


# -- the runs ------------------------------------------------------------------------------------


def driver_env(scratch: Path) -> dict[str, str]:
    """The driver's environment: no Spark settings of the caller; its scratch in ``scratch``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env.update(
        TMPDIR=str(scratch),
        SPARK_LOCAL_DIRS=str(scratch),
        SPARK_LOCAL_IP="127.0.0.1",
        SOURCE_DATE_EPOCH="1700000000",
    )
    return env


def run_one(
    argv: list[str],
    out: Path | str,
    scratch: Path,
    meter: Meter,
    workers: list[int],
    cluster_dirs: list[Path],
    store=None,
) -> dict:
    """One driver process for ``crawlmill ARGV`` writing to ``out`` (a folder, or an
    ``s3://`` URL on ``store``, an s3fs filesystem); its figures."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    if store is None:
        shutil.rmtree(out, ignore_errors=True)
        folders = {"crawlmill": [Path(out) / ".crawlmill"], "scratch": [scratch, *cluster_dirs]}
    else:  # markers and tables live on the store; the driver's stage is in its --work-dir
        folders = {"crawlmill": [], "scratch": [scratch, *cluster_dirs]}
    load = os.getloadavg()[0]
    cpu0 = meter.total_cpu()
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, json.dumps(argv)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=driver_env(scratch),
    )  # fmt: skip
    meter.owned.add(proc.pid)
    peaks = meter.watch(proc.pid, workers, folders)
    _, err = proc.communicate()
    wall = time.monotonic() - started
    meter.stop()
    meter.owned.discard(proc.pid)
    time.sleep(1.0)  # the executors of the ended application stop and are reaped
    cpu1 = meter.total_cpu()
    lines = err.strip().splitlines()
    try:
        figures = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise SystemExit(f"crawlmill {' '.join(argv)} failed:\n{err[-3000:]}") from None
    spark = any(a.startswith("--spark-master") for a in argv)
    if store is None:
        out = Path(out)
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
        outputs = sum(
            p.stat().st_size for p in out.rglob("*") if p.is_file() and ".crawlmill" not in p.parts
        )
    else:
        store.invalidate_cache()
        base = str(out)[len("s3://") :]
        report = json.loads(store.cat(f"{base}/.crawlmill/report.json"))
        sizes = store.du(base, total=False)
        outputs = sum(n for k, n in sizes.items() if "/.crawlmill/" not in k)
        store.rm(base, recursive=True)
    return {
        **peaks,
        "code": figures["code"],
        "wall": wall,
        "driver_cpu": figures["cpu"] + (figures["children_cpu"] if spark else 0.0),
        "all_cpu": cpu1 - cpu0 + meter.forked_cpu(),
        "forked_cpu": meter.forked_cpu(),
        "sampled_cpu": meter.sampled_cpu(),
        "driver_rss": figures["rss"],
        "output_bytes": outputs,
        "read": report["read"],
        "written": report["written"],
        "dropped": sum(sum(v.values()) for v in report["dropped"].values()),
        "load": (load, os.getloadavg()[0]),
        "err": err[-2000:] if figures["code"] != 0 else "",
    }


def _self_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` itself (0 when it is gone)."""
    s = _stats_of(pid)
    return s[2] / TICKS if s else 0.0


def _stats_of(pid: int) -> tuple | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text(errors="replace")
    except OSError:
        return None
    f = raw[raw.rindex(")") + 2 :].split()
    return (int(f[1]), f[0], int(f[11]) + int(f[12]))


def start_store(log: Path):
    """moto's S3 server (``python -m moto.server``) on 127.0.0.1 in a child process; its
    endpoint and test credentials set in this process's environment, which the cluster's
    daemons and the drivers inherit (as a cluster's nodes would have theirs); returns the
    process and an s3fs filesystem on it."""
    import socket
    import urllib.request

    import s3fs

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=fh, stderr=subprocess.STDOUT,
        )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(endpoint, timeout=2).close()
            break
        except OSError:
            time.sleep(0.2)
    os.environ.update(
        AWS_ENDPOINT_URL=endpoint,
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
    )
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
        os.environ.pop(name, None)
    fs = s3fs.S3FileSystem()
    for bucket in ("crawlmill-scale-in", "crawlmill-scale-out"):
        with contextlib.suppress(FileExistsError):
            fs.mkdir(bucket)
    return proc, fs


def start_cluster(root: Path):
    """The standalone cluster of the tests' launcher (imported from tests/core/spark_cluster.py
    by path: it imports nothing of the tests), workers of 1 core and 1g for executors (Spark's
    default executor memory) with the driver's folder visible (a shared disk)."""
    sys.path.insert(0, str(ROOT))
    from tests.core.spark_cluster import StandaloneCluster

    return StandaloneCluster(root, workers=2, cores=1, memory="1g")


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="100M,1G,4G", help="collection sizes (compressed)")
    ap.add_argument("--engines", default="local,cluster")
    ap.add_argument("--jobs", default="convert,url-dedup")
    ap.add_argument(
        "--data",
        default=os.path.join(tempfile.gettempdir(), "crawlmill-scale-curve"),
        help="cache of the generated inputs (kept)",
    )
    ap.add_argument(
        "--store",
        choices=("local", "s3"),
        default="local",
        help="inputs and outputs on the local disk, or on moto's S3 server (uploaded first)",
    )
    ap.add_argument("--work", help="outputs and scratch (default: a temporary folder, removed)")
    ap.add_argument("--json", help="also append each run's figures to this JSON-lines file")
    args = ap.parse_args()
    _subreaper()
    engines = args.engines.split(",")
    jobs = args.jobs.split(",")
    data = Path(args.data)
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    work = Path(args.work or tempfile.mkdtemp(prefix="crawlmill-scale-curve-"))
    cluster = None
    meter = Meter(set())
    store = moto = None
    if args.store == "s3":
        work.mkdir(parents=True, exist_ok=True)
        moto, store = start_store(work / "moto.log")
        meter.owned.add(moto.pid)
    rows = []
    header = (
        f"{'size':>5} {'engine':<7} {'job':<9} {'wall s':>7} {'drv CPU':>7} {'all CPU':>7} "
        f"{'drv RSS':>7} {'drvJVM':>6} {'wrk RSS':>7} {'py wrk':>6} {'.crawl':>7} "
        f"{'scratch':>7} {'out MB':>7} {'rec/s':>7} {'load':>9}"
    )
    try:
        for size in (parse_size(s) for s in args.sizes.split(",")):
            folder, stamp = collection(data, size)
            source = str(folder)
            if store is not None:
                source = f"s3://crawlmill-scale-in/{label(size)}/"
                have = store.find(source[5:]) if store.exists(source[5:]) else []
                if len([k for k in have if k.endswith(".warc.gz")]) < stamp["files"]:
                    store.put(f"{folder}/", source[5:], recursive=True)
            print(
                f"{label(size)}: {stamp['files']} files, {stamp['bytes'] / MB:,.0f} MB, "
                f"{stamp['records']:,} records ({stamp['captures']:,} captures, "
                f"{stamp['revisits']:,} revisits)",
                flush=True,
            )
            print(header, flush=True)
            for engine in engines:
                where: list[str] = ["--workers", "2"]
                daemons: list[int] = []
                dirs: list[Path] = []
                if engine == "cluster":
                    if cluster is None:
                        cluster = start_cluster(work / "cluster")
                        c0, t0 = meter.total_cpu(), time.monotonic()
                        cluster.start()
                        meter.owned.update(p.pid for p in cluster.procs.values())
                        print(
                            f"cluster started in {time.monotonic() - t0:.1f} s, "
                            f"{meter.total_cpu() - c0:.1f} s CPU ({cluster.master_url})",
                            flush=True,
                        )
                    where = ["--spark-master", cluster.master_url]
                    daemons = [cluster.worker_pid(n) for n in (1, 2)]
                    dirs = [work / "cluster" / f"worker{n}" for n in (1, 2)]
                for job in jobs:
                    out = work / "out" if store is None else "s3://crawlmill-scale-out/run"
                    argv = ["convert", source, "-o", str(out), "--progress", "never", *where]
                    if store is not None:
                        argv += ["--work-dir", str(work / "scratch" / "stage")]
                    if job == "url-dedup":
                        argv += ["--filter", "url-dedup", "rule=latest"]
                    store_cpu = _self_cpu(moto.pid) if moto else 0.0
                    r = run_one(argv, out, work / "scratch", meter, daemons, dirs, store)
                    r["store_cpu"] = (_self_cpu(moto.pid) - store_cpu) if moto else 0.0
                    r.update(size=label(size), engine=engine, job=job, records=stamp["records"])
                    r["store"] = args.store
                    rows.append(r)
                    if store is None:
                        shutil.rmtree(out, ignore_errors=True)
                    print(
                        f"{r['size']:>5} {engine:<7} {job:<9} {r['wall']:>7.1f} "
                        f"{r['driver_cpu']:>7.1f} {r['all_cpu']:>7.1f} "
                        f"{r['driver_rss'] / MB:>7.0f} {r['driver_jvm_rss'] / MB:>6.0f} "
                        f"{r['worker_rss'] / MB:>7.0f} {r['python_worker_rss'] / MB:>6.0f} "
                        + (f"{'-':>7} " if store else f"{r['crawlmill_bytes'] / MB:>7.1f} ")
                        + f"{r['scratch_bytes'] / MB:>7.1f} "
                        f"{r['output_bytes'] / MB:>7.0f} {stamp['records'] / r['wall']:>7.0f} "
                        f"{r['load'][0]:>4.1f}-{r['load'][1]:<4.1f}"
                        + (f"  (S3 server {r['store_cpu']:.1f} s CPU)" if moto else "")
                        + (f"  exit {r['code']}: {r['err'][-300:]}" if r["code"] else ""),
                        flush=True,
                    )
                    if args.json:
                        with open(args.json, "a") as fh:
                            fh.write(json.dumps(r) + "\n")
    finally:
        if cluster is not None:
            cluster.stop()
        if moto is not None:
            moto.terminate()
            moto.wait(timeout=30)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    for size in {r["size"] for r in rows}:
        for job in jobs:
            seen = {
                (r["read"], r["written"], r["dropped"], r["output_bytes"])
                for r in rows
                if r["size"] == size and r["job"] == job
            }
            if len(seen) > 1:
                print(f"MISMATCH {size} {job}: the engines differ: {seen}")
    print("sizes in MB (10^6 bytes); CPU in s; work folders: peak above the run's start")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
