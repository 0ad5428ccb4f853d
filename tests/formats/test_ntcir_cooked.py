"""The NTCIR cooked rules (README section 10), each on HTML written to exercise it: nested and
unterminated comments, script in odd places, uppercase tags, entities in attributes, broken
markup; and the entity table against Unicode's own data."""

from __future__ import annotations

import html.entities

import pytest
from crawlmill.formats.ntcir.cooked import ENTITIES, CookOptions, cook, entity_text

# -- rule 1: comments, XML declarations and definitions ------------------------------------


@pytest.mark.parametrize(
    ("page", "cooked"),
    [
        ("a<!-- x -->b", "ab"),
        ("a<!-- x <!-- y --> z -->b", "a z -->b"),  # no nesting: the first --> ends it
        ("a<!-- <b>bold</b> -->b", "ab"),
        ("a<!-- never closed <p>text", "a"),  # to the end of the page
        ('<?xml version="1.0" encoding="EUC-JP"?>a', "a"),
        ("<?php echo 1 ?>a", "a"),
        ('<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN">a', "a"),
        ("a<![CDATA[ <b> & ]]>b", "ab"),
        ("a<!ELEMENT x (#PCDATA)>b", "ab"),
    ],
)
def test_rule_1_comments_and_declarations(page, cooked):
    assert cook(page) == cooked


# -- rule 2: script and style with their content -------------------------------------------


@pytest.mark.parametrize(
    ("page", "cooked"),
    [
        ("a<script>document.write('<p>x</p>')</script>b", "ab"),
        ('a<SCRIPT LANGUAGE="JavaScript">if (a < b) {}</SCRIPT >b', "ab"),
        ("<title>t<script>x</script></title>", "t"),  # in an odd place
        ("a<style type='text/css'>p { color: red }</style>b", "ab"),
        ("a<script>never closed <p>text", "a"),
        ("a<scripts>kept</scripts>b", "akeptb"),  # another tag, only removed itself
        ("a<script>x</style>y</script>b", "ab"),  # the end tag must match
    ],
)
def test_rule_2_script_and_style(page, cooked):
    assert cook(page) == cooked


# -- rules 3 and 4: meta keywords/description and img alt on lines of their own ------------


def test_rule_3_meta_keywords_and_description():
    page = (
        '<META NAME="Keywords" CONTENT="information retrieval, test collection">'
        "<meta name=description content='A  page\n about &amp; &lt;things&gt;'>"
        '<meta name="author" content="nobody">body'
    )
    assert cook(page) == (
        "\n<META>information retrieval, test collection\n\n<META>A page about & <things>\nbody"
    )


def test_rule_4_img_alt():
    page = 'x<IMG SRC="a.gif" ALT="&Eacute;t&eacute; &#12354;photo">y<img src=b.gif>z'
    assert cook(page) == "x\n<ALT>Ete photo\ny" + "z"


def test_markers_are_options():
    opts = CookOptions(meta_marker="[K] ", alt_marker="[A] ")
    page = '<meta name=keywords content=k><img alt="a">'
    assert cook(page, opts) == "\n[K] k\n\n[A] a\n"


def test_an_attribute_value_may_hold_a_closing_bracket():
    assert cook('<img alt="a > b" src=x>c') == "\n<ALT>a > b\nc"


# -- rule 5: every other tag ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "cooked"),
    [
        ("<HTML><BODY><P>one<BR>two</P></BODY></HTML>", "onetwo"),
        ('<a href="x.html" title="a>b">link</a>', "link"),
        ("a < b and c<d", "a < b and c"),  # "<d" starts a tag that never closes
        ("1 <= 2", "1 <= 2"),  # "<" not followed by a letter is text
        ("<p\nclass=x\n>text", "text"),
    ],
)
def test_rule_5_other_tags(page, cooked):
    assert cook(page) == cooked


# -- rules 6 and 7: references -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a&#2345;b&#x2A1;c&#X2a1;d", "abcd"),  # rule 6
        ("&#65", ""),  # a numeric reference without ";"
        ("&amp;&lt;&gt;&quot;&nbsp;", '&<>" '),
        ("&Alpha;&Omega;&alpha;&omega;", "ΑΩαω"),
        ("&sigmaf;", "σ"),  # no final sigma in EUC-JP
        ("&eacute;&Ntilde;&uuml;&ccedil;&Oslash;", "eNucO"),
        ("&AElig;&ETH;&szlig;&aelig;&eth;", "AEETHssaeeth"),
        ("&copy;&hearts;&thorn;&unknownentity;", "    "),  # others: one space each
        ("AT&T; &amp done", "AT  &amp done"),  # "&T;" is a name; "&amp" without ";" is text
        ("&amp;lt;", "&lt;"),  # replaced once, not again
    ],
)
def test_rules_6_and_7_references(text, expected):
    assert entity_text(text) == expected
    assert cook(text) == expected


def test_references_are_case_sensitive():
    assert entity_text("&Eacute;&eacute;&AMP;") == "Ee "


def test_the_entity_table_against_unicode():
    """Greek letters map to Greek letters EUC-JP can hold; letters with marks to the bare
    letter; nothing maps to more than three characters."""
    for name, code in html.entities.name2codepoint.items():
        value = ENTITIES.get(name)
        if 0x391 <= code <= 0x3A9 or 0x3B1 <= code <= 0x3C9:
            assert value is not None and value.encode("euc_jp"), name
        if value is not None:
            assert 1 <= len(value) <= 3, (name, value)
    bare = {"Aacute": "A", "eacute": "e", "Ntilde": "N", "ccedil": "c", "Yacute": "Y"}
    assert {name: ENTITIES[name] for name in bare} == bare
    assert ENTITIES["yuml"] == "y" and ENTITIES["Ouml"] == "O"


def test_the_cooked_text_of_a_whole_page_encodes_to_euc_jp():
    page = (
        '<?xml version="1.0"?><!DOCTYPE html><html><head><title>検索 &amp; 評価</title>'
        '<meta name="keywords" content="情報検索,&Alpha;&beta;"><style>b{}</style></head>'
        '<body><!-- c --><p>本文&nbsp;です&#169;<img src=x alt="画像"></p>'
        "<script>x()</script></body></html>"
    )
    cooked = cook(page)
    assert cooked == "検索 & 評価\n<META>情報検索,Αβ\n本文 です\n<ALT>画像\n"
    assert cooked.encode("euc_jp").decode("euc_jp") == cooked
