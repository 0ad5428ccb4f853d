"""Facts of the NTCIR NW100G-01 README.data (../shared/specs/source-docs/
ntcir-nw100g-01-readme-data.txt, one line of text: cited by its section numbers, "§2") checked
with list lines built here from its words and against the tree the ``ntcir`` writer leaves;
docs/source-facts.md lists each fact and its test (the cooked rules and the euc tree are
tested in tests/formats/test_ntcir_cooked.py and tests/plugins/test_ntcir_readme_facts.py)."""

from __future__ import annotations

import importlib
import re

import pytest

from tests import helpers
from tests.plugins.nutch_inputs import warc_response


def _lists():
    """The NTCIR list module."""
    return importlib.import_module("crawlmill.formats.ntcir.lists")


#: one line per list, built from the README's words: §2 "a site id, a server type, a host
#: name, and a port number, separated by single tab characters and terminated by a new line
#: character" ("It may take another number than "80""); §3 "an aliased site name and the
#: corresponding site id" ("When the port number is "80", the port number part is often
#: omitted"); §4 "a document id and a URL"; §5 "an duplicated URL and the corresponding
#: document id"; §6 "the same form as the "doclist""; §7 "a pair of a document id and a URL".
LINES = {
    "sitelist": [b"000001\thttp\twww.example.jp\t80\n", b"000002\thttp\tb.example.jp\t8080\n"],
    "aliaslist": [b"http://example.jp\t000001\n", b"http://alias.example.jp:8080\t000002\n"],
    "doclist": [b"NW000000001\thttp://www.example.jp/\n"],
    "duplist": [b"http://www.example.jp/index.html\tNW000000001\n"],
    "targetlist": [b"NW000000001\thttp://www.example.jp/\n", b"NW000000002\thttp://c.jp/\n"],
    "linklist": [b"NW000000001\thttp://c.jp/\n"],
}
FIELDS = {"sitelist": 4, "aliaslist": 2, "doclist": 2, "duplist": 2, "targetlist": 2,
          "linklist": 2}  # fmt: skip


@pytest.mark.parametrize("name", list(LINES))
def test_each_list_line_as_the_readme_describes_it(name):
    """§2-§7: the fields of each list's line, tab-separated, a line per item; read by our list
    reader as those fields and written back byte for byte."""
    lists = _lists()
    data = b"".join(LINES[name])
    items = list(lists.read_list(data, name))
    assert all(isinstance(i, lists.ListItem) for i in items), items
    assert [len(i.fields) for i in items] == [FIELDS[name]] * len(LINES[name])
    assert ["\t".join(i.fields).encode() + b"\n" for i in items] == LINES[name]
    assert lists.write_list(name, [i.fields for i in items]) == data


def test_ids_and_the_server_type():
    """§2 "The site id is a string of six decimal characters"; "The server type is fixed to
    "http""; §4 "A document id is a string of nine decimal characters preceded by a prefix
    "NW""."""
    lists = _lists()
    assert lists.is_site_id("012345") and not lists.is_site_id("12345")
    assert lists.is_doc_id("NW000000001") and not lists.is_doc_id("NW00000001")
    (bad,) = lists.read_list(b"000001\tftp\twww.example.jp\t21\n", "sitelist")
    assert isinstance(bad, lists.ListProblem) and "http" in bad.reason
    (bad,) = lists.read_list(b"NW000000001\thttp://x/\n", "duplist")  # swapped fields
    assert isinstance(bad, lists.ListProblem)


def test_the_writer_lays_out_the_tree_as_the_readme_names_it(tmp_path):
    """§1 "raw/??/????/??????/*", "euc/...", "cooked/..."; §8 "The names of the first level
    subdirectories are the first two characters of the site id's ... second level ... the
    first four characters ... third level ... the site id's themselves"; "the number of
    crawling sequence in four columns zero padding and a extention ".data"", ".meta"; the meta
    elements NW:DOCID (the id "listed in the doclist"), NW:CTYPE, NW:URL, NW:HTTPH; §1 the six
    lists beside README.data."""
    src = tmp_path / "in.warc"
    src.write_bytes(
        warc_response("http://www.example.jp/", b"<html><body>a</body></html>", n=1)
        + warc_response("http://www.example.jp/b", b"<html><body>b</body></html>", n=2)
    )
    out = tmp_path / "out"
    result = helpers.convert(src, "ntcir", out)
    assert result.exit_code == 0, result.stderr
    for name in ("sitelist", "aliaslist", "doclist", "duplist", "targetlist", "linklist"):
        assert (out / name).is_file(), name
    doclist = dict(line.split("\t") for line in (out / "doclist").read_text().splitlines())
    assert len(doclist) == 2
    for tree in ("raw", "euc", "cooked"):
        data = sorted(p.relative_to(out).as_posix() for p in (out / tree).rglob("*.data"))
        assert len(data) == 2, tree
        for rel in data:
            m = re.fullmatch(r"(\w+)/(\d{2})/(\d{4})/(\d{6})/(\d{4})\.data", rel)
            assert m and m.group(1) == tree, rel
            assert m.group(4)[:2] == m.group(2) and m.group(4)[:4] == m.group(3), rel
            meta = (out / rel[: -len(".data")]).with_suffix(".meta").read_bytes()
            for element in (b"NW:DOCID", b"NW:DATE", b"NW:CTYPE", b"NW:URL", b"NW:HTTPH"):
                assert element in meta, (rel, element)
            assert any(doc.encode() in meta for doc in doclist), rel
    sites = (out / "sitelist").read_text().splitlines()
    assert sites == [f"{m}\thttp\twww.example.jp\t80" for m in [sites[0].split("\t")[0]]]
