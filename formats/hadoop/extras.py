"""The ``Record.extras["sequencefile"]`` schema: what the ``sequencefile`` reader keeps of an
entry beyond the neutral fields, so the ``sequencefile`` writer copies it exactly."""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["SequenceFileExtras"]


class SequenceFileExtras(TypedDict, total=False):
    """One SequenceFile entry and the file it came from.

    The file (the same in every entry of it): ``version`` (1-6), ``key_class`` and
    ``value_class`` as the header names them (old aliases such as ``long`` kept),
    ``compression`` (``none``, ``record``, ``block``), ``codec`` (the codec's class name, or
    ``None``), ``metadata`` (the header's Text pairs, in file order), ``sync`` (its 16-byte
    sync hash, absent in SEQ1).

    The entry: ``key`` (the serialized key, always), ``value`` (the serialized value, only
    when the record's ``http_head`` + ``payload`` do not rebuild it through the class's
    length prefix: see :func:`crawlmill.formats.hadoop.writables.content_of`),
    ``stored_value`` (a RECORD file's compressed value, copied when unchanged), ``entry``
    (0-based number in the file), ``block`` (BLOCK files: the block's number),
    ``sync_before`` (a sync marker directly precedes the record), ``decoded`` (``{"key": ...,
    "value": ...}``: the values the classes' Writables read, as plain data, for the classes
    crawlmill knows; no ``value`` for a ``Text``, ``TextBytes``, ``UTF8`` or
    ``BytesWritable`` value whose length prefix holds: the payload is that value).
    """

    version: int
    key_class: str
    value_class: str
    compression: str
    codec: str | None
    metadata: list[tuple[bytes, bytes]]
    sync: bytes
    key: bytes
    value: bytes
    stored_value: bytes
    entry: int
    block: int
    sync_before: bool
    decoded: dict[str, Any]
