"""The pre-Hadoop Nutch 0.4-0.7 Writables (``Page``, ``Link``, ``FetchListEntry``,
``FetcherOutput``, ``Content``, ``ParseText``, ``ParseData``, 0.4's ``FetcherContent`` and
``FetcherText``), registered through ``crawlmill_register_writables`` as a third-party package
would register them, so the ``sequencefile`` reader, ``crawlmill get`` and the
``sequencefile`` writer's check decode the ArrayFiles of an old segment and the MapFiles of an
old WebDB (``pagesByURL``: ``UTF8`` -> ``Page``).

Which header names are whose (docs/formats/nutch-legacy.md):

* ``net.nutch.*`` (0.4/0.5) names are the old classes only;
* ``org.apache.nutch.*`` names are the old classes only where Nutch 0.8-1.x has no class of
  that name (``pagedb.FetchListEntry``, ``fetcher.FetcherOutput``, ``db.Page``, ...);
  ``protocol.Content``, ``parse.ParseText`` and ``parse.ParseData`` stay Nutch 1.x's
  Writables (``plugins/writables/nutch.py``; 0.6/0.7 wrote these three under their
  ``WritableName`` aliases), which read bytes that are no 1.x value but exactly one old value
  as the old class;
* the aliases of the old classes (``Page``, ``FetchListEntry``, ...) are theirs; the three
  aliases ``Content``, ``ParseText`` and ``ParseData``, which Nutch 1.x answers to as well,
  get a Writable of their own (:class:`AliasWritable`; a Writable's own name wins over
  another's ``java_names``) that reads a value as the old layout and, when those bytes are
  not one, as the 1.x layout. Exact consumption decides (the versions, and the gzip field of
  the old ParseText, tell the layouts apart;
  :func:`crawlmill.formats.hadoop.nutch_legacy.decode_shared`).

``read`` returns plain data (``{"@": "nutch-legacy.<class>", ...fields}``, bytes kept; see
:func:`crawlmill.formats.hadoop.nutch_legacy.to_plain`); ``write`` takes that or the codec's
objects (and an alias Writable also the 1.x plain data).
"""

from __future__ import annotations

from typing import Any, ClassVar

from crawlmill.core import Writable, hookimpl
from crawlmill.formats.hadoop import nutch as n
from crawlmill.formats.hadoop import nutch_legacy as nl

from .lookup import register_writable
from .nutch import resolve_registered

__all__ = ["AliasWritable", "LEGACY_WRITABLES", "LegacyWritable"]


class LegacyWritable(Writable):
    """A Nutch 0.4-0.7 Writable (its class kind in ``kind``)."""

    kind: ClassVar[str] = ""

    def read_at(self, data: bytes, pos: int) -> tuple[Any, int]:
        """``(value, end)`` of the value at ``data[pos:]``, as plain data."""
        try:
            value, end = nl.read_value(self.kind, data, pos)
        except nl.LegacyError as exc:
            raise ValueError(f"{self.name}: {exc}") from None
        return nl.to_plain(value), end

    def write(self, value: Any) -> bytes:
        """The bytes of ``value`` (plain data or the codec's objects)."""
        return nl.encode_value(self.kind, nl.from_plain(value))


class AliasWritable(Writable):
    """A header alias both Nutch 0.5-0.7 and Nutch 1.x answer to: the old layout when the
    bytes are exactly one value of it, else the 1.x layout."""

    kind: ClassVar[str] = ""
    #: the Nutch 1.x class the alias also names.
    modern: ClassVar[str] = ""

    def read(self, data: bytes) -> Any:
        """The value serialized in ``data`` (all of it) in whichever layout reads it."""
        try:
            return nl.decode_shared(self.kind, data, legacy_first=True, resolve=resolve_registered)
        except nl.LegacyError as exc:
            raise ValueError(f"{self.name}: {exc}") from None

    def read_at(self, data: bytes, pos: int) -> tuple[Any, int]:
        """``(value, end)`` at ``data[pos:]``: inside another value only the old layout,
        since where a 1.x value ends would decide its layout."""
        value, end = nl.read_value(self.kind, data, pos)
        return nl.to_plain(value), end

    def write(self, value: Any) -> bytes:
        """The bytes of ``value`` in the layout its plain data names."""
        return nl.encode_shared(self.kind, value, resolve_registered)


_DOCS = {
    "Page": "Nutch 0.4-0.7 Page (WebDB): URL, MD5, next fetch, retries, interval, scores.",
    "Link": "Nutch 0.4-0.7 Link (WebDB): source MD5, target URL, domain id, anchor.",
    "FetchListEntry": "Nutch 0.4-0.7 FetchListEntry: fetch flag, Page, anchors.",
    "FetcherOutput": "Nutch 0.4-0.7 FetcherOutput: FetchListEntry, MD5, status, fetch date.",
    "Content": "Nutch 0.5-0.7 Content: URL, base, gzip page bytes, type, headers.",
    "ParseText": "Nutch 0.5-0.7 ParseText: the extracted text (gzip).",
    "ParseData": "Nutch 0.5-0.7 ParseData: parse status (0.7), title, outlinks, metadata.",
    "FetcherContent": "Nutch 0.4 FetcherContent: the page bytes (gzip).",
    "FetcherText": "Nutch 0.4 FetcherText: the page's text (gzip).",
}


def _make(kind: str) -> type[LegacyWritable]:
    main, *others = nl.java_names(kind)
    attrs = {
        "__doc__": _DOCS[kind],
        "name": main,
        "java_names": tuple(others),
        "kind": kind,
        "__module__": __name__,
    }
    cls = type("NutchLegacy" + kind, (LegacyWritable,), attrs)
    return register_writable(cls)  # type: ignore[return-value]


def _make_alias(kind: str) -> type[AliasWritable]:
    modern = n.ALIASES[kind]
    attrs = {
        "__doc__": f"The {kind} alias: Nutch 0.5-0.7's layout, else Nutch 1.x's {modern}.",
        "name": kind,
        "kind": kind,
        "modern": modern,
        "__module__": __name__,
    }
    cls = type("NutchAlias" + kind, (AliasWritable,), attrs)
    return register_writable(cls)  # type: ignore[return-value]


#: every Nutch 0.4-0.7 Writable class (the three shared aliases last).
LEGACY_WRITABLES: tuple[type[Writable], ...] = (
    *(_make(kind) for kind in nl.VALUE_KINDS),
    *(_make_alias(kind) for kind in nl.SHARED_WITH_1X),
)


@hookimpl
def crawlmill_register_writables(register: Any) -> None:
    """Register the Nutch 0.4-0.7 Writables."""
    for cls in LEGACY_WRITABLES:
        register(cls)
