"""End to end through the installed ``crawlmill`` command: the README's commands, WARC -> WARC
byte identity, and what the run report says."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import cli_process, warcio_check

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_commands() -> list[str]:
    """The two shell commands README.md opens with."""
    blocks = re.findall(r"```sh\n(.*?)\n```", README, flags=re.S)
    return [b.strip() for b in blocks[:2]]


def crawlmill(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``crawlmill ARGS...`` in ``cwd``, run in this process (the suite's CLI harness)."""
    return cli_process(*args, cwd=cwd)


def test_ci_runs_the_readme_test_command() -> None:
    install, test = readme_commands()
    assert install.startswith("pip install . && crawlmill convert fixtures/legacy")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()
    assert "CRAWLMILL_REQUIRE_ORACLES=1" in ci


def test_readme_main_job_converts_the_legacy_collection(tmp_path: Path, need, need_command) -> None:
    """The README's first command (its convert part) gives WARCs that warcio, FastWARC and
    `warcio check` accept, one per legacy input, with every record accounted for."""
    warcio_ai = need("warcio.archiveiterator")
    fastwarc = need("fastwarc")
    convert = readme_commands()[0].split("&&", 1)[1].split()
    out = tmp_path / "out"
    result = crawlmill(*convert[1:-1], str(out))
    assert result.returncode == 0, result.stderr
    # the ARC's WARC gets crawlmill's warcinfo: written counts it (read + added = written)
    m = re.search(
        r"read (\d+) \+ added (\d+) by the writer = written (\d+) \+ dropped 0 \+ quarantined 0",
        result.stderr,
    )
    assert m and int(m[1]) + int(m[2]) == int(m[3]), result.stderr
    in_files = 0
    legacy = sorted(p.name for p in (ROOT / "fixtures" / "legacy").iterdir())
    warcs = sorted(p.name for p in out.glob("*.warc.gz"))
    assert len(warcs) == len(legacy) == 2
    for warc in out.glob("*.warc.gz"):
        with open(warc, "rb") as fh:
            ours = [
                (r.rec_type, r.rec_headers.get_header("WARC-Target-URI"))
                for r in warcio_ai.ArchiveIterator(fh)
            ]
        with open(warc, "rb") as fh:
            fast = [
                (str(r.record_type), r.headers.get("WARC-Target-URI"))
                for r in fastwarc.ArchiveIterator(fh, parse_http=False)
            ]
        assert len(ours) == len(fast) >= 2
        in_files += len(ours)
        need_command("warcio")
        check = warcio_check(warc)
        assert check.returncode == 0, check.stdout + check.stderr
    assert in_files == int(m[3])  # written is the number of records in the files
    # the ARC became a WARC with a crawlmill warcinfo and the filedesc kept as metadata
    with open(out / "example-2008.warc.gz", "rb") as fh:
        types = [r.rec_type for r in warcio_ai.ArchiveIterator(fh)]
    assert types[:2] == ["warcinfo", "metadata"] and types.count("response") == 4


@pytest.mark.parametrize(
    "sample",
    [
        "webrecorder-pywb/sample_archive/warcs/iana.warc.gz",
        "webrecorder-warcio/test/data/example.warc.gz",
        "iipc-warc-specifications/specifications/warc-deduplication/samples/20141129-heritrix-original.warc.gz",
    ],
)
def test_convert_warc_to_warc_is_byte_identical(samples: Path, sample: str, tmp_path: Path) -> None:
    src = samples / sample
    out = tmp_path / "out"
    result = crawlmill("convert", str(src), "--to", "warc", "-o", str(out))
    assert result.returncode == 0, result.stderr
    (written,) = out.glob("*.warc.gz")
    with gzip.open(written) as ours, gzip.open(src) as theirs:
        assert ours.read() == theirs.read()
    # one gzip member per record in, so every member is copied: the same file, byte for byte
    assert written.read_bytes() == src.read_bytes()


def test_writer_repairs_reach_the_run_report(samples: Path, tmp_path: Path) -> None:
    """ClueWeb09 -> WARC 1.1: the reader's quirks and the writer's repairs are both counted."""
    src = samples / "sqs-freequery/test/dumps/ClueWeb09_English_Sample"
    out = tmp_path / "out"
    result = crawlmill(
        "convert", str(src), "--to", "warc", "--option", "version=1.1", "-o", str(out)
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["read"] == report["written"] == 101
    warnings = report["warnings"]  # counted per code: the reader's quirk, the writer's repair
    assert warnings["bare-record-id"] == warnings["record-id-wrapped"] == 101, warnings
    # ClueWeb09's day-of-year dates: read as the date they mean, written valid (issue 19)
    assert warnings["date-derived"] == warnings["date-replaced"] == 101, warnings


def test_readme_config_example_is_valid(tmp_path: Path) -> None:
    """The pipeline shown in README.md validates against the installed plugins."""
    (example,) = re.findall(r"```yaml\n(.*?)\n```", README, flags=re.S)
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "a.arc.gz").write_bytes((ROOT / "fixtures/legacy/example-2008.arc.gz").read_bytes())
    config = tmp_path / "pipeline.yaml"
    config.write_text(example, encoding="utf-8")
    result = crawlmill("validate", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "a.arc.gz" in result.stdout


def test_readme_plugin_example_registers(tmp_path: Path) -> None:
    """The plugin module shown in README.md loads and registers its filter."""
    blocks = re.findall(r"```python\n(.*?)\n```", README, flags=re.S)
    (module,) = [b for b in blocks if "hookimpl" in b]
    (tmp_path / "readme_plugin.py").write_text(module, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        from crawlmill.core.registry import Registry

        registry = Registry.load(["readme_plugin"], entry_points=False)
        cls = registry.filter("long-pages")
        from crawlmill.core import Drop, Record, RecordKind

        f = cls(cls.Options(min_bytes=3))
        assert f.apply(Record(kind=RecordKind.RESPONSE, payload=b"ab")) == Drop("short")
        assert isinstance(f.apply(Record(kind=RecordKind.RESPONSE, payload=b"abc")), Record)
    finally:
        sys.path.remove(str(tmp_path))


def test_files_no_reader_claims_are_reported_not_silently_dropped(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "a.arc.gz").write_bytes((ROOT / "fixtures/legacy/example-2008.arc.gz").read_bytes())
    (crawl / "NOTES.txt").write_text("how this crawl was made\n")
    out = tmp_path / "out"
    result = crawlmill("convert", str(crawl), "--to", "warc", "-o", str(out))
    assert result.returncode == 3, result.stderr  # a file left unconverted: named, exit 3
    assert f"crawlmill: not converted: {crawl / 'NOTES.txt'}: format not detected" in result.stderr
    assert "1 input(s) not converted" in result.stderr
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["inputs"] == 1
    assert [n["path"] for n in report["not_converted"]] == [str(crawl / "NOTES.txt")]
