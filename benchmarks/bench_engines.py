"""Benchmark: one conversion on the local executor (1 and 2 workers) and on Spark ``local[2]``.

Generates ``--files`` ARC files of ``--size`` MiB each (uncompressed; the realistic pages of
bench_arc2warc.py) into a cache folder, then converts all of them to WARC (``.arc.gz`` ->
``.warc.gz``, the default writer) with the same pipeline three ways, each in its own process:

* ``crawlmill convert IN --to warc -o OUT --workers 1`` (tasks in-process) and ``--workers 2``
  (a spawn pool of two worker processes);
* the same with ``--executor spark --spark-master local[2]`` (needs the ``spark`` extra and
  Java 17+): one Spark task per input file.

Every run writes the same records (checked: the runs' reports count the same records written).
For Spark the child also times its parts, so the engine's overhead is visible: starting the
SparkContext (the JVM), the first job (Spark's Python workers start and import crawlmill),
and the cost of one more task (a no-op task function over 40 payloads, per task: job
submission, scheduling, shipping payload and result).

    python benchmarks/bench_engines.py                        # 8 files x 8 MiB
    python benchmarks/bench_engines.py --files 16 --size 16 --repeat 2

Prints the wall time of each command (interpreter start-up included), the records and MiB of
uncompressed ARC per second, and the Spark breakdown.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def noop(payload: object) -> object:
    """The task function of the per-task overhead measurement."""
    return payload


def _inputs(cache: Path, files: int, size: int) -> tuple[Path, int, int]:
    """``files`` ARC files of ``size`` MiB in ``cache`` (made once); ``(folder, bytes,
    records)`` of uncompressed ARC."""
    from bench_arc2warc import generate

    folder = cache / f"{files}x{size}MiB"
    stamp = folder / "sizes.json"
    if not stamp.is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        totals = [0, 0]
        for n in range(files):
            raw, records = generate(folder / f"part-{n:03d}.arc.gz", size, seed=2008 + n)
            totals[0] += raw
            totals[1] += records
        stamp.write_text(json.dumps(totals))
    raw, records = json.loads(stamp.read_text())
    return folder, raw, records


def child_spark(inputs: str, output: str, master: str) -> dict:
    """In a child process: the Spark run, timed by part."""
    t0 = time.perf_counter()
    from bench_engines import noop as task  # by module name: Spark's workers import it too
    from crawlmill.core.config import pipeline_from_arguments
    from crawlmill.core.registry import Registry
    from crawlmill.core.run import engine
    from crawlmill.core.run.executor import make_executor
    from crawlmill.core.run.spark_executor import spark_context
    from crawlmill.core.spec import SparkSpec

    t_import = time.perf_counter()
    spark_context(master, {"spark.ui.enabled": "false"})
    t_context = time.perf_counter()
    executor = make_executor("spark", 1, SparkSpec(master=master))
    list(executor.map(task, [0, 1]))  # the Python workers start (and import crawlmill)
    t_workers = time.perf_counter()
    list(executor.map(task, list(range(40))))
    t_tasks = time.perf_counter()
    registry = Registry.load()
    spec = pipeline_from_arguments(
        registry,
        inputs=[inputs],
        output=output,
        writer=("warc", []),
        run={"executor": "spark", "spark": {"master": master}, "progress": "never"},
    )
    report = engine.run(spec, registry=registry)
    t_run = time.perf_counter()
    return {
        "imports": t_import - t0,
        "context": t_context - t_import,
        "first_job": t_workers - t_context,
        "per_task": (t_tasks - t_workers) / 40,
        "conversion": t_run - t_tasks,
        "written": report.written,
    }


def _cli(args: list[str]) -> tuple[float, int]:
    """Wall seconds of ``crawlmill ARGS`` in a child, and the records it wrote."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from crawlmill.core.commands.cli import main; sys.exit(main())",
         *args, "--progress", "never"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"crawlmill {' '.join(args)} failed:\n{proc.stderr}")
    out = args[args.index("-o") + 1]
    report = json.loads((Path(out) / ".crawlmill" / "report.json").read_text())
    return wall, report["written"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=8, help="input files")
    parser.add_argument("--size", type=int, default=8, help="uncompressed MiB per file")
    parser.add_argument("--repeat", type=int, default=1, help="runs per engine (best is kept)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--cache", default=os.path.join(tempfile.gettempdir(), "crawlmill-bench-engines")
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_spark(args.input, args.output, args.master)))
        return 0

    from crawlmill.core.run.spark_executor import missing_requirement

    folder, raw, records = _inputs(Path(args.cache), args.files, args.size)
    print(f"{args.files} ARC files, {raw / 2**20:.0f} MiB uncompressed, {records:,} records")
    work = Path(tempfile.mkdtemp(prefix="crawlmill-bench-engines-"))
    rows: dict[str, list[float]] = {}
    written: dict[str, int] = {}
    spark: list[dict] = []
    try:
        for r in range(args.repeat):
            for workers in (1, 2):
                name = f"local, {workers} worker{'s' if workers > 1 else ''}"
                out = work / f"local{workers}-{r}"
                wall, n = _cli(["convert", str(folder), "--to", "warc", "-o", str(out),
                                "--workers", str(workers)])  # fmt: skip
                rows.setdefault(name, []).append(wall)
                written[name] = n
            reason = missing_requirement()
            if reason is not None:
                print(f"spark: not run ({reason})")
                continue
            out = work / f"spark-{r}"
            started = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, __file__, "--child", "--input", str(folder),
                 "--output", str(out), "--master", args.master],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            wall = time.perf_counter() - started
            if proc.returncode != 0:
                raise SystemExit(f"the Spark run failed:\n{proc.stderr[-3000:]}")
            info = json.loads(proc.stdout.strip().splitlines()[-1])
            name = f"spark {args.master}"
            rows.setdefault(name, []).append(wall)
            written[name] = info["written"]
            spark.append(info)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if len(set(written.values())) != 1:
        raise SystemExit(f"the engines wrote different record counts: {written}")
    print("\n| engine | wall | records/s | MiB/s |\n|---|---:|---:|---:|")
    for name, walls in rows.items():
        best = min(walls)
        print(f"| {name} | {best:.2f} s | {records / best:,.0f} | {raw / 2**20 / best:.1f} |")
    if spark:
        best = min(spark, key=lambda s: s["conversion"])
        print(
            f"\nspark {args.master}: imports {best['imports']:.2f} s, SparkContext start "
            f"{best['context']:.2f} s, first job (Python workers start) {best['first_job']:.2f} s, "
            f"one more task {best['per_task'] * 1000:.0f} ms, the conversion itself "
            f"{best['conversion']:.2f} s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
