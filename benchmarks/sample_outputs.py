"""Check that a change leaves every output byte alone: convert every ARC/WARC sample to WARC
with two checkouts and compare the outputs' SHA-256.

Every ``*.arc``, ``*.arc.gz``, ``*.warc``, ``*.warc.gz`` (and ``.wet``/``.wat``, zstd/LZ4
variants) under ``--samples`` (default ``../shared/samples``) is converted alone with
``crawlmill convert FILE --to warc -o OUT --option gzip_backend=zlib`` (zlib gives the same
bytes on every run; ISA-L may not; ``SOURCE_DATE_EPOCH`` fixes the conversion date), in-process through ``crawlmill.core.cli.main``, once with
this checkout and once with ``--before CHECKOUT`` (``git worktree add /tmp/base main``). It
prints the files whose outputs (sha256 of every file written, the exit code) differ and exits
1 when any does.

    python benchmarks/sample_outputs.py --before /tmp/base
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


def _digest_tree(root: Path) -> dict[str, str]:
    """sha256 of every WARC file written under ``root`` (reports and markers left out: they
    hold times and paths)."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".warc" in p.name:
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _child(files: list[str], work: str) -> None:
    """Convert each file (in this process) and print ``{file: {code, outputs}}`` as JSON."""
    from crawlmill.core.cli import main

    result = {}
    for i, f in enumerate(files):
        out = Path(work) / str(i)
        args = [
            "convert", f, "--to", "warc", "-o", str(out), "--workers", "1",
            "--option", "gzip_backend=zlib", "--progress", "never",
        ]  # fmt: skip
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                code = main(args)
            except SystemExit as exc:  # argparse and friends
                code = exc.code
            except Exception as exc:  # noqa: BLE001 - compared like an exit code
                code = f"{type(exc).__name__}: {exc}"
        result[f] = {"code": code, "outputs": _digest_tree(out)}
    print(json.dumps(result))


def run(files: list[Path], before: str | None) -> dict:
    """The child's result for ``files``, with this checkout or ``before``'s crawlmill."""
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")  # the conversion date is in the output
    if before is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [_before_path(before), env.get("PYTHONPATH")])
        )
    with tempfile.TemporaryDirectory(prefix="crawlmill-samples-") as work:
        out = subprocess.run(
            [sys.executable, __file__, "--child", work, *map(str, files)],
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
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[1:], args.child[0])
        return
    files = samples(Path(args.samples))
    after = run(files, None)
    base = run(files, args.before) if args.before else after
    differ = [f for f in after if after[f] != base.get(f)]
    for f in differ:
        print(f"DIFFERS: {f}\n  before: {base.get(f)}\n  after:  {after[f]}")
    outputs = sum(len(r["outputs"]) for r in after.values())
    print(f"{len(files)} samples, {outputs} output files, {len(differ)} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
