"""Every key of ``Record.extras`` a built-in reader emits, and its schema, in one place.

``Record.extras`` maps a format's name to what its reader keeps beyond the neutral fields
(``core/record.py``). Each value's schema is a ``TypedDict``; those of the byte formats live
beside their codec in ``formats/`` and are re-exported here, those that only a reader knows are
defined here. :data:`EXTRAS` names the schema of each key and :class:`RecordExtras` is the
whole mapping, so a reader annotates what it builds (``extras: NtcirExtras = {...}``) and a
writer what it reads (``record.extras.get("cc_metadata")`` is a :class:`CcMetadataExtras`).
A test checks that every key a reader under ``plugins/readers`` emits is listed.

=============== ============================== =============================================
key             schema                          reader(s)
=============== ============================== =============================================
``neutral``     :class:`NeutralExtras`          any: what a writer of another format needs
``warc``        :class:`WarcExtras`             warc, clueweb09, nutch (warcinfo)
``arc``         :class:`ArcExtras`              arc, cc2012
``sequencefile`` :class:`SequenceFileExtras`    sequencefile, mapfile
``nutch``       :class:`NutchExtras`            nutch-segment, nutch-crawldb, nutch-linkdb...
``nutch-legacy`` :class:`NutchLegacyExtras`     nutch-legacy (Nutch 0.x segments)
``ntcir``       :class:`NtcirExtras`            ntcir (NW100G-01 and NW1000G-04)
``cc_metadata`` :class:`CcMetadataExtras`       cc-metadata, cc2012 (metadata, textData)
=============== ============================== =============================================
"""

from __future__ import annotations

from typing import Any, TypedDict

from crawlmill.formats.arc.extras import ArcExtras
from crawlmill.formats.hadoop.extras import SequenceFileExtras
from crawlmill.formats.hadoop.nutch_extras import NutchExtras
from crawlmill.formats.warc.extras import WarcExtras

from .record import NeutralExtras

__all__ = [
    "EXTRAS",
    "ArcExtras",
    "CcMetadataExtras",
    "NeutralExtras",
    "NtcirExtras",
    "NutchExtras",
    "NutchLegacyExtras",
    "RecordExtras",
    "SequenceFileExtras",
    "WarcExtras",
]


class NtcirExtras(TypedDict, total=False):
    """``Record.extras["ntcir"]``: an NTCIR WEB page's place and its ``.meta`` facts."""

    #: the collection variant of an NW1000G-04 page (``"NW1000G-04"``); absent for NW100G-01.
    variant: str
    #: the site id (the folder under the tree), when the unit knows it.
    site: str | None
    #: the page's file stem in the site folder.
    page: str
    #: the tree the page bytes came from (``raw``, ``euc``...).
    tree: str
    #: NW1000G-04: the first field of the page's list line (its document id when it is one).
    field1: str | None
    #: the ``.meta`` fields as ``(name, value)`` pairs, in file order.
    fields: list[tuple[str, Any]]
    #: how the ``.meta`` file was written (its syntax variant).
    syntax: str
    #: the wrapper lines around the ``.meta`` block, when any.
    wrapper: Any
    #: the document ids ``duplist`` names as duplicates of this one.
    duplicates: list[str]
    #: the URLs ``aliaslist`` names for this document.
    aliases: list[str]
    #: the site's ``sitelist`` entry: server type, host and port.
    server: Any
    host: Any
    port: Any
    #: ``.meta`` lines no field was read from (the user is warned that they are kept here).
    other: list[Any]
    #: the charset the raw page declares, when the euc tree's bytes are EUC-JP anyway.
    charset_stored: str


class CcMetadataExtras(TypedDict, total=False):
    """``Record.extras["cc_metadata"]``: a Common Crawl metadata entry as read."""

    #: the JSON object the record was read from (``url``, ``metadata``, ``text``...).
    line: dict[str, Any]
    #: the crawl's ``disposition`` (``SUCCESS``, ``FAILURE``...).
    disposition: Any
    #: the HTTP status the crawler got.
    http_result: Any
    #: why the fetch failed (a ``FAILURE`` entry).
    failure_reason: Any
    #: a ``conversion`` record read from textData without its metadata entry.
    text_data: bool


class NutchLegacyExtras(TypedDict, total=False):
    """``Record.extras["nutch-legacy"]``: a Nutch 0.x segment entry joined over its files."""

    #: the segment folder's name and its layout (which files it has).
    segment: str
    layout: Any
    #: the entry's number in the segment, and each file's offset of it.
    record: int
    files: dict[str, int]
    #: the joined values, as plain data.
    fetch_list_entry: dict[str, Any]
    fetcher_output: dict[str, Any]
    content: dict[str, Any]
    parse_data: dict[str, Any]
    #: the HTTP head the reader rebuilt from the protocol's metadata (``status_line``, the
    #: header names it ``renamed``).
    head_rebuilt: dict[str, Any]


#: the schema of each ``Record.extras`` key a built-in reader emits.
EXTRAS: dict[str, type] = {
    "neutral": NeutralExtras,
    "warc": WarcExtras,
    "arc": ArcExtras,
    "sequencefile": SequenceFileExtras,
    "nutch": NutchExtras,
    "nutch-legacy": NutchLegacyExtras,
    "ntcir": NtcirExtras,
    "cc_metadata": CcMetadataExtras,
}

#: ``Record.extras`` as a whole (a key holding a dash needs the functional form).
RecordExtras = TypedDict(  # noqa: UP013 - "nutch-legacy" is no identifier
    "RecordExtras",
    {
        "neutral": NeutralExtras,
        "warc": WarcExtras,
        "arc": ArcExtras,
        "sequencefile": SequenceFileExtras,
        "nutch": NutchExtras,
        "nutch-legacy": NutchLegacyExtras,
        "ntcir": NtcirExtras,
        "cc_metadata": CcMetadataExtras,
    },
    total=False,
)
