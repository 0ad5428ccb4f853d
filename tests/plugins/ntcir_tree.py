"""Build NTCIR WEB trees for tests: real pages (the EUC-JP pages of a ClueWeb09 sample),
laid out as the NW100G-01 README describes, under either ``.meta`` syntax."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from crawlmill import open_reader
from crawlmill.formats.ntcir.cooked import cook
from crawlmill.formats.ntcir.lists import write_list
from crawlmill.formats.ntcir.meta import CTYPE, DATE, DOCID, HTTPH, URL, MetaSyntax, write_meta

from tests.conftest import SAMPLES

JA = SAMPLES / "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz"


@dataclass
class Page:
    """One page of a built tree."""

    site: str
    number: int
    doc_id: str
    url: str
    head: bytes
    payload: bytes


def real_pages(n: int) -> list[tuple[str, bytes, bytes]]:
    """``(url, http head, payload)`` of the first ``n`` responses of the ja sample."""
    found = []
    with open_reader(str(JA)) as records:
        for r in records:
            if r.kind == "response" and r.http_head:
                found.append((r.url, r.http_head, r.payload))
            if len(found) == n:
                break
    return found


def build_tree(
    root: Path, syntax: MetaSyntax = "tagged", sites: int = 3, per: int = 3
) -> list[Page]:
    """A tree of ``sites`` sites with ``per`` pages each (raw, euc, cooked and the lists);
    doc ids ``NW000000001``... in site then page order."""
    pages: list[Page] = []
    sources = real_pages(sites * per)
    sitelist, doclist, linklist, duplist, aliaslist = [], [], [], [], []
    for s in range(sites):
        site = f"{s + 1:06d}"
        host = f"www{s}.example.jp"
        sitelist.append([site, "http", host, "80"])
        aliaslist.append([f"http://alias{s}.example.jp", site])
        for p in range(per):
            url, head, payload = sources[s * per + p]
            doc_id = f"NW{len(pages) + 1:09d}"
            page = Page(site, p + 1, doc_id, f"http://{host}/{p}?from={url[-20:]}", head, payload)
            pages.append(page)
            doclist.append([doc_id, page.url])
            duplist.append([page.url + "#dup", doc_id])
            fields = [
                (DOCID, doc_id.encode()),
                (DATE, b""),
                (CTYPE, b"text/html; charset=EUC-JP"),
                (URL, page.url.encode()),
                (HTTPH, head),
            ]
            cooked = cook(payload.decode("euc_jp", "replace")).encode("euc_jp", "replace")
            for tree, data in (("raw", payload), ("euc", payload), ("cooked", cooked)):
                folder = root / tree / site[:2] / site[:4] / site
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{p + 1:04d}.data").write_bytes(data)
                (folder / f"{p + 1:04d}.meta").write_bytes(write_meta(fields, syntax))
    for page in pages:  # links to the other pages of its site (pages of targetlist)
        linklist.extend([page.doc_id, other.url] for other in pages
                        if other.site == page.site and other is not page)  # fmt: skip
    root.joinpath("sitelist").write_bytes(write_list("sitelist", sitelist))
    root.joinpath("aliaslist").write_bytes(write_list("aliaslist", aliaslist))
    root.joinpath("doclist").write_bytes(write_list("doclist", doclist))
    root.joinpath("targetlist").write_bytes(write_list("targetlist", doclist))
    root.joinpath("duplist").write_bytes(write_list("duplist", duplist))
    root.joinpath("linklist").write_bytes(write_list("linklist", linklist))
    return pages


def build_nw1000g(
    root: Path, sites: int = 2, per: int = 3, cooked_tree: str = "cook"
) -> list[Page]:
    """An NW1000G-04 tree (``raw/``, ``euc/`` and ``cook/`` of ``<NNN>/<site>.filelist`` and
    ``<NNN>/<part[:3]>/<part[3:5]>xx/<site>_<part>.dat``) under ``root/data``, pages
    ``00001``... per site, the filelist's first field the doc id."""
    from crawlmill.formats.ntcir.nw1000g import dat_path, format_filelist_line

    pages: list[Page] = []
    sources = real_pages(sites * per)
    for s in range(sites):
        site = f"{(s + 1) * 1000 + 7:07d}"  # 0001007, 0002007 (both in 000/)
        lines = {t: b"" for t in ("raw", "euc", cooked_tree)}
        for p in range(per):
            url, head, payload = sources[s * per + p]
            part = f"{(p + 1) * 37:05d}"  # 00037, 00074, 00111: several folders
            doc_id = f"NW{len(pages) + 1:09d}"
            page = Page(site, p + 1, doc_id, f"http://www{s}.example.jp/{part}", head, payload)
            pages.append(page)
            cooked = cook(payload.decode("euc_jp", "replace")).encode("euc_jp", "replace")
            for tree, data in (("raw", payload), ("euc", payload), (cooked_tree, cooked)):
                path = root / "data" / tree / dat_path(site, part)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                lines[tree] += format_filelist_line(doc_id, part, page.url)
        for tree, data in lines.items():
            (root / "data" / tree / site[:3] / f"{site}.filelist").write_bytes(data)
    (root / "lists" / "sitelist").mkdir(parents=True)
    return pages
