"""Collections (core/collection.py): units made of named parts and the expectations the engine
verifies, through the CLI with a MapFile-like reader (tests/core/fake_plugins/cm_mapfile.py)
and at the mechanism."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from crawlmill.core import Expectation, InputFile, Record, RecordKind, open_reader
from crawlmill.core.collection import Check, Verifier, presence_checks, unit_parts, unit_size
from crawlmill.core.commands.cli import main
from crawlmill.core.record import Provenance
from crawlmill.core.registry import Registry

from tests.conftest import need
from tests.helpers import convert, put_fake_plugins_on_path


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def _unit(root: Path, name: str, rows: list[tuple[str, str]], index: bool = True) -> str:
    folder = root / name
    folder.mkdir(parents=True)
    data = b""
    lines = []
    for n, (url, payload) in enumerate(rows):
        if n % 2 == 0:
            lines.append(f"{url}\t{len(data)}\n")
        data += f"{url}\t{payload}\n".encode()
    (folder / "data").write_bytes(data)
    if index:
        (folder / "index").write_text("".join(lines))
    return hashlib.md5(data).hexdigest()


def _rows(unit: str, n: int) -> list[tuple[str, str]]:
    return [(f"http://example.org/{unit}/{i}", f"payload {unit} {i}") for i in range(n)]


@pytest.fixture
def mapdir(tmp_path):
    """Four units: good, index missing, one record short of the manifest, md5 wrong; and a
    fifth the manifest lists that is not there at all."""
    root = tmp_path / "maps"
    good = _unit(root, "part-00000", _rows("a", 3))
    no_index = _unit(root, "part-00001", _rows("b", 2), index=False)
    short = _unit(root, "part-00002", _rows("c", 2))
    _unit(root, "part-00003", _rows("d", 2))
    (root / "MANIFEST").write_text(
        f"part-00000 3 {good}\n"
        f"part-00001 2 {no_index}\n"
        f"part-00002 3 {short}\n"
        f"part-00003 2 {'0' * 32}\n"
        f"part-00004 1 {'1' * 32}\n"
    )
    return root


def _convert(root: Path, out: Path) -> tuple[int, dict, str]:
    result = convert(root, "warc", out, "--plugin", "cm_mapfile", workers=1, progress=None)
    return result.exit_code, result.report, result.stderr


def test_multi_part_units_convert_and_their_checks_are_reported_beside_the_accounting(
    mapdir, tmp_path, capsys
):
    warcio = need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    out = tmp_path / "out"
    code, report, err = _convert(mapdir, out)
    assert code == 3, err
    failed = sorted(
        (Path(c["path"]).relative_to(mapdir).as_posix(), c["check"], c["reason"])
        for c in report["checks_failed"]
    )
    assert failed == [
        ("part-00001/index", "present", f"part 'index' of {mapdir / 'part-00001'} is missing"),
        (
            "part-00002/data",
            "record count",
            "record count mismatch: MANIFEST lists 3 records, part 'data' has 2",
        ),
        (
            "part-00003/data",
            "md5",
            f"md5 mismatch: MANIFEST lists {'0' * 32}, the file's bytes have "
            + hashlib.md5((mapdir / "part-00003/data").read_bytes()).hexdigest(),
        ),
        ("part-00004/data", "present", f"part 'data' of {mapdir / 'part-00004'} is missing"),
        ("part-00004/index", "present", f"part 'index' of {mapdir / 'part-00004'} is missing"),
    ]
    # part-00000: count + md5; part-00002: md5; part-00003: count
    assert report["checks_passed"] == 4
    # checks are not records: nothing damaged or quarantined, the accounting holds
    assert report["damages"] == [] and report["quarantined"] == 0
    assert report["read"] == 3 + 2 + 2
    assert report["written"] == report["read"] + report["added"]  # + a warcinfo per file
    assert "checks: 4 passed, 5 failed" in err
    assert f"crawlmill: {mapdir / 'part-00001/index'}: present check failed" in err
    # the units whose parts are there convert, named after the unit
    assert [(e["input"], e["outputs"]) for e in report["input_outputs"]] == [
        ("part-00000", ["part-00000.warc.gz"]),
        ("part-00002", ["part-00002.warc.gz"]),
        ("part-00003", ["part-00003.warc.gz"]),
    ]
    with open(out / "part-00000.warc.gz", "rb") as fh:
        urls = [
            r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(fh)
            if r.rec_type == "resource"
        ]
    assert urls == [url for url, _ in _rows("a", 3)]
    assert warcio is not None

    # a rerun resumes every converted unit and reports the same checks again
    code, again, _ = _convert(mapdir, out)
    assert code == 3
    assert again["inputs_skipped"] == 3
    assert again["checks_failed"] == report["checks_failed"]
    assert again["checks_passed"] == 4
    # a unit's size is its parts': one part grown, that unit is redone (and now fails)
    with open(mapdir / "part-00000/data", "ab") as fh:
        fh.write(b"http://example.org/a/new\tlate\n")
    code, third, _ = _convert(mapdir, out)
    assert code == 3 and third["inputs_skipped"] == 2
    assert sorted(c["check"] for c in third["checks_failed"] if "part-00000" in c["path"]) == [
        "md5",
        "record count",
    ]


def test_a_unit_whose_parts_are_all_there_and_true_exits_0(tmp_path, capsys):
    root = tmp_path / "maps"
    md5 = _unit(root, "part-00000", _rows("a", 2))
    (root / "MANIFEST").write_text(f"part-00000 2 {md5}\n")
    code, report, err = _convert(root, tmp_path / "out")
    assert code == 0, err
    assert report["checks_passed"] == 2 and report["checks_failed"] == []
    assert "checks: 2 passed, 0 failed" in err


def test_open_reader_reads_a_unit_and_verifies_its_expectations(mapdir):
    registry = Registry.load(["cm_mapfile"])
    reader = registry.reader("fake-mapdir")
    units = {u.relpath: u for u in reader.discover(str(mapdir), reader.Options())}
    assert units["part-00002"].parts == {
        "data": str(mapdir / "part-00002/data"),
        "index": str(mapdir / "part-00002/index"),
    }
    with open_reader(units["part-00002"], "fake-mapdir", registry=registry) as records:
        assert [r.url for r in records] == [url for url, _ in _rows("c", 2)]
    assert [(c.check, c.ok) for c in records.checks] == [("record count", False), ("md5", True)]


# -- the mechanism ---------------------------------------------------------------------------


def test_expectations_survive_the_trip_to_a_worker():
    unit = InputFile(
        "/c/u",
        "u",
        3,
        {"x": 1},
        "u",
        parts={"data": "/c/u/data", "index": "/c/u/index"},
        expect=(
            Expectation.md5("AB" * 16, part="data", source="MANIFEST"),
            Expectation.records(5, exclude=(RecordKind.WARCINFO,)),
            Expectation.present("index"),
        ),
    )
    assert InputFile.from_dict(json.loads(json.dumps(unit.to_dict()))) == unit
    assert unit.expect[0].value == "ab" * 16  # hex digests compare in lower case
    assert unit.expect[1].exclude == ("warcinfo",)
    # a single-file unit is the trivial unit: its one part is the file
    single = InputFile("/c/x.warc.gz", "x.warc.gz")
    assert InputFile.from_dict(single.to_dict()) == single
    assert unit_parts(single) == {"": "/c/x.warc.gz"}
    with pytest.raises(ValueError, match="unknown expectation kind"):
        Expectation("size")
    with pytest.raises(KeyError, match="has no part 'text'"):
        unit.part("text")


def test_presence_checks(tmp_path):
    (tmp_path / "data").write_bytes(b"x" * 7)
    unit = InputFile(
        str(tmp_path),
        "u",
        parts={"data": str(tmp_path / "data"), "index": str(tmp_path / "index")},
        expect=(Expectation.present("data", source="LIST"),),
    )
    checks, readable = presence_checks(unit)
    assert not readable
    assert checks == [
        Check(str(tmp_path / "data"), "present", True),
        Check(str(tmp_path / "index"), "present", False, f"part 'index' of {tmp_path} is missing"),
    ]
    assert unit_size(unit) == 7
    listed = InputFile(
        str(tmp_path / "gone.warc.gz"), "gone.warc.gz", expect=(Expectation.present(source="L"),)
    )
    assert presence_checks(listed) == (
        [
            Check(
                str(tmp_path / "gone.warc.gz"),
                "present",
                False,
                "listed in L but missing from the collection",
            )
        ],
        False,
    )
    # a single file that exists and no expectation: nothing to report, readable
    assert presence_checks(InputFile(str(tmp_path / "data"), "data")) == ([], True)


def _record(kind: RecordKind, path: str) -> Record:
    return Record(kind=kind, url="http://x/", source=Provenance(path, 0, 1, "t"))


def test_verifier_counts_per_part_and_leaves_out_kinds(tmp_path):
    data, text = tmp_path / "data", tmp_path / "text"
    data.write_bytes(b"abc")
    text.write_bytes(b"")
    unit = InputFile(
        str(tmp_path),
        "u",
        parts={"data": str(data), "text": str(text)},
        expect=(
            Expectation.records(2, part="data", exclude=("warcinfo",)),
            Expectation.records(1, part="text", source="T"),
            Expectation.records(4),
            Expectation.md5(hashlib.md5(b"abc").hexdigest(), part="data"),
            Expectation.md5("0" * 32, part="text"),
        ),
    )
    verifier = Verifier(unit)
    for kind, path in [
        (RecordKind.WARCINFO, data),
        (RecordKind.RESOURCE, data),
        (RecordKind.RESOURCE, data),
        (RecordKind.METADATA, text),
        (RecordKind.METADATA, text),
    ]:
        verifier.saw(_record(kind, str(path)))
    checks = verifier.finish()
    assert [(Path(c.path).name, c.check, c.ok) for c in checks] == [
        ("data", "record count", True),
        ("text", "record count", False),
        (tmp_path.name, "record count", False),
        ("data", "md5", True),
        ("text", "md5", False),
    ]
    assert checks[1].reason == "record count mismatch: T lists 1 records, part 'text' has 2"
    assert checks[2].reason == "record count mismatch: expected 4 records, the unit has 5"
    assert checks[4].reason.startswith(f"md5 mismatch: expected {'0' * 32}, the file's bytes")


def test_an_expectation_about_a_part_the_unit_lacks_is_a_reader_bug():
    unit = InputFile("/c/u", "u", parts={"data": "/c/u/data"}, expect=(Expectation.md5("0", "x"),))
    with pytest.raises(ValueError, match="names part 'x', which the unit does not have"):
        Verifier(unit)


def test_on_error_fail_stops_at_a_missing_part_before_any_unit_is_read(mapdir, tmp_path, capsys):
    out = tmp_path / "out"
    argv = ["convert", str(mapdir), "--to", "warc", "-o", str(out), "--plugin", "cm_mapfile"]
    code = main([*argv, "--workers", "1", "--on-error", "fail"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert (
        f"stopped at a damaged record (on_error: fail): {mapdir / 'part-00001/index'} at byte 0: "
        "present check failed" in err
    )
    assert not list(out.glob("*.warc.gz"))


def test_a_collection_whose_units_are_all_missing_says_why_nothing_converts(tmp_path, capsys):
    root = tmp_path / "maps"
    root.mkdir()
    (root / "MANIFEST").write_text(f"part-00000 2 {'0' * 32}\n")
    argv = ["convert", str(root), "--to", "warc", "-o", str(tmp_path / "out")]
    code = main([*argv, "--plugin", "cm_mapfile"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"nothing to convert: every unit of the collection in {root} misses a part" in err
    assert f"{root / 'part-00000' / 'data'}: present check failed: part 'data' of" in err


def test_a_unit_spread_over_folders_is_named_by_a_path_that_need_not_exist(mapdir):
    """As a Nutch segment part: ``<segment>/part-00000`` names the unit, its parts live in
    other folders."""
    registry = Registry.load(["cm_mapfile"])
    unit = InputFile(
        str(mapdir / "segment" / "part-00000"),
        "segment/part-00000",
        parts={"data": str(mapdir / "part-00000/data"), "index": str(mapdir / "part-00000/index")},
        expect=(Expectation.records(3, part="data"),),
    )
    assert presence_checks(unit) == ([], True)
    with open_reader(unit, "fake-mapdir", registry=registry) as records:
        assert len(list(records)) == 3
    assert [(c.check, c.ok) for c in records.checks] == [("record count", True)]


def test_ctx_reader_hands_out_registered_readers_only(tmp_path):
    from crawlmill.core import PluginError, ReadContext

    registry = Registry.load(["cm_mapfile", "cm_urllist"], entry_points=False)
    ctx = ReadContext(
        input=InputFile(str(tmp_path / "x"), "x"),
        report_damage=lambda damage: None,
        find_reader=lambda name: registry.get("reader", name, suggest=False),
    )
    assert type(ctx.reader("urllist")).__name__ == "UrlListReader"
    with pytest.raises(PluginError) as missing:
        ctx.reader("warc")
    assert str(missing.value) == (
        "this input needs the reader 'warc': unknown reader 'warc'; "
        "known readers: fake-mapdir, urllist"
    )
    # a context built without a registry says so
    bare = ReadContext(input=InputFile("x", "x"), report_damage=lambda damage: None)
    with pytest.raises(PluginError, match="no plugin registry"):
        bare.reader("warc")
