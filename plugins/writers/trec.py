"""``trec`` writer: TREC text (``TrecCollection``) or TREC web (``TrecwebCollection``) documents.

``format: text`` (the default) writes each HTML page's extracted text
(:mod:`crawlmill.algorithms.text_extraction`, option ``extractor``)::

    <DOC>
    <DOCNO>id</DOCNO>
    <TEXT>
    the text
    </TEXT>
    </DOC>

``format: web`` writes the page as GOV2's TREC web files hold it: the URL and
the HTTP head (line ends LF) in ``<DOCHDR>``, then the HTML body (``Transfer-Encoding`` and
``Content-Encoding`` undone, bytes in their own charset)::

    <DOC>
    <DOCNO>id</DOCNO>
    <DOCHDR>
    http://example.com/
    HTTP/1.1 200 OK
    Content-Type: text/html

    </DOCHDR>
    <html>...
    </DOC>

A body that does not end in LF gets one before ``</DOC>`` (counted as ``LF added before
</DOC>``).

The text of ``format: text`` is SGML text (``escape: sgml``, the default): ``&``, ``<`` and
``>`` written ``&amp;``, ``&lt;``, ``&gt;``, which the markup-aware readers decode back
(Anserini's TrecCollection passes the ``<TEXT>`` element through Jsoup; ir_datasets' ``sax``
and ``BS4`` parsers). ``escape: tags`` writes the text as it is, for
readers that take the lines literally (ir_datasets' ``text`` parser), but the ``<`` of a TREC
tag (:data:`TEXT_TAGS`), which becomes ``&lt;``: those readers find the markers by plain
string search (``</TEXT>`` at a line start, ``</DOC>``), so a marker inside the text would
cut the document. In ``web``, where the HTML is raw, a ``<DOC>``, ``<DOCNO>`` or ``<DOCHDR>``
tag (opening or closing, any case) in the HTML or the HTTP head gets a ``_`` after its name
(``</DOC>`` -> ``</DOC_>``: an unknown tag an HTML parser ignores as it ignored ``</DOC>``;
GOV2's reader in ir_datasets finds ``</DOC>\\n`` anywhere, Anserini a trimmed line starting
with ``</DOC>``). Each document so changed (``tags`` or ``web``) is reported (warning
``trec-tag-escaped``) and counted (``TREC tags escaped``).

Document ids follow the pyserini writer's rule (``doc_id``, the rule ``simhash-dedup``'s
cluster table uses); an id the format cannot hold (a line break, ``<`` or ``>``, blanks at its
ends, not UTF-8) is refused (quarantine ``unwritable-doc-id``). Records that are not HTML
pages go to the quarantine (``no-text``), a page without text is written empty (``empty
text``), and an id met twice is reported (``duplicate-doc-id``), as in the pyserini writer.
"""

from __future__ import annotations

import html
import re
from typing import Any, Literal

from crawlmill.algorithms.text_extraction import BODY_CAP, is_html
from crawlmill.core import Record, RecordKind, hookimpl
from crawlmill.formats.http.body import decode_body, header_tokens
from pydantic import Field

from .doc_ids import DocIds
from .text_base import TextDocOptions, TextSinkWriter

__all__ = ["TEXT_TAGS", "WEB_TAGS", "TrecWriter", "escape_tags"]

#: the tags of a TREC web document whose markers a consumer looks for.
WEB_TAGS = ("DOC", "DOCNO", "DOCHDR")
#: those and the content tags Anserini's TrecCollection and ir_datasets' TrecDocs read
#: (``TEXT HEADLINE TITLE HL HEAD TTL DD DATE LP LEADPARA``).
TEXT_TAGS = (*WEB_TAGS, "TEXT", "HEADLINE", "TITLE", "HL", "HEAD", "TTL", "DD", "DATE")
TEXT_TAGS += ("LP", "LEADPARA")


def _tag_pattern(tags: tuple[str, ...]) -> str:
    return r"<(/?)(" + "|".join(sorted(tags, key=len, reverse=True)) + r")(?=[\s>])"


_TEXT_TAG = re.compile(_tag_pattern(TEXT_TAGS), re.I)
_WEB_TAG = re.compile(_tag_pattern(WEB_TAGS).encode("ascii"), re.I)
_BAD_ID = re.compile(r"[\r\n<>\x00-\x1f\x85\u2028\u2029]")


def escape_tags(data: Any, web: bool) -> tuple[Any, int]:
    """``data`` (text in ``text``, bytes in ``web``) with each TREC tag neutralised and how
    many: ``<`` -> ``&lt;`` in text, ``</DOC>`` -> ``</DOC_>`` in web bytes."""
    if web:
        return _WEB_TAG.subn(rb"<\1\2_", data)
    return _TEXT_TAG.subn(r"&lt;\1\2", data)


class TrecWriter(TextSinkWriter):
    """TREC text or TREC web documents, one ``<DOC>`` per HTML page."""

    name = "trec"

    class Options(TextDocOptions):
        """Options of the trec writer (``extractor``, of format text, ``doc_id`` and
        ``layout`` come from TextDocOptions)."""

        writes = "trec"

        format: Literal["text", "web"] = Field(
            "text",
            description="text: <DOCNO> and the extracted <TEXT> (TrecCollection); web: "
            "<DOCNO>, <DOCHDR> with the URL and HTTP head, then the raw HTML "
            "(TrecwebCollection, GOV2 style)",
        )
        escape: Literal["sgml", "tags"] = Field(
            "sgml",
            description="format text: sgml writes &, <, > as &amp; &lt; &gt; (Anserini's "
            "Jsoup, ir_datasets' sax and BS4 parsers read the text back); tags "
            "writes the text as it is but the < of a TREC tag (for readers that take lines "
            "literally, as ir_datasets' text parser)",
        )
        compress: bool = Field(False, description="gzip each file (.trec.gz, .trecweb.gz)")

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.trec`` (text) or ``.trecweb`` (web), ``.gz`` added with ``compress``."""
        base = ".trecweb" if options.format == "web" else ".trec"
        return base + ".gz" if options.compress else base

    def open(self, ctx: Any) -> None:
        """Start the input's layout; the first file comes with the first page."""
        self.open_layout(ctx)
        self.ids = DocIds(self.options.doc_id, ctx)
        self.web = self.options.format == "web"

    def write(self, record: Record) -> None:
        """One ``<DOC>`` for an HTML page; the quarantine for a record without one."""
        page = None
        if not self.web:
            page = self.page(record, head=False)  # None: quarantined
            if page is None:
                return
        elif record.kind not in (RecordKind.RESPONSE, RecordKind.RESOURCE) or not is_html(record):
            self.no_text(record)
            return
        doc_id = self.ids.name(record)
        try:
            id_bytes = doc_id.encode("utf-8")
        except UnicodeEncodeError:
            id_bytes = b""
        if not id_bytes or _BAD_ID.search(doc_id) or doc_id != doc_id.strip():
            self.ctx.quarantine(
                record, f"unwritable-doc-id: {doc_id!r} cannot be a TREC <DOCNO> (line break, "
                "<, >, blanks at its ends or not UTF-8)",
            )  # fmt: skip
            return
        self.ids.note(doc_id)
        if page is not None:
            data, escaped = self._text_doc(id_bytes, page.text)
        else:
            data, escaped = self._web_doc(id_bytes, record)
        if escaped:
            self.ctx.count("TREC tags escaped")
            self.ctx.report_warning(
                "trec-tag-escaped",
                f"doc {doc_id!r}: {escaped} TREC tag(s) inside the "
                f"{'HTML or HTTP head' if self.web else 'text'} neutralised",
            )
        file = self.file_for(record)
        file.sink.write(data)
        self.count(record)

    def _text_doc(self, doc_id: bytes, text: str) -> tuple[bytes, int]:
        if not text:
            self.ctx.count("empty text")
        if self.options.escape == "sgml":
            text, escaped = html.escape(text, quote=False), 0
        else:
            text, escaped = escape_tags(text, web=False)
        body = text.encode("utf-8", "replace") + b"\n" if text else b""
        return b"<DOC>\n<DOCNO>%s</DOCNO>\n<TEXT>\n%s</TEXT>\n</DOC>\n" % (doc_id, body), escaped

    def _web_doc(self, doc_id: bytes, record: Record) -> tuple[bytes, int]:
        headers = record.http_headers
        body = record.payload
        if header_tokens(headers, b"transfer-encoding") or header_tokens(
            headers, b"content-encoding"
        ):
            decoded = decode_body(body, headers, BODY_CAP)
            if decoded != body:
                self.ctx.count("bodies decoded")
                if len(decoded) == BODY_CAP:
                    self.ctx.count("bodies cut at 16 MiB")
                body = decoded
        head = (record.http_head or b"").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        url = record.url_bytes or b""
        head, in_head = escape_tags(url + b"\n" + head, web=True)
        body, in_body = escape_tags(body, web=True)
        if not body.endswith(b"\n"):
            body += b"\n"
            self.ctx.count("LF added before </DOC>")
        doc = b"<DOC>\n<DOCNO>%s</DOCNO>\n<DOCHDR>\n%s</DOCHDR>\n%s</DOC>\n"
        if not head.endswith(b"\n"):
            head += b"\n"
        return doc % (doc_id, head, body), in_head + in_body


@hookimpl
def crawlmill_register_writers(register):
    """Register ``trec``."""
    register(TrecWriter)
