"""The ``ntcir`` writer's whole-run step: site, page and doc ids from the collect rows, and the
six lists from the resulting table (the rules are in :mod:`crawlmill.plugins.writers.ntcir`).

Everything runs on Arrow columns and numpy arrays, never on a Python object per page: the
rows stay memory-mapped, sites come from the sorted distinct hosts (a host's rank, then the
port, as one int64 key per row), pages and doc ids from one stable sort of the rows by site,
link targets from Arrow's hash kernels. The driver holds a few tens of bytes per page
(``benchmarks/bench_ntcir_ids.py`` measures it). The table is in ``(input, seq)`` order, the
link targets that are no page (``input`` -1) first, so each final task takes its rows by
binary search (:func:`crawlmill.core.reduce_tables.rows_of_input`); the lists are written in doc id
order through a sort index, batch by batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["allocate", "list_rows", "site_pages"]

_COLUMNS = ("doc", "input", "seq", "site", "page", "url", "host", "port", "links", "dups", "scheme")
_BATCH = 65536
_MAX_SITES = 999_999
_MAX_DOCS = 1_000_000_000


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
            ("scheme", pa.string()),
            ("aliases", pa.list_(pa.string())),
        ]
    )


def _column(rows: Any, name: str, fill: Any) -> Any:
    """Column ``name`` of ``rows``, or ``fill`` repeated when the rows have none (rows of an
    older collect schema)."""
    import pyarrow as pa

    if name in rows.column_names:
        return rows[name]
    return pa.repeat(pa.scalar(fill), rows.num_rows)


def _aliases(rows: Any) -> Any:
    """The ``aliases`` column of ``rows`` (empty lists for rows without one)."""
    import pyarrow as pa

    if "aliases" in rows.column_names:
        return rows["aliases"]
    return pa.array([[]] * rows.num_rows, pa.list_(pa.string()))


def _numbered(values: Any, width: int, prefix: str = "") -> Any:
    """``prefix`` + each number zero-padded to ``width`` digits, as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    padded = pc.utf8_lpad(pc.cast(pa.array(values, pa.int64()), pa.string()), width, "0")
    return pc.binary_join_element_wise(prefix, padded, "") if prefix else padded


def _in_input_order(rows: Any) -> Any:
    """``rows`` sorted by ``(input, seq)`` (as the pass hands them; sorted here if not)."""
    import numpy as np

    if rows.num_rows < 2:
        return rows
    inp = rows["input"].to_numpy().astype(np.int64)
    seq = rows["seq"].to_numpy()
    step_inp, step_seq = np.diff(inp), np.diff(seq)
    if bool(np.all((step_inp > 0) | ((step_inp == 0) & (step_seq >= 0)))):
        return rows
    return rows.take(np.lexsort((seq, inp)))


def _hinted(rows: Any, site_digits: str) -> bool:
    """Whether every row carries its NTCIR ids and they agree (one host and port per site,
    each doc id and each site page once, doc ids ``NW`` + digits, site ids of
    ``site_digits`` digits, a regex count such as ``"6"``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = rows.num_rows
    if n == 0 or any(rows[c].null_count for c in ("site_hint", "page_hint", "doc_hint")):
        return False
    if not pc.all(pc.match_substring_regex(rows["site_hint"], f"^[0-9]{{{site_digits}}}$")).as_py():
        return False
    docs = rows["doc_hint"]
    if not pc.all(pc.match_substring_regex(docs, r"^NW[0-9]{1,18}$")).as_py():
        return False
    if pc.count_distinct(docs).as_py() != n:
        return False
    pairs = pa.table({"s": rows["site_hint"], "p": rows["page_hint"]})
    if pairs.group_by(["s", "p"]).aggregate([]).num_rows != n:
        return False
    where = pa.table({"s": rows["site_hint"], "h": rows["host"], "o": rows["port"]})
    per_site = where.group_by("s").aggregate([("h", "count_distinct"), ("o", "count_distinct")])
    return bool(
        pc.all(pc.equal(per_site["h_count_distinct"], 1)).as_py()
        and pc.all(pc.equal(per_site["o_count_distinct"], 1)).as_py()
    )


def _sites(rows: Any) -> tuple[Any, int]:
    """Each row's site number (0-based, in host name then port order) and the site count."""
    import numpy as np
    import pyarrow.compute as pc

    hosts = pc.unique(rows["host"])
    rank = np.empty(len(hosts), np.int64)
    rank[pc.sort_indices(hosts).to_numpy()] = np.arange(len(hosts), dtype=np.int64)
    host_rank = rank[pc.index_in(rows["host"], value_set=hosts).to_numpy()]
    port = rows["port"].to_numpy().astype(np.int64) + (1 << 31)  # any int32 as unsigned
    keys, site = np.unique((host_rank << 32) | port, return_inverse=True)
    return site.reshape(-1), len(keys)


def _allocated(rows: Any, ctx: Any) -> tuple[Any, Any, Any, int]:
    """Site, page and doc columns allocated anew, and the next free doc number."""
    import numpy as np

    site, count = _sites(rows)
    if count > _MAX_SITES:
        raise ValueError(f"{count} sites: six-digit site ids hold 999,999")
    n = len(site)
    order = np.argsort(site, kind="stable")  # rows are in (input, seq) order: pages per site
    sizes = np.bincount(site, minlength=count)
    starts = np.cumsum(sizes) - sizes
    page = np.empty(n, np.int64)
    page[order] = np.arange(n, dtype=np.int64) - np.repeat(starts, sizes) + 1
    doc = np.empty(n, np.int64)
    doc[order] = np.arange(1, n + 1, dtype=np.int64)
    del order
    ctx.count("sites", count)
    return _numbered(site + 1, 6), page, _numbered(doc, 9, "NW"), n + 1


def _kept(rows: Any, ctx: Any) -> tuple[Any, Any, Any, int]:
    """The ids the rows carry, and the doc number after the largest."""
    import pyarrow as pa
    import pyarrow.compute as pc

    digits = pc.cast(pc.utf8_slice_codeunits(rows["doc_hint"], 2), pa.int64())
    ctx.count("ids-kept", rows.num_rows)
    return rows["site_hint"], rows["page_hint"], rows["doc_hint"], pc.max(digits).as_py() + 1


def _chunks(values: Any) -> list[Any]:
    return list(values.chunks) if hasattr(values, "chunks") else [values]


def _first_of(values: Any) -> Any:
    """For each row, the index of the first row with the same value (null: the row itself).
    One hash pass over the (memory-mapped) chunks: dictionary indices count values in the
    order they first occur, one dictionary for every chunk."""
    import numpy as np
    import pyarrow.compute as pc

    n = len(values)
    idx = np.arange(n, dtype=np.int64)
    if n == 0:
        return idx
    ids = [c.indices for c in _chunks(pc.dictionary_encode(values))]
    known = np.concatenate(
        [np.asarray(pc.is_valid(i).to_numpy(zero_copy_only=False), bool) for i in ids]
    )
    if not known.any():
        return idx
    group = np.concatenate(
        [np.asarray(pc.fill_null(i, 0).to_numpy(zero_copy_only=False), np.int64) for i in ids]
    )
    rows = idx[known]
    firsts = np.full(int(group.max()) + 1, -1, np.int64)
    _, at = np.unique(group[rows], return_index=True)  # each group's first row
    firsts[group[rows][at]] = rows[at]
    out = idx.copy()
    out[rows] = firsts[group[rows]]
    return out


def _primaries(rows: Any) -> tuple[Any, Any]:
    """Each row's page (the row whose doc id it shares) and whether it is a duplicate by
    content. A URL's first capture (pipeline order) is its page; a later capture of the URL
    shares it. A first capture whose payload is that of an earlier page's (the same digest;
    an empty payload has none) shares that page: its URL goes to duplist."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = rows.num_rows
    idx = np.arange(n, dtype=np.int64)
    url_first = _first_of(rows["url"])
    if "digest" in rows.column_names:
        digest = pc.if_else(pa.array(url_first == idx), rows["digest"].combine_chunks(), None)
        content_first = _first_of(digest)
    else:
        content_first = idx
    primary = np.where(url_first == idx, content_first, content_first[url_first])
    return primary, (url_first == idx) & (primary != idx)


def _site_keys(urls: Any) -> Any:
    """``host:port`` of each ``http``/``https`` URL (host in lower case, the scheme's port
    when left out); null for another URL."""
    import pyarrow.compute as pc

    found = pc.extract_regex(
        urls,
        r"^(?P<scheme>[hH][tT][tT][pP][sS]?)://(?:[^@/?#]*@)?(?P<host>[^/:?#@]+)"
        r"(?::(?P<port>[0-9]+))?(?:[/?#]|$)",
    )
    scheme = pc.utf8_lower(pc.struct_field(found, "scheme"))
    port = pc.struct_field(found, "port")
    default = pc.if_else(pc.equal(scheme, "https"), "443", "80")
    port = pc.if_else(pc.equal(port, ""), default, pc.utf8_ltrim(port, "0"))
    host = pc.utf8_lower(pc.struct_field(found, "host"))
    return pc.binary_join_element_wise(host, port, ":")


def _flat(column: Any) -> tuple[Any, Any]:
    """The values of a list column (chunked, memory-mapped: not copied) and each value's
    row."""
    import numpy as np
    import pyarrow.compute as pc

    parents, offset = [], 0
    for chunk in _chunks(column):
        found = pc.list_parent_indices(chunk).to_numpy(zero_copy_only=False)
        parents.append(np.asarray(found, np.int64) + offset)
        offset += len(chunk)
    rows = np.concatenate(parents) if parents else np.zeros(0, np.int64)
    return pc.list_flatten(column), rows


def _in_scope(rows: Any, is_page: Any, ctx: Any) -> tuple[Any, Any]:
    """The ``links`` column with only the links of pages whose target is in the crawl's
    scope, and the link targets (sorted). In scope: a capture's or a duplicate's URL, or a
    URL on a site of the run (a page's host and port, or an alias of a site). A target: a
    link in scope that is no capture's or duplicate's URL."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    flat, parents = _flat(rows["links"])
    from_page = is_page[parents]

    def member(values: Any, among: Any) -> Any:
        found = pc.is_in(values, value_set=among)
        return np.concatenate(
            [np.asarray(c.to_numpy(zero_copy_only=False), bool) for c in _chunks(found)]
            or [np.zeros(0, bool)]
        )

    is_known = member(flat, rows["url"]) | member(flat, pc.list_flatten(rows["dups"]))
    others = pc.unique(flat.filter(pa.array(from_page & ~is_known)))
    pages = rows.select(["host", "port", *(["aliases"] if "aliases" in rows.column_names else [])])
    if not is_page.all():
        pages = pages.filter(pa.array(is_page))
    scope = pc.binary_join_element_wise(
        pc.cast(pages["host"], pa.string()),
        pc.cast(pc.cast(pages["port"], pa.int64()), pa.string()),
        ":",
    ).combine_chunks()
    alias_urls = pc.list_flatten(_aliases(pages).combine_chunks())
    if len(alias_urls):
        scope = pa.concat_arrays([scope, _site_keys(alias_urls).drop_null()])
    if len(others):
        inside = pc.fill_null(pc.is_in(_site_keys(others), value_set=pc.unique(scope)), False)
        targets = others.filter(inside)
    else:
        targets = others
    keep = from_page & (is_known | member(flat, targets))
    targets = targets.take(pc.sort_indices(targets)).cast(pa.string())
    if bool(keep.all()):
        return rows["links"], targets  # every link kept: the memory-mapped column
    ctx.count("links-out-of-scope", int(from_page.sum() - keep.sum()))
    counts = np.bincount(parents[keep], minlength=rows.num_rows)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    values = flat.filter(pa.array(keep)).combine_chunks()
    return pa.ListArray.from_arrays(pa.array(offsets), values), targets


def allocate(rows: Any, options: Any, ctx: Any) -> Any:
    """The table: one row per capture and per link target that is no page; targets
    (``input`` -1) first, then the captures in ``(input, seq)`` order. A capture that is no
    page (a later capture of a URL, or a payload an earlier page has) has page 0, no site,
    its page's doc id, and, when it duplicates content, its URL in ``dups``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = _table_schema()
    rows = _in_input_order(rows)
    if rows.num_rows == 0:
        return schema.empty_table()
    n = rows.num_rows
    digits = "6,7" if getattr(options, "variant", "nw100g") == "nw1000g" else "6"
    dups = rows["dups"]
    if _hinted(rows, digits):
        site, page, doc, next_doc = _kept(rows, ctx)
        is_page = np.ones(n, bool)
    else:
        primary, by_content = _primaries(rows)
        is_page = primary == np.arange(n)
        pages = rows.select(["host", "port"])  # what the sites need: no copy of the rest
        if not is_page.all():
            pages = pages.filter(pa.array(is_page))
        site_p, page_p, doc_p, next_doc = _allocated(pages, ctx)
        slot = np.cumsum(is_page) - 1  # a page's row in ``pages``
        doc = pc.take(doc_p, pa.array(slot[primary]))
        mask = pa.array(is_page)
        site = pc.if_else(mask, pc.take(site_p, pa.array(slot.clip(0))), "")
        page = np.where(is_page, np.asarray(page_p)[slot.clip(0)], 0)
        own = pa.array([[u] for u in rows["url"].filter(pa.array(by_content)).to_pylist()],
                       pa.list_(pa.string()))  # fmt: skip
        where = np.full(n, -1, np.int64)
        where[by_content] = np.arange(int(by_content.sum()))
        if by_content.any():
            dups = pc.if_else(pa.array(by_content), pc.take(own, pa.array(where.clip(0))), dups)
        for label, count in (("duplicate-urls", int((~is_page & ~by_content).sum())),
                             ("duplicate-content", int(by_content.sum()))):  # fmt: skip
            if count:
                ctx.count(label, count)
    links, targets = _in_scope(rows, is_page, ctx)
    if next_doc + len(targets) > _MAX_DOCS:
        raise ValueError("more documents than nine-digit doc ids hold")
    k = len(targets)
    empty = pa.ListArray.from_arrays(pa.array(np.zeros(k + 1, np.int32)), pa.array([], pa.string()))
    target_table = pa.Table.from_arrays(
        [
            _numbered(np.arange(next_doc, next_doc + k, dtype=np.int64), 9, "NW"),
            pa.array(np.full(k, -1, np.int32)),
            pa.array(np.full(k, -1, np.int64)),
            pa.repeat("", k).cast(pa.string()),
            pa.array(np.zeros(k, np.int64)),
            targets.cast(pa.string()),
            pa.repeat("", k).cast(pa.string()),
            pa.array(np.zeros(k, np.int32)),
            empty,
            empty,
            pa.repeat("", k).cast(pa.string()),
            empty,
        ],
        schema=schema,
    )
    page_table = pa.Table.from_arrays(
        [doc, rows["input"], rows["seq"], site, pa.array(page, pa.int64()), rows["url"],
         rows["host"], rows["port"], links, dups, _column(rows, "scheme", "http"),
         _aliases(rows)],
        schema=schema,
    )  # fmt: skip
    ctx.count("pages", int(is_page.sum()))
    ctx.count("targets", k)
    return pa.concat_tables([target_table, page_table])


def _clean(fields: list[str]) -> bool:
    return not any(ch in value for value in fields for ch in "\t\r\n")


def _by_doc(table: Any, columns: list[str], pages_only: bool) -> Iterator[Any]:
    """``table``'s ``columns`` in doc id order, as tables of at most :data:`_BATCH` rows."""
    import pyarrow.compute as pc

    order = pc.sort_indices(table["doc"])
    pages = pc.greater_equal(table["page"].take(order), 1)
    if not pages_only:  # pages and link targets (a capture that is no page: its page's doc)
        pages = pc.or_(pages, pc.equal(table["input"].take(order), -1))
    order = order.filter(pages)
    part = table.select(columns)
    for start in range(0, len(order), _BATCH):
        yield part.take(order.slice(start, _BATCH))


def site_pages(table: Any) -> Iterator[tuple[str, str, list[tuple[str, int, str]]]]:
    """``(site, host, [(doc, page, url), ...])`` per site, sites and pages in order (one
    site's pages in memory at a time)."""
    import pyarrow.compute as pc

    pages = table.filter(pc.greater_equal(table["page"], 1))
    order = pc.sort_indices(pages, [("site", "ascending"), ("page", "ascending")])
    part = pages.select(["site", "host", "doc", "page", "url"])
    current: str | None = None
    host = ""
    found: list[tuple[str, int, str]] = []
    for start in range(0, len(order), _BATCH):
        batch = part.take(order.slice(start, _BATCH))
        columns = [batch[c].to_pylist() for c in ("site", "host", "doc", "page", "url")]
        for site, h, doc, page, url in zip(*columns, strict=True):
            if site != current:
                if current is not None:
                    yield current, host, found
                current, host, found = site, h, []
            found.append((doc, page, url))
    if current is not None:
        yield current, host, found


def _sitelist(table: Any) -> Any:
    """Site, host and port of every site, by site id."""
    import pyarrow.compute as pc

    pages = table.select(["site", "host", "port", "page", "scheme"])
    pages = pages.filter(pc.greater_equal(pages["page"], 1))
    sites = pages.group_by("site").aggregate([("host", "min"), ("port", "min"), ("scheme", "min")])
    return sites.sort_by("site")


def list_rows(
    table: Any, aliases: dict[str, str], skipped: Callable[[str], None]
) -> dict[str, Iterator[list[str]]]:
    """List name -> its lines' fields, sorted by first field (``skipped(name)`` for an entry
    a list line cannot hold: a URL with a tab or a line break)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    sites = _sitelist(table)

    def keep(name: str, items: Iterator[list[str]]) -> Iterator[list[str]]:
        for fields in items:
            if _clean(fields):
                yield fields
            else:
                skipped(name)

    def sitelist() -> Iterator[list[str]]:
        for batch in sites.to_batches(_BATCH):
            columns = (batch.column(i).to_pylist() for i in range(4))
            for s, h, p, scheme in zip(*columns, strict=True):
                yield [s, scheme or "http", h, str(p)]

    def pairs(columns: list[str], pages_only: bool) -> Iterator[list[str]]:
        for batch in _by_doc(table, columns, pages_only):
            yield from ([a, b] for a, b in zip(*(batch[c].to_pylist() for c in columns),
                                                strict=True))  # fmt: skip

    def linklist() -> Iterator[list[str]]:
        for batch in _by_doc(table, ["doc", "links"], True):
            docs = batch["doc"].take(pc.list_parent_indices(batch["links"])).to_pylist()
            urls = pc.list_flatten(batch["links"]).to_pylist()
            yield from ([d, u] for d, u in zip(docs, urls, strict=True))

    def duplist() -> Iterator[list[str]]:
        pages = table.filter(pc.greater_equal(table["input"], 0))
        flat = pa.table(
            {
                "dup": pc.list_flatten(pages["dups"]),
                "doc": pages["doc"].take(pc.list_parent_indices(pages["dups"])),
            }
        ).sort_by([("dup", "ascending"), ("doc", "ascending")])
        previous = None
        for batch in flat.to_batches(_BATCH):
            for pair in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist(),
                            strict=True):  # fmt: skip
                if pair != previous:  # a URL's later captures carry its duplicates too
                    previous = pair
                    yield list(pair)

    def aliaslist() -> Iterator[list[str]]:
        pages = table.filter(pc.greater_equal(table["page"], 1))
        flat = pa.table(
            {
                "alias": pc.list_flatten(pages["aliases"]),
                "site": pages["site"].take(pc.list_parent_indices(pages["aliases"])),
            }
        )
        pairs = (
            flat.group_by(["alias", "site"])
            .aggregate([])
            .sort_by([("alias", "ascending"), ("site", "ascending")])
        )
        previous = None
        for alias, site in zip(pairs["alias"].to_pylist(), pairs["site"].to_pylist(), strict=True):
            if alias == previous:
                skipped("aliaslist", f"{alias} names site {site} too; listed with the first")
                continue
            previous = alias
            yield [alias, site]

    return {
        "sitelist": keep("sitelist", sitelist()),
        "aliaslist": keep("aliaslist", aliaslist()),
        "doclist": keep("doclist", pairs(["doc", "url"], True)),
        "targetlist": keep("targetlist", pairs(["doc", "url"], False)),
        "duplist": keep("duplist", duplist()),
        "linklist": keep("linklist", linklist()),
    }
