"""The ``ntcir`` reader on trees built from real Japanese pages: detected as a collection,
one unit per site, every page a Record with URL, doc id, head, payload, cooked text,
outlinks, duplicates and aliases; both ``.meta`` syntaxes read alike; to WARC through the CLI,
read back by warcio; collection checks for a page doclist does not list and a lone file."""

from __future__ import annotations

import json

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry
from crawlmill.formats.ntcir.cooked import cook
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests.plugins.ntcir_tree import build_tree


def _records(root):
    units = NtcirReader.discover(str(root), NtcirReader.Options())
    records = []
    for unit in units:
        with open_reader(unit, "ntcir") as found:
            records.extend(found)
    return units, records


@pytest.mark.parametrize("syntax", ["tagged", "lines"])
def test_every_page_is_a_record(tmp_path, syntax):
    pages = build_tree(tmp_path / "nw", syntax)
    units, records = _records(tmp_path / "nw")
    assert [u.relpath for u in units] == [
        "lists", "sites/00/0000/000001", "sites/00/0000/000002", "sites/00/0000/000003"
    ]  # fmt: skip
    assert len(records) == len(pages)
    for page, record in zip(pages, records, strict=True):
        assert record.kind == "response"
        assert (record.url, record.doc_id) == (page.url, page.doc_id)
        assert record.payload == page.payload and record.http_head == page.head
        assert record.content_type == "text/html" and record.charset == "euc_jp"
        cooked = cook(page.payload.decode("euc_jp", "replace")).encode("euc_jp", "replace")
        assert record.text == cooked.decode("euc_jp")  # from the cooked tree
        assert len(record.outlinks) == 2
        extras = record.extras["ntcir"]
        assert extras["duplicates"] == [page.url + "#dup"]
        assert extras["aliases"] == [f"http://alias{int(page.site) - 1}.example.jp"]
        assert extras["syntax"] == syntax and extras["site"] == page.site
        assert record.date is not None  # from the head's Date:


def test_detected_and_converted_to_warc_read_back_by_warcio(tmp_path, capsys):
    from warcio.archiveiterator import ArchiveIterator

    pages = build_tree(tmp_path / "nw")
    assert Registry.load().detect(str(tmp_path / "nw"), b"")[0][0] == "ntcir"
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "nw"), "--to", "warc", "-o", str(out),
                 "--progress", "never"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["read"] == len(pages)
    assert report["written"] == len(pages) + report["added"]  # a warcinfo per file
    seen = {}
    for path in sorted(out.rglob("*.warc.gz")):
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type == "response":
                    seen[rec.rec_headers.get_header("WARC-Target-URI")] = (
                        rec.content_stream().read()
                    )
    assert seen == {p.url: p.payload for p in pages}


def test_payload_from_the_euc_tree(tmp_path):
    build_tree(tmp_path / "nw", sites=1, per=1)
    euc = tmp_path / "nw/euc/00/0000/000001/0001.data"
    euc.write_bytes(b"<p>converted</p>")
    _, unit = NtcirReader.discover(str(tmp_path / "nw"), NtcirReader.Options())
    with open_reader(unit, "ntcir", payload="euc") as found:
        (record,) = list(found)
    assert record.payload == b"<p>converted</p>" and record.extras["ntcir"]["tree"] == "euc"


def test_collection_checks(tmp_path, capsys):
    build_tree(tmp_path / "nw", sites=1, per=2)
    doclist = tmp_path / "nw/doclist"
    doclist.write_bytes(doclist.read_bytes().splitlines(keepends=True)[0])  # page 2 unlisted
    (tmp_path / "nw/raw/00/0000/000001/0003.data").write_bytes(b"lone")
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "nw"), "--to", "warc", "-o", str(out),
                 "--progress", "never"])  # fmt: skip
    assert code == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    failed = " | ".join(str(c) for c in report["checks_failed"])
    assert "NW000000002 is not in doclist" in failed and "0003.meta is missing" in failed
    # the lists name doc id NW000000002 too (duplist and linklist line 2): checked as well
    lists = {(c["check"], c["reason"]) for c in report["checks_failed"]}
    assert ("duplist", "line 2: doc id NW000000002 is not in doclist") in lists
    assert ("linklist", "line 2: doc id NW000000002 is not in doclist") in lists
    assert report["read"] == 2 and len(report["checks_failed"]) == 4


@pytest.mark.parametrize("unsorted", [False, True])
def test_doclist_checked_against_the_whole_tree(tmp_path, unsorted, monkeypatch):
    """A doclist id whose page is gone, and a page doclist lacks, are failed checks of the
    whole tree naming the list's line and the page; the tree's ids are sorted on disk (a
    run of two ids spills), an unsorted doclist too."""
    import crawlmill.algorithms.sorted_lines as sorted_lines

    real = sorted_lines.sort_lines
    monkeypatch.setattr(sorted_lines, "sort_lines", lambda lines, folder=None, chunk=2:
                        real(lines, folder, 2))  # fmt: skip
    monkeypatch.setattr("crawlmill.plugins.readers.ntcir.sort_lines", sorted_lines.sort_lines)
    build_tree(tmp_path / "nw", sites=2, per=3)
    doclist = tmp_path / "nw/doclist"
    lines = doclist.read_bytes().splitlines(keepends=True)
    lines.insert(4, b"NW000000099\thttp://www0.example.jp/gone\n")  # line 5: no page
    del lines[1]  # NW000000002: its page is unlisted
    if unsorted:
        lines.reverse()
    doclist.write_bytes(b"".join(lines))
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "nw"), "--to", "warc", "-o", str(out),
                 "--progress", "never"])  # fmt: skip
    assert code == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    failed = sorted(
        (c["path"], c["reason"]) for c in report["checks_failed"] if c["check"] == "doclist"
    )
    gone_line = len(lines) - 3 if unsorted else 4
    assert failed == [
        (str(doclist), f"line {gone_line}: doc id NW000000099 has no page in the raw tree"),
        (str(tmp_path / "nw/raw/00/0000/000001/0002.data"), "doc id NW000000002 is not in doclist"),
    ]
    assert report["read"] == 6  # every page delivered all the same


def test_unsorted_lists_and_bad_list_lines(tmp_path):
    """An unsorted linklist is loaded instead of searched (same outlinks); a bad duplist line
    is a warning and loses only itself."""
    build_tree(tmp_path / "nw", sites=1, per=3)
    linklist = tmp_path / "nw/linklist"
    linklist.write_bytes(b"".join(reversed(linklist.read_bytes().splitlines(keepends=True))))
    duplist = tmp_path / "nw/duplist"
    duplist.write_bytes(b"not a line\n" + duplist.read_bytes())
    _, unit = NtcirReader.discover(str(tmp_path / "nw"), NtcirReader.Options())
    assert unit.meta["sorted"] == {"doclist": True, "linklist": False}
    with open_reader(unit, "ntcir") as found:
        records = list(found)
        warnings = list(found.warnings)
    assert [len(r.outlinks) for r in records] == [2, 2, 2]
    assert all(r.extras["ntcir"]["duplicates"] for r in records)
    assert any(w.code == "bad-list-line" and "duplist line 1 " in w.message for w in warnings)


def test_detected_without_lists_and_not_for_other_folders(tmp_path):
    build_tree(tmp_path / "nw", sites=1, per=1)
    for name in ("sitelist", "aliaslist", "doclist", "targetlist", "duplist", "linklist"):
        (tmp_path / "nw" / name).unlink()
    assert NtcirReader.sniff(str(tmp_path / "nw"), b"") == 0.9
    (tmp_path / "other" / "raw" / "notes").mkdir(parents=True)  # a raw/ folder, no site tree
    assert NtcirReader.sniff(str(tmp_path / "other"), b"") == 0.0
    assert len(NtcirReader.discover(str(tmp_path / "nw"), NtcirReader.Options())) == 1


def test_meta_lines_neither_field_nor_wrapper_are_kept_and_reported(tmp_path):
    """Bytes of a ``.meta`` file that are no field (garbage before the wrapper, a broken tag)
    are kept verbatim in extras and reported with the file and their offset, never dropped
    quietly; the page is still delivered with its fields."""
    pages = build_tree(tmp_path / "nw")
    meta = sorted((tmp_path / "nw" / "raw").rglob("*.meta"))[0]
    garbage = b"\x00\x17garbage before the wrapper \xff\xfe"
    meta.write_bytes(garbage + meta.read_bytes())
    units = NtcirReader.discover(str(tmp_path / "nw"), NtcirReader.Options())
    records, warnings = [], []
    for unit in units:
        with open_reader(unit, "ntcir") as found:
            records.extend(found)
            warnings.extend(found.warnings)
    assert len(records) == len(pages)
    (warning,) = [w for w in warnings if w.code == "meta-other-lines"]
    assert str(meta) in warning.message and warning.offset == 0
    (record,) = [r for r in records if r.extras["ntcir"].get("other")]
    assert record.extras["ntcir"]["other"][0].startswith(garbage)
    assert record.doc_id and record.url
