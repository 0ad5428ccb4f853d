"""The text component's shortcuts for the writers (benchmarks/bench_ir_outputs.py): no title
lookup when a writer writes none, and the faster blank tidying, each giving the same text."""

from __future__ import annotations

import random
import re

import pytest
from crawlmill.algorithms.text_extraction import _tidy, extract_html, record_text
from crawlmill.core import Record, RecordKind

PAGE = (
    "<html><head><title>  The  title </title><meta name='description' content='About it'>"
    "</head><body><nav>Home | About</nav><article>"
    + "".join(
        f"<p>Paragraph {i}:\tthe\u00a0kitchen  serves bread,\r\n soup and coffee every "
        f"morning from seven until eleven, and the terrace opens when it is sunny.</p>\n\n"
        for i in range(5)
    )
    + "</article></body></html>"
)


@pytest.mark.parametrize("extractor", ["resiliparse", "lxml"])
def test_without_head_the_text_is_the_same_and_no_title_is_looked_for(extractor):
    text, title, description = extract_html(PAGE, extractor)
    assert (title, description) == ("The title", "About it")
    assert extract_html(PAGE, extractor, head=False) == (text, None, None)
    record = Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/",
        http_head=b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n",
        payload=PAGE.encode("utf-8"),
        content_type="text/html",
    )
    page = record_text(record, extractor, head=False)
    assert page is not None and page.text == text and page.title is None


def test_tidy_equals_the_two_regex_rule():
    # the rule the component documents: runs of blanks become one space, blank lines go,
    # lines are stripped; \s is every character str.isspace() accepts
    blanks = re.compile(r"[ \t\r\f\v\u00a0]+")
    lines = re.compile(r"\s*\n\s*")
    alphabet = " \t\r\n\f\v\u00a0\u2003\x1c\x85\u2028\u3000ab"
    rng = random.Random(23)
    cases = ["".join(rng.choices(alphabet, k=rng.randint(0, 14))) for _ in range(3000)]
    cases += [PAGE, "", " \n ", "a  b\n\n c \u00a0\n"]
    for case in cases:
        assert _tidy(case) == lines.sub("\n", blanks.sub(" ", case)).strip(), repr(case)
