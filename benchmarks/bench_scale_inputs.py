"""Benchmark: planning, running, resuming and ``status`` at the scale of a real crawl (issue 22
item 3: Common Crawl has 80,000+ WARC files per crawl).

For each size N: N tiny WARC inputs (one 220-byte ``.warc.gz`` of one response record,
hard-linked N times into folders of 1,000, ``seg00000/f000000.warc.gz`` ...; copied where
hard links fail), then, each in a child process of its own running the ``crawlmill`` command
in-process (the driver):

* **plan**: ``crawlmill convert IN -o OUT --dry-run`` (list, detect, stems, planned outputs,
  resume and ownership read, each file's fate printed; nothing written);
* **run**: ``crawlmill convert IN -o OUT`` (local executor, ``--workers``), only for N up to
  ``--run-max`` (a run's cost is the per-input task: open, write, fsync, commit; on a shared
  machine 100,000 of them take hours); an OUT that holds a finished run of the same N
  (``--work``, kept from an earlier invocation) is reused and not run again;
* **fill** (``--fill``, for N above ``--run-max``): where OUT holds a real run of some of the
  N inputs (a run of all of them interrupted, e.g. with SIGTERM), the completion marker and
  output of every other input are written as a run writes them: a copy of a real marker with
  the input's own key, names, index and stem (the inputs are byte-identical, so sizes, md5s
  and counters are too) and a hard link of its output. A run of 100,000 inputs takes hours
  on a shared machine; what a resume costs the driver is reading and checking the markers,
  which ``fill`` makes real (the resume must then find every input complete: it is checked);
* **resume**: the same command again (every input complete: nothing converted);
* **status**: ``crawlmill status OUT``.

Printed per phase: wall seconds, the driver's CPU (user + sys of the process running the
command), the workers' CPU (the rest of its process tree, measured from outside by
``tree_usage``: the pool's workers are children of multiprocessing's forkserver, not of the
driver), the driver's peak RSS (Linux: ``VmHWM`` of ``/proc/self/status``, the peak of its own
memory image; ``ru_maxrss`` elsewhere. On Linux ``ru_maxrss`` keeps the RSS of the process
before it ran ``exec``: a copy of this benchmark, whose reading of a 100,000-input
``report.json`` made every phase after the first look as large as itself).
The machine's load average is printed too (the figures are only comparable at one load).

    python benchmarks/bench_scale_inputs.py                      # 10,000 and 100,000 inputs
    python benchmarks/bench_scale_inputs.py --sizes 2000 --run-max 2000
    python benchmarks/bench_scale_inputs.py --work /tmp/scale    # keep inputs and outputs
    python benchmarks/bench_scale_inputs.py --sizes 100000 --run-max 0 --fill --work /tmp/scale
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import tree_usage
from synthetic import make_tiny_inputs, tiny_input_name

#: the child: runs one crawlmill command in-process and prints its own resource usage and that
#: of the children it waited for (``kids``); the workers started from the forkserver are not
#: its children: ``phase`` adds them, measured from outside.
CHILD = """
import json, os, resource, sys, time
from crawlmill.core.cli import main
argv = json.loads(sys.argv[1])
t = time.monotonic()
sys.stdout = open(os.devnull, "w")  # a dry run prints one line per input
try:
    code = main(argv)
except SystemExit as exc:
    code = exc.code
wall = time.monotonic() - t
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = me.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
try:  # Linux: ru_maxrss keeps the RSS of the image before exec (this benchmark's parent)
    with open("/proc/self/status") as fh:
        peak = next(int(x.split()[1]) * 1024 for x in fh if x.startswith("VmHWM:"))
except (OSError, StopIteration, ValueError):
    pass
print(json.dumps({"code": code, "wall": wall, "cpu": me.ru_utime + me.ru_stime,
                  "kids": kids.ru_utime + kids.ru_stime, "peak": peak}), file=sys.stderr)
"""


def phase(argv: list[str]) -> dict:
    """Run ``crawlmill ARGV`` in a child process; its figures (``workers``: the CPU of its
    descendants: those it waited for, as it saw them, and the orphans ``tree_usage`` reaped,
    such as the forkserver with its workers)."""
    proc = tree_usage.run(
        [sys.executable, "-c", CHILD, json.dumps(argv)], capture_output=True, text=True
    )
    last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "{}"
    try:
        figures = json.loads(last)
    except ValueError:
        raise SystemExit(f"crawlmill {' '.join(argv)} failed:\n{proc.stderr[-3000:]}") from None
    if tree_usage.describe(proc):
        print(tree_usage.describe(proc), file=sys.stderr)
    # (not proc.cpu less the driver's CPU: that would count the driver's interpreter shutdown)
    figures["workers"] = figures.pop("kids", 0.0) + proc.cpu - proc.command_cpu
    return figures


def finished(out: Path, n: int) -> bool:
    """``out`` holds a finished run of ``n`` inputs."""
    try:
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
    except (OSError, ValueError):
        return False
    return report.get("ok") is True and report.get("inputs") == n


def fill(inputs: Path, out: Path, n: int) -> int:
    """Write the marker and output of every input of ``inputs`` that ``out`` (a real run of
    some of them) has none of, from one of its real markers; the number written."""
    from crawlmill.core.run.outputs import marker_key  # the key a run gives an input

    done = out / ".crawlmill" / "done"
    names = sorted(os.listdir(done)) if done.is_dir() else []
    if not names:
        raise SystemExit(f"--fill: {out} holds no marker of a real run to copy")
    template = json.loads((done / names[0]).read_text())
    if template.get("input_count") != n or template["outputs"][0]["path"] != template["input"]:
        raise SystemExit(f"--fill: {done / names[0]} is not a marker of this benchmark's {n}")
    source = out / template["outputs"][0]["path"]
    have, written = set(names), 0
    for i in range(n):
        rel = tiny_input_name(i)  # as make_tiny_inputs(inputs, n) named it
        path = str(inputs / rel)
        key = marker_key(path, template["fingerprint"])
        if f"{key}.json" in have:
            continue
        marker = json.loads(json.dumps(template))
        marker.update(key=key, input=rel, input_path=path, index=i, stem=rel[: -len(".warc.gz")])
        marker["outputs"][0]["path"] = rel
        for f in marker.get("notes", {}).get("files", []):
            f["path"] = rel
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            try:
                os.link(source, target)
            except OSError:  # too many links to one file (ext4: 65,000): a new source
                shutil.copyfile(source, target)
                source = target
        (done / f"{key}.json").write_text(json.dumps(marker, indent=1, sort_keys=True))
        written += 1
    return written


def bench(
    work: Path, n: int, run_max: int, workers: int, filled: bool
) -> Iterator[tuple[str, dict]]:
    """The phases of one size, each as it ends."""
    inputs, out = work / f"in{n}", work / f"out{n}"
    make_tiny_inputs(inputs, n)
    convert = ["convert", str(inputs), "-o", str(out), "--progress", "never"]
    rows = [("plan", phase([*convert, "--dry-run"]))]
    yield rows[-1]
    if finished(out, n):
        rows.append(("run", {"reused": True}))
        yield rows[-1]
    elif n <= run_max:
        shutil.rmtree(out, ignore_errors=True)
        rows.append(("run", phase([*convert, "--workers", str(workers)])))
        yield rows[-1]
    elif filled:
        rows.append(("run", {"filled": fill(inputs, out, n)}))
        yield rows[-1]
    else:
        yield ("run", {"skipped": True})
        return
    rows.append(("resume", phase([*convert, "--workers", str(workers)])))
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    if rows[-1][1].get("code") not in (0, None) or report.get("inputs_skipped") != n:
        raise SystemExit(f"resume of {n}: not every input found complete ({rows[-1][1]})")
    yield rows[-1]
    yield ("status", phase(["status", str(out)]))


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="10000,100000", help="inputs, comma-separated")
    ap.add_argument("--run-max", type=int, default=10000, help="largest N given a full run")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--fill", action="store_true",
        help="above --run-max: complete a partial real run in --work by copying its markers",
    )  # fmt: skip
    ap.add_argument("--work", help="folder for inputs and outputs, kept (default: a temp one)")
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'inputs':>7} {'phase':<7} {'wall s':>8} {'driver CPU s':>12} "
          f"{'workers CPU s':>13} {'driver RSS MB':>13} {'us/input':>9}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        for n in (int(s) for s in args.sizes.split(",")):
            for name, r in bench(work, n, args.run_max, args.workers, args.fill):
                if "wall" not in r:
                    why = "reused (a finished run in --work)" if r.get("reused") else (
                        f"not run (N > --run-max {args.run_max})")  # fmt: skip
                    if "filled" in r:
                        why = f"filled: {r['filled']} markers copied from a partial real run"
                    print(f"{n:>7} {name:<7} {why}")
                    continue
                bad = "" if r["code"] in (0, None) else f"  exit {r['code']}"
                print(
                    f"{n:>7} {name:<7} {r['wall']:>8.1f} {r['cpu']:>12.1f} {r['workers']:>13.1f} "
                    f"{r['peak'] / 2**20:>13.0f} {r['cpu'] / n * 1e6:>9.0f}{bad}",
                    flush=True,
                )
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
