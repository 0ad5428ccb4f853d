"""The clueweb09 collection reader (plugins/readers/clueweb09.py): discovery in collection
order, md5 and record-count checks, missing and unlisted files."""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import uuid
from pathlib import Path

import pytest
from crawlmill.core import Expectation, open_reader
from crawlmill.core.collection import presence_checks
from crawlmill.core.plugin import InputFile
from crawlmill.core.record import RecordKind
from crawlmill.core.registry import Registry
from crawlmill.formats.clueweb09 import collection as cw
from crawlmill.plugins.readers import clueweb09 as plugin
from crawlmill.plugins.readers.clueweb09 import ClueWeb09Reader, scan_collection

# -- building a ClueWeb09-style collection by hand (WARC/0.18, ClueWeb09 framing) ------------


def _warcinfo(info_id: str) -> bytes:
    fields = (
        b"software: Nutch 1.0-dev (modified for clueweb09)\n"
        b"isPartOf: clueweb09-en\n"
        b"description: clueweb09 crawl with WARC output\n"
        b"format: WARC file version 0.18\n"
        b"conformsTo: http://www.archive.org/documents/WarcFileFormat-0.18.html\n"
    )
    block = fields + b"\n"  # the ClueWeb09 Content-Length counts the trailing blank line(s)
    return (
        b"WARC/0.18\nWARC-Type: warcinfo\nWARC-Date: 2009-04-119T12:48:17-0400\n"
        b"WARC-Record-ID: " + info_id.encode() + b"\nContent-Type: application/warc-fields\n"
        b"Content-Length: " + str(len(block) + 1).encode() + b"\n\n" + block + b"\n"
    )


def _response(info_id: str, trec_id: str, url: str, body: bytes) -> bytes:
    http = (
        b"HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Length: "
        + str(len(body)).encode()
        + b"\n\n"
    )
    block = http + body + b"\n\n"  # Content-Length includes the trailing "\n\n"
    rid = uuid.uuid5(uuid.NAMESPACE_URL, trec_id)
    return (
        b"WARC/0.18\nWARC-Type: response\nWARC-Date: 2009-03-65T08:43:19-0800\n"
        b"WARC-Record-ID: <urn:uuid:" + str(rid).encode() + b">\n"
        b"WARC-Warcinfo-ID: " + info_id.encode() + b"\nWARC-TREC-ID: " + trec_id.encode() + b"\n"
        b"WARC-Target-URI: " + url.encode() + b"\nWARC-Identified-Payload-Type: \n"
        b"Content-Type: application/http;msgtype=response\n"
        b"Content-Length: " + str(len(block)).encode() + b"\n\n" + block
    )


def write_cw09_file(
    path: Path, directory: str, file_no: int, n_docs: int, *, per_record_gzip: bool = False
) -> list[tuple[str, str, bytes]]:
    """A ClueWeb09 WARC file with ``n_docs`` responses; returns (trec id, url, body) per doc."""
    info_id = str(uuid.uuid5(uuid.NAMESPACE_URL, str(path)))
    records = [_warcinfo(info_id)]
    docs = []
    for n in range(n_docs):
        tid = cw.trec_id(directory, file_no, n)
        url = f"http://example.org/{directory}/{file_no}/{n}?q=a b"
        body = f"<html><body>doc {tid}\r\nline two</body></html>".encode()
        records.append(_response(info_id, tid, url, body))
        docs.append((tid, url, body))
    path.parent.mkdir(parents=True, exist_ok=True)
    if per_record_gzip:
        path.write_bytes(b"".join(gzip.compress(r, mtime=0) for r in records))
    else:
        path.write_bytes(gzip.compress(b"".join(records), mtime=0))
    return docs


#: segment -> [(directory, file number, documents)]
TREE = {
    "ClueWeb09_English_1": [("en0000", 0, 3), ("en0000", 1, 2), ("en0001", 0, 4)],
    "ClueWeb09_English_2": [("en0002", 0, 1)],
    "ClueWeb09_English_10": [("en0010", 0, 2)],
    "ClueWeb09_Chinese_1": [("zh0000", 0, 2)],
}


def build_collection(root: Path) -> dict[str, list[tuple[str, str, bytes]]]:
    """Write TREE with correct md5 lists and record counts; returns docs per relpath."""
    docs = {}
    for segment, files in TREE.items():
        md5_rows, count_rows = [], []
        for directory, file_no, n in files:
            inner = f"{directory}/{cw.file_name(file_no)}"
            path = root / segment / inner
            docs[f"{segment}/{inner}"] = write_cw09_file(
                path, directory, file_no, n, per_record_gzip=file_no == 1
            )
            md5_rows.append((inner, hashlib.md5(path.read_bytes()).hexdigest()))
            count_rows.append((inner, n))
        (root / segment / cw.md5_file_name(segment)).write_bytes(cw.format_md5_list(md5_rows))
        (root / cw.counts_file_name(segment)).parent.mkdir(exist_ok=True)
        (root / cw.counts_file_name(segment)).write_bytes(cw.format_counts(count_rows))
    return docs


#: collection order: languages by name, segments by number (English_10 after English_2)
ORDER = [
    "ClueWeb09_Chinese_1/zh0000/00.warc.gz",
    "ClueWeb09_English_1/en0000/00.warc.gz",
    "ClueWeb09_English_1/en0000/01.warc.gz",
    "ClueWeb09_English_1/en0001/00.warc.gz",
    "ClueWeb09_English_2/en0002/00.warc.gz",
    "ClueWeb09_English_10/en0010/00.warc.gz",
]


class Run:
    """Reads every discovered input like the engine does and keeps what was reported."""

    def __init__(self, root: Path, **options) -> None:
        self.reader = ClueWeb09Reader(ClueWeb09Reader.Options(**options))
        self.inputs = ClueWeb09Reader.discover(str(root), self.reader.options)
        self.records = []
        self.damage = []
        self.checks = []  # collection checks (md5, record count, listed file present)
        self.warnings = []  # the collection reader's own warnings (they name the file)
        self.record_warnings = []  # the warc reader's (ClueWeb09 framing repaired, per record)

        def warn(offset, message):
            (self.warnings if str(root) in message else self.record_warnings).append(message)

        for item in self.inputs or []:
            present, readable = presence_checks(item)  # as the engine plans: missing: not read
            self.checks += present
            if not readable:
                continue
            with open_reader(
                item, ClueWeb09Reader, on_warning=lambda w: warn(w.offset, w.message), **options
            ) as it:
                self.records.extend((item.relpath, r) for r in it)
            self.damage += it.damages
            self.checks += it.checks

    @property
    def failed(self) -> list:
        return [c for c in self.checks if not c.ok]

    def failed_about(self, name: str) -> list[str]:
        return [c.reason for c in self.failed if c.path.endswith(name)]


@pytest.fixture
def collection(tmp_path):
    root = tmp_path / "cw09"
    docs = build_collection(root)
    return root, docs


def test_discover_lists_the_collection_in_order_with_expectations(collection):
    root, docs = collection
    inputs = ClueWeb09Reader.discover(str(root), ClueWeb09Reader.Options())
    assert [i.relpath for i in inputs] == ORDER
    assert [i.index for i in inputs] == list(range(len(ORDER)))
    for item in inputs:
        segment = item.relpath.split("/")[0]
        # single-file units: what the lists promise is an expectation the engine verifies
        assert item.parts == {}
        assert item.expect == (
            Expectation.md5(
                hashlib.md5(Path(item.path).read_bytes()).hexdigest(),
                source=f"{segment}/{cw.md5_file_name(segment)}",
            ),
            Expectation.records(
                len(docs[item.relpath]),
                source=f"record_counts/{segment}_counts.txt",
                exclude=plugin.NOT_COUNTED,
            ),
        )
        assert item.meta["problems"] == []


def test_reads_every_record_in_collection_order_without_complaint(collection):
    root, docs = collection
    run = Run(root)
    assert run.damage == [] and run.warnings == []
    got = [
        (rel, r.doc_id, r.url, r.payload) for rel, r in run.records if r.kind == RecordKind.RESPONSE
    ]
    want = [(rel, tid, url, body) for rel in ORDER for tid, url, body in docs[rel]]
    assert [g[:3] for g in got] == [w[:3] for w in want]
    for (_, _, _, payload), (_, _, _, body) in zip(got, want, strict=True):
        assert payload.rstrip(b"\n") == body.rstrip(b"\n")
    assert sum(1 for _, r in run.records if r.kind == RecordKind.WARCINFO) == len(ORDER)


def test_mismatches_are_reported(collection):
    root, docs = collection
    seg1 = root / "ClueWeb09_English_1"
    # wrong md5 for en0000/00, wrong count for en0001/00
    md5_list = (seg1 / "ClueWeb_English_1.md5").read_text()
    good = hashlib.md5((seg1 / "en0000/00.warc.gz").read_bytes()).hexdigest()
    (seg1 / "ClueWeb_English_1.md5").write_text(md5_list.replace(good, "0" * 32))
    counts = root / "record_counts/ClueWeb09_English_1_counts.txt"
    counts.write_text(
        counts.read_text().replace("*./en0001/00.warc.gz 4", "*./en0001/00.warc.gz 5")
    )
    # a listed file that is gone, and a present file that no list names
    os.remove(seg1 / "en0000/01.warc.gz")
    write_cw09_file(seg1 / "en0001/07.warc.gz", "en0001", 7, 1)
    run = Run(root)

    # mismatches are failed collection checks, not damaged records
    assert run.damage == []
    md5_damage = run.failed_about("en0000/00.warc.gz")
    assert (
        len(md5_damage) == 1
        and "md5 mismatch" in md5_damage[0]
        and "0" * 32 in md5_damage[0]
        and good in md5_damage[0]
    )
    count_damage = run.failed_about("en0001/00.warc.gz")
    assert (
        len(count_damage) == 1
        and "lists 5 records" in count_damage[0]
        and "has 4" in count_damage[0]
    )
    missing = run.failed_about("en0000/01.warc.gz")
    assert len(missing) == 2  # listed in the md5 list and in the counts list
    assert all("missing" in reason for reason in missing)
    unlisted = [w for w in run.warnings if "en0001/07.warc.gz" in w]
    assert len(unlisted) == 2 and all("not listed" in w for w in unlisted)
    # nothing else is reported, and every record of every present file is still delivered
    assert len(run.failed) == 4
    # every other file's md5 and count were checked and passed (the unlisted 07 has neither)
    assert len(run.checks) - len(run.failed) == 2 * (len(ORDER) - 1) - 2
    assert len(run.warnings) == 2
    delivered = [r.doc_id for _, r in run.records if r.kind == RecordKind.RESPONSE]
    assert "clueweb09-en0001-07-00000" in delivered
    assert (
        len(delivered)
        == sum(len(v) for v in docs.values())
        - len(docs["ClueWeb09_English_1/en0000/01.warc.gz"])
        + 1
    )


def test_checks_can_be_switched_off(collection):
    root, _ = collection
    counts = root / "record_counts/ClueWeb09_English_2_counts.txt"
    counts.write_text("*./en0002/00.warc.gz 99\n")
    md5 = root / "ClueWeb09_English_2/ClueWeb09_English_2.md5"
    md5.write_text("f" * 32 + " *./en0002/00.warc.gz\n")
    assert len(Run(root).failed) == 2
    unchecked = Run(root, verify_md5=False, verify_counts=False)
    assert unchecked.checks == [] and all(i.expect == () for i in unchecked.inputs)


def test_single_segment_and_language_selection(collection):
    root, docs = collection
    run = Run(root / "ClueWeb09_English_1")
    # record_counts/ is found beside the segment directory
    assert [i.relpath for i in run.inputs] == [
        "en0000/00.warc.gz",
        "en0000/01.warc.gz",
        "en0001/00.warc.gz",
    ]
    assert all(any(e.kind == "record count" for e in i.expect) for i in run.inputs)
    assert run.damage == [] and run.warnings == []
    only_zh = Run(root, languages=["Chinese"])
    assert [i.relpath for i in only_zh.inputs] == ["ClueWeb09_Chinese_1/zh0000/00.warc.gz"]


def test_counts_listed_under_the_wrong_segment_are_checked_where_the_file_is(collection):
    # ir_datasets' en0054 fix: the English_5 counts list en0054, which lives in English_4
    root, _ = collection
    seg2 = root / "record_counts/ClueWeb09_English_2_counts.txt"
    seg10 = root / "record_counts/ClueWeb09_English_10_counts.txt"
    seg2.write_text(seg2.read_text() + seg10.read_text())
    seg10.write_text("")
    run = Run(root)
    assert run.damage == []
    moved = [w for w in run.warnings if "en0010/00.warc.gz" in w]
    assert len(moved) == 1 and "stored in segment ClueWeb09_English_10" in moved[0]
    item = next(i for i in run.inputs if i.relpath.endswith("en0010/00.warc.gz"))
    assert [e.value for e in item.expect if e.kind == "record count"] == [2]


def test_segment_without_side_files_is_read_with_a_warning(collection):
    root, _ = collection
    os.remove(root / "ClueWeb09_Chinese_1/ClueWeb_Chinese_1.md5")
    os.remove(root / "record_counts/ClueWeb09_Chinese_1_counts.txt")
    run = Run(root)
    assert run.damage == []
    assert len([w for w in run.warnings if "no md5 list" in w]) == 1
    assert len([w for w in run.warnings if "no record count list" in w]) == 1
    assert (
        sum(
            1
            for rel, r in run.records
            if rel.startswith("ClueWeb09_Chinese_1") and r.kind == RecordKind.RESPONSE
        )
        == 2
    )


def test_trec_ids_that_do_not_name_their_file_are_reported(collection):
    root, _ = collection
    seg = root / "ClueWeb09_English_2"
    shutil.copy(root / "ClueWeb09_English_10/en0010/00.warc.gz", seg / "en0002/00.warc.gz")
    run = Run(root, verify_md5=False, verify_counts=False)
    foreign = [w for w in run.warnings if "do not name this file" in w]
    assert (
        len(foreign) == 1
        and "2 WARC-TREC-ID(s)" in foreign[0]
        and "clueweb09-en0010-00-00000" in foreign[0]
    )


def test_detection_claims_collection_directories(collection, tmp_path):
    root, _ = collection
    assert ClueWeb09Reader.sniff(str(root), b"") >= 0.9
    assert ClueWeb09Reader.sniff(str(root / "ClueWeb09_English_1"), b"") >= 0.9
    assert ClueWeb09Reader.sniff(str(root / "ClueWeb09_English_1" / ".."), b"") >= 0.5
    bare = tmp_path / "cw09b"
    shutil.copytree(root / "ClueWeb09_English_1", bare)
    assert 0.5 <= ClueWeb09Reader.sniff(str(bare), b"") < 0.9
    assert [i.relpath for i in scan_collection(str(bare)).files] == [
        "en0000/00.warc.gz",
        "en0000/01.warc.gz",
        "en0001/00.warc.gz",
    ]
    (tmp_path / "other").mkdir()
    assert ClueWeb09Reader.sniff(str(tmp_path / "other"), b"") == 0.0
    assert ClueWeb09Reader.discover(str(tmp_path / "other"), ClueWeb09Reader.Options()) is None
    assert (
        ClueWeb09Reader.sniff(str(root / "ClueWeb09_English_1/en0000/00.warc.gz"), b"WARC/0.18\n")
        == 0.0
    )
    # one detection path: the registry ranks the reader's sniff (the plugin has no hook)
    assert not hasattr(plugin, "crawlmill_detect_format")
    registry = Registry.load(["crawlmill.plugins.readers.clueweb09"], entry_points=False)
    assert registry.detect(str(root), b"") == [("clueweb09", 0.95)]
    assert registry.detect(str(tmp_path / "other"), b"") == []


# -- through the engine: `crawlmill convert <collection> --to warc` ----------------------------


def _convert(root: Path, out: Path, *options: str, expect: int = 0) -> dict:
    import json

    from crawlmill.core.commands.cli import main

    argv = ["convert", str(root), "--to", "warc", "-o", str(out), "--workers", "1"]
    for option in options:
        argv += ["--option", option]
    assert main(argv) == expect
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def test_engine_reports_every_mismatch_in_the_run_report(collection, tmp_path, capsys):
    root, docs = collection
    seg1 = root / "ClueWeb09_English_1"
    good = hashlib.md5((seg1 / "en0000/00.warc.gz").read_bytes()).hexdigest()
    md5_list = seg1 / "ClueWeb_English_1.md5"
    md5_list.write_text(md5_list.read_text().replace(good, "0" * 32))
    counts = root / "record_counts/ClueWeb09_English_2_counts.txt"
    counts.write_text("*./en0002/00.warc.gz 3\n")
    os.remove(seg1 / "en0000/01.warc.gz")
    report = _convert(root, tmp_path / "out", "version=0.18", "layout=clueweb09", expect=3)
    failed = sorted(
        (Path(c["path"]).name, c["check"], c["reason"].split(":")[0])
        for c in report["checks_failed"]
    )
    assert failed == [
        ("00.warc.gz", "md5", "md5 mismatch"),
        ("00.warc.gz", "record count", "record count mismatch"),
        (
            "01.warc.gz",
            "present",
            "listed in ClueWeb09_English_1/ClueWeb_English_1.md5 but missing from the collection",
        ),
        (
            "01.warc.gz",
            "present",
            "listed in record_counts/ClueWeb09_English_1_counts.txt but missing from the collection",
        ),
    ]
    # checks are beside the accounting: no pseudo-record in read, nothing quarantined
    assert report["damages"] == [] and report["quarantined"] == 0
    n_docs = sum(len(v) for k, v in docs.items() if not k.endswith("en0000/01.warc.gz"))
    n_files = len(docs) - 1
    assert report["read"] == report["written"] == n_docs + n_files  # + one warcinfo per file
    assert report["checks_passed"] == 2 * n_files - 2
    # ... and on stderr: each failed check as it happens, then the checks line
    err = capsys.readouterr().err
    assert f"checks: {2 * n_files - 2} passed, 4 failed" in err
    md5_line = f"crawlmill: {seg1 / 'en0000/00.warc.gz'}: md5 check failed: md5 mismatch: "
    assert md5_line in err


def test_engine_reads_a_collection_we_wrote_without_complaint(collection, tmp_path):
    root, docs = collection
    first = _convert(
        root, tmp_path / "first", "version=0.18", "layout=clueweb09", "files_per_dir=2"
    )
    assert first["damages"] == []
    # the written collection, read again as a collection: md5 and counts lists all agree
    second = _convert(tmp_path / "first", tmp_path / "second", "version=0.18")
    assert second["damages"] == []
    assert not [w for w in second["warnings"] if str(tmp_path) in w]
    assert second["inputs"] == len(docs)
    assert second["written"] == first["written"]


def test_engine_keeps_collection_order(collection, tmp_path):
    root, docs = collection
    # by default every file keeps its place and its TREC ids (the qrels keys)
    kept = _convert(root, tmp_path / "kept", "version=0.18", "layout=clueweb09")
    assert kept["failures"] == [] and kept["damages"] == []
    for rel in ORDER:
        with gzip.open(tmp_path / "kept" / rel) as fh:
            ids = [line.split()[1].decode() for line in fh if line.startswith(b"WARC-TREC-ID: ")]
        assert ids == [tid for tid, _, _ in docs[rel]]
    # numbered anew, the files follow the collection order
    _convert(root, tmp_path / "out", "version=0.18", "layout=clueweb09", "trec_ids=assign")
    written = sorted((tmp_path / "out/ClueWeb09_English_1/en0000").glob("*.warc.gz"))
    urls = []
    for path in written:
        with gzip.open(path) as fh:
            for line in fh:
                if line.startswith(b"WARC-Target-URI: "):
                    urls.append(line.split(b"/")[3].decode())
                    break
    assert urls == [rel.split("/")[1] for rel in ORDER]


def test_stray_files_and_unknown_languages(collection):
    root, _ = collection
    seg = root / "ClueWeb09_English_2"
    (seg / "README").write_text("notes")
    (seg / "en0002" / "00.warc.gz.tmp").write_bytes(b"partial")
    (seg / "tmp").mkdir()
    run = Run(root)
    assert run.damage == []
    stray = sorted(w.split(": ", 1)[1] for w in run.warnings)
    assert stray == [
        "directory is not a ClueWeb09 directory name (like en0000); not read",
        "file outside the <ll>NNNN directories; not read",
        "not a WARC file; not read",
    ]
    with pytest.raises(ValueError, match="not a ClueWeb09 language"):
        ClueWeb09Reader.Options(languages=["Klingon"])


def test_a_single_file_is_checked_against_its_location(collection, tmp_path):
    root, _ = collection
    assert plugin.trec_prefix_of("/x/en0000/07.warc.gz") == "clueweb09-en0000-07-"
    assert plugin.trec_prefix_of("/x/other/07.warc.gz") is None
    moved = tmp_path / "copy" / "en0003" / "05.warc.gz"
    moved.parent.mkdir(parents=True)
    shutil.copy(root / "ClueWeb09_English_2/en0002/00.warc.gz", moved)
    with open_reader(InputFile(str(moved), "en0003/05.warc.gz"), ClueWeb09Reader) as it:
        records = list(it)
    assert it.damages == []
    notes = [w.message for w in it.warnings]
    assert len(records) == 2
    assert [n for n in notes if "do not name this file" in n] == [
        f"{moved}: 1 WARC-TREC-ID(s) do not name this file (clueweb09-en0003-05-*), "
        "first 'clueweb09-en0002-00-00000'"
    ]


def test_a_disabled_warc_reader_is_missing_for_clueweb09_too(collection, tmp_path):
    """The clueweb09 reader gets the warc reader through the registry (``ctx.reader``), so
    ``CRAWLMILL_DISABLE_PLUGINS=warc-reader`` means what it says: each file fails, naming the
    missing reader, and nothing is written."""
    import subprocess
    import sys

    root, _ = collection
    out = tmp_path / "out"
    env = dict(os.environ, CRAWLMILL_DISABLE_PLUGINS="warc-reader")
    env.pop("CRAWLMILL_LOAD_PLUGINS", None)
    argv = ["convert", str(root), "--to", "arc", "-o", str(out), "--workers", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    failed = [line for line in result.stderr.splitlines() if "task failed" in line]
    assert len(failed) == len(ORDER)
    for line in failed:
        assert "needs the reader 'warc'" in line, line
        assert "blocked" in line and "warc-reader" in line, line
    assert not [p for p in out.rglob("*.arc*")]


def test_lists_named_as_the_dataset_page_at_the_collection_root_are_checked(
    collection, tmp_path, capsys
):
    # the dataset page: 'The files with the name "ClueWeb_*.md5" are the md5 sums of the
    # individual WARC files in the dataset' (e.g. '98f91370de2dbc9c6d358f6251e591d6
    # *./en0000/22.warc.gz'), and 'The files with the name "ClueWeb09_*_counts.txt" are the
    # record counts by file' (ClueWeb09_English_1_counts.txt); issue 18 puts both at the root
    root, docs = collection
    for segment in TREE:
        inside = root / segment / cw.md5_file_name(segment)
        assert cw.md5_file_name(segment).startswith("ClueWeb_")  # not "ClueWeb09_"
        inside.rename(root / cw.md5_file_name(segment))
        counts = root / cw.counts_file_name(segment)
        counts.rename(root / counts.name)
    (root / cw.COUNTS_DIR).rmdir()
    good = _convert(root, tmp_path / "good")
    assert good["checks_passed"] == 2 * len(docs) and not good["checks_failed"]
    # one md5 wrong in the root list: a failed check naming the file and the list, exit 3
    md5_list = root / "ClueWeb_English_1.md5"
    digest = hashlib.md5((root / "ClueWeb09_English_1/en0001/00.warc.gz").read_bytes()).hexdigest()
    md5_list.write_text(md5_list.read_text().replace(digest, "f" * 32))
    report = _convert(root, tmp_path / "bad", expect=3)
    (failed,) = report["checks_failed"]
    assert failed["check"] == "md5" and failed["path"].endswith("en0001/00.warc.gz")
    assert "ClueWeb_English_1.md5" in failed["reason"] and "f" * 32 in failed["reason"]
    assert report["checks_passed"] == 2 * len(docs) - 1
    assert "md5 check failed" in capsys.readouterr().err


def test_the_older_crawlmill_list_name_at_the_root_is_still_found(collection, tmp_path):
    root, docs = collection
    segment = "ClueWeb09_English_2"
    (root / segment / cw.md5_file_name(segment)).rename(root / f"{segment}.md5")
    report = _convert(root, tmp_path / "out")
    assert report["checks_passed"] == 2 * len(docs) and not report["checks_failed"]


def test_each_collection_warning_carries_its_code_from_the_scan(collection):
    """The scan gives each finding its code where it finds it (no table reads its sentence),
    and the reader reports the finding with that code."""
    root, _ = collection
    seg = root / "ClueWeb09_English_2"
    (seg / "README").write_text("notes")
    (seg / "en0002" / "00.warc.gz.tmp").write_bytes(b"partial")
    (seg / "tmp").mkdir()
    md5 = seg / cw.md5_file_name("ClueWeb09_English_2")
    md5.write_bytes(md5.read_bytes() + b"garbage\n")
    write_cw09_file(seg / "en0002/07.warc.gz", "en0002", 7, 1)  # in no list
    (root / cw.counts_file_name("ClueWeb09_English_10")).unlink()
    units = scan_collection(str(root)).files
    problems = [p for u in units for p in u.meta["problems"]]
    found = sorted((p["code"], p["reason"].split(" ")[0]) for p in problems)
    assert found == [
        ("bad-list-line", "line"),
        ("no-list", "no"),
        ("not-listed", "present"),
        ("not-listed", "present"),
        ("not-read", "directory"),
        ("not-read", "file"),
        ("not-read", "not"),
    ]
    reported = []
    for unit in units:
        if unit.meta["problems"]:
            with open_reader(unit, ClueWeb09Reader) as records:
                for _ in records:
                    pass
            reported += [w.code for w in records.warnings if str(root) in w.message]
    assert sorted(reported) == [code for code, _ in found]
