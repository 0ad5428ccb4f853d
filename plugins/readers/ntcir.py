"""``ntcir``: an NTCIR WEB collection (NW100G-01) read as a collection of site directories.

A tree holds the six lists (``sitelist``, ``aliaslist``, ``doclist``, ``duplist``,
``targetlist``, ``linklist``) and the trees ``raw/``, ``euc/`` and ``cooked/`` (``cook/`` in
NW1000G-04), each ``<2 digits>/<4 digits>/<site id>/<NNNN>.data`` plus ``.meta``
(docs/formats/ntcir.md says which of these facts are confirmed and which reconstructed).
:meth:`NtcirReader.discover` makes one unit per site directory, its parts every ``.data`` and
``.meta`` file of that site in each tree (``raw/0001.data``...), so a changed page redoes its
site; the lists stay where they are and are looked up per document (by binary search when a
list is sorted by its first field, as the collection's are; else loaded once per process).

One Record per page (``NNNN``), in page order, from the ``.meta`` of the ``payload`` tree
(:mod:`crawlmill.formats.ntcir.meta`, both syntaxes):

* ``doc_id`` ``NW:DOCID``; ``url`` ``NW:URL``; ``content_type`` and ``charset`` ``NW:CTYPE``;
* ``http_head`` the ``NW:HTTPH`` block as stored (a block without the blank line that ends a
  head gets one, in its own line-end style; the stored block stays in extras), ``date`` its
  ``Date:`` header (the fetch; ``NW:DATE`` is the page's ``Last-Modified`` and stays in
  extras); kind ``response`` with a head, ``resource`` without;
* ``payload`` the ``.data`` bytes of the ``payload`` tree (``raw`` by default: as crawled;
  ``euc``: converted to EUC-JP), exactly as stored; from the euc tree ``charset`` is
  ``euc_jp`` (the ``NW:CTYPE`` charset, the raw page's, stays in extras ``charset_stored``;
  counted ``charset-euc``);
* ``text`` the cooked tree's ``.data`` decoded as EUC-JP when that tree is there;
* ``outlinks`` the ``linklist`` URLs of the doc id; ``extras["ntcir"]`` the site id, the page
  number, the tree read, every ``.meta`` field as stored, the syntax and wrapper, the
  duplicate URLs (``duplist``), the site's aliases (``aliaslist``) and its ``sitelist``
  entry (``server``, ``host``, ``port``).

NW1000G-04 (NTCIR-5) trees are detected by their ``<NNN>/<site>.filelist`` files (in the
folder or its ``data/``): one unit per site, its parts each tree's filelist and ``.dat``
files (:mod:`crawlmill.formats.ntcir.nw1000g`), one Record (kind ``resource``) per line of the
payload tree's filelist: ``url`` from the line, ``doc_id`` its first field when that is ``NW``
+ digits, ``payload`` the ``.dat`` bytes, ``text`` the ``cook/`` page.

Collection checks: a ``.data`` without its ``.meta`` (or the reverse) is a failed check naming
the file that is there, a page another tree of its site lacks one naming the page; a ``NW:URL`` that ``doclist`` does not give the page's doc id is a
failed ``doclist`` check; a site the payload tree lacks (read from the other tree) a failed
``trees`` check. Damage: a ``.meta`` cut short (``meta-cut-short``, the page delivered with the
fields read), a page file that cannot be read (``unreadable-file``, the page skipped). The
lists are checked by a unit of their own (relpath ``lists``, first, no records, its parts the
lists): every line of every list and every rule between them
(:mod:`crawlmill.formats.ntcir.list_checks`), a failed check naming the list and the line;
a site folder whose id ``sitelist`` lacks, a failed check naming the folder. The same unit
checks the tree against ``doclist`` as a whole: every page's ``NW:DOCID`` (of the
payload tree) and every ``doclist`` line, merged as two sorted streams
(:func:`crawlmill.algorithms.sorted_lines.unmatched`; the tree's ids sorted on disk, so memory
stays bounded for 100 million ids), give a failed check per page whose doc id ``doclist``
lacks (naming the page), per ``doclist`` line without a page (naming the list and line) and
per page whose doc id an earlier page has; a list of the six missing is warned
(``list-missing``), an entry of a tree outside its layout too (``not-read``).
"""

from __future__ import annotations

import dataclasses
import email.utils
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any, Literal

from crawlmill.algorithms.sorted_lines import find_lines, first_fields_sorted, sort_lines, unmatched
from crawlmill.core import (
    Check,
    Damage,
    InputFile,
    Outlink,
    PluginOptions,
    Provenance,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
    storage,
)
from crawlmill.core.extras import NtcirExtras
from crawlmill.formats.http.head import declared_length
from crawlmill.formats.http.html_charset import charset_of_content_type
from crawlmill.formats.ntcir.list_checks import check_lists
from crawlmill.formats.ntcir.lists import LIST_NAMES, ListItem, iter_list, read_list
from crawlmill.formats.ntcir.meta import CTYPE, DOCID, HTTPH, URL, ended_head, parse_meta
from crawlmill.formats.ntcir.nw1000g import (
    DAT,
    FILELIST,
    FileListItem,
    dat_path,
    read_filelist,
)
from pydantic import Field

__all__ = ["NtcirReader", "site_directories"]

TREES = ("raw", "euc", "cooked", "cook")
#: the relpath of the unit that checks the whole tree against ``doclist``.
LISTS_UNIT = "lists"
#: ``meta["variant"]`` of an NW1000G-04 site's unit.
NW1000G = "nw1000g"
_DOC_ID = re.compile(r"NW[0-9]+\Z")
_SITE = re.compile(r"[0-9]{6,7}\Z")
_PAGE = re.compile(r"([0-9]+)\.(data|meta)\Z")
_CACHE: dict[tuple[str, int, int, str], Any] = {}
#: what a run without each list lacks (the ``list-missing`` warning says it).
_WITHOUT = {
    "sitelist": "site folders and doclist URLs are not checked against it; no record has its "
    "server, host and port",
    "aliaslist": "no record has its site's aliases",
    "doclist": "the tree is not checked against it",
    "targetlist": "linklist URLs and doclist are not checked against it",
    "duplist": "no record has its duplicate URLs",
    "linklist": "no record has its outlinks",
}


def _trees(root: str) -> list[str]:
    return [t for t in TREES if storage.isdir(os.path.join(root, t))]


def site_directories(root: str) -> dict[str, dict[str, str]]:
    """Site id -> tree -> the site's folder (``<tree>/<id[:2]>/<id[:4]>/<id>``), for every
    tree of the collection at ``root``."""
    sites: dict[str, dict[str, str]] = {}
    for tree in _trees(root):
        base = os.path.join(root, tree)
        for top in _listdir(base):
            for mid in _listdir(os.path.join(base, top)):
                for site, is_folder in storage.entries(os.path.join(base, top, mid)):
                    folder = os.path.join(base, top, mid, site)
                    named = _SITE.match(site) and site.startswith(mid) and mid.startswith(top)
                    if named and is_folder:
                        sites.setdefault(site, {})[tree] = folder
    return dict(sorted(sites.items()))


def _strays(root: str) -> Iterator[tuple[str, str]]:
    """``(path, why)`` of every entry of the NW100G-01 trees outside their layout
    (``<tree>/<2 digits>/<4 digits>/<site id>/<NNNN>.data|meta``, each level starting with
    the one above): the reader never reads them."""
    for tree in _trees(root):
        base = os.path.join(root, tree)
        for top, top_dir in storage.entries(base):
            if not (top_dir and len(top) == 2 and top.isdigit()):
                yield os.path.join(base, top), "not a two-digit folder of the tree"
                continue
            for mid, mid_dir in storage.entries(os.path.join(base, top)):
                folder = os.path.join(base, top, mid)
                if not (mid_dir and len(mid) == 4 and mid.isdigit() and mid.startswith(top)):
                    yield folder, f"not a four-digit folder starting with {top}"
                    continue
                for site, site_dir in storage.entries(folder):
                    path = os.path.join(folder, site)
                    if not (site_dir and _SITE.match(site) and site.startswith(mid)):
                        yield path, f"not a site folder (six digits starting with {mid})"
                        continue
                    for name, _ in storage.entries(path):
                        if not _PAGE.match(name):
                            yield os.path.join(path, name), "not a page file (NNNN.data, .meta)"


def _listdir(path: str) -> list[str]:
    """The names in the folder ``path`` (a local one or a prefix), sorted; ``[]`` when none."""
    return [name for name, _ in storage.entries(path)]


def _is_collection(path: str) -> bool:
    if not os.path.isdir(path):
        return False
    if _nw1000g_base(path) is not None:
        return True
    trees = _trees(path)
    if not trees:
        return False
    if any(os.path.isfile(os.path.join(path, name)) for name in LIST_NAMES):
        return True
    # no list: a two-digit first level in a tree (cheap: sniff runs on every folder)
    return any(
        len(name) == 2 and name.isdigit()
        for tree in trees
        for name in _listdir(os.path.join(path, tree))
    )


def _nw1000g_base(path: str) -> str | None:
    """The folder holding an NW1000G-04 collection's trees (``path`` or ``path/data``): a
    tree whose three-digit folders hold ``.filelist`` files; ``None`` when there is none."""
    for base in (path, os.path.join(path, "data")):
        for tree in _trees(base):
            for name in _listdir(os.path.join(base, tree)):
                if len(name) == 3 and name.isdigit():
                    folder = os.path.join(base, tree, name)
                    if any(FILELIST.match(f) for f in _listdir(folder)):
                        return base
    return None


def nw1000g_sites(base: str) -> dict[str, dict[str, str]]:
    """Site id -> part name -> file, for an NW1000G-04 collection whose trees are in
    ``base``: ``<tree>/filelist`` and ``<tree>/<part>.dat`` of every tree (one walk of each
    ``<tree>/<NNN>`` folder)."""
    sites: dict[str, dict[str, str]] = {}
    for tree in _trees(base):
        for top in sorted(_listdir(os.path.join(base, tree))):
            folder = os.path.join(base, tree, top)
            if not (len(top) == 3 and top.isdigit() and os.path.isdir(folder)):
                continue
            for dirpath, dirnames, filenames in os.walk(folder):
                dirnames.sort()
                depth = os.path.relpath(dirpath, folder).count(os.sep) + (dirpath != folder)
                for name in sorted(filenames):
                    if depth == 0 and (m := FILELIST.match(name)):
                        sites.setdefault(m["site"], {})[f"{tree}/filelist"] = os.path.join(
                            dirpath, name
                        )
                    elif depth == 2 and (m := DAT.match(name)) and m["site"].startswith(top):
                        sites.setdefault(m["site"], {})[f"{tree}/{m['part']}.dat"] = os.path.join(
                            dirpath, name
                        )
    return dict(sorted(sites.items()))


class NtcirReader(Reader):
    """NTCIR WEB trees: NW100G-01's raw/euc/cooked ``.data`` + ``.meta`` and the lists;
    NW1000G-04's ``.dat`` pages named by ``.filelist`` lines."""

    name = "ntcir"
    file_suffixes = ()
    #: ``discover`` notes whether these lists are sorted (how the pages are looked up in them)
    discovery_reads = ((r"doclist|linklist", None),)

    class Options(PluginOptions):
        payload: Literal["raw", "euc"] = Field(
            "raw",
            description="which tree feeds the payload: raw (as crawled) or euc (Japanese "
            "pages converted to EUC-JP)",
        )
        text: bool = Field(True, description="set text from the cooked tree when it is there")

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """Sure for a folder holding ``raw/``, ``euc/`` or ``cooked/`` site trees (or the
        lists beside such a tree); 0 for a file."""
        return 0.9 if _is_collection(path) else 0.0

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """One unit per site directory (its parts: every ``.data``/``.meta`` of the site in
        each tree), in site id order; ``None`` when ``path`` is no NTCIR tree."""
        if not _is_collection(path):
            return None
        root = os.path.abspath(path)
        base = _nw1000g_base(root)
        if base is not None:
            return [
                InputFile(
                    os.path.join(root, "sites", site[:3], site),
                    f"sites/{site[:3]}/{site}",
                    meta={"root": base, "site": site, "variant": NW1000G},
                    parts=parts,
                )
                for site, parts in nw1000g_sites(base).items()
            ]
        lists = {
            n: os.path.join(root, n) for n in LIST_NAMES if os.path.isfile(os.path.join(root, n))
        }
        ordered = {n: _sorted(p) for n, p in lists.items() if n in ("doclist", "linklist")}
        units = []
        if lists:  # the checks of the lists and of the tree against them: a unit first
            units.append(
                InputFile(
                    os.path.join(root, LISTS_UNIT),
                    LISTS_UNIT,
                    meta={"root": root, "role": LISTS_UNIT, "lists": lists, "sorted": ordered},
                    parts=dict(lists),
                )
            )
        for site, folders in site_directories(root).items():
            parts = {}
            for tree, folder in folders.items():
                for name in sorted(os.listdir(folder)):
                    if _PAGE.match(name):
                        parts[f"{tree}/{name}"] = os.path.join(folder, name)
            first = next(iter(folders.values()))
            rel = os.path.relpath(first, root).split(os.sep, 1)[1]  # <2>/<4>/<site>
            units.append(
                InputFile(
                    os.path.join(root, "sites", rel),
                    os.path.join("sites", rel),
                    meta={"root": root, "site": site, "lists": lists, "sorted": ordered},
                    parts=parts,
                )
            )
        return units

    @classmethod
    def side_files(cls, path: str, units: list[InputFile]) -> list[str]:
        """The lists beside the trees (``doclist``, ``sitelist``, ...), which the pages are
        looked up in and the trees checked against."""
        lists = {p: None for u in units for p in ((u.meta or {}).get("lists") or {}).values()}
        return list(lists)

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """The site's pages, one Record each (see the module docstring)."""
        meta = ctx.input.meta or {}
        if meta.get("role") == LISTS_UNIT:
            self._check_lists(ctx, meta)
            if "doclist" in meta["lists"]:
                self._check_doclist(ctx, meta)
            return
        if meta.get("variant") == NW1000G:
            yield from self._read_nw1000g(ctx)
            return
        lists = _Lists(meta.get("lists") or {}, meta.get("sorted") or {}, ctx)
        parts = ctx.input.parts
        tree = self.options.payload
        if not any(name.startswith(tree + "/") for name in parts):
            wanted = tree
            tree = next(
                (t for t in ("raw", "euc") if any(n.startswith(t + "/") for n in parts)), tree
            )
            root = meta.get("root", "")
            if tree != wanted and root and storage.isdir(os.path.join(root, wanted)):
                # the collection has the tree, not this site in it: a folder lost or renamed
                site = meta.get("site", "")
                folder = os.path.join(root, wanted, site[:2], site[:4], site)
                ctx.report_check(Check(folder, "trees", False,
                    f"site {site} has no {wanted}/ folder (the {tree}/ tree has it): "
                    f"its pages are read from {tree}/"))  # fmt: skip
        pages = sorted(
            {m.group(1) for n in parts if (m := _PAGE.match(n.split("/", 1)[1]))}, key=int
        )
        aliases = lists.aliases(meta.get("site", ""))
        where = lists.site(meta.get("site", ""))
        others = sorted({n.split("/", 1)[0] for n in parts} - {tree})
        for page in pages:
            data_name, meta_name = f"{tree}/{page}.data", f"{tree}/{page}.meta"
            if data_name not in parts or meta_name not in parts:
                gone = [n for n in (data_name, meta_name) if n not in parts]
                missing = " and ".join(gone) + (" are" if len(gone) > 1 else " is")
                # named by a file of the page that is there (the pair's other, or another tree's)
                found = (f"{t}/{page}.{ext}" for t in TREES for ext in ("data", "meta"))
                there = next(parts[n] for n in (meta_name, data_name, *found) if n in parts)
                ctx.report_check(Check(there, "page pair", False, f"{missing} missing"))
                continue
            # "the subdirectory structure and the naming scheme are same" in every tree
            lacking = [f"{t}/{page}.{ext}" for t in others for ext in ("data", "meta")
                       if f"{t}/{page}.{ext}" not in parts]  # fmt: skip
            if lacking:  # the page is delivered (without its cooked text when that is gone)
                ctx.report_check(Check(parts[data_name], "page pair", False,
                                       f"{' and '.join(lacking)} missing"))  # fmt: skip
            record = self._record(ctx, lists, parts, tree, page, aliases, where)
            if record is not None:
                yield record

    def _read_nw1000g(self, ctx: ReadContext) -> Iterator[Record]:
        """An NW1000G-04 site: one Record per ``.filelist`` line of the payload tree, in
        line order; a line without its ``.dat`` and a ``.dat`` no line names are failed
        checks (``filelist``), a bad line a warning."""
        parts, site = ctx.input.parts, ctx.input.meta.get("site", "")
        tree = self.options.payload
        if f"{tree}/filelist" not in parts:
            tree = next((t for t in ("raw", "euc") if f"{t}/filelist" in parts), tree)
        listed: set[str] = set()
        filelist = parts.get(f"{tree}/filelist")
        if filelist is None:
            ctx.report_check(Check(ctx.input.path, "filelist", False,
                                   f"no {tree}/{site[:3]}/{site}.filelist: its pages have no URL"))  # fmt: skip
        else:
            items = list(read_filelist(storage.read_all(filelist), filelist))
            for item in items:
                if not isinstance(item, FileListItem):
                    ctx.report_warning(item.code, f"{item.path} line {item.line} "
                                       f"(offset {item.offset}): {item.reason}")  # fmt: skip
                    continue
                name = f"{tree}/{item.part}.dat"
                listed.add(name)
                if name not in parts:
                    ctx.report_check(Check(filelist, "filelist", False,
                        f"line {item.line}: {dat_path(site, item.part)} is missing from {tree}/"))  # fmt: skip
                    continue
                if (
                    rec := self._dat_record(ctx, tree, item.part, item.url, item.field1)
                ) is not None:
                    yield rec
        for name in sorted(n for n in parts if n.startswith(f"{tree}/") and n.endswith(".dat")):
            if name not in listed:  # delivered all the same: no page is lost
                where = filelist or f"{tree}/{site[:3]}/{site}.filelist"
                ctx.report_check(Check(parts[name], "filelist", False, f"not listed in {where}"))
                part = name.split("/", 1)[1][: -len(".dat")]
                if (rec := self._dat_record(ctx, tree, part, None, None)) is not None:
                    yield rec

    def _dat_record(
        self, ctx: ReadContext, tree: str, part: str, url: str | None, field1: str | None
    ) -> Record | None:
        parts = ctx.input.parts
        path = parts[f"{tree}/{part}.dat"]
        max_record = ctx.limits.max_record_bytes
        payload = read_bounded(ctx, path, max_record)
        if payload is None:
            return None
        text = None
        cooked = parts.get(f"cook/{part}.dat") or parts.get(f"cooked/{part}.dat")
        if self.options.text and cooked is not None:
            raw = read_bounded(ctx, cooked, max_record)
            text = None if raw is None else raw.decode("euc_jp", "replace")
        extras: NtcirExtras = {
            "variant": NW1000G,
            "site": ctx.input.meta.get("site"),
            "page": part,
            "tree": tree,
            "field1": field1,
        }
        doc_id = field1 if field1 and _DOC_ID.match(field1) else None
        return Record(
            kind=RecordKind.RESOURCE,
            url=url,
            doc_id=doc_id,
            payload=payload,
            text=text,
            extras={"ntcir": extras},
            source=Provenance(path, 0, len(payload), "ntcir"),
        )

    def _check_lists(self, ctx: ReadContext, meta: dict[str, Any]) -> None:
        """Every list line by line and against the others
        (:func:`crawlmill.formats.ntcir.list_checks.check_lists`), and every site folder of
        the trees against ``sitelist``: one failed check per line (or folder), naming it."""
        lists: dict[str, str] = meta["lists"]
        failed = 0
        for name in LIST_NAMES:  # NW100G-01 "consists of" the six lists (README section 1)
            if name not in lists:
                ctx.report_warning("list-missing", f"{os.path.join(meta['root'], name)} is "
                    f"missing (NW100G-01 consists of the six lists): {_WITHOUT[name]}")  # fmt: skip
        for failure in _checked_lists(lists):
            failed += 1
            ctx.report_check(Check(failure.path, failure.check, False,
                                   f"line {failure.line}: {failure.reason}"))  # fmt: skip
        for path, why in _strays(meta["root"]):  # a folder renamed, a file dropped in
            ctx.report_warning("not-read", f"{path}: {why}; not read")
        sitelist = lists.get("sitelist")
        if sitelist is not None:
            with storage.open_input(sitelist) as fh:
                known = {i.fields[0] for i in iter_list(fh, "sitelist") if isinstance(i, ListItem)}
            for site, folders in site_directories(meta["root"]).items():
                if site not in known:
                    failed += 1
                    for folder in folders.values():
                        ctx.report_check(Check(folder, "sitelist", False,
                                               f"site id {site} is not in sitelist"))  # fmt: skip
        if not failed:
            ctx.report_check(Check(os.path.join(meta["root"], LISTS_UNIT), "lists", True))

    def _check_doclist(self, ctx: ReadContext, meta: dict[str, Any]) -> None:
        """The whole tree against ``doclist``, both ways, in one merge of two sorted streams
        (memory bounded: the tree's doc ids are sorted on disk when they come out of order)."""
        root, doclist = meta["root"], meta["lists"]["doclist"]
        tree = self.options.payload
        folders = site_directories(root)
        if not storage.isdir(os.path.join(root, tree)):  # no such tree: the one there is
            tree = next((t for t in TREES if any(t in f for f in folders.values())), tree)
        pages = sort_lines(_tree_ids(folders, tree, root))
        listed = _doclist_keys(doclist, bool(meta.get("sorted", {}).get("doclist")))
        failed = 0
        twice: list[tuple[bytes, bytes]] = []
        for line, page in unmatched(((k, n) for k, n in listed), _first_of_each(pages, twice)):
            failed += 1
            if line is not None:
                doc, number = line.split(b"\t")
                ctx.report_check(Check(doclist, "doclist", False,
                    f"line {int(number)}: doc id {doc.decode()} has no page in the "
                    f"{tree} tree"))  # fmt: skip
            else:
                assert page is not None
                doc, rel = page.split(b"\t", 1)
                path = os.path.join(root, os.fsdecode(rel))
                ctx.report_check(Check(path, "doclist", False,
                    f"doc id {doc.decode('utf-8', 'replace')} is not in doclist"))  # fmt: skip
        for page, first in twice:  # one doc id on two pages: doclist holds it once
            failed += 1
            doc, rel = page.split(b"\t", 1)
            earlier = os.fsdecode(first.split(b"\t", 1)[1])
            ctx.report_check(Check(os.path.join(root, os.fsdecode(rel)), "doclist", False,
                f"doc id {doc.decode('utf-8', 'replace')} is also the doc id of {earlier} "
                "(doc ids are unique)"))  # fmt: skip
        if not failed:
            ctx.report_check(Check(doclist, "doclist", True))

    def _record(
        self,
        ctx: ReadContext,
        lists: _Lists,
        parts: dict[str, str],
        tree: str,
        page: str,
        aliases: list[str],
        where: tuple[str, str, int] | None = None,
    ) -> Record | None:
        data_path = parts[f"{tree}/{page}.data"]
        meta_path = parts[f"{tree}/{page}.meta"]
        max_record = ctx.limits.max_record_bytes
        meta_bytes = read_bounded(ctx, meta_path, ctx.limits.max_header_bytes, "max_header_bytes")
        payload = read_bounded(ctx, data_path, max_record) if meta_bytes is not None else None
        if meta_bytes is None or payload is None:
            return None
        info = parse_meta(meta_bytes)
        _check_cut_meta(ctx, meta_path, meta_bytes, info)
        if info.other:  # kept in extras["other"]; the user is told they are there
            ctx.report_warning(
                "meta-other-lines",
                f"{meta_path}: {len(info.other)} line(s) neither an NW: field nor the wrapper,"
                f" kept as extras 'other' (first: {info.other[0][:60]!r})",
                offset=meta_bytes.find(info.other[0]),
            )
        doc_id = info.doc_id
        missing = [name for name in (DOCID, URL) if not (info.get(name) or b"").strip()]
        if missing:  # delivered all the same: the page bytes are there
            ctx.report_warning("meta-field-missing", f"{meta_path}: no {' or '.join(missing)}")
        url = _text(info.get(URL))
        stored_head = info.get(HTTPH)
        head = ended_head(stored_head) if stored_head and stored_head.strip() else None
        if tree == "raw" and head is not None:
            _check_length(ctx, data_path, meta_path, head, len(payload))
        ctype = _text(info.get(CTYPE))
        text = None
        cooked = parts.get(f"cooked/{page}.data") or parts.get(f"cook/{page}.data")
        if self.options.text and cooked is not None:
            raw = read_bounded(ctx, cooked, max_record)
            text = None if raw is None else raw.decode("euc_jp", "replace")
        extras: NtcirExtras = {
            "site": ctx.input.meta.get("site"),
            "page": page,
            "tree": tree,
            "fields": [(name, value) for name, value in info.fields],
            "syntax": info.syntax,
            "wrapper": info.wrapper,
            "duplicates": lists.duplicates(doc_id) if doc_id else [],
            "aliases": aliases,
        }
        if doc_id and url:
            _check_listed_url(ctx, lists, meta_path, doc_id, url, extras["duplicates"])
        if where is not None:  # the site's sitelist entry: server type, host, port
            extras["server"], extras["host"], extras["port"] = where
        if info.other:
            extras["other"] = info.other
        date = _head_date(head)
        charset = charset_of_content_type(ctype) if ctype else None
        if tree == "euc":  # the euc tree holds EUC-JP whatever NW:CTYPE says of the raw page
            if charset not in (None, "euc_jp"):
                extras["charset_stored"] = charset
                ctx.count("charset-euc")
            charset = "euc_jp"
        return Record(
            kind=RecordKind.RESPONSE if head is not None else RecordKind.RESOURCE,
            url=url,
            doc_id=doc_id,
            date=date,
            date_raw=None,
            http_head=head,
            payload=payload,
            content_type=(ctype.split(";")[0].strip() or None) if ctype else None,
            charset=charset,
            text=text,
            outlinks=[Outlink(u) for u in lists.links(doc_id)] if doc_id else [],
            extras={"ntcir": extras},
            source=Provenance(data_path, 0, len(payload), "ntcir"),
        )


#: warning code of a raw page shorter than its head's ``Content-Length`` (docs/problems.md).
CUT_SHORT = "possibly-cut-short"


def _check_length(ctx: ReadContext, data: str, meta: str, head: bytes, size: int) -> None:
    """Warn (:data:`CUT_SHORT`) when the raw page ``data`` (``size`` bytes) is shorter than
    the ``Content-Length`` its ``NW:HTTPH`` declares: nothing else in the collection records
    a page's length, and a ``.data`` cut short (a copy stopped mid-file) shows exactly that.
    Not damage: the page is delivered as stored (docs/formats/ntcir.md has the rule and its
    measured noise)."""
    declared = declared_length(head)
    if declared is not None and size < declared:
        ctx.report_warning(
            CUT_SHORT,
            f"{data}: {size} bytes, but the HTTP head in {os.path.basename(meta)} declares "
            f"Content-Length: {declared} ({declared - size} bytes missing): possibly cut short",
            offset=size,
        )


def read_bounded(
    ctx: ReadContext, path: str, limit: int, limit_name: str = "max_record_bytes"
) -> bytes | None:
    """The bytes of the page file ``path`` when it holds at most ``limit`` bytes; else
    ``record-too-large`` damage (its first ``limit`` bytes quarantined) and ``None``: memory
    stays at the limit whatever the file's size."""
    try:
        with storage.open_input(path) as fh:
            size = _size(fh)
            data = fh.read(min(size, limit))  # no buffer of ``limit`` for a small file
            if not fh.read(1):
                return data
            size = max(size, len(data) + 1)
    except OSError as exc:  # a folder where the page file was, no permission, an I/O error
        why = exc.strerror or type(exc).__name__
        ctx.report_damage(Damage(path, 0, f"cannot read the file: {why}; page skipped", 0, b"",
                                 "unreadable-file"))  # fmt: skip
        return None
    reason = f"file of {size} bytes exceeds {limit_name}={limit}; skipped"
    ctx.report_damage(Damage(path, 0, reason, size, data, "record-too-large"))
    return None


def _check_cut_meta(ctx: ReadContext, path: str, data: bytes, info: Any) -> None:
    """``meta-cut-short`` damage for a ``.meta`` that ends inside a tagged field or the
    wrapper it opened, or holds no ``NW:`` field at all: its fields (the head, the URL) may
    be cut. The page is delivered with what was read; the damage names the file and where
    the unclosed part starts (its bytes to the end quarantined)."""
    if info.unclosed is not None:
        what, at = info.unclosed
        reason = f"{what} opened at byte {at} is never closed: the .meta is cut short"
    elif not info.fields:
        what, at = "no NW: field", 0
        reason = f"no NW: field in {len(data)} bytes: the .meta is empty or cut short"
    else:
        return
    ctx.report_damage(Damage(path, at, reason + "; the page is delivered with the fields read",
                             len(data) - at, data[at:], "meta-cut-short"))  # fmt: skip


def _check_listed_url(
    ctx: ReadContext, lists: _Lists, path: str, doc_id: str, url: str, duplicates: list[str]
) -> None:
    """A failed ``doclist`` check (naming the ``.meta``) when a sorted ``doclist`` gives the
    page's doc id another URL than ``NW:URL`` and no ``duplist`` line names ``NW:URL`` for it:
    one of the two was changed (a doc id ``doclist`` lacks is the lists unit's check)."""
    found = lists.doc_urls(doc_id)
    if found and url not in found and url not in duplicates:
        ctx.report_check(Check(path, "doclist", False,
                               f"NW:URL {url} of doc id {doc_id} is not its doclist URL "
                               f"{found[0]} (nor a duplist URL of it)"))  # fmt: skip


def _text(value: bytes | None) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8", "surrogateescape").strip() or None


def _head_date(head: bytes | None) -> Any:
    if not head:
        return None
    m = re.search(rb"(?im)^date:[ \t]*(.+?)\r?$", head)
    if m is None:
        return None
    try:
        return email.utils.parsedate_to_datetime(m.group(1).decode("latin-1"))
    except (TypeError, ValueError, IndexError):
        return None


def _tree_ids(folders: dict[str, dict[str, str]], tree: str, root: str) -> Iterator[bytes]:
    """``<doc id>\t<.data path relative to root>`` of every page of ``tree`` with a doc id."""
    for by_tree in folders.values():
        folder = by_tree.get(tree)
        if folder is None:
            continue
        for name, is_folder in storage.entries(folder):
            if is_folder or not name.endswith(".meta") or not _PAGE.match(name):
                continue
            try:
                meta = storage.read_all(os.path.join(folder, name))
            except OSError:  # the site's unit reports it (unreadable-file)
                continue
            doc = (parse_meta(meta).get(DOCID) or b"").strip()
            if doc and not any(c in doc for c in b"\t\r\n"):
                data = os.path.join(folder, name[: -len(".meta")] + ".data")
                yield doc + b"\t" + os.fsencode(os.path.relpath(data, root))


def _first_of_each(
    pages: Iterator[bytes], twice: list[tuple[bytes, bytes]]
) -> Iterator[tuple[bytes, bytes]]:
    """``(doc id, line)`` of the sorted ``<doc id>\t<path>`` lines, the first page of each doc
    id only; each later page of a doc id goes to ``twice`` with the first one's line."""
    first: bytes | None = None
    for line in pages:
        doc = line.split(b"\t", 1)[0]
        if first is not None and first.split(b"\t", 1)[0] == doc:
            twice.append((line, first))
            continue
        first = line
        yield doc, line


def _doclist_keys(path: str, ordered: bool) -> Iterator[tuple[bytes, bytes]]:
    """``(doc id, b"<doc id>\t<line number>")`` of every line of ``doclist``, by doc id."""

    def numbered() -> Iterator[bytes]:
        with storage.open_input(path) as fh:
            for number, line in enumerate(fh, 1):
                key = line.split(b"\t", 1)[0].rstrip(b"\r\n")
                if key:
                    yield key + b"\t%d" % number

    lines = numbered() if ordered else sort_lines(numbered())
    for line in lines:
        yield line.split(b"\t", 1)[0], line


def _sorted(path: str) -> bool:
    with storage.open_input(path) as fh:
        return first_fields_sorted(fh)


def _stat_key(path: str, what: str) -> tuple[str, int, int, str]:
    if storage.is_remote(path):  # an object is replaced whole: its size tells a new one
        return (path, storage.size(path), 0, what)
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns, what)


def _size(fh: Any) -> int:
    """The size of the open file ``fh`` (a local file, or a remote one: fsspec knows it)."""
    size = getattr(fh, "size", None)
    return size if isinstance(size, int) else os.fstat(fh.fileno()).st_size


def _checked_lists(lists: dict[str, str]) -> Iterator[Any]:
    """:func:`check_lists` of the lists, remote ones fetched into a scratch folder first (the
    check reads each list several times), each failure naming the list's own path."""
    if not any(storage.is_remote(p) for p in lists.values()):
        yield from check_lists(lists)
        return
    with tempfile.TemporaryDirectory(prefix="crawlmill-lists-") as scratch:
        local = {}
        for name, path in lists.items():
            local[name] = os.path.join(scratch, name)
            with storage.open_input(path) as src, open(local[name], "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        back = {v: lists[k] for k, v in local.items()}
        for failure in check_lists(local):
            yield dataclasses.replace(failure, path=back.get(failure.path, failure.path))


class _Lists:
    """Per-document lookups in the collection's lists (binary search when sorted)."""

    def __init__(self, lists: dict[str, str], ordered: dict[str, bool], ctx: ReadContext) -> None:
        self.lists = lists
        self.ordered = ordered
        self.ctx = ctx

    def _lines(self, name: str, key: str) -> list[list[str]] | None:
        path = self.lists.get(name)
        if path is None:
            return None
        if self.ordered.get(name):
            with storage.open_range(path) as fh:
                found = find_lines(fh, storage.size(path), key.encode())
            return [line.decode("utf-8", "surrogateescape").split("\t") for line in found]
        table = self._table(name, 0)
        return table.get(key, [])

    def _table(self, name: str, field: int) -> dict[str, list[list[str]]]:
        """List ``name`` loaded once per process, by ``field``; bad lines are warnings."""
        path = self.lists[name]
        key = _stat_key(path, f"{name}:{field}")
        if key not in _CACHE:
            table: dict[str, list[list[str]]] = {}
            for item in read_list(storage.read_all(path), name, path):  # type: ignore[arg-type]
                if isinstance(item, ListItem):
                    table.setdefault(item.fields[field], []).append(list(item.fields))
                else:
                    self.ctx.report_warning(
                        item.code,
                        f"{item.path} line {item.line} (offset {item.offset}): {item.reason}",
                    )
            _CACHE[key] = table
        return _CACHE[key]

    def links(self, doc_id: str) -> list[str]:
        """The ``linklist`` URLs of ``doc_id``."""
        return [fields[1] for fields in self._lines("linklist", doc_id) or [] if len(fields) > 1]

    def doc_urls(self, doc_id: str) -> list[str]:
        """The ``doclist`` URLs of ``doc_id`` (``[]``: no doclist, not in it, or an unsorted
        doclist: searched on disk only, never loaded, as it may hold 100 million lines)."""
        if not self.ordered.get("doclist"):
            return []
        return [fields[1] for fields in self._lines("doclist", doc_id) or [] if len(fields) > 1]

    def duplicates(self, doc_id: str) -> list[str]:
        """The ``duplist`` URLs naming ``doc_id``."""
        if "duplist" not in self.lists:
            return []
        return [fields[0] for fields in self._table("duplist", 1).get(doc_id, [])]

    def site(self, site: str) -> tuple[str, str, int] | None:
        """The ``sitelist`` server type, host and port of ``site`` (``None``: not listed)."""
        if "sitelist" not in self.lists:
            return None
        found = self._table("sitelist", 0).get(site)
        if not found:
            return None
        _, kind, host, port = found[0]
        return kind, host, int(port)

    def aliases(self, site: str) -> list[str]:
        """The ``aliaslist`` names of ``site``."""
        if "aliaslist" not in self.lists:
            return []
        return [fields[0] for fields in self._table("aliaslist", 1).get(site, [])]


@hookimpl
def crawlmill_register_readers(register):
    """Register ``ntcir``."""
    register(NtcirReader)
