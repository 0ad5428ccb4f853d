"""The key a record had in a keyed source (a Hadoop SequenceFile entry's key) as WARC fields.

A SequenceFile entry is a key and a value; its key is often a URL (then it is also
``WARC-Target-URI``), but it can be anything its class holds (``Text`` names, ``LongWritable``
numbers, ``TypedBytesWritable``, tuples). So that no key is lost, a WARC record built from such an
entry carries three extension fields (WARC 1.1 section 5: "other fields may be used"):

* ``WARC-Source-Key-Class``: the Java class of the key (``org.apache.hadoop.io.Text``);
* ``WARC-Source-Key``: the key's serialized bytes (as its Writable wrote them, length prefix
  included) in standard base64 (RFC 4648 section 4), since a key can hold any byte;
* ``WARC-Source-Value-Class``: the Java class of the entry's value (the block holds the value's
  content, so a writer of the source format needs the class to write it back).

A reader of these fields gives back ``{"key_class", "key", "value_class"}``
(:class:`crawlmill.core.record.SourceKey`); a field that is missing or not base64 gives ``None``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

__all__ = ["KEY", "KEY_CLASS", "VALUE_CLASS", "source_key_fields", "source_key_from_fields"]

KEY_CLASS = b"WARC-Source-Key-Class"
KEY = b"WARC-Source-Key"
VALUE_CLASS = b"WARC-Source-Value-Class"


def source_key_fields(source_key: Mapping[str, Any]) -> list[tuple[bytes, bytes]]:
    """The WARC fields of ``source_key`` (``key_class``, ``key`` bytes, ``value_class``)."""
    return [
        (KEY_CLASS, str(source_key["key_class"]).encode("utf-8", "surrogateescape")),
        (KEY, base64.b64encode(bytes(source_key["key"]))),
        (VALUE_CLASS, str(source_key["value_class"]).encode("utf-8", "surrogateescape")),
    ]


def source_key_from_fields(get: Any) -> dict[str, Any] | None:
    """The source key a record's fields hold (``get``: lower-case field name -> value or
    ``None``), or ``None`` when they hold none or an unreadable one."""
    key_class, key, value_class = (get(name.lower()) for name in (KEY_CLASS, KEY, VALUE_CLASS))
    if key_class is None or key is None or value_class is None:
        return None
    try:
        raw = base64.b64decode(key.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None
    return {
        "key_class": key_class.strip().decode("utf-8", "surrogateescape"),
        "key": raw,
        "value_class": value_class.strip().decode("utf-8", "surrogateescape"),
    }
