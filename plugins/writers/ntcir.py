"""``ntcir`` writer: any captures as an NTCIR WEB (NW100G-01) tree.

Ids are allocated over the whole run before a page is written (a collect/reduce pass,
docs/plugin_hooks.md "Whole-collection steps"):

* **sites**: one per host and port (after the ``aliases`` option maps alias hosts to their
  site's host), numbered ``000001``... in the order of their host name, then port; a site's
  other hosts go to ``aliaslist`` (as ``http://host`` or ``http://host:port``); an ``https``
  site is listed with server type ``https`` (never as ``http`` on port 443), warned
  ``sitelist-not-http`` (NW100G-01 lists http sites only); ``aliaslist`` holds each alias
  with the site of the pages that named it: a host the ``aliases`` option mapped, with the
  port the page was fetched on (left out when it is the scheme's default), and the aliases
  a page read from an NTCIR tree carries (``extras["ntcir"]["aliases"]``); an alias naming
  two sites is listed with the first (``list-entry-skipped`` for the other);
* **pages**: every capture that takes part (``response`` and ``resource`` records with an
  ``http``/``https`` URL), numbered per site ``0001``... in pipeline order (input order, then
  record order; more than 9999 pages widen the number); not a page: a later capture of a URL
  (README: "only one URL which was found first is selected"; quarantined
  ``ntcir-duplicate-url``) and a capture whose payload an earlier page has (README's duplist:
  "pages having a same content"; its URL goes to ``duplist`` with that page's doc id, the
  record is quarantined ``ntcir-duplicate-content``), except in a tree read again with its
  own ids;
* **doc ids**: ``NW`` + nine digits, ``NW000000001``... over the pages in site order, then
  page order; then, for ``targetlist``, the link targets that are no page of the run, in URL
  order (the README's "discovered but not crawled" documents).

Each page is written as ``<tree>/<id[:2]>/<id[:4]>/<id>/<NNNN>.data`` plus ``.meta`` in each
tree of ``trees``: ``raw`` the payload bytes as captured; ``euc`` a text page (a ``text/``,
HTML or XML type, or none) converted from its real charset (from the HTTP header, then a
meta tag, then ``chardet``) to EUC-JP (:func:`crawlmill.formats.ntcir.japanese.to_euc_jp`:
Microsoft's Shift_JIS code points mapped to JIS's; a character EUC-JP's JIS X 0208 part lacks
written as an HTML numeric reference ``&#233;``, which keeps it, and counted
``euc-unmappable``), other pages (images...) as they are; ``cooked`` the NTCIR cooked text
(:mod:`crawlmill.formats.ntcir.cooked`) of the page, in EUC-JP, a character EUC-JP lacks
replaced as rule 7 replaces its entity (``é`` -> ``e``, ``Æ`` -> ``AE``, another -> one
space), counted ``cooked-unmappable``, never ``?`` (the README: euc and cooked data are EUC).
Both are made from the page as a browser has it (de-chunked, ``Content-Encoding`` undone,
counted ``page-decoded``). The ``.meta`` (:mod:`crawlmill.formats.ntcir.meta`, syntax and
wrapper options) holds ``NW:DOCID``, ``NW:DATE`` (the head's ``Last-Modified``, empty without
one), ``NW:CTYPE`` (the head's ``Content-Type``), ``NW:URL`` and ``NW:HTTPH`` (the HTTP head);
the same file in every tree; a page read from an NTCIR tree keeps its ``NW:HTTPH`` block as
stored (the reader adds the blank line that ends a head when the block has none: it is not
written back).

The lists (``sitelist``, ``aliaslist``, ``doclist``, ``targetlist``, ``duplist`` from the
records' duplicate URLs and the duplicates by content, ``linklist`` from their outlinks: a
record's own, else those of its HTML as Nutch's parse-html finds them,
:func:`crawlmill.formats.hadoop.nutch_write_links.outlinks_of`) are written, sorted by their
first field, by the task of the run's first input. The crawl's scope is its sites: a link
whose host and port are no page's (nor an alias's) is neither in ``linklist`` nor a target
(counted ``links-out-of-scope``); ``targetlist`` is the pages and the in-scope link targets
that are no capture's or duplicate's URL. Ids, hosts and URLs never make a path: every
path is built from digits. Records that do not take part are quarantined
(``not-a-capture``).

The allocation (:mod:`crawlmill.plugins.writers.ntcir_ids`) works on Arrow columns, a few
hundred bytes per page in the driver at most (``benchmarks/bench_ntcir_ids.py``), and gives a
table in input order, so each task finds its pages by binary search.

With ``variant: nw1000g`` the tree is NW1000G-04's (docs/formats/ntcir.md): site ids in seven
digits, each page ``<tree>/<NNN>/<part[:3]>/<part[3:5]>xx/<site>_<part>.dat`` (the part is
the page number in five digits; ``cooked`` goes to ``cook/``), each site's
``<tree>/<NNN>/<site>.filelist`` (``<doc id> <part> <url>`` per page) and
``lists/sitelist/<NNN>`` (``<site id>\t<host>``); the HTTP head, date and content type have
no place there (warned per record: ``http-head-not-written``, ``date-not-written``).

A tree read by the ``ntcir`` reader is written again with the same ids when every page
carries its site and doc id (``extras["ntcir"]``) and they agree; otherwise every id is
allocated anew.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

from crawlmill.core import LazySchema, PluginOptions, Record, RecordKind, Writer, hookimpl
from crawlmill.core.extras import NtcirExtras
from crawlmill.formats.hadoop.nutch_write_links import outlinks_of
from crawlmill.formats.http.body import decode_body
from crawlmill.formats.http.head import parse_http_head
from crawlmill.formats.http.html_charset import charset_of_content_type, detect_charset
from crawlmill.formats.ntcir.cooked import CookOptions, cook, rule7_char
from crawlmill.formats.ntcir.japanese import to_euc_jp
from crawlmill.formats.ntcir.meta import CTYPE, DATE, DOCID, HTTPH, URL, ended_head, write_meta
from crawlmill.formats.ntcir.nw1000g import dat_path, format_filelist_line
from crawlmill.plugins.writers.original_date import warn_original_date_dropped
from pydantic import Field

__all__ = ["NtcirWriter"]

_TAKES_PART = (RecordKind.RESPONSE, RecordKind.RESOURCE)
#: the most bytes a page decompresses to for the euc and cooked trees.
_PAGE_CAP = 1 << 30


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("host", pa.string()),
            ("port", pa.int32()),
            ("url", pa.string()),
            ("links", pa.list_(pa.string())),
            ("dups", pa.list_(pa.string())),
            ("site_hint", pa.string()),
            ("page_hint", pa.int64()),
            ("doc_hint", pa.string()),
            ("scheme", pa.string()),
            ("aliases", pa.list_(pa.string())),
            ("digest", pa.string()),
        ]
    )


def _where(url: str) -> tuple[str, str, int] | None:
    """Scheme, host and port of an ``http``/``https`` URL (the port the scheme's default when
    left out), or ``None``."""
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            return None
        return scheme, parts.hostname.lower(), parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        return None


class NtcirWriter(Writer):
    """NTCIR WEB trees (raw/euc/cooked ``.data`` + ``.meta``) and their six lists."""

    name = "ntcir"

    class Options(PluginOptions):
        trees: list[Literal["raw", "euc", "cooked"]] = Field(
            default_factory=lambda: ["raw", "euc", "cooked"], description="the trees written"
        )
        meta_syntax: Literal["tagged", "lines"] = Field(
            "tagged",
            description="the .meta field syntax: <NW:X>v</NW:X> or NW:X v lines (both are "
            "reconstructions: docs/formats/ntcir.md)",
        )
        meta_wrapper: tuple[str, str] = Field(
            ("<META>", "</META>"), description="the .meta file's first and last line"
        )
        meta_marker: str = Field("<META>", description="cooked rule 3's marker string")
        alt_marker: str = Field("<ALT>", description="cooked rule 4's marker string")
        aliases: dict[str, str] = Field(
            default_factory=dict,
            description="alias host -> the host of its site (the alias goes to aliaslist)",
        )
        variant: Literal["nw100g", "nw1000g"] = Field(
            "nw100g",
            description="nw100g: NW100G-01's .data + .meta trees and six lists; nw1000g: "
            "NW1000G-04's .dat pages named by a .filelist per site, cook/, seven-digit site "
            "ids, lists/sitelist/ (no .meta: the HTTP head is not written)",
        )

    collect_schema: ClassVar[Any] = LazySchema(_schema)

    # -- the collect pass ----------------------------------------------------------------------

    def _takes_part(self, record: Record) -> tuple[str, str, int] | None:
        if record.kind not in _TAKES_PART or record.url is None:
            return None
        return _where(record.url)

    def collect(self, record: Record) -> list[tuple] | None:
        """One row per capture that takes part: host, port, URL, outlinks, duplicate URLs and
        the ids it had in an NTCIR tree."""
        where = self._takes_part(record)
        if where is None:
            return None
        scheme, seen, port = where
        host = self.options.aliases.get(seen, seen)
        info: NtcirExtras = record.extras.get("ntcir") or {}
        if info.get("host") and str(info.get("port", "")).isdigit():  # its sitelist entry
            host, port = str(info["host"]).lower(), int(info["port"])
            seen = host
        aliases = [str(a) for a in info.get("aliases") or []]  # read from an aliaslist
        if host != seen:  # mapped by the aliases option: the alias as the page saw it
            default = 443 if scheme == "https" else 80
            aliases.append(f"{scheme}://{seen}" + ("" if port == default else f":{port}"))
        return [
            (
                host,
                port,
                record.url,
                list(dict.fromkeys(url for url, _ in outlinks_of(record, True))),
                list(info.get("duplicates") or []),
                info.get("site"),
                int(info["page"]) if str(info.get("page", "")).isdigit() else None,
                record.doc_id if info else None,
                scheme,
                aliases,
                hashlib.sha1(record.payload).hexdigest() if record.payload else None,
            )
        ]

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: Any) -> Any:
        """Sites, pages and doc ids (see the module docstring): one row per page (``input``
        >= 0) and per link target that is no page (``input`` -1), by doc id."""
        from .ntcir_ids import allocate

        return allocate(rows, options, ctx)

    # -- the final pass ------------------------------------------------------------------------

    def open(self, ctx: Any) -> None:
        """This input's pages (by seq) from the table (in input order: a binary search)."""
        from crawlmill.core.reduce_tables import rows_of_input

        self.ctx = ctx
        self.cook_options = CookOptions(self.options.meta_marker, self.options.alt_marker)
        mine = rows_of_input(ctx.table(), ctx.input.index)
        self.pages = dict(
            zip(
                mine["seq"].to_pylist(),
                zip(mine["site"].to_pylist(), mine["page"].to_pylist(), mine["doc"].to_pylist(),
                    [bool(d) for d in mine["dups"].to_pylist()], strict=True),
                strict=True,
            )
        )  # fmt: skip

    def write(self, record: Record) -> None:
        """A page in every tree, or the quarantine for a record that takes no part."""
        if self._takes_part(record) is None:
            self.ctx.quarantine(record, "not-a-capture: an NTCIR tree holds HTTP captures only")
            return
        site, page, doc, by_content = self.pages[self.ctx.seq]
        if page == 0:  # the page of its doc id is an earlier capture
            if by_content:
                why = (f"ntcir-duplicate-content: {record.url} has the content of doc {doc} "
                       "(an earlier capture): its URL is listed in duplist")  # fmt: skip
            else:
                why = (f"ntcir-duplicate-url: {record.url} is doc {doc}, written from an "
                       "earlier capture (pipeline order): a tree holds one page per URL")  # fmt: skip
            self.ctx.quarantine(record, why)
            return
        if self.options.variant == "nw1000g":
            self._write_dat(record, site, page, doc)
            return
        meta = write_meta(
            self._fields(record, doc),
            self.options.meta_syntax,
            tuple(s.encode("utf-8") for s in self.options.meta_wrapper),
        )
        euc, cooked = self._derived(record)
        data = {"raw": record.payload, "euc": euc, "cooked": cooked}
        width = max(4, len(str(page)))
        for tree in self.options.trees:
            base = f"{tree}/{site[:2]}/{site[:4]}/{site}/{page:0{width}d}"
            with self.ctx.create(base + ".data") as fh:
                fh.write(data[tree])
            with self.ctx.create(base + ".meta") as fh:
                fh.write(meta)
        self._refuse(record, doc)

    def _write_dat(self, record: Record, site: str, page: int, doc: str) -> None:
        """An NW1000G-04 page: ``<tree>/<dat_path>`` in each tree (``cooked`` is ``cook/``)."""
        euc, cooked = self._derived(record)
        data = {"raw": record.payload, "euc": euc, "cooked": cooked}
        for tree in self.options.trees:
            folder = "cook" if tree == "cooked" else tree
            with self.ctx.create(f"{folder}/{dat_path(site.zfill(7), _part(page))}") as fh:
                fh.write(data[tree])
        self._refuse(record, doc)
        warn = self.ctx.report_warning
        if record.http_head:
            warn("http-head-not-written", "the HTTP head: an NW1000G-04 tree has no .meta")
        if record.date is not None:
            warn("date-not-written", "the capture date: an NW1000G-04 tree has no .meta")
        if record.content_type and "content_type" in record.changed:
            warn("content-type-not-written", "the content type: an NW1000G-04 tree has no .meta")

    def _refuse(self, record: Record, doc: str) -> None:
        """Warn for the neutral fields an NTCIR tree has no place for."""
        warn = self.ctx.report_warning
        if record.ip:
            warn("ip-not-written", "the server IP: a .meta file has no field for it")
        if record.doc_id and record.doc_id != doc:
            warn("doc-id-not-written", f"document id {record.doc_id}: the tree's is {doc}")
        if record.text is not None and "text" in record.changed:
            warn("text-not-written", "extracted text: the cooked tree is made from the page")
        warn_original_date_dropped(record, warn, "an NTCIR tree")
        head = record.http_head or b""
        if self.options.variant == "nw1000g":
            return  # the head, date and type: warned by _write_dat
        if record.date is not None and b"\ndate:" not in b"\n" + head.lower():
            warn("date-not-written", "the capture date: the HTTP head has no Date header")

    def _fields(self, record: Record, doc: str) -> list[tuple[str, bytes]]:
        head = record.http_head or b""
        headers = dict((k.lower(), v) for k, v in parse_http_head(head)[1]) if head else {}
        ctype = headers.get(b"content-type")
        if ctype is None or {"content_type", "charset"} & record.changed:
            # no header, or a filter changed them: the record's own fields
            ctype = (record.content_type or "").encode()
            if record.charset and ctype:
                ctype += b"; charset=" + record.charset.encode()
        return [
            (DOCID, doc.encode()),
            (DATE, headers.get(b"last-modified", b"")),
            (CTYPE, ctype),
            (URL, (record.url or "").encode("utf-8", "surrogateescape")),
            (HTTPH, _stored_head(record, head)),
        ]

    def _derived(self, record: Record) -> tuple[bytes, bytes]:
        """The euc page and the cooked text, both EUC-JP (see the module docstring)."""
        header = record.charset or charset_of_content_type(record.content_type)
        page = decode_body(record.payload, record.http_headers, _PAGE_CAP)
        if page != record.payload:  # chunked or compressed as sent: the page as a browser has it
            self.ctx.count("page-decoded")
        charset, _ = detect_charset(header, page)
        text = page.decode(charset, "replace")
        if _is_text(record.content_type):
            euc, missing = to_euc_jp(text)
            if missing:
                self.ctx.count("euc-unmappable", missing)
        else:  # an image, a PDF...: no characters to convert
            euc = record.payload
        cooked, missing = to_euc_jp(cook(text, self.cook_options), rule7_char)
        if missing:
            self.ctx.count("cooked-unmappable", missing)
        return euc, cooked

    def close(self) -> None:
        """The first input's task writes the lists (line by line: memory stays flat)."""
        if self.ctx.input.index != 0:
            return
        from crawlmill.formats.ntcir.lists import format_item

        from .ntcir_ids import list_rows

        def skipped(name: str, why: str = "a URL with a tab or line break") -> None:
            self.ctx.report_warning("list-entry-skipped", f"{name}: {why}")

        if self.options.variant == "nw1000g":
            self._write_filelists(skipped)
            return
        for name, rows in list_rows(self.ctx.table(), self.options.aliases, skipped).items():
            with self.ctx.create(name) as fh:
                for fields in rows:
                    if name == "sitelist" and fields[1] != "http":
                        self.ctx.report_warning("sitelist-not-http", f"site {fields[0]} "
                            f"({fields[2]}:{fields[3]}) is {fields[1]}: NW100G-01's sitelist "
                            'has the server type "http" only')  # fmt: skip
                    fh.write(format_item(name, fields, https=True))

    def _write_filelists(self, skipped: Callable[[str], None]) -> None:
        """NW1000G-04: each site's ``.filelist`` in each tree (``<doc id> <part> <url>`` per
        page, in page order) and ``lists/sitelist/<NNN>`` (``<site id>\t<host>``, one file
        per first three digits)."""
        from .ntcir_ids import site_pages

        folders = ["cook" if t == "cooked" else t for t in self.options.trees]
        sitelist: dict[str, list[bytes]] = {}
        for site, host, pages in site_pages(self.ctx.table()):
            site7 = site.zfill(7)
            lines = []
            for doc, page, url in pages:
                try:
                    lines.append(format_filelist_line(doc, _part(page), url))
                except ValueError:
                    skipped("filelist")
            for folder in folders:
                with self.ctx.create(f"{folder}/{site7[:3]}/{site7}.filelist") as fh:
                    fh.writelines(lines)
            if "\t" not in host and "\n" not in host:
                sitelist.setdefault(site7[:3], []).append(f"{site7}\t{host}\n".encode())
        for nnn, lines in sitelist.items():
            with self.ctx.create(f"lists/sitelist/{nnn}") as fh:
                fh.writelines(lines)


def _is_text(content_type: str | None) -> bool:
    """Whether a page of ``content_type`` is text (unknown: text)."""
    kind = (content_type or "").split(";")[0].strip().lower()
    return not kind or kind.startswith("text/") or "html" in kind or "xml" in kind


def _stored_head(record: Record, head: bytes) -> bytes:
    """The ``NW:HTTPH`` block a page read from an NTCIR tree had, when ``head`` is that block
    as the reader gave it (the blank line ending a head added); else ``head``."""
    info: NtcirExtras = record.extras.get("ntcir") or {}
    for field in info.get("fields") or ():
        name, value = field
        if name == HTTPH and isinstance(value, bytes) and value and ended_head(value) == head:
            return value
    return head


def _part(page: int) -> str:
    """An NW1000G-04 page's part: its number in five digits (more when it needs them)."""
    return f"{page:05d}"


@hookimpl
def crawlmill_register_writers(register):
    """Register ``ntcir``."""
    register(NtcirWriter)
