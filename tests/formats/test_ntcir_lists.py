"""NTCIR list files: every list's line format (README sections 2-7), bad lines reported with
line and offset beside the good items, bytes kept through a read and a write."""

from __future__ import annotations

import pytest
from crawlmill.formats.ntcir.lists import (
    LIST_NAMES,
    ListItem,
    ListProblem,
    is_doc_id,
    is_site_id,
    read_list,
    write_list,
)

GOOD = {
    "sitelist": [["000001", "http", "www.example.jp", "80"], ["000002", "http", "b.jp", "8080"]],
    "aliaslist": [["http://example.jp", "000001"], ["http://www2.example.jp:8080", "000001"]],
    "doclist": [["NW000000001", "http://www.example.jp/"], ["NW000000002", "http://b.jp/x y"]],
    "targetlist": [["NW000000001", "http://www.example.jp/"], ["NW000000003", "http://c.jp/"]],
    "duplist": [["http://example.jp/", "NW000000001"], ["http://example.jp/index.html", "NW000000001"]],
    "linklist": [["NW000000001", "http://c.jp/"], ["NW000000002", "http://www.example.jp/"]],
}  # fmt: skip


@pytest.mark.parametrize("name", LIST_NAMES)
def test_written_and_read_back(name):
    data = write_list(name, GOOD[name])
    items = list(read_list(data, name))
    assert [list(i.fields) for i in items] == GOOD[name]
    assert all(isinstance(i, ListItem) for i in items)
    assert items[1].line == 2 and items[1].offset == data.index(b"\n") + 1
    assert write_list(name, [i.fields for i in items]) == data


def test_non_utf8_urls_keep_their_bytes():
    data = b"NW000000001\thttp://a.jp/\xa4\xa2\xa4\xa4\n"
    (item,) = read_list(data, "doclist")
    assert write_list("doclist", [item.fields]) == data


@pytest.mark.parametrize(
    ("name", "line", "reason"),
    [
        ("sitelist", b"00001\thttp\ta.jp\t80", "six decimal"),
        ("sitelist", b"000001\thttp\ta.jp\t0", "port"),
        ("sitelist", b"000001\thttp\ta.jp", "4"),
        ("aliaslist", b"a.jp\t000001", "http://host"),
        ("aliaslist", b"http://a.jp\t1", "six decimal"),
        ("doclist", b"NW00000001\thttp://a/", "nine decimal"),
        ("doclist", b"NW000000001\t", "URL is empty"),
        ("duplist", b"NW000000001\thttp://a/", "nine decimal"),  # fields swapped
        ("linklist", b"NW000000001 http://a/", "1 tab-separated"),
        ("doclist", b"", "empty line"),
    ],
)
def test_a_bad_line_is_a_problem_beside_the_good_items(name, line, reason):
    good = write_list(name, GOOD[name][:1])
    data = good + line + b"\n" + good
    found = list(read_list(data, name, "lists/" + name))
    assert [type(f) for f in found] == [ListItem, ListProblem, ListItem]
    problem = found[1]
    assert problem.path == "lists/" + name and problem.line == 2
    assert problem.offset == len(good) and reason in problem.reason


def test_writing_refuses_what_would_not_read_back():
    with pytest.raises(ValueError, match="tab or a line break"):
        write_list("doclist", [["NW000000001", "http://a/\tb"]])
    with pytest.raises(ValueError, match="nine decimal"):
        write_list("doclist", [["NW1", "http://a/"]])


def test_ids():
    assert is_site_id("012345") and not is_site_id("12345") and not is_site_id("0123456")
    assert is_doc_id("NW012345678") and not is_doc_id("nw012345678")
    assert not is_doc_id("NW01234567") and not is_site_id("01234５")
