"""``tld``: keep or drop records by the suffix of their URL's host (top-level domain rules).

The Chuweb21 paper kept the pages under ".com, .org and .net" ("other popular domains") and
stripped the regional ones (.de, .ru, .jp, ...); the default keeps exactly the three it
names. ``mode: keep`` keeps a host under one of ``suffixes`` (else ``wrong-tld``); ``mode:
drop`` drops it (``wrong-tld``) and keeps the others. A suffix is one or more whole labels
(``com``, ``.co.uk``; a leading dot is ignored); the entry ``@country`` stands for every
country-code top-level domain written in ASCII (a last label of two letters), so ``mode:
drop, suffixes: ["@country"]`` drops the regional domains and keeps every generic one.

The host is that of the record's URL (:func:`host_of`): the port, user info and IPv6 brackets
are removed, it is lower-cased, trailing dots are dropped (``example.com.`` is
``example.com``), and an internationalised name is compared in its ASCII (punycode) form, as
are the suffixes (``рф`` and ``xn--p1ai`` are one rule). A host that is an IP address (IPv4,
IPv6, or a last label of digits as URL parsers read ``http://127.1/``) has no domain: dropped
as ``ip-host`` unless ``ip: keep``. A record without a URL or host is dropped as ``no-host``
unless ``missing: keep``.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Literal
from urllib.parse import urlsplit

from crawlmill.core import Drop, Filter, PluginOptions, Record, comma_list, hookimpl
from pydantic import Field, field_validator

__all__ = ["TldFilter", "ascii_host", "host_of", "is_ip_host"]

#: the suffix entry that stands for every ASCII country-code TLD.
COUNTRY = "@country"


def ascii_host(name: str) -> str:
    """``name`` lower-cased, without trailing dots, with every non-ASCII label in its IDNA
    ASCII form (``xn--...``; plain punycode where IDNA 2003 refuses the label)."""
    labels = name.strip().lower().rstrip(".").split(".")
    out = []
    for label in labels:
        if label.isascii():
            out.append(label)
            continue
        try:
            out.append(label.encode("idna").decode("ascii"))
        except UnicodeError:
            try:
                out.append("xn--" + label.encode("punycode").decode("ascii"))
            except UnicodeError:  # surrogate-escaped raw bytes: kept as they are
                out.append(label)
    return ".".join(out)


def host_of(url: str | None) -> str | None:
    """The host of ``url`` as :func:`ascii_host` writes it, or ``None`` when it has none."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:  # an unbalanced IPv6 bracket
        return None
    if host is None and parts.scheme.lower() == "dns":  # ARC dns:host records
        host = parts.path
    if not host:
        return None
    host = ascii_host(host)
    return host or None


def is_ip_host(host: str) -> bool:
    """True for an IPv4 or IPv6 address, or a host whose last label is a number (decimal or
    ``0x`` hex), which URL parsers read as an IPv4 address."""
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        pass
    last = host.rsplit(".", 1)[-1]
    if last.isdigit():
        return True
    return last[:2] == "0x" and all(c in "0123456789abcdef" for c in last[2:])


class TldFilter(Filter):
    """Keep (or drop) records whose URL host ends in one of the listed domain suffixes."""

    name = "tld"

    class Options(PluginOptions):
        suffixes: list[str] = Field(
            default_factory=lambda: ["com", "org", "net"],
            description="domain suffixes (whole labels: com, co.uk; IDN or punycode); "
            "@country: every two-letter country-code TLD; default: the Chuweb21 paper's "
            "com, org, net",
        )
        mode: Literal["keep", "drop"] = Field(
            "keep",
            description="keep: only hosts under a suffix are kept; drop: hosts under a "
            "suffix are dropped (wrong-tld)",
        )
        ip: Literal["keep", "drop"] = Field(
            "drop", description="hosts that are IP addresses: keep, or drop (ip-host)"
        )
        missing: Literal["keep", "drop"] = Field(
            "drop", description="records without a URL host: keep, or drop (no-host)"
        )

        @field_validator("suffixes", mode="before")
        @classmethod
        def _commas(cls, value: Any) -> Any:
            return comma_list(value)

        @field_validator("suffixes")
        @classmethod
        def _suffixes(cls, items: list[str]) -> list[str]:
            out = []
            for item in items:
                if item.strip().lower() == COUNTRY:
                    out.append(COUNTRY)
                    continue
                norm = ascii_host(item.strip().lstrip("."))
                if not norm or "" in norm.split(".") or any(c in norm for c in "/:@ "):
                    raise ValueError(f"{item!r} is not a domain suffix (com, co.uk)")
                out.append(norm)
            return out

    def __init__(self, options: PluginOptions | None = None) -> None:
        super().__init__(options)
        self._country = COUNTRY in self.options.suffixes
        self._suffixes = frozenset(s for s in self.options.suffixes if s != COUNTRY)

    def matches(self, host: str) -> bool:
        """True when ``host`` (as :func:`host_of` gives it) is under one of the suffixes."""
        labels = host.split(".")
        last = labels[-1]
        if self._country and len(last) == 2 and last.isascii() and last.isalpha():
            return True
        return any(".".join(labels[i:]) in self._suffixes for i in range(len(labels)))

    def apply(self, record: Record) -> Record | Drop:
        """Drop by host: no-host, ip-host or wrong-tld."""
        host = host_of(record.url)
        if host is None:
            return record if self.options.missing == "keep" else Drop("no-host")
        if is_ip_host(host):
            return record if self.options.ip == "keep" else Drop("ip-host")
        if self.matches(host) != (self.options.mode == "keep"):
            return Drop("wrong-tld")
        return record


@hookimpl
def crawlmill_register_filters(register):
    """Register ``tld``."""
    register(TldFilter)
