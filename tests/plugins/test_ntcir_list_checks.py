"""NTCIR NW100G-01 lists checked against each other and the tree: each rule of the README's
list formats (sections 2-7, quoted per case) broken in a tree built here, each a failed check
naming the list file and the line; a run on such a tree exits 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.ntcir.list_checks import check_lists
from crawlmill.plugins.readers.ntcir import NtcirReader

from tests.plugins.ntcir_tree import build_tree


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _checks(root: Path) -> list:
    (unit, *_) = NtcirReader.discover(str(root), NtcirReader.Options())
    assert unit.relpath == "lists"
    with open_reader(unit, "ntcir") as found:
        assert list(found) == []
        return found.checks


def _append(root: Path, name: str, line: bytes) -> int:
    path = root / name
    data = path.read_bytes()
    path.write_bytes(data + line)
    return len(data.splitlines()) + 1


# (README words, list, line added, the failed check's reason)
CASES = [
    (  # 3. "The site id necessarily corresponds to a single list item in the "sitelist"."
        "aliaslist", b"http://alias9.example.jp\t000009\n", "site id 000009 is not in sitelist"
    ),
    (  # 3. "host names which are not included in the "sitelist" file are included in this list"
        "aliaslist", b"http://www0.example.jp\t000001\n",
        "http://www0.example.jp is a host of sitelist, not an alias",
    ),
    (  # 4. "A document id ... is unique within the list."
        "doclist", b"NW000000001\thttp://www0.example.jp/again\n",
        "doc id NW000000001 is also on line 1",
    ),
    (  # 4. "crawled from the sites listed in the "sitelist""
        "doclist", b"NW000000009\thttp://elsewhere.example.jp/\n",
        "URL http://elsewhere.example.jp/ is on no site of sitelist or aliaslist",
    ),
    (  # 5. "URL's which are not included in the "doclist" file are included in this list"
        "duplist", None, "is in doclist (line 1): a duplicate URL is not",
    ),
    (  # 5. "an duplicated URL and the corresponding document id" (a doclist document)
        "duplist", b"http://www0.example.jp/x\tNW000000077\n", "doc id NW000000077 is not in doclist"
    ),
    (  # 7. "links from pages in the "doclist" to pages in the "targetlist""
        "linklist", b"NW000000088\thttp://www0.example.jp/0\n", "doc id NW000000088 is not in doclist"
    ),
    (  # 7. the destination: a page of targetlist
        "linklist", b"NW000000001\thttp://nowhere.example.jp/\n",
        "URL http://nowhere.example.jp/ is not in targetlist",
    ),
    (  # 2. "The server type is fixed to "http"."
        "sitelist", b"000009\tftp\tftp.example.jp\t21\n", "server type 'ftp' is not \"http\""
    ),
    (  # 2. "The site id is a string of six decimal characters, and is unique within the list."
        "sitelist", b"000001\thttp\tother.example.jp\t80\n", "site id 000001 is also on line 1"
    ),
    (  # 6. "Each list item takes the same form as the "doclist"." (a malformed line)
        "targetlist", b"NW123\thttp://www0.example.jp/\n",
        "doc id 'NW123' is not NW and nine decimal characters",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("name", "line", "reason"), CASES)
def test_each_rule_broken_is_a_failed_check_naming_file_and_line(tmp_path, name, line, reason):
    root = tmp_path / "nw"
    pages = build_tree(root, sites=2, per=2)
    assert [c.check for c in _checks(root) if not c.ok] == []  # the built tree is clean
    if line is None:  # a duplicate URL that is a doclist URL
        line = f"{pages[0].url}\t{pages[1].doc_id}\n".encode()
    number = _append(root, name, line)
    failed = [c for c in _checks(root) if not c.ok]
    assert any(
        c.path == str(root / name)
        and c.check == name
        and c.reason.startswith(f"line {number}: ")
        and reason in c.reason
        for c in failed
    ), [str(c) for c in failed]


def test_targetlist_no_superset_of_doclist(tmp_path):
    """6. "It is a superset of the "doclist"." A doclist line missing from targetlist fails,
    naming the doclist line."""
    root = tmp_path / "nw"
    pages = build_tree(root, sites=1, per=3)
    target = root / "targetlist"
    target.write_bytes(b"".join(_lines(target)[:2]))  # page 3 gone from targetlist
    failed = [c for c in _checks(root) if not c.ok]
    assert [(c.path, c.check, c.reason) for c in failed if c.check == "targetlist"] == [
        (str(root / "doclist"), "targetlist", f"line 3: doc id {pages[2].doc_id} with URL "
         f"{pages[2].url} is not in targetlist (a superset of doclist)")
    ]  # fmt: skip


def test_malformed_line_in_a_sorted_list(tmp_path):
    """A bad line inside a sorted linklist (searched on disk by the site units, which never
    see it) is a failed check of the lists unit."""
    root = tmp_path / "nw"
    build_tree(root, sites=1, per=2)
    links = _lines(root / "linklist")
    links.insert(1, b"NW000000001 http://no-tab.example.jp/\n")
    (root / "linklist").write_bytes(b"".join(links))
    units = NtcirReader.discover(str(root), NtcirReader.Options())
    assert units[0].meta["sorted"]["linklist"] is True
    failed = [c for c in _checks(root) if not c.ok]
    assert [(c.path, c.reason) for c in failed] == [
        (str(root / "linklist"), "line 2: 1 tab-separated field(s); a linklist line has 2")
    ]


def test_site_folder_not_in_sitelist(tmp_path):
    """8. "all web page data which were crawled from sites in the "sitelist"": a site folder
    whose id sitelist lacks fails, naming the folder."""
    root = tmp_path / "nw"
    build_tree(root, sites=2, per=1)
    (root / "sitelist").write_bytes(_lines(root / "sitelist")[0])
    failed = [c for c in _checks(root) if not c.ok]
    folder = str(root / "raw/00/0000/000002")
    assert (folder, "sitelist", "site id 000002 is not in sitelist") in {
        (c.path, c.check, c.reason) for c in failed
    }


def test_clean_lists_pass_with_bounded_sorting(tmp_path, monkeypatch):
    """The rules give the same answer when every sort spills (runs of two lines)."""
    import crawlmill.algorithms.sorted_lines as sorted_lines
    import crawlmill.formats.ntcir.list_checks as checks

    real = sorted_lines.sort_lines
    monkeypatch.setattr(checks, "sort_lines", lambda lines: real(lines, None, 2))
    root = tmp_path / "nw"
    build_tree(root, sites=2, per=3)
    lists = {n: str(root / n) for n in ("sitelist", "aliaslist", "doclist", "targetlist",
                                         "duplist", "linklist")}  # fmt: skip
    assert list(check_lists(lists)) == []
    _append(root, "linklist", b"NW000000001\thttp://nowhere.example.jp/\n")
    assert [f.check for f in check_lists(lists)] == ["linklist"]


def test_contradicting_lists_exit_3(tmp_path, capsys):
    """Issue 18: such a tree was `checks: 1 passed`, exit 0."""
    root = tmp_path / "nw"
    build_tree(root, sites=1, per=2)
    _append(root, "aliaslist", b"http://alias9.example.jp\t000009\n")
    out = tmp_path / "out"
    code = main(["convert", str(root), "--to", "warc", "-o", str(out), "--progress", "never"])
    assert code == 3
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert [(c["check"], c["reason"]) for c in report["checks_failed"]] == [
        ("aliaslist", "line 2: site id 000009 is not in sitelist")
    ]
    assert "checks: 1 passed, 1 failed" in capsys.readouterr().err
