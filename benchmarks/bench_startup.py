"""Start-up cost of the ``crawlmill`` command (issue 20 item 2): wall and CPU (user + sys, of
the whole process tree: ``tree_usage``) of ``crawlmill --help``, ``crawlmill --version``,
``import crawlmill.core.commands.cli``, ``import pydantic`` (what a run that validates options
pays on top) and a convert of a one-record WARC (written with warcio), the least and the
median of ``--repeat`` runs.

``--before BIN``: also run the ``crawlmill`` script of another install (e.g. a venv of an
earlier checkout: ``/tmp/base/.venv/bin``), interleaved with this one run by run, so both
see the same load; ``--install NAME=BIN`` (repeatable) adds more (an editable and a
non-editable install of the same tree: an editable one adds its ``__editable__`` finder's
import). Prints the load average at the start and at the end. ``python -c pass`` is the
interpreter's own start (its site-packages' ``.pth`` files included), the floor.

``--phases``: instead, where a one-record convert's CPU goes, per install: the steps the
command takes, run in one fresh process each (public API only: the registry, the spec from
the arguments, the engine; the console script's dataclass table and ``gc.freeze`` where the
install has them), each step's ``time.process_time()`` and the process's exit (the whole
process's CPU from ``wait4`` minus the CPU at the end of the last step), least and median
of ``--repeat`` interleaved runs.

Modules run from their bytecode caches, as an installed crawlmill's do: the runs drop
``PYTHONDONTWRITEBYTECODE`` and one unmeasured run of each command writes the caches (with
the variable set, an editable install compiles every crawlmill module at each start).
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import tree_usage


def one_record_warc(path: Path) -> None:
    """A ``.warc.gz`` of one HTML response record, written by warcio (not by crawlmill)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        body = io.BytesIO(b"<html><body>hello</body></html>")
        record = writer.create_warc_record(
            "http://example.com/", "response", payload=body, http_headers=http
        )
        writer.write_record(record)


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + sys of the child's whole process tree, a pool's workers
    started from multiprocessing's forkserver included) of one run of ``argv``."""
    got = tree_usage.run(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    if got.returncode not in (0,):
        raise SystemExit(f"{argv} exited {got.returncode}")
    if tree_usage.describe(got):
        print(f"{argv}: {tree_usage.describe(got)}", file=sys.stderr)
    return got.wall, got.cpu


#: the steps of a one-record WARC -> WARC convert, timed in one process (``--phases``)
PHASES = """
import gc, io, sys, time
marks = [("interpreter and site (at the script's start)", time.process_time())]
def mark(step):
    marks.append((step, time.process_time()))
import argparse
from crawlmill.core.commands.cli import build_parser
args = build_parser().parse_args(["convert", "one.warc.gz", "--to", "warc", "-o", "out"])
mark("the CLI's import and argument parsing")
try:
    from crawlmill.core.dataclass_code import install
except ImportError:  # an install without the table
    install = None
else:
    install()
    mark("dataclasses and the precompiled table (the console script's)")
from crawlmill.core.config import pipeline_from_arguments
from crawlmill.core.registry import Registry
from crawlmill.core.storage_root import staged
mark("the registry, config and plugin contract's imports")
registry = Registry.load()
mark("Registry.load (the installed distributions' entry points)")
spec = pipeline_from_arguments(
    registry, inputs=args.inputs, output=args.output, writer=("warc", []), run={}
)
mark("the spec (imports the WARC writer plugin)")
from crawlmill.core.run import engine
mark("the engine's import")
with staged(spec, None) as local:
    report = engine.run(local, registry=registry, progress=io.StringIO())
assert report.ok and report.complete, report
mark("the run (the reader's import, detection, planning, the copy, markers, report.json)")
if install is not None:  # the console script freezes the collector's objects at its end
    gc.freeze()
mark("gc.freeze() (the console script's, where it has the table)")
print(repr(marks), file=sys.stderr)
"""


def phases(installs: dict[str, Path], work: Path, repeat: int) -> None:
    """Print where a one-record convert's CPU goes, per install (``--phases``)."""
    import ast

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    found: dict[str, dict[str, list[float]]] = {}
    for warm_up in (True, *([False] * repeat)):
        for name, bin_dir in installs.items():
            shutil.rmtree(work / "out", ignore_errors=True)
            run = [str(bin_dir / "python"), "-c", PHASES]
            got = tree_usage.run(run, cwd=work, env=env, capture_output=True, text=True)
            if got.returncode != 0:
                raise SystemExit(f"{name}: the phases' script exited {got.returncode}")
            if warm_up:
                continue
            marks = ast.literal_eval(got.stderr.strip().splitlines()[-1])
            steps = {marks[0][0]: marks[0][1]}
            for (_, before), (step, after) in zip(marks, marks[1:], strict=False):
                steps[step] = after - before
            steps["the interpreter's exit (the process's CPU after the last step)"] = (
                got.cpu - marks[-1][1]
            )
            steps["the whole process"] = got.cpu
            for step, took in steps.items():
                found.setdefault(name, {}).setdefault(step, []).append(took)
    print(f"load average at the end: {os.getloadavg()}", file=sys.stderr)
    for name, steps in found.items():
        print(f"{name}: CPU ms, least / median of {repeat}")
        for step, took in steps.items():
            print(f"  {step:<84} {min(took) * 1e3:6.1f} {statistics.median(took) * 1e3:6.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--before", metavar="BIN", help="bin folder of another crawlmill install")
    parser.add_argument(
        "--install", metavar="NAME=BIN", action="append", default=[], help="another install"
    )
    parser.add_argument(
        "--phases", action="store_true", help="where a one-record convert's CPU goes, per step"
    )
    opts = parser.parse_args(argv)
    installs = {"after": Path(sys.executable).parent}
    if opts.before:
        installs = {"before": Path(opts.before), **installs}
    for item in opts.install:
        name, _, bin_dir = item.partition("=")
        installs[name] = Path(bin_dir)
    work = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        one_record_warc(work / "one.warc.gz")
        if opts.phases:
            print(f"load average at the start: {os.getloadavg()}", file=sys.stderr)
            phases(installs, work, opts.repeat)
            return 0
        commands = {
            "python -c pass": ["python", "-c", "pass"],
            "python -S -c pass": ["python", "-S", "-c", "pass"],
            "crawlmill --help": ["crawlmill", "--help"],
            "crawlmill --version": ["crawlmill", "--version"],
            "python -c 'import crawlmill.core.commands.cli'": [
                "python",
                "-c",
                "import crawlmill.core.commands.cli",
            ],
            "python -c 'import pydantic'": ["python", "-c", "import pydantic"],
            "crawlmill convert one.warc.gz --to warc -o out": [
                "crawlmill",
                "convert",
                "one.warc.gz",
                "--to",
                "warc",
                "-o",
                "out",
            ],
        }
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        results: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for warm_up in (True, *([False] * opts.repeat)):
            if not warm_up and not results:
                print(f"load average at the start: {os.getloadavg()}", file=sys.stderr)
            for label, words in commands.items():
                for name, bin_dir in installs.items():
                    shutil.rmtree(work / "out", ignore_errors=True)
                    run = [str(bin_dir / words[0]), *words[1:]]
                    took = timed(run, work, env)
                    if not warm_up:
                        results.setdefault((label, name), []).append(took)
        print(f"load average at the end: {os.getloadavg()}", file=sys.stderr)
        width = max(7, *(len(n) for n in installs))
        print(
            f"{'command':<50} {'install':<{width}} {'wall':>7} {'CPU':>7}  (least of "
            f"{opts.repeat})  {'wall':>7} {'CPU':>7}  (median)"
        )
        for (label, name), runs in results.items():
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            print(
                f"{label:<50} {name:<{width}} {min(walls):>6.3f}s {min(cpus):>6.3f}s"
                f"{'':14}{statistics.median(walls):>6.3f}s {statistics.median(cpus):>6.3f}s"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
