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
target, a set per target as ``Inlinks`` keeps them (one per distinct source and anchor);
``ignore_internal`` drops links within a host (``linkdb.ignore.internal.links``, true in
Nutch's defaults; false here, so the LinkDB holds every inverted outlink).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .nutch_crawldatum import CrawlDatum
from .nutch_parse import Inlink, Inlinks
from .nutch_write import FETCH_INTERVAL, url_host
from .writables import MapValue

__all__ = ["Page", "crawldb", "linkdb"]

TEXT = "org.apache.hadoop.io.Text"
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


def crawldb(pages: list[Page]) -> dict[str, CrawlDatum]:
    """URL -> CrawlDatum (module docstring)."""
    latest: dict[str, Page] = {}
    for p in pages:
        if p.url not in latest or p.fetch_time >= latest[p.url].fetch_time:
            latest[p.url] = p
    db: dict[str, CrawlDatum] = {}
    for url, p in latest.items():
        status = DB_STATUS.get(p.fetch_status, 0x01)
        db[url] = CrawlDatum(
            status=status, fetch_time=p.fetch_time + FETCH_INTERVAL * 1000,
            retries=1 if p.fetch_status == 0x22 else 0, fetch_interval=FETCH_INTERVAL,
            score=1.0, modified_time=p.fetch_time, signature=p.signature, metadata=_meta(p),
        )  # fmt: skip
    for p in pages:
        for target, _ in p.outlinks:
            if target in latest:
                continue
            known = db.get(target)
            if known is None or p.fetch_time > known.fetch_time:
                db[target] = CrawlDatum(status=0x01, fetch_time=p.fetch_time,
                                        fetch_interval=FETCH_INTERVAL, score=0.0)  # fmt: skip
    return db


def linkdb(pages: list[Page], ignore_internal: bool = False) -> dict[str, Inlinks]:
    """URL -> Inlinks: the inverted outlinks (module docstring), in sorted order."""
    inv: dict[str, set[tuple[str, str]]] = {}
    for p in pages:
        for target, anchor in p.outlinks:
            if ignore_internal and url_host(target) == url_host(p.url):
                continue
            inv.setdefault(target, set()).add((p.url, anchor))
    return {t: Inlinks([Inlink(f, a) for f, a in sorted(links)]) for t, links in inv.items()}
