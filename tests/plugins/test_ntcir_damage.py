"""The ``ntcir`` reader on damaged trees (the cases the fault family, tests/faults/
ntcir_cases.py, found delivered with exit 0 or crashing): a ``.meta`` cut short, a folder in
a page file's place, a page whose ``NW:URL`` ``doclist`` does not give its doc id, two pages
of one doc id, a site missing from the payload tree, a missing list, a NUL byte or a last line
without its new line in a list. Each is named (file, offset or line, reason); no page lost."""

from __future__ import annotations

from pathlib import Path

from crawlmill import open_reader
from crawlmill.formats.ntcir.lists import ListProblem, read_list
from crawlmill.formats.ntcir.meta import parse_meta, write_meta
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests.plugins.ntcir_tree import build_tree


def _read(root: Path) -> tuple[list, list, list, list]:
    """Records, damages, failed checks and warnings of every unit of the tree."""
    records, damages, checks, warnings = [], [], [], []
    for unit in NtcirReader.discover(str(root), NtcirReader.Options()):
        with open_reader(unit, "ntcir") as found:
            records.extend(found)
            damages.extend(found.damages)
            checks.extend(c for c in found.checks if not c.ok)
            warnings.extend(found.warnings)
    return records, damages, checks, warnings


def _site(root: Path, site: str = "000001", tree: str = "raw") -> Path:
    return root / tree / site[:2] / site[:4] / site


def test_parse_meta_tells_a_file_cut_inside_a_field_or_the_wrapper():
    fields = [("NW:DOCID", b"NW000000001"), ("NW:URL", b"http://a.jp/"),
              ("NW:HTTPH", b"HTTP/1.0 200 OK\nServer: x\n")]  # fmt: skip
    for syntax in ("tagged", "lines"):
        data = write_meta(fields, syntax)
        assert parse_meta(data).unclosed is None
        cut = data[: data.index(b"Server")]
        what, at = parse_meta(cut).unclosed
        if syntax == "tagged":  # the block opened and never closed
            assert (what, at) == ("<NW:HTTPH>", data.index(b"<NW:HTTPH>"))
        else:  # lines: only the wrapper shows it
            assert (what, at) == ("<META>", 0)
    cut = write_meta(fields)[: write_meta(fields).index(b"a.jp")]  # inside <NW:URL>...
    assert parse_meta(cut).unclosed[0] == "<NW:URL>"


def test_meta_cut_short_is_damage_and_the_page_still_delivered(tmp_path):
    pages = build_tree(tmp_path / "nw", sites=1, per=2)
    meta = _site(tmp_path / "nw") / "0002.meta"
    data = meta.read_bytes()
    at = data.index(b"<NW:HTTPH>")
    meta.write_bytes(data[: at + 40])
    records, damages, _, _ = _read(tmp_path / "nw")
    (damage,) = damages
    assert (damage.path, damage.offset, damage.code) == (str(meta), at, "meta-cut-short")
    assert damage.data == data[at : at + 40] and "never closed" in damage.reason
    assert [r.payload for r in records] == [p.payload for p in pages]


def test_a_folder_in_a_page_files_place_is_damage_not_a_crash(tmp_path):
    pages = build_tree(tmp_path / "nw", sites=1, per=3)
    data = _site(tmp_path / "nw") / "0002.data"
    data.unlink()
    data.mkdir()
    records, damages, _, _ = _read(tmp_path / "nw")
    (damage,) = damages
    assert (damage.path, damage.offset, damage.code) == (str(data), 0, "unreadable-file")
    assert [r.doc_id for r in records] == [pages[0].doc_id, pages[2].doc_id]


def test_a_url_doclist_does_not_give_the_doc_id_is_a_failed_check(tmp_path):
    pages = build_tree(tmp_path / "nw", sites=1, per=2)
    meta = _site(tmp_path / "nw") / "0001.meta"
    meta.write_bytes(meta.read_bytes().replace(pages[0].url.encode(), b"http://www0.example.jp/x"))
    records, _, checks, _ = _read(tmp_path / "nw")
    (check,) = checks
    assert check.path == str(meta) and check.check == "doclist"
    assert "http://www0.example.jp/x" in check.reason and pages[0].url in check.reason
    assert len(records) == 2


def test_one_doc_id_on_two_pages_is_a_failed_check_naming_the_second(tmp_path):
    build_tree(tmp_path / "nw", sites=1, per=2)
    site = _site(tmp_path / "nw")
    for ext in ("data", "meta"):
        (site / f"0003.{ext}").write_bytes((site / f"0001.{ext}").read_bytes())
    records, _, checks, _ = _read(tmp_path / "nw")
    (check,) = [c for c in checks if c.check == "doclist"]  # (and euc/, cooked/ lack 0003)
    assert check.path == str(site / "0003.data") and "NW000000001 is also" in check.reason
    assert len(records) == 3


def test_a_site_missing_from_the_payload_tree_is_named(tmp_path):
    """The raw folder of a site renamed: its pages come from euc/ (nothing lost), and that is
    a failed check naming the missing folder; doclist names its pages as missing from raw;
    the renamed folder is warned ``not-read``."""
    build_tree(tmp_path / "nw", sites=2, per=2)
    raw = _site(tmp_path / "nw", "000002")
    raw.rename(raw.with_name("000002.old"))
    records, _, checks, warnings = _read(tmp_path / "nw")
    assert len(records) == 4 and records[-1].extras["ntcir"]["tree"] == "euc"
    (stray,) = [w for w in warnings if w.code == "not-read"]
    assert stray.message.startswith(f"{raw}.old: not a site folder")
    trees = [c for c in checks if c.check == "trees"]
    assert [c.path for c in trees] == [str(raw)]
    assert sum("has no page in the raw tree" in c.reason for c in checks) == 2


def test_a_missing_list_is_warned(tmp_path):
    build_tree(tmp_path / "nw", sites=1, per=1)
    (tmp_path / "nw" / "linklist").unlink()
    records, _, checks, warnings = _read(tmp_path / "nw")
    (warning,) = [w for w in warnings if w.code == "list-missing"]
    assert str(tmp_path / "nw" / "linklist") in warning.message and "outlinks" in warning.message
    assert not checks and len(records) == 1


def test_list_lines_with_a_nul_or_without_their_new_line_are_bad():
    """Lists: "terminated by a new line character"; no field holds a NUL."""
    data = b"NW000000001\thttp://a.jp/\x00\x00\nNW000000002\thttp://a.jp/b\nNW000000003\thttp://a"
    items = list(read_list(data, "doclist", "doclist"))
    assert [type(i).__name__ for i in items] == ["ListProblem", "ListItem", "ListProblem"]
    assert isinstance(items[0], ListProblem) and "NUL" in items[0].reason
    assert isinstance(items[2], ListProblem) and items[2].line == 3 and "cut" in items[2].reason


def test_a_page_only_another_tree_has_is_named_by_its_file(tmp_path):
    """Both files of a raw page deleted, euc/ and cooked/ keep it: a failed ``page pair`` check
    naming the euc page (the check used to look for the raw pair's other file: a KeyError)."""
    build_tree(tmp_path / "nw", sites=1, per=2)
    for ext in ("data", "meta"):
        (_site(tmp_path / "nw") / f"0002.{ext}").unlink()
    records, _, checks, _ = _read(tmp_path / "nw")
    pair = [c for c in checks if c.check == "page pair"]
    assert [(c.path, c.reason) for c in pair] == [
        (str(_site(tmp_path / "nw", tree="euc") / "0002.data"),
         "raw/0002.data and raw/0002.meta are missing")
    ]  # fmt: skip
    assert len(records) == 1


def test_a_page_another_tree_lacks_is_named_and_delivered(tmp_path):
    """10. cooked: "The subdirectory structure and the naming scheme are same as the "raw"
    directory": a cooked page gone is a failed check naming the raw page; the page is
    delivered without its cooked text."""
    build_tree(tmp_path / "nw", sites=1, per=2)
    (_site(tmp_path / "nw", tree="cooked") / "0001.data").unlink()
    records, _, checks, _ = _read(tmp_path / "nw")
    assert [(c.path, c.reason) for c in checks] == [
        (str(_site(tmp_path / "nw") / "0001.data"), "cooked/0001.data missing")
    ]
    assert [r.text is None for r in records] == [True, False]
