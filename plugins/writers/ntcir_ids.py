"""The ``ntcir`` writer's whole-run step: site, page and doc ids from the collect rows, and the
six lists from the resulting table (the rules are in :mod:`crawlmill.plugins.writers.ntcir`).

The allocation holds every row as Python objects in the driver (about 1 KB per page): right
for collections of millions of pages (NW100G-01 has 11 million), not for billions; an
allocation over sorted Arrow columns is the next step when that is needed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["allocate", "list_rows"]


def _table_schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("doc", pa.string()),
            ("input", pa.int32()),
            ("seq", pa.int64()),
            ("site", pa.string()),
            ("page", pa.int64()),
            ("url", pa.string()),
            ("host", pa.string()),
            ("port", pa.int32()),
            ("links", pa.list_(pa.string())),
            ("dups", pa.list_(pa.string())),
        ]
    )


def _hinted(rows: list[dict[str, Any]]) -> bool:
    """Whether every row carries its NTCIR ids and they agree (one host and port per site,
    each doc id and each site page once)."""
    if not rows or any(r["site_hint"] is None or r["doc_hint"] is None for r in rows):
        return False
    sites: dict[str, tuple[str, int]] = {}
    docs: set[str] = set()
    pages: set[tuple[str, int]] = set()
    for r in rows:
        if sites.setdefault(r["site_hint"], (r["host"], r["port"])) != (r["host"], r["port"]):
            return False
        if r["doc_hint"] in docs or (r["site_hint"], r["page_hint"]) in pages:
            return False
        if r["page_hint"] is None or not str(r["doc_hint"]).startswith("NW"):
            return False
        docs.add(r["doc_hint"])
        pages.add((r["site_hint"], r["page_hint"]))
    return True


def allocate(rows: Any, options: Any, ctx: Any) -> Any:
    """The table: one row per page and per link target that is no page, by doc id."""
    import pyarrow as pa

    data = rows.to_pylist()
    if _hinted(data):
        for r in data:
            r["site"], r["page"], r["doc"] = r["site_hint"], r["page_hint"], r["doc_hint"]
        next_doc = max(int(r["doc"][2:]) for r in data) + 1
        ctx.count("ids-kept", len(data))
    else:
        order = sorted({(r["host"], r["port"]) for r in data})
        if len(order) > 999_999:
            raise ValueError(f"{len(order)} sites: six-digit site ids hold 999,999")
        site_of = {where: f"{n + 1:06d}" for n, where in enumerate(order)}
        counters: dict[str, int] = {}
        for r in sorted(data, key=lambda r: (r["input"], r["seq"])):
            r["site"] = site_of[(r["host"], r["port"])]
            counters[r["site"]] = counters.get(r["site"], 0) + 1
            r["page"] = counters[r["site"]]
        data.sort(key=lambda r: (r["site"], r["page"]))
        for n, r in enumerate(data):
            r["doc"] = f"NW{n + 1:09d}"
        next_doc = len(data) + 1
        ctx.count("sites", len(order))
    pages = {r["url"] for r in data}
    targets = sorted({u for r in data for u in r["links"] or () if u not in pages})
    if next_doc + len(targets) > 1_000_000_000:
        raise ValueError("more documents than nine-digit doc ids hold")
    out = [
        {
            k: r[k]
            for k in ("doc", "input", "seq", "site", "page", "url", "host", "port", "links", "dups")
        }  # fmt: skip
        for r in data
    ]
    for n, url in enumerate(targets):
        out.append(
            {
                "doc": f"NW{next_doc + n:09d}",
                "input": -1,
                "seq": -1,
                "site": "",
                "page": 0,
                "url": url,
                "host": "",
                "port": 0,
                "links": [],
                "dups": [],
            }  # fmt: skip
        )
    ctx.count("pages", len(data))
    ctx.count("targets", len(targets))
    return pa.Table.from_pylist(out, schema=_table_schema()).sort_by("doc")


def _clean(fields: list[str]) -> bool:
    return not any(ch in value for value in fields for ch in "\t\r\n")


def list_rows(
    table: Any, aliases: dict[str, str], skipped: Callable[[str], None]
) -> dict[str, Iterator[list[str]]]:
    """List name -> its lines' fields, sorted by first field (``skipped(name)`` for an entry
    a list line cannot hold: a URL with a tab or a line break)."""
    pages = table.filter(_mask(table))
    site_of: dict[str, str] = {}
    sites: dict[str, tuple[str, int]] = {}
    for site, host, port in zip(
        pages["site"].to_pylist(), pages["host"].to_pylist(), pages["port"].to_pylist(),
        strict=True,
    ):  # fmt: skip
        sites[site] = (host, port)
        site_of[host] = site

    def keep(name: str, items: Iterator[list[str]]) -> Iterator[list[str]]:
        for fields in items:
            if _clean(fields):
                yield fields
            else:
                skipped(name)

    def column(name: str) -> list[Any]:
        return pages[name].to_pylist()

    alias_items = sorted(
        [f"http://{alias}", site_of[host]] for alias, host in aliases.items() if host in site_of
    )
    dups = sorted(
        [dup, doc]
        for doc, found in zip(column("doc"), column("dups"), strict=True)
        for dup in found
    )
    return {
        "sitelist": keep(
            "sitelist", ([s, "http", h, str(p)] for s, (h, p) in sorted(sites.items()))
        ),
        "aliaslist": keep("aliaslist", iter(alias_items)),
        "doclist": keep(
            "doclist", ([d, u] for d, u in zip(column("doc"), column("url"), strict=True))
        ),
        "targetlist": keep(
            "targetlist",
            (
                [d, u]
                for d, u in zip(table["doc"].to_pylist(), table["url"].to_pylist(), strict=True)
            ),
        ),
        "duplist": keep("duplist", iter(dups)),
        "linklist": keep(
            "linklist",
            (
                [d, u]
                for d, links in zip(column("doc"), column("links"), strict=True)
                for u in links
            ),
        ),
    }


def _mask(table: Any) -> Any:
    import pyarrow.compute as pc

    return pc.greater_equal(table["input"], 0)
