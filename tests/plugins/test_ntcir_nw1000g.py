"""The ``ntcir`` reader on NW1000G-04 trees (``cook/``, ``.dat`` pages named by ``.filelist``
lines; the variant detected): one Record per filelist line with URL, payload and cooked text;
to WARC through the CLI; a line without its ``.dat`` and a ``.dat`` without a line are failed
checks naming the filelist line and the file; the ``nw1000g`` layout of the writer read back."""

from __future__ import annotations

import json

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry
from crawlmill.formats.ntcir.cooked import cook
from crawlmill.formats.ntcir.lists import ListProblem
from crawlmill.formats.ntcir.nw1000g import (
    FileListItem,
    dat_path,
    format_filelist_line,
    read_filelist,
)
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests.plugins.ntcir_tree import build_nw1000g


def _read(root):
    units = NtcirReader.discover(str(root), NtcirReader.Options())
    records, checks = [], []
    for unit in units:
        with open_reader(unit, "ntcir") as found:
            records.extend(found)
            checks.extend(found.checks)
    return units, records, checks


def test_the_path_rule_and_filelist_lines():
    assert dat_path("0001007", "00037") == "000/000/37xx/0001007_00037.dat"
    assert dat_path("1234567", "0123456") == "123/012/34xx/1234567_0123456.dat"
    with pytest.raises(ValueError):
        dat_path("0001007", "../../x")
    data = format_filelist_line("NW000000001", "00037", "http://a.jp/x y") + b"bad line\n\n"
    items = list(read_filelist(data, "f.filelist"))
    assert items[0] == FileListItem("NW000000001", "00037", "http://a.jp/x y", 1, 0)
    assert [type(i) for i in items[1:]] == [ListProblem, ListProblem]
    assert (items[1].line, items[1].offset) == (2, len(data.splitlines(True)[0]))


@pytest.mark.parametrize("tree_name", ["cook", "cooked"])
def test_every_filelist_line_is_a_record(tmp_path, tree_name):
    pages = build_nw1000g(tmp_path / "nw5", cooked_tree=tree_name)
    assert NtcirReader.sniff(str(tmp_path / "nw5"), b"") == 0.9
    units, records, checks = _read(tmp_path / "nw5")
    assert [u.relpath for u in units] == ["sites/000/0001007", "sites/000/0002007"]
    assert [(r.url, r.doc_id, r.payload) for r in records] == [
        (p.url, p.doc_id, p.payload) for p in pages
    ]
    for page, record in zip(pages, records, strict=True):
        cooked = cook(page.payload.decode("euc_jp", "replace")).encode("euc_jp", "replace")
        assert record.text == cooked.decode("euc_jp")
        assert record.extras["ntcir"]["variant"] == "nw1000g"
        assert record.extras["ntcir"]["field1"] == page.doc_id
    assert not [c for c in checks if not c.ok]


def test_converted_to_warc_and_checks_for_lines_and_files(tmp_path):
    from warcio.archiveiterator import ArchiveIterator

    pages = build_nw1000g(tmp_path / "nw5")
    assert Registry.load().detect(str(tmp_path / "nw5"), b"")[0][0] == "ntcir"
    raw = tmp_path / "nw5/data/raw"
    (raw / dat_path("0001007", "00074")).unlink()  # line 2 of 0001007.filelist: no file
    lone = raw / dat_path("0002007", "99999")
    lone.parent.mkdir(parents=True)
    lone.write_bytes(b"<p>not listed</p>")
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "nw5"), "--to", "warc", "-o", str(out),
                 "--progress", "never"])  # fmt: skip
    assert code == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    failed = sorted((c["path"], c["reason"]) for c in report["checks_failed"])
    assert failed == [
        (str(raw / "000/0001007.filelist"),
         "line 2: 000/000/74xx/0001007_00074.dat is missing from raw/"),
        (str(lone), f"not listed in {raw / '000/0002007.filelist'}"),
    ]  # fmt: skip
    assert report["read"] == len(pages)  # 5 listed pages and the lone file
    seen = {}
    for path in sorted(out.rglob("*.warc.gz")):
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                if rec.rec_type == "resource":
                    seen[rec.rec_headers.get_header("WARC-Target-URI")] = (
                        rec.content_stream().read()
                    )
    gone = "http://www0.example.jp/00074"
    assert seen == {
        **{p.url: p.payload for p in pages if p.url != gone},
        None: b"<p>not listed</p>",
    }


def _files(root):
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".crawlmill" not in p.parts
    }


def test_written_as_nw1000g_again_keeps_ids_files_and_filelists(tmp_path):
    build_nw1000g(tmp_path / "nw5")
    _, first, _ = _read(tmp_path / "nw5")
    out = tmp_path / "again"
    code = main(["convert", str(tmp_path / "nw5"), "--to", "ntcir", "--option",
                 "variant=nw1000g", "-o", str(out), "--progress", "never"])  # fmt: skip
    assert code == 0
    _, second, checks = _read(out)
    assert not [c for c in checks if not c.ok]
    assert [(r.doc_id, r.url, r.payload) for r in second] == [
        (r.doc_id, r.url, r.payload) for r in first
    ]
    source = _files(tmp_path / "nw5" / "data")
    written = _files(out)
    for name, data in source.items():  # every .dat and .filelist of raw/, the same bytes
        if name.startswith("raw/"):
            assert written[name] == data, name
    assert written["lists/sitelist/000"] == b"0001007\twww0.example.jp\n0002007\twww1.example.jp\n"


def test_warc_to_nw1000g_warns_for_the_head(tmp_path):
    from tests.plugins.test_ntcir_writer import make_input

    src, pages = make_input(tmp_path / "in")
    out = tmp_path / "nw5"
    code = main(["convert", str(src), "--to", "ntcir", "--option", "variant=nw1000g",
                 "--filter", "kind", "keep=response", "-o", str(out), "--progress", "never"])  # fmt: skip
    assert code == 0
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "http-head-not-written" in str(report["warnings"])
    _, records, checks = _read(out)
    assert not [c for c in checks if not c.ok]
    assert sorted((r.url, r.payload) for r in records) == sorted(
        (p["url"], p["body"]) for p in pages
    )
    assert (out / "lists/sitelist/000").read_bytes().startswith(b"0000001\ta.example.jp\n")
