"""Check that a change leaves every output byte alone: convert every ARC/WARC sample to WARC
(or, with ``--to``, to another format) with two checkouts and compare the outputs' SHA-256.

Every ``*.arc``, ``*.arc.gz``, ``*.warc``, ``*.warc.gz`` (and ``.wet``/``.wat``, zstd/LZ4
variants) under ``--samples`` (default ``../shared/samples``) is converted alone with
``crawlmill convert FILE --to warc -o OUT --option gzip_backend=zlib`` (zlib gives the same
bytes on every run; ISA-L may not; ``SOURCE_DATE_EPOCH`` fixes the conversion date), in-process through ``crawlmill.core.commands.cli.main``, once with
this checkout and once with ``--before CHECKOUT`` (``git worktree add /tmp/base main``). It
prints the files whose outputs (sha256 of every file written, the exit code) differ and exits
1 when any does.

    python benchmarks/sample_outputs.py --before /tmp/base

``--to sequencefile`` converts every SequenceFile sample (a file starting ``SEQ``, MapFile
``data`` files included) and every WARC sample; ``--to nutch-segment`` every ARC/WARC sample
(``--option segment=S``: the segment's name is otherwise the time). ``--extra FILE`` adds
inputs (a benchmark's). SequenceFile sync hashes are random where no source gives one: the
child draws ``os.urandom`` from a counter, so both checkouts get the same ones.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_read_warc import _before_path

SUFFIXES = (".arc", ".warc", ".wet", ".wat")
COMPRESSED = ("", ".gz", ".zst", ".lz4")


def samples(root: Path) -> list[Path]:
    """The ARC/WARC files under ``root``, sorted."""
    names = tuple(s + c for s in SUFFIXES for c in COMPRESSED)
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(names))


def sequencefiles(root: Path) -> list[Path]:
    """The SequenceFiles under ``root`` (files starting with ``SEQ``), sorted."""
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.endswith((".md", ".json", ".txt", ".crc")):
            with open(p, "rb") as fh:
                if fh.read(3) == b"SEQ":
                    out.append(p)
    return out


def _digest_tree(root: Path, to: str = "warc") -> dict[str, str]:
    """sha256 of every output file written under ``root`` (reports, markers, the quarantine
    left out: they hold times and paths)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if not p.is_file() or rel.parts[0].startswith(".") or p.suffix in (".json", ".txt"):
            continue
        if to == "warc" and ".warc" not in p.name:
            continue
        out[str(rel)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _counter_urandom() -> None:
    """``os.urandom`` from a counter: the same "random" sync hashes in both checkouts."""
    state = [0]

    def urandom(n: int) -> bytes:
        state[0] += 1
        return hashlib.sha256(str(state[0]).encode()).digest()[:n]

    os.urandom = urandom


def _child(files: list[str], work: str, to: str, options: list[str]) -> None:
    """Convert each file (in this process) and print ``{file: {code, outputs}}`` as JSON."""
    from crawlmill.core.commands.cli import main

    _counter_urandom()
    result = {}
    for i, f in enumerate(files):
        out = Path(work) / str(i)
        opts = ["--option", "gzip_backend=zlib"] if to == "warc" else []
        for o in options:
            opts += ["--option", o]
        args = [
            "convert", f, "--to", to, "-o", str(out), "--workers", "1", *opts,
            "--progress", "never",
        ]  # fmt: skip
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                code = main(args)
            except SystemExit as exc:  # argparse and friends
                code = exc.code
            except Exception as exc:  # noqa: BLE001 - compared like an exit code
                code = f"{type(exc).__name__}: {exc}"
        result[f] = {"code": code, "outputs": _digest_tree(out, to)}
    print(json.dumps(result))


def run(files: list[Path], before: str | None, to: str = "warc", options: tuple = ()) -> dict:
    """The child's result for ``files``, with this checkout or ``before``'s crawlmill."""
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")  # the conversion date is in the output
    if before is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [_before_path(before), env.get("PYTHONPATH")])
        )
    with tempfile.TemporaryDirectory(prefix="crawlmill-samples-") as work:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--to",
                to,
                *[a for o in options for a in ("--option", o)],
                "--child",
                work,
                *map(str, files),
            ],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    """Convert every sample with both checkouts; report and fail on any difference."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    here = Path(__file__).resolve().parent
    parser.add_argument("--samples", default=str(here.parent.parent / "shared" / "samples"))
    parser.add_argument("--before", metavar="CHECKOUT", required=False)
    parser.add_argument("--to", default="warc", help="output format (default warc)")
    parser.add_argument("--option", action="append", default=[], help="writer option K=V")
    parser.add_argument("--extra", action="append", default=[], help="another input file")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[1:], args.child[0], args.to, args.option)
        return
    root = Path(args.samples)
    files = samples(root)
    if args.to == "sequencefile":
        files = sequencefiles(root) + [f for f in files if ".warc" in f.name]
    files += [Path(f) for f in args.extra]
    after = run(files, None, args.to, tuple(args.option))
    base = run(files, args.before, args.to, tuple(args.option)) if args.before else after
    differ = [f for f in after if after[f] != base.get(f)]
    for f in differ:
        print(f"DIFFERS: {f}\n  before: {base.get(f)}\n  after:  {after[f]}")
    outputs = sum(len(r["outputs"]) for r in after.values())
    print(f"{len(files)} samples, {outputs} output files, {len(differ)} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
