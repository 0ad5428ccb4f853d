"""Small builders shared by several test files (fixtures live in tests/conftest.py).

The CLI harness: :func:`cli` runs any ``crawlmill`` command in this process and returns a
:class:`CliResult` (exit code, stdout, stderr, the output's ``report.json``); :func:`convert`
builds a ``convert`` command line on it. Tests that need the installed script itself (a real
process, signals, ``PATH``) keep using ``subprocess``."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

#: the fake plugin distributions the core tests load through entry points.
FAKE_DIR = Path(__file__).resolve().parent / "core" / "fake_plugins"


def gz(data: bytes, level: int = 6) -> bytes:
    """``data`` as one gzip member."""
    c = zlib.compressobj(level, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


def put_fake_plugins_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the fake plugins importable here and in subprocesses, with no plugin env filters."""
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKE_DIR), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def warc_record(i: int) -> bytes:
    """An uncompressed WARC/1.0 resource record numbered ``i`` (text ``record number i``)."""
    body = f"record number {i}\n".encode()
    head = (
        "WARC/1.0\r\nWARC-Type: resource\r\n"
        f"WARC-Target-URI: http://example.com/{i}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return head + body + b"\r\n\r\n"


#: files the suite-wide record-id check reads (bigger ones are skipped to keep the suite fast).
ID_CHECK_MAX_BYTES = 64 << 20


def record_ids(path: Path) -> list[str] | None:
    """The ``WARC-Record-ID`` of every record of ``path`` in file order (FastWARC reads it, an
    independent reader), or ``None`` when FastWARC is missing or the file is not one
    crawlmill built: its first record is not crawlmill's warcinfo (``software: crawlmill/``),
    so its ids are the input's (a WARC -> WARC copy) or the test's own (an input). Reading
    stops at bytes FastWARC refuses (a damaged input a test wrote)."""
    try:
        from fastwarc.warc import ArchiveIterator, WarcRecordType
    except ImportError:
        return None
    ids: list[str] = []
    with open(path, "rb") as fh:
        try:
            for n, rec in enumerate(ArchiveIterator(fh, parse_http=False)):
                if n == 0:
                    if rec.record_type != WarcRecordType.warcinfo:
                        return None
                    if b"software: crawlmill/" not in rec.reader.read(4096):
                        return None
                ids.append(rec.headers.get("WARC-Record-ID") or "")
        except OSError:  # a test's own damaged file (or one a test cut): the ids read so far
            pass
    return ids or None


def assert_unique_record_ids(path: Path) -> int:
    """Fail when a WARC file crawlmill built holds two records with the same (or no)
    ``WARC-Record-ID`` (WARC 1.1 section 5.2: "globally unique"); returns the records checked."""
    ids = record_ids(path)
    if not ids:
        return 0
    seen: dict[str, int] = {}
    for n, rid in enumerate(ids):
        assert rid, f"{path}: record {n} has no WARC-Record-ID"
        assert rid not in seen, f"{path}: records {seen[rid]} and {n} share WARC-Record-ID {rid}"
        seen[rid] = n
    return len(ids)


WARC_SUFFIXES = (".warc", ".warc.gz")


def assert_unique_ids_under(root: Path) -> int:
    """:func:`assert_unique_record_ids` on every ``*.warc``/``*.warc.gz`` file below ``root``
    (at most :data:`ID_CHECK_MAX_BYTES` each); returns the files checked."""
    checked = 0
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            if not name.endswith(WARC_SUFFIXES):
                continue
            path = Path(dirpath, name)
            try:
                if path.stat().st_size > ID_CHECK_MAX_BYTES:
                    continue
            except OSError:
                continue
            if assert_unique_record_ids(path):
                checked += 1
    return checked


@dataclass(frozen=True)
class CliResult:
    """What one in-process ``crawlmill`` command did: its exit code, the text it wrote to
    stdout and stderr, and the ``.crawlmill/report.json`` of the output folder it named
    (``-o``), read right after the run (``None`` when there is none). It unpacks as
    ``code, out, err = cli(...)``."""

    exit_code: int
    stdout: str
    stderr: str
    report: dict | None = None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.exit_code, self.stdout, self.stderr))


def _output_of(argv: Sequence[str]) -> Path | None:
    """The folder ``-o``/``--output`` names in ``argv`` (the last one), or ``None``."""
    out = None
    for i, word in enumerate(argv):
        if word in ("-o", "--output") and i + 1 < len(argv):
            out = argv[i + 1]
        elif word.startswith("--output="):
            out = word.split("=", 1)[1]
    return None if out is None else Path(out)


def cli(*args: object, cwd: Path | str | None = None, out: Path | None = None) -> CliResult:
    """``crawlmill ARGS...`` run in this process (``crawlmill.core.commands.cli.main``) with its stdout
    and stderr captured (not a terminal, so no progress line) and then echoed to this
    process's own streams (so ``capsys`` sees them too), in ``cwd`` when given. An
    argparse exit (``SystemExit``) becomes the exit code, as the script's would. ``out``: the
    output folder whose report to read when ``args`` name none (``run PIPELINE``)."""
    from crawlmill.core.commands.cli import main

    argv = [str(a) for a in args]
    stdout, stderr = io.StringIO(), io.StringIO()
    before = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        folder = _output_of(argv) if out is None else Path(out)
        report_path = None if folder is None else folder / ".crawlmill" / "report.json"
        report = None
        if report_path is not None and report_path.is_file():
            report = json.loads(report_path.read_text(encoding="utf-8"))
    finally:
        os.chdir(before)
        # echoed, so pytest shows it on a failure and ``capsys`` still sees it
        sys.stdout.write(stdout.getvalue())
        sys.stderr.write(stderr.getvalue())
    return CliResult(code, stdout.getvalue(), stderr.getvalue(), report)


def convert(
    inputs: Path | str | Sequence[Path | str],
    to: str | None,
    out: Path | str,
    *options: object,
    option: Sequence[str] = (),
    workers: int | None = None,
    progress: str | None = "never",
    cwd: Path | str | None = None,
) -> CliResult:
    """``crawlmill convert INPUTS [--to TO] -o OUT [--workers N] [--progress P] OPTIONS...``
    through :func:`cli`, with ``--option O`` for each of ``option``. ``to=None`` leaves the
    writer to the command's default; ``workers`` and ``progress`` (``None``: not given) come
    before ``options``, so an option there wins."""
    sources = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    argv: list[object] = ["convert", *sources]
    if to is not None:
        argv += ["--to", to]
    argv += ["-o", out]
    if workers is not None:
        argv += ["--workers", workers]
    if progress is not None:
        argv += ["--progress", progress]
    for o in option:
        argv += ["--option", o]
    return cli(*argv, *options, cwd=cwd)


def cli_process(*args: object, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """:func:`cli` with its result as a finished ``subprocess`` would give it (``returncode``,
    ``stdout``, ``stderr``): for tests written against the script that are about what a
    command does, not about the process."""
    done = cli(*args, cwd=cwd)
    return subprocess.CompletedProcess(
        [str(a) for a in args], done.exit_code, done.stdout, done.stderr
    )


def warcio_check(*args: object) -> subprocess.CompletedProcess:
    """``warcio check ARGS...`` run in this process through warcio's own command-line entry
    (``warcio.cli:main``, what the ``warcio`` script calls; callers still ask for the script
    with ``need_command("warcio")``, the oracle rule), as a finished process: no Python start
    per check."""
    from warcio.cli import main

    argv = ["check", *map(str, args)]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            main(argv)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess(argv, code, stdout.getvalue(), stderr.getvalue())


def run_convert(src: Path, out: Path, *args: str) -> int:
    """``crawlmill convert SRC -o OUT ARGS...`` run in this process, with no progress line;
    its exit code."""
    return convert(src, None, out, *args).exit_code
