"""The NTCIR WEB family (NW100G-01): a small synthetic collection built with the tests' tree
builder (:func:`tests.plugins.ntcir_tree.build_tree`: ``raw/``, ``euc/`` and ``cooked/`` trees
of ``.data`` + ``.meta`` pages under ``??/????/??????/``, and the six lists), damaged the ways
a copied collection is damaged, converted through the real CLI (``crawlmill convert ROOT --to
warc -o OUT``, the same fork-server runner as the other families) and checked against the
intact tree's conversion.

Nothing in an NTCIR tree carries a checksum: a page's bytes are its ``.data`` file, its head
and URL the ``.meta`` file, and the lists name every page. So what must be reported depends
on what the damage breaks that something else in the collection records (the README's rules,
``../shared/specs/source-docs/ntcir-nw100g-01-readme-data.txt``); each pattern says what it
touched and what must be reported (:class:`NtcirDamaged`). Checks of one case, in order:

* ``exception``: exit 0 or 3, no traceback, ``report.json``, no failed task
  (:func:`.check.run_failures`);
* ``lost`` / ``changed``: every page the damage did not touch is in the output byte for byte
  as the intact tree's conversion wrote it (the lists feed nothing a WARC record holds, so list
  damage touches no page);
* ``silent``: every touched page is delivered (any bytes) or named by a damage entry or a
  failed check (its ``.data``/``.meta``, its doc id, or its file name in its site's unit);
  a page whose damage cannot be seen (bytes flipped inside a ``.data``) must be delivered;
* ``unreported``: each problem the pattern promises (:class:`Expect`) is in the report;
  ``spurious``: a clean pattern got a damage or a failed check;
* ``offsets``: every damage entry names a file of the damaged tree and lies inside it;
* ``accounting``: read + added = written + dropped + quarantined, ``written`` = the output's
  records; ``foreign``: an output record that is no original page is an extra page the
  pattern added (reported) or a touched page;
* ``unreadable`` / ``duplicate-ids``: warcio reads every output; unique record ids.
"""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .check import Failure, duplicate_id_failures, run_failures
from .oracle import OutRecord, read_output, sha
from .runner import Runner

__all__ = [
    "INPUT",
    "INPUTS",
    "NTCIR_PATTERNS",
    "Expect",
    "NtcirDamaged",
    "NtcirHarness",
    "NtcirPage",
    "enumerate_ntcir_cases",
]

#: the input id of the family's collection (``.meta`` files in the tagged syntax).
INPUT = "ntcir/nw100g"
#: input id -> the ``.meta`` syntax of its tree; the ``lines`` tree gets the ``meta-*``
#: patterns only (the others do not depend on the syntax).
INPUTS = {INPUT: "tagged", "ntcir/nw100g-lines": "lines"}
SITES, PER = 3, 4
LISTS = ("sitelist", "aliaslist", "doclist", "targetlist", "duplist", "linklist")
#: header names whose value depends on where the tree lies (ids derived from input paths).
VOLATILE = frozenset({"WARC-Record-ID", "WARC-Warcinfo-ID", "WARC-Concurrent-To"})


@dataclass(frozen=True)
class NtcirPage:
    """One page of the intact tree: where its files are (relative to the root)."""

    index: int
    site: str
    number: int
    doc_id: str
    url: str
    head: bytes
    payload: bytes

    def rel(self, tree: str = "raw", ext: str = "data") -> str:
        s = self.site
        return f"{tree}/{s[:2]}/{s[:4]}/{s}/{self.number:04d}.{ext}"

    @property
    def unit(self) -> str:
        s = self.site
        return f"sites/{s[:2]}/{s[:4]}/{s}"


@dataclass(frozen=True)
class Expect:
    """A problem the report must hold: ``kind`` ``damage``, ``check`` (failed), ``problem``
    (either) or ``warning`` (by code: the report counts warnings per code); ``path`` the file
    it names (relative to the root; ``None``: any), ``needle`` a substring of its reason (of
    the warning's code for a warning)."""

    kind: str
    path: str | None = None
    needle: str = ""


@dataclass
class NtcirDamaged:
    """What a pattern did to the tree."""

    pattern: str
    description: str
    #: pages whose output may change or go (each must be delivered or named).
    touched: frozenset[int] = frozenset()
    #: touched pages whose damage nothing in the collection can show: must be delivered.
    unseen: frozenset[int] = frozenset()
    expect: tuple[Expect, ...] = ()
    #: the tree is still valid: no damage, no failed check may be reported.
    clean: bool = False
    #: (url, doc id) of pages the pattern added.
    added: tuple[tuple[str, str], ...] = ()


@dataclass
class _Tree:
    """The damaged copy of the tree a pattern works on."""

    root: Path
    pages: list[NtcirPage]
    rng: random.Random
    syntax: str = "tagged"

    def path(self, rel: str) -> Path:
        return self.root / rel

    def page(self) -> NtcirPage:
        return self.rng.choice(self.pages)

    def list_lines(self, name: str) -> list[bytes]:
        return self.path(name).read_bytes().splitlines(keepends=True)


def _declared_length(head: bytes) -> int | None:
    m = re.search(rb"(?im)^content-length:[ \t]*([0-9]+)[ \t]*\r?$", head)
    return int(m.group(1)) if m else None


# -- page patterns ---------------------------------------------------------------------------


def _data_cut(t: _Tree, zero: bool) -> NtcirDamaged:
    p = t.page()
    declared = _declared_length(p.head) or len(p.payload)
    cut = 0 if zero else t.rng.randrange(1, min(declared, len(p.payload)))
    path = t.path(p.rel())
    path.write_bytes(path.read_bytes()[:cut])
    # the head still declares its Content-Length: the only record of the page's length
    return NtcirDamaged(
        "data-cut-zero" if zero else "data-cut-body",
        f"{p.rel()} cut to {cut} of {len(p.payload)} bytes (Content-Length {declared})",
        touched=frozenset({p.index}),
        unseen=frozenset({p.index}),
        expect=(Expect("warning", None, "possibly-cut-short"),),
    )


def data_cut_body(t: _Tree) -> NtcirDamaged:
    """A ``.data`` cut inside the page body."""
    return _data_cut(t, False)


def data_cut_zero(t: _Tree) -> NtcirDamaged:
    """A ``.data`` cut to zero bytes."""
    return _data_cut(t, True)


def data_zeroed(t: _Tree) -> NtcirDamaged:
    """A run of bytes inside a ``.data`` zeroed (a lost disk block): nothing records the
    page's bytes, so the page must be delivered (with the zeros), nothing reported."""
    p = t.page()
    path = t.path(p.rel())
    data = bytearray(path.read_bytes())
    lo = t.rng.randrange(len(data))
    hi = min(len(data), lo + t.rng.randrange(1, 4096))
    data[lo:hi] = bytes(hi - lo)
    path.write_bytes(bytes(data))
    return NtcirDamaged("data-zeroed", f"{p.rel()} bytes {lo}..{hi} zeroed",
                        touched=frozenset({p.index}), unseen=frozenset({p.index}))  # fmt: skip


def data_flipped(t: _Tree) -> NtcirDamaged:
    """A few bits flipped inside a ``.data`` (undetectable: delivered as stored)."""
    p = t.page()
    path = t.path(p.rel())
    data = bytearray(path.read_bytes())
    spots = sorted(t.rng.randrange(len(data)) for _ in range(t.rng.randrange(1, 5)))
    for at in spots:
        data[at] ^= 1 << t.rng.randrange(8)
    path.write_bytes(bytes(data))
    return NtcirDamaged("data-flipped", f"{p.rel()} bits flipped at {spots}",
                        touched=frozenset({p.index}), unseen=frozenset({p.index}))  # fmt: skip


def _meta_cut(t: _Tree, name: str, where: Callable[[bytes], tuple[int, int]]) -> NtcirDamaged:
    p = t.page()
    path = t.path(p.rel(ext="meta"))
    data = path.read_bytes()
    lo, hi = where(data)
    cut = t.rng.randrange(lo, hi)
    path.write_bytes(data[:cut])
    return NtcirDamaged(
        name,
        f"{p.rel(ext='meta')} cut at {cut} of {len(data)} bytes",
        touched=frozenset({p.index}),
        expect=(Expect("damage", p.rel(ext="meta"), ""),),
    )


def meta_cut_head(t: _Tree) -> NtcirDamaged:
    """A ``.meta`` cut inside its ``NW:HTTPH`` block (the HTTP head): the wrapper and the
    block are never closed, so the cut shows; the head is not the server's."""

    def where(data: bytes) -> tuple[int, int]:
        if t.syntax == "lines":  # NW:HTTPH, the head's lines, then the wrapper's close
            return data.index(b"NW:HTTPH\n") + len(b"NW:HTTPH\n") + 1, data.index(b"</META>")
        start = data.index(b"<NW:HTTPH>") + len(b"<NW:HTTPH>\n") + 1
        return start, data.index(b"</NW:HTTPH>")

    return _meta_cut(t, "meta-cut-head", where)


def meta_cut_fields(t: _Tree) -> NtcirDamaged:
    """A ``.meta`` cut inside one of its one-line fields (doc id, date, type, URL)."""

    def where(data: bytes) -> tuple[int, int]:
        if t.syntax == "lines":
            return data.index(b"NW:DOCID") + 1, data.index(b"NW:HTTPH")
        return data.index(b"<NW:DOCID>") + 1, data.index(b"<NW:HTTPH>")

    return _meta_cut(t, "meta-cut-fields", where)


def meta_zero(t: _Tree) -> NtcirDamaged:
    """A ``.meta`` cut to zero bytes: the page has no doc id, URL or head; its doclist line
    names no page (a failed check naming its doc id)."""
    p = t.page()
    t.path(p.rel(ext="meta")).write_bytes(b"")
    return NtcirDamaged("meta-zero", f"{p.rel(ext='meta')} emptied",
                        touched=frozenset({p.index}),
                        expect=(Expect("check", "doclist", p.doc_id),))  # fmt: skip


def _meta_value_flip(t: _Tree, field_name: bytes, pattern: str) -> NtcirDamaged:
    p = t.page()
    path = t.path(p.rel(ext="meta"))
    data = bytearray(path.read_bytes())
    if t.syntax == "lines":  # NW:URL value\n
        lo = data.index(field_name + b" ") + len(field_name) + 1
        hi = data.index(b"\n", lo)
    else:
        open_tag = b"<" + field_name + b">"
        lo = data.index(open_tag) + len(open_tag)
        hi = data.index(b"</" + field_name + b">", lo)
    at = t.rng.randrange(lo, hi)
    old = data[at]
    new = old
    while new == old or new in b"\r\n<>":
        new = t.rng.choice(b"0123456789abcdefghijklmnopqrstuvwxyzXYZ/._-?=")
    data[at] = new
    path.write_bytes(bytes(data))
    return NtcirDamaged(
        pattern,
        f"{p.rel(ext='meta')} {field_name.decode()} byte {at} {bytes([old])!r} -> {bytes([new])!r}",
        touched=frozenset({p.index}),
        expect=(Expect("check", None, ""),),
    )


def meta_docid_changed(t: _Tree) -> NtcirDamaged:
    """One character of a page's ``NW:DOCID`` changed: the page and ``doclist`` disagree (a
    failed ``doclist`` check)."""
    return _meta_value_flip(t, b"NW:DOCID", "meta-docid-changed")


def meta_url_changed(t: _Tree) -> NtcirDamaged:
    """One character of a page's ``NW:URL`` changed: the page and its ``doclist`` line
    disagree (a failed check), else the page goes out under another URL with exit 0."""
    return _meta_value_flip(t, b"NW:URL", "meta-url-changed")


def meta_garbled(t: _Tree) -> NtcirDamaged:
    """Random bytes of a ``.meta`` overwritten: the page must be delivered or named; what
    shows depends on where they land, so no particular report is promised."""
    p = t.page()
    path = t.path(p.rel(ext="meta"))
    data = bytearray(path.read_bytes())
    at = t.rng.randrange(len(data))
    n = min(len(data) - at, t.rng.randrange(1, 8))
    data[at : at + n] = t.rng.randbytes(n)
    path.write_bytes(bytes(data))
    return NtcirDamaged("meta-garbled", f"{p.rel(ext='meta')} {n} bytes at {at} overwritten",
                        touched=frozenset({p.index}))  # fmt: skip


def meta_zeroed(t: _Tree) -> NtcirDamaged:
    """A run of NUL bytes over a ``.meta`` (a lost block zero-filled): the page must be
    delivered or named; a run over a closing tag shows as a cut (``meta-cut-short``)."""
    p = t.page()
    path = t.path(p.rel(ext="meta"))
    data = bytearray(path.read_bytes())
    lo = t.rng.randrange(len(data))
    hi = min(len(data), lo + t.rng.randrange(1, 128))
    data[lo:hi] = bytes(hi - lo)
    path.write_bytes(bytes(data))
    return NtcirDamaged("meta-zeroed", f"{p.rel(ext='meta')} bytes {lo}..{hi} zeroed",
                        touched=frozenset({p.index}))  # fmt: skip


def meta_bytes_deleted(t: _Tree) -> NtcirDamaged:
    """A range of a ``.meta`` deleted (the rest shifted): delivered or named."""
    p = t.page()
    path = t.path(p.rel(ext="meta"))
    data = path.read_bytes()
    lo = t.rng.randrange(len(data))
    hi = min(len(data), lo + t.rng.randrange(1, 64))
    path.write_bytes(data[:lo] + data[hi:])
    return NtcirDamaged("meta-bytes-deleted", f"{p.rel(ext='meta')} bytes {lo}..{hi} deleted",
                        touched=frozenset({p.index}))  # fmt: skip


def site_is_file(t: _Tree) -> NtcirDamaged:
    """A raw site folder replaced by a file of its name: its pages leave the raw tree (read
    from euc/, a failed ``trees`` check); the file is warned ``not-read``."""
    p = t.page()
    s = p.site
    folder = t.path(f"raw/{s[:2]}/{s[:4]}/{s}")
    shutil.rmtree(folder)
    folder.write_bytes(b"not a folder\n")
    gone = [q for q in t.pages if q.site == s]
    return NtcirDamaged(
        "site-is-file",
        f"raw site folder {s} replaced by a file",
        touched=frozenset(q.index for q in gone),
        expect=tuple(Expect("check", "doclist", q.doc_id) for q in gone)
        + (
            Expect("check", f"raw/{s[:2]}/{s[:4]}/{s}", "euc/"),
            Expect("warning", None, "not-read"),
        ),
    )


def page_deleted(t: _Tree) -> NtcirDamaged:
    """A page's ``.data`` and ``.meta`` deleted (in every tree): ``doclist`` names a page the
    tree lacks (a failed check naming its doc id)."""
    p = t.page()
    for tree in ("raw", "euc", "cooked"):
        for ext in ("data", "meta"):
            t.path(p.rel(tree, ext)).unlink()
    return NtcirDamaged("page-deleted", f"page {p.rel(ext='*')} deleted in every tree",
                        touched=frozenset({p.index}),
                        expect=(Expect("check", "doclist", p.doc_id),))  # fmt: skip


def page_deleted_raw(t: _Tree) -> NtcirDamaged:
    """A page's two files deleted from the raw tree only (euc/ and cooked/ keep it): a
    failed check naming a file of the page that is there."""
    p = t.page()
    for ext in ("data", "meta"):
        t.path(p.rel(ext=ext)).unlink()
    return NtcirDamaged("page-deleted-raw", f"page {p.rel(ext='*')} deleted from raw/",
                        touched=frozenset({p.index}),
                        expect=(Expect("check", p.rel("euc", "data"), "raw/"),))  # fmt: skip


def cooked_deleted(t: _Tree) -> NtcirDamaged:
    """A page's ``.data`` deleted from ``cooked/`` (or ``euc/``): the raw page is delivered
    (without its cooked text), a failed check naming it says which file is gone."""
    p = t.page()
    tree = t.rng.choice(("cooked", "euc"))
    t.path(p.rel(tree)).unlink()
    return NtcirDamaged("cooked-deleted", f"{p.rel(tree)} deleted",
                        touched=frozenset({p.index}),
                        expect=(Expect("check", p.rel(), p.rel(tree).split("/")[0] + "/"),))  # fmt: skip


def _one_file_deleted(t: _Tree, ext: str) -> NtcirDamaged:
    p = t.page()
    t.path(p.rel(ext=ext)).unlink()
    other = "meta" if ext == "data" else "data"
    return NtcirDamaged(f"{ext}-deleted", f"{p.rel(ext=ext)} deleted",
                        touched=frozenset({p.index}),
                        expect=(Expect("check", p.rel(ext=other), f".{ext}"),))  # fmt: skip


def data_deleted(t: _Tree) -> NtcirDamaged:
    """A ``.data`` deleted, its ``.meta`` left: a failed check naming the ``.meta``."""
    return _one_file_deleted(t, "data")


def meta_deleted(t: _Tree) -> NtcirDamaged:
    """A ``.meta`` deleted, its ``.data`` left: a failed check naming the ``.data``."""
    return _one_file_deleted(t, "meta")


def extra_page(t: _Tree) -> NtcirDamaged:
    """A page the lists do not name (a new number in a site, a doc id of no list): a failed
    ``doclist`` check naming it; it is delivered (the only record matching no original)."""
    p = t.page()
    number = PER + 1 + t.rng.randrange(3)
    doc_id = f"NW{900000000 + t.rng.randrange(99999):09d}"
    url = f"http://www{int(p.site) - 1}.example.jp/extra{number}"
    extra = NtcirPage(-1, p.site, number, doc_id, url, p.head, p.payload)
    meta = t.path(p.rel(ext="meta")).read_bytes()
    meta = meta.replace(p.doc_id.encode(), doc_id.encode()).replace(p.url.encode(), url.encode())
    t.path(extra.rel()).write_bytes(p.payload[: t.rng.randrange(len(p.payload))])
    t.path(extra.rel(ext="meta")).write_bytes(meta)
    return NtcirDamaged("extra-page", f"{extra.rel()} ({doc_id}) added",
                        expect=(Expect("check", extra.rel(), doc_id),),
                        added=((url, doc_id),))  # fmt: skip


def extra_copy(t: _Tree) -> NtcirDamaged:
    """A page's two files copied to a new number of its site (a copy run twice): two pages
    with one doc id, which ``doclist`` holds once ("unique within the list")."""
    p = t.page()
    number = PER + 1 + t.rng.randrange(3)
    copy = NtcirPage(-1, p.site, number, p.doc_id, p.url, p.head, p.payload)
    for ext in ("data", "meta"):
        shutil.copyfile(t.path(p.rel(ext=ext)), t.path(copy.rel(ext=ext)))
    return NtcirDamaged("extra-copy", f"{p.rel()} copied to {copy.rel()}",
                        expect=(Expect("check", copy.rel(), p.doc_id),),
                        added=((p.url, p.doc_id),))  # fmt: skip


def folder_renamed(t: _Tree) -> NtcirDamaged:
    """A raw site folder (or its parent) renamed to a name outside the layout: its pages
    leave the raw tree; ``doclist`` names them (failed checks naming their doc ids), the
    renamed folder is warned ``not-read``."""
    p = t.page()
    s = p.site
    if t.rng.random() < 0.5:
        src, dst = f"raw/{s[:2]}/{s[:4]}/{s}", f"raw/{s[:2]}/{s[:4]}/{s}.old"
    else:
        src, dst = f"raw/{s[:2]}/{s[:4]}", f"raw/{s[:2]}/{s[:4]}-copy"
    os.rename(t.path(src), t.path(dst))
    gone = [q for q in t.pages if q.rel().startswith(src + "/")]
    return NtcirDamaged(
        "folder-renamed",
        f"{src} renamed {dst}",
        touched=frozenset(q.index for q in gone),
        expect=tuple(Expect("check", "doclist", q.doc_id) for q in gone)
        + (Expect("warning", None, "not-read"),),
    )


def _becomes_folder(t: _Tree, ext: str) -> NtcirDamaged:
    p = t.page()
    path = t.path(p.rel(ext=ext))
    path.unlink()
    path.mkdir()
    (path / "x").write_bytes(b"x")
    return NtcirDamaged(f"{ext}-is-folder", f"{p.rel(ext=ext)} replaced by a folder",
                        touched=frozenset({p.index}),
                        expect=(Expect("problem", p.rel(ext=ext), ""),))  # fmt: skip


def data_is_folder(t: _Tree) -> NtcirDamaged:
    """A ``.data`` replaced by a folder of the same name: named, never a crash."""
    return _becomes_folder(t, "data")


def meta_is_folder(t: _Tree) -> NtcirDamaged:
    """A ``.meta`` replaced by a folder of the same name: named, never a crash."""
    return _becomes_folder(t, "meta")


# -- list patterns: the lists feed no WARC field, so every page stays byte-exact ---------------


def _pick_line(t: _Tree, name: str) -> tuple[list[bytes], int]:
    lines = t.list_lines(name)
    return lines, t.rng.randrange(len(lines))


def list_line_garbled(t: _Tree) -> NtcirDamaged:
    """A list line's separator or id garbled (a tab become a space, a digit of its id a
    letter): no item of its list, a failed check naming the list."""
    name = t.rng.choice(LISTS)
    lines, i = _pick_line(t, name)
    line = lines[i]
    if t.rng.random() < 0.5:
        tabs = [j for j, c in enumerate(line) if c == 9]
        j = t.rng.choice(tabs)
        line = line[:j] + b" " + line[j + 1 :]
    else:
        digits = [j for j, c in enumerate(line) if 48 <= c <= 57]
        j = t.rng.choice(digits)
        if name in ("duplist", "aliaslist"):  # their id is the last field
            digits = [k for k in digits if k > line.rindex(b"\t")]
            j = t.rng.choice(digits)
        elif name in ("doclist", "targetlist", "linklist", "sitelist"):
            digits = [k for k in digits if k < line.index(b"\t")]
            j = t.rng.choice(digits)
        line = line[:j] + b"x" + line[j + 1 :]
    lines[i] = line
    t.path(name).write_bytes(b"".join(lines))
    return NtcirDamaged("list-line-garbled", f"{name} line {i + 1} -> {line!r}",
                        expect=(Expect("check", name, f"line {i + 1}"),))  # fmt: skip


def list_line_cut(t: _Tree) -> NtcirDamaged:
    """A list line cut short (its end lost, its newline kept). Shows when the cut leaves it
    without a field, cuts an id, or cuts a URL another list or a page records."""
    name = t.rng.choice(LISTS)
    lines, i = _pick_line(t, name)
    body = lines[i].rstrip(b"\n")
    cut = t.rng.randrange(len(body))
    lines[i] = body[:cut] + b"\n"
    t.path(name).write_bytes(b"".join(lines))
    last_tab = body.rindex(b"\t")
    shows = cut <= last_tab or name in ("aliaslist", "duplist", "linklist", "doclist")
    if name == "targetlist":  # a cut URL: the doclist line it was is missing from it
        shows = True
    return NtcirDamaged(
        "list-line-cut",
        f"{name} line {i + 1} cut to {body[:cut]!r}",
        expect=(Expect("check", None, ""),) if shows else (),
    )


def list_line_duplicated(t: _Tree) -> NtcirDamaged:
    """A list line written twice: a failed check where the README says ids are unique
    (``sitelist``, ``doclist``, ``targetlist``); a repeated ``duplist``, ``linklist`` or
    ``aliaslist`` line breaks no rule of the README."""
    name = t.rng.choice(LISTS)
    lines, i = _pick_line(t, name)
    lines.insert(i + 1, lines[i])
    t.path(name).write_bytes(b"".join(lines))
    unique = name in ("sitelist", "doclist", "targetlist")
    return NtcirDamaged(
        "list-line-duplicated",
        f"{name} line {i + 1} written twice",
        expect=(Expect("check", name, ""),) if unique else (),
    )


def list_cut(t: _Tree) -> NtcirDamaged:
    """A list file cut at any byte: a last line without its newline ("each list item ...
    terminated by a new line character") is a failed check of the list; whole lines lost show
    where another list or the tree records them (``sitelist``, ``doclist``, ``targetlist``),
    as failed checks of what refers to them, which name the list (soak seed 105 of a sitelist
    cut at a line end: its third site named by the site folder, aliaslist and doclist)."""
    name = t.rng.choice(LISTS)
    data = t.path(name).read_bytes()
    cut = t.rng.randrange(1, len(data))
    t.path(name).write_bytes(data[:cut])
    if data[cut - 1] != 10:  # the last line cut: a bad line of the list
        expect: tuple[Expect, ...] = (Expect("check", name, ""),)
    elif name in ("sitelist", "doclist", "targetlist"):
        # whole lines lost: told by what refers to them (a site folder, an aliaslist or
        # doclist line "not in sitelist", a page "not in doclist"...), named there
        expect = (Expect("check", None, name),)
    else:
        expect = ()
    return NtcirDamaged("list-cut", f"{name} cut at {cut} of {len(data)} bytes", expect=expect)


def list_deleted(t: _Tree) -> NtcirDamaged:
    """A list deleted: NW100G-01 "consists of" the six lists, so a collection with some of
    them and not another has lost one: a ``list-missing`` warning (not a failed check: trees
    built by hand or by other tools often hold only some lists; what the run lacks without it
    is in the message). The pages stay byte-exact."""
    name = t.rng.choice(LISTS)
    t.path(name).unlink()
    return NtcirDamaged("list-deleted", f"{name} deleted",
                        expect=(Expect("warning", None, "list-missing"),))  # fmt: skip


def list_is_folder(t: _Tree) -> NtcirDamaged:
    """A list replaced by a folder of its name: not read as a list (``list-missing``)."""
    name = t.rng.choice(LISTS)
    t.path(name).unlink()
    t.path(name).mkdir()
    return NtcirDamaged("list-is-folder", f"{name} replaced by a folder",
                        expect=(Expect("warning", None, "list-missing"),))  # fmt: skip


def list_nul(t: _Tree) -> NtcirDamaged:
    """A run of NUL bytes over a list (a lost block zero-filled): no field of a list holds a
    NUL, so every line it touches is no item (a failed check naming the list)."""
    name = t.rng.choice(LISTS)
    data = bytearray(t.path(name).read_bytes())
    lo = t.rng.randrange(len(data) - 1)
    hi = min(len(data) - 1, lo + t.rng.randrange(1, 64))  # the last newline stays
    data[lo:hi] = bytes(hi - lo)
    t.path(name).write_bytes(bytes(data))
    return NtcirDamaged("list-nul", f"{name} bytes {lo}..{hi} zeroed",
                        expect=(Expect("check", name, ""),))  # fmt: skip


NTCIR_PATTERNS: dict[str, Callable[[_Tree], NtcirDamaged]] = {
    "data-cut-body": data_cut_body,
    "data-cut-zero": data_cut_zero,
    "data-zeroed": data_zeroed,
    "data-flipped": data_flipped,
    "meta-cut-head": meta_cut_head,
    "meta-cut-fields": meta_cut_fields,
    "meta-zero": meta_zero,
    "meta-docid-changed": meta_docid_changed,
    "meta-url-changed": meta_url_changed,
    "meta-garbled": meta_garbled,
    "meta-zeroed": meta_zeroed,
    "meta-bytes-deleted": meta_bytes_deleted,
    "page-deleted": page_deleted,
    "page-deleted-raw": page_deleted_raw,
    "cooked-deleted": cooked_deleted,
    "data-deleted": data_deleted,
    "meta-deleted": meta_deleted,
    "extra-page": extra_page,
    "extra-copy": extra_copy,
    "folder-renamed": folder_renamed,
    "site-is-file": site_is_file,
    "data-is-folder": data_is_folder,
    "meta-is-folder": meta_is_folder,
    "list-line-garbled": list_line_garbled,
    "list-line-cut": list_line_cut,
    "list-line-duplicated": list_line_duplicated,
    "list-cut": list_cut,
    "list-deleted": list_deleted,
    "list-is-folder": list_is_folder,
    "list-nul": list_nul,
}


# -- the harness -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NtcirCase:
    """One damaged run: a pattern and a seed."""

    pattern: str
    seed: int
    input: str = INPUT

    @property
    def id(self) -> str:
        return f"{self.input}/{self.pattern}/s{self.seed}"


@dataclass
class NtcirResult:
    """The outcome of one case."""

    case: NtcirCase
    damaged: NtcirDamaged
    failures: list[Failure]
    rc: int
    argv: str
    report: dict = field(default_factory=dict)


def enumerate_ntcir_cases(seeds: range | list[int] = range(1)) -> list[NtcirCase]:
    """Every pattern on the tagged tree and the ``meta-*`` ones on the lines tree, once per
    seed."""
    return [
        NtcirCase(p, s, input_id)
        for input_id, syntax in INPUTS.items()
        for p in NTCIR_PATTERNS
        if syntax == "tagged" or p.startswith("meta-")
        for s in seeds
    ]


def _block_key(o: OutRecord) -> tuple[str, str] | None:
    h = dict(o.headers)
    return (h.get("WARC-Target-URI", ""), o.block_sha) if not o.writer_info else None


class NtcirHarness:
    """Builds the intact tree once under ``root``, converts it once (the baseline), and runs
    cases on damaged copies."""

    def __init__(
        self, root: Path, runner: Runner | None = None, keep: bool = False, input_id: str = INPUT
    ) -> None:
        self.input = input_id
        self.syntax = INPUTS[input_id]
        self.root = Path(root) / self.syntax
        self.runner = runner or Runner()
        self.keep = keep
        self._pages: list[NtcirPage] | None = None
        self._exact: dict[int, tuple] | None = None
        self.base_failures: list[Failure] = []

    @property
    def intact(self) -> Path:
        return self.root / "intact" / "nw"

    def pages(self) -> list[NtcirPage]:
        """The intact tree's pages (built on first use)."""
        if self._pages is None:
            from tests.plugins.ntcir_tree import build_tree

            shutil.rmtree(self.intact, ignore_errors=True)
            built = build_tree(self.intact, self.syntax, sites=SITES, per=PER)  # type: ignore[arg-type]
            self._pages = [NtcirPage(i, p.site, p.number, p.doc_id, p.url, p.head, p.payload)
                           for i, p in enumerate(built)]  # fmt: skip
        return self._pages

    def _argv(self, root: Path, out: Path) -> list[str]:
        return ["convert", str(root), "--to", "warc", "-o", str(out), "--progress", "never"]

    def baseline(self) -> dict[int, tuple]:
        """Each page's exact output form in the intact tree's conversion (and what failed)."""
        if self._exact is None:
            pages = self.pages()
            work = self.root / "baseline"
            shutil.rmtree(work, ignore_errors=True)
            out = work / "out"
            run = self.runner.run(self._argv(self.intact, out), work, work / "logs")
            report = _report(out)
            self.base_failures = list(run_failures(run, report))
            if run.rc != 0:
                self.base_failures.append(("exception", f"intact tree: exit {run.rc}"))
            if report and (report.get("damages") or report.get("checks_failed")):
                self.base_failures.append(("spurious", "intact tree: problems reported"))
            outs, unreadable = read_output(str(out))
            by_key = {_block_key(o): o for o in outs}
            self._exact = {}
            for p in pages:
                hit = by_key.get((p.url, sha(p.head + p.payload)))
                if hit is None:
                    self.base_failures.append(("lost", f"intact tree: {p.rel()} not delivered"))
                else:
                    self._exact[p.index] = hit.exact(VOLATILE)
            if unreadable:
                self.base_failures.append(("unreadable", "; ".join(unreadable)))
        return self._exact

    def damage(self, case: NtcirCase, root: Path) -> NtcirDamaged:
        """Copy the intact tree to ``root`` and damage it (deterministic in the case id)."""
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(self.intact, root)
        tree = _Tree(root, self.pages(), random.Random(case.id), self.syntax)
        return NTCIR_PATTERNS[case.pattern](tree)

    def run_case(self, case: NtcirCase) -> NtcirResult:
        """Damage, convert and check one case."""
        exact = self.baseline()
        work = self.root / "cases" / case.id.replace("/", "_")
        shutil.rmtree(work, ignore_errors=True)
        tree = work / "in" / "nw"
        dmg = self.damage(case, tree)
        out = work / "out"
        argv = self._argv(tree, out)
        run = self.runner.run(argv, work, work / "logs")
        report = _report(out)
        fails = list(run_failures(run, report))
        fails += evaluate(self.pages(), exact, dmg, tree, out, report or {})
        result = NtcirResult(case, dmg, fails, run.rc, " ".join(argv), report or {})
        if not self.keep:
            shutil.rmtree(work, ignore_errors=True)
        return result

    def close(self) -> None:
        self.runner.close()


def _report(out: Path) -> dict | None:
    import json

    try:
        return json.loads((out / ".crawlmill" / "report.json").read_text())
    except (OSError, ValueError):
        return None


def _problems(report: dict, root: Path) -> list[tuple[str, str, str]]:
    """``(kind, path relative to root, reason)`` of every damage and failed check."""
    found = []
    for kind, key in (("damage", "damages"), ("check", "checks_failed")):
        for entry in report.get(key) or []:
            path = str(entry.get("path") or "")
            rel = os.path.relpath(path, root) if path.startswith(str(root)) else path
            found.append((kind, rel, str(entry.get("reason") or "")))
    return found


def _names(problem: tuple[str, str, str], page: NtcirPage) -> bool:
    """Whether a problem names ``page``: its file, its doc id, or its file in its unit."""
    _, rel, reason = problem
    if rel in (page.rel(), page.rel(ext="meta")) or page.doc_id in reason:
        return True
    return rel == page.unit and f"{page.number:04d}." in reason


def _meets(problem: tuple[str, str, str], want: Expect) -> bool:
    kind, rel, reason = problem
    if want.kind in ("damage", "check") and kind != want.kind:
        return False
    if want.path is not None and rel != want.path:
        return False
    return want.needle in reason


def evaluate(
    pages: list[NtcirPage],
    exact: dict[int, tuple],
    dmg: NtcirDamaged,
    tree: Path,
    out: Path,
    report: dict,
) -> list[Failure]:
    """The failed assertions of one damaged run (see the module docstring)."""
    fails: list[Failure] = []
    outs, unreadable = read_output(str(out))
    records = [o for o in outs if not o.writer_info]
    by_key: dict[tuple, list[OutRecord]] = {}
    for o in records:
        by_key.setdefault(_block_key(o), []).append(o)
    problems = _problems(report, tree)
    lost, changed, silent = [], [], []
    matched: set[int] = set()
    for p in pages:
        cands = by_key.get((p.url, sha(p.head + p.payload)), [])
        hit = next((o for o in cands if o.exact(VOLATILE) == exact.get(p.index)), None)
        if hit is not None:
            matched.add(id(hit))
        if p.index in dmg.touched:
            delivered = hit is not None or any(
                dict(o.headers).get("WARC-Target-URI") == p.url
                or dict(o.headers).get("WARC-TREC-ID") == p.doc_id
                for o in records
            )
            named = any(_names(x, p) for x in problems)
            if p.index in dmg.unseen and not delivered:
                silent.append(f"{p.rel()} (undetectable damage) not delivered")
            elif not delivered and not named:
                silent.append(f"{p.rel()} neither delivered nor named by a problem")
            continue
        if hit is None:
            (changed if cands else lost).append(p.rel())
    if lost:
        fails.append(("lost", f"untouched pages not delivered: {lost}"))
    if changed:
        fails.append(("changed", f"untouched pages delivered with other bytes: {changed}"))
    if silent:
        fails.append(("silent", "; ".join(silent)))
    for want in dmg.expect:
        if want.kind == "warning":
            if not (report.get("warnings") or {}).get(want.needle):
                fails.append(("unreported", f"no {want.needle!r} warning"))
        elif not any(_meets(x, want) for x in problems):
            got = [f"{k} {r}: {why[:70]}" for k, r, why in problems[:4]]
            fails.append(("unreported", f"no {want} in the report: {got}"))
    if dmg.clean and problems:
        fails.append(("spurious", f"problems reported for a valid tree: {problems[:2]}"))
    fails.extend(_offsets(report, tree))
    fails.extend(_accounting(report, len(outs), bool(unreadable)))
    touched_ids = {(p.url, p.doc_id) for p in pages if p.index in dmg.touched}
    allowed = touched_ids | set(dmg.added)
    allowed_urls = {u for u, _ in allowed}
    allowed_docs = {d for _, d in allowed}
    # a touched page whose .meta lost its URL and doc id is known by its bytes
    allowed_blocks = {sha(b) for p in pages if p.index in dmg.touched
                      for b in (p.payload, p.head + p.payload)}  # fmt: skip
    foreign = []
    for o in records:
        if id(o) in matched:
            continue
        h = dict(o.headers)
        if h.get("WARC-Target-URI") in allowed_urls or h.get("WARC-TREC-ID") in allowed_docs:
            continue
        if o.block_sha in allowed_blocks:
            continue
        foreign.append(f"{h.get('WARC-Target-URI')} ({h.get('WARC-TREC-ID')})")
    if foreign:
        fails.append(("foreign", f"records of no page the damage touched or added: {foreign[:4]}"))
    if unreadable:
        fails.append(("unreadable", "; ".join(unreadable[:2])))
    fails.extend(duplicate_id_failures(outs))
    return fails


def _offsets(report: dict, tree: Path) -> list[Failure]:
    bad = []
    for d in report.get("damages") or []:
        path, off, length = d.get("path") or "", d.get("offset"), d.get("length")
        if not os.path.exists(path) or not str(path).startswith(str(tree)):
            bad.append(f"{path!r} is no file of the tree")
            continue
        if os.path.isdir(path):  # a folder where a page file was: named at 0, no bytes
            if off != 0 or length not in (0, None):
                bad.append(f"{path}: a folder, damage at {off}+{length}")
            continue
        size = os.path.getsize(path)
        if not isinstance(off, int) or not 0 <= off <= size:
            bad.append(f"{path}: offset {off} outside the file (size {size})")
        elif isinstance(length, int) and (length < 0 or off + length > size):
            bad.append(f"{path}: offset {off} + length {length} past the end (size {size})")
    return [("offsets", "; ".join(bad[:3]))] if bad else []


def _accounting(report: dict, n_out: int, unreadable: bool) -> list[Failure]:
    if not report:
        return []
    read, added = report.get("read", 0), report.get("added", 0)
    written, quarantined = report.get("written", 0), report.get("quarantined", 0)
    dropped = sum(sum(v.values()) for v in (report.get("dropped") or {}).values())
    fails = []
    if read + added != written + dropped + quarantined:
        fails.append(("accounting", f"read {read} + added {added} != written {written} + "
                                    f"dropped {dropped} + quarantined {quarantined}"))  # fmt: skip
    if not unreadable and written != n_out:
        fails.append(("accounting", f"written {written}, but the output holds {n_out} records"))
    return fails
