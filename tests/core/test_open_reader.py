"""``open_reader``: one line to read a file, with its damage, warnings and checks collected."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from crawlmill.core import (
    Check,
    ConfigError,
    Damage,
    FormatError,
    InputFile,
    Limits,
    PluginError,
    ReadContext,
    Reader,
    ReadWarning,
    Record,
    RecordIterator,
    open_reader,
)
from crawlmill.core.commands.cli import main
from crawlmill.plugins.readers.arc import ArcReader
from crawlmill.plugins.readers.warc import WarcReader

from tests.conftest import SAMPLES
from tests.helpers import warc_record

WARC = SAMPLES / "webrecorder-warcio/test/data/example.warc.gz"
ARC = SAMPLES / "webrecorder-warcio/test/data/example.arc.gz"


def fields(record: Record) -> tuple:
    return (record.kind, record.url, record.date_raw, record.http_head, record.payload)


def hand_read(reader: Reader, path: Path) -> list[Record]:
    damage: list[Damage] = []
    records = list(reader.read(ReadContext(InputFile(str(path), path.name), damage.append)))
    assert damage == []
    return records


@pytest.mark.parametrize(("path", "reader"), [(WARC, WarcReader()), (ARC, ArcReader())])
def test_detects_the_reader_and_yields_what_the_reader_yields(path, reader):
    with open_reader(path) as records:
        got = list(records)
    assert records.reader_name == reader.name
    assert records.count == len(got) > 0
    assert got == hand_read(reader, path)
    assert records.damages == [] and records.warnings == [] and records.ok


def test_records_equal_the_engines_conversion(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["convert", str(WARC), "-o", str(out), "--workers", "1"]) == 0, capsys.readouterr()
    (converted,) = [p for p in out.rglob("*.warc*") if ".crawlmill" not in p.parts]
    with open_reader(converted, "warc") as written:
        written_fields = [fields(r) for r in written]  # WARC -> WARC adds no warcinfo
    with open_reader(WARC) as read:
        assert [fields(r) for r in read] == written_fields
    assert written.ok and read.ok and read.count == written.count == 6


def test_damage_is_collected_with_file_and_offset_and_the_records_around_it(tmp_path):
    path = tmp_path / "damaged.warc"
    garbage = b"this is not a WARC record at all\r\n" * 3
    path.write_bytes(warc_record(0) + garbage + warc_record(1))
    seen: list[Damage] = []
    with open_reader(str(path), on_damage=seen.append) as records:
        urls = [r.url for r in records]
    assert urls == ["http://example.com/0", "http://example.com/1"]
    assert records.damages == seen and len(seen) == 1
    (damage,) = seen
    assert damage.path == str(path)
    assert damage.offset == len(warc_record(0))
    assert damage.length == len(garbage) and damage.data == garbage
    assert not records.ok


def test_a_record_cut_by_the_end_is_delivered_and_damage(tmp_path):
    path = tmp_path / "cut.warc.gz"
    whole = warc_record(0)
    path.write_bytes(gzip.compress(whole) + gzip.compress(warc_record(1)[:-20]))
    with open_reader(path, "warc") as records:
        got = list(records)
    assert [r.url for r in got] == ["http://example.com/0", "http://example.com/1"]
    assert [d.offset for d in records.damages] == [len(gzip.compress(whole))]


def test_unknown_reader_name_is_a_clear_error(tmp_path):
    with pytest.raises(PluginError, match=r"unknown reader 'wrac'; did you mean 'warc'\?"):
        open_reader(WARC, "wrac")


def test_options_are_validated_against_the_readers_model():
    with pytest.raises(ConfigError) as err:
        open_reader(WARC, "warc", strict="maybe", colour=1)
    problems = dict(err.value.problems)
    assert problems["reader warc.colour"].startswith("unknown option 'colour'")
    assert "boolean" in problems["reader warc.strict"]
    records = open_reader(WARC, "warc", strict=True)
    assert records.reader.options.strict is True


def test_a_file_no_reader_claims_and_a_missing_file(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\n")
    with pytest.raises(FormatError, match="no reader claims it .*name one with reader=") as err:
        open_reader(text)
    assert err.value.path == str(text)
    with pytest.raises(FileNotFoundError, match="no such file"):
        open_reader(tmp_path / "absent.warc")
    with pytest.raises(IsADirectoryError, match="is a folder: open_reader reads one file"):
        open_reader(tmp_path, "warc")


def test_limits_reach_the_reader():
    with open_reader(ARC, limits=Limits(max_record_bytes=100)) as records:
        got = list(records)
    assert records.damages and all("limit" in d.reason for d in records.damages)
    assert len(got) < len(hand_read(ArcReader(), ARC))


class Noisy(Reader):
    """Two records, with a warning, a damage and two checks between them (a test reader)."""

    name = "noisy"

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        self.closed = False
        try:
            yield Record(kind="resource", url="http://a/", payload=b"a")
            ctx.report_warning("noisy-quirk", "a repaired quirk", 7)
            ctx.report_damage(Damage(ctx.path, 9, "bad bytes", 3, b"xyz", "noisy-bytes"))
            ctx.report_check(Check(ctx.path, "md5", True))
            ctx.report_check(Check(ctx.path, "record count", False, "2 listed, 3 found"))
            yield Record(kind="resource", url="http://b/", payload=b"b")
        finally:
            self.closed = True


@pytest.mark.own_codes
def test_a_reader_class_reports_typed_warnings_checks_and_damage_in_order(tmp_path):
    path = tmp_path / "x.noisy"
    path.write_bytes(b"")
    events: list = []
    records = open_reader(
        InputFile(str(path), "sub/x.noisy"),
        Noisy,
        on_damage=events.append,
        on_warning=events.append,
        on_check=events.append,
    )
    assert isinstance(records, RecordIterator) and records.context.input.relpath == "sub/x.noisy"
    for record in records:
        events.append(record.url)
    assert events == [
        "http://a/",
        ReadWarning(str(path), 7, "a repaired quirk", "noisy-quirk"),
        Damage(str(path), 9, "bad bytes", 3, b"xyz", "noisy-bytes"),
        Check(str(path), "md5", True),
        Check(str(path), "record count", False, "2 listed, 3 found"),
        "http://b/",
    ]
    assert records.warnings == [ReadWarning(str(path), 7, "a repaired quirk", "noisy-quirk")]
    assert str(records.warnings[0]) == f"{path} at byte 7: a repaired quirk"
    assert [c.check for c in records.failed_checks] == ["record count"]
    assert len(records.checks) == 2 and not records.ok


def test_leaving_the_with_block_early_closes_the_reader(tmp_path):
    path = tmp_path / "x.noisy"
    path.write_bytes(b"")
    with open_reader(path, Noisy) as records:
        assert next(records).url == "http://a/"
        assert records.reader.closed is False
    assert records.reader.closed is True
    assert list(records) == []  # closed: nothing more


def test_inspect_prints_damage_and_warnings_where_the_reader_reports_them(capsys):
    """``crawlmill inspect`` reads through open_reader; its output keeps the reader's order:
    what is reported before the record after the last shown one is printed too."""
    bad = SAMPLES / "webrecorder-warcio/test/data/bad.arc"
    assert main(["inspect", str(bad), "--records", "1"]) == 3
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line and not line.startswith("  ")]
    assert lines[-4:] == [
        "#1",
        f"DAMAGE {bad} at byte 0: record b'filedesc://bad.arc.gz' has an invalid "
        "Archive-length b'-1'; delivered the 72 bytes up to the next record [invalid-length]",
        "warning at byte 134: Archive-date has 18 digits; read the first 14 [date-cut]",
        "1 record(s) shown, 1 damaged range(s) seen",
    ]
