"""A CrawlDB and a LinkDB as Nutch's ``updatedb`` and ``invertlinks`` would leave them after
one fetch of the given pages (the rules the ``nutch-crawldb`` and ``nutch-linkdb`` writers
follow; docs/formats/nutch.md).

CrawlDB (``CrawlDbReducer`` with ``DefaultFetchSchedule`` and OPIC scoring's initial score):

* a fetched page (its latest capture when there are several): the db status of its fetch
  status (success -> ``db_fetched``, redir_perm -> ``db_redir_perm``, redir_temp ->
  ``db_redir_temp``, notmodified -> ``db_notmodified``, gone -> ``db_gone``, retry ->
  ``db_unfetched`` with one retry); ``fetchTime`` the *next* fetch (capture time + the
  30-day interval, as ``setFetchSchedule`` sets it); ``modifiedTime`` the capture time;
  ``signature`` the MD5 of the payload (``MD5Signature``); score 1.0; metadata
  ``nutch.protocol.code`` and ``Content-Type`` (Text);
* an outlink target that no page is: ``db_unfetched``, score 0.0 (OPIC's initial score),
  ``fetchTime`` the latest capture time of the pages linking to it (``updatedb``'s "now",
  which the input cannot tell).

LinkDB (``LinkDb``): for every page, each outlink as an ``Inlink(from page, anchor)`` of its
target, a set per target as ``Inlinks`` keeps them (one per distinct source and anchor), in
the ``Inlink`` layout of the Nutch version named (:func:`inlinks_layout`: Nutch 1.21 added a
metadata flag that 1.20 and earlier cannot read, and 1.21 on cannot read a LinkDB without it);
``ignore_internal`` drops links within a host (``linkdb.ignore.internal.links``, true in
Nutch's defaults; false here, so the LinkDB holds every inverted outlink).

Each URL's value depends only on the captures of that URL and the links to it
(:func:`latest_page`, :func:`fetched_datum`, :func:`unfetched_datum`, :func:`inlinks`), so
the writers compute it per key, one partition at a time; :func:`crawldb` and :func:`linkdb`
apply the same rules to a list of pages at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .nutch_crawldatum import CrawlDatum
from .nutch_parse import Inlink, Inlinks
from .nutch_write import FETCH_INTERVAL, url_host
from .writables import MapValue

__all__ = [
    "Page",
    "crawldb",
    "fetched_datum",
    "NEWEST_RELEASE",
    "inlinks",
    "inlinks_layout",
    "is_internal",
    "latest_page",
    "linkdb",
    "unfetched_datum",
    "version_tuple",
]

TEXT = "org.apache.hadoop.io.Text"
#: the newest Nutch release (the default version the writers write for).
NEWEST_RELEASE = "1.22"
#: the first release whose ``Inlink`` has the metadata flag (NUTCH-3101).
INLINK_MD_SINCE = (1, 21)
#: fetch status -> db status.
DB_STATUS = {0x21: 0x02, 0x24: 0x05, 0x23: 0x04, 0x26: 0x06, 0x25: 0x03, 0x22: 0x01}


@dataclass
class Page:
    """What the databases need of one capture."""

    url: str
    fetch_status: int
    fetch_time: int  # ms
    signature: bytes
    protocol_code: int | None = None
    content_type: str = ""
    outlinks: list[tuple[str, str]] = field(default_factory=list)


def _meta(page: Page) -> MapValue | None:
    pairs = []
    if page.protocol_code is not None:
        pairs.append(("nutch.protocol.code", str(page.protocol_code)))
    if page.content_type:
        pairs.append(("Content-Type", page.content_type))
    entries = [(TEXT, k.encode(), TEXT, v) for k, v in pairs]
    return MapValue(entries) if entries else None


def latest_page(pages: Iterable[Page]) -> Page | None:
    """The capture of one URL that its CrawlDatum is made of: the latest, the last one of
    equal times (``pages`` in input order)."""
    latest = None
    for p in pages:
        if latest is None or p.fetch_time >= latest.fetch_time:
            latest = p
    return latest


def fetched_datum(page: Page) -> CrawlDatum:
    """The CrawlDatum of a fetched URL from its latest capture (module docstring)."""
    return CrawlDatum(
        status=DB_STATUS.get(page.fetch_status, 0x01),
        fetch_time=page.fetch_time + FETCH_INTERVAL * 1000,
        retries=1 if page.fetch_status == 0x22 else 0, fetch_interval=FETCH_INTERVAL,
        score=1.0, modified_time=page.fetch_time, signature=page.signature, metadata=_meta(page),
    )  # fmt: skip


def unfetched_datum(fetch_time: int) -> CrawlDatum:
    """The CrawlDatum of an outlink target no page is: ``fetch_time`` the latest capture
    time of the pages linking to it."""
    return CrawlDatum(status=0x01, fetch_time=fetch_time, fetch_interval=FETCH_INTERVAL, score=0.0)


def version_tuple(version: str) -> tuple[int, int]:
    """``"1.21"`` -> ``(1, 21)``; a version before 0.9 (whose LinkDB is no 1.x file) or
    not of the form ``major.minor`` raises ``ValueError``."""
    m = re.fullmatch(r"(\d+)\.(\d+)", version.strip())
    if m is None:
        raise ValueError(f"Nutch version {version!r} is not major.minor (e.g. 1.20)")
    parsed = (int(m.group(1)), int(m.group(2)))
    if parsed < (0, 9):
        raise ValueError(f"Nutch version {version!r}: only 0.9 and later are written")
    return parsed


def inlinks_layout(version: str = NEWEST_RELEASE) -> str:
    """The ``Inlinks`` layout Nutch ``version`` reads and writes: ``text-md`` from 1.21
    (``Inlink``'s ``boolean hasMD``), ``text`` before."""
    return "text-md" if version_tuple(version) >= INLINK_MD_SINCE else "text"


def inlinks(links: Iterable[tuple[str, str]], version: str = NEWEST_RELEASE) -> Inlinks:
    """The Inlinks of one URL from its ``(source, anchor)`` links: one per distinct pair,
    sorted, in the layout of Nutch ``version``."""
    return Inlinks([Inlink(f, a) for f, a in sorted(set(links))], inlinks_layout(version))


def is_internal(source: str, target: str) -> bool:
    """Whether a link stays within a host (``linkdb.ignore.internal.links``)."""
    return url_host(target) == url_host(source)


def crawldb(pages: list[Page]) -> dict[str, CrawlDatum]:
    """URL -> CrawlDatum (module docstring)."""
    by_url: dict[str, list[Page]] = {}
    for p in pages:
        by_url.setdefault(p.url, []).append(p)
    db: dict[str, CrawlDatum] = {}
    for url, captures in by_url.items():
        db[url] = fetched_datum(latest_page(captures))  # type: ignore[arg-type]
    linked: dict[str, int] = {}
    for p in pages:
        for target, _ in p.outlinks:
            if target not in by_url and p.fetch_time > linked.get(target, -(1 << 63)):
                linked[target] = p.fetch_time
    db.update((t, unfetched_datum(ft)) for t, ft in linked.items())
    return db


def linkdb(pages: list[Page], ignore_internal: bool = False,
           version: str = NEWEST_RELEASE) -> dict[str, Inlinks]:  # fmt: skip
    """URL -> Inlinks: the inverted outlinks (module docstring), in sorted order."""
    inv: dict[str, list[tuple[str, str]]] = {}
    for p in pages:
        for target, anchor in p.outlinks:
            if ignore_internal and is_internal(p.url, target):
                continue
            inv.setdefault(target, []).append((p.url, anchor))
    return {t: inlinks(links, version) for t, links in inv.items()}
