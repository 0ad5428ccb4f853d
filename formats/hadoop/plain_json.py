"""Plain data (what :func:`crawlmill.formats.hadoop.nutch.to_plain` makes of a Writable) as
JSON without loss, and back: the payload of the Nutch readers' ``metadata`` records.

* bytes (a CrawlDatum's MD5 ``signature``, a ``BytesWritable``, content) are binary, never
  text: ``{"$b64": "<base64>"}``, as the quarantine's JSON writes them;
* the ``Text`` keys and values of a ``MapWritable`` (``"@": "MapValue"`` or
  ``"NutchMapValue"``, entries ``[key class, key, value class, value]``) are text: a JSON
  string (their bytes decoded as UTF-8, an invalid byte kept as the escape ``\\udcXX``);
* a string holding such escapes (a ``Text`` field's invalid bytes) keeps them as ``\\udcXX``
  (JSON's own escape, which a JSON reader turns back into the same string), every other
  character as itself (UTF-8).

:func:`loads` restores the values (bytes as bytes, map ``Text`` as bytes), so
``from_plain(loads(dumps(to_plain(v))))`` writes the bytes ``v`` was read from.
"""

from __future__ import annotations

import base64
import json
import re
from typing import Any

__all__ = ["BYTES_KEY", "dumps", "loads"]

#: the key of the one-key object that holds bytes.
BYTES_KEY = "$b64"
_TEXT_CLASSES = ("org.apache.hadoop.io.Text",)
_MAPS = ("MapValue", "NutchMapValue")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(value: Any) -> Any:
    return (
        value.decode("utf-8", "surrogateescape") if isinstance(value, bytes | bytearray) else value
    )


def _entry_out(entry: Any) -> list[Any]:
    kc, k, vc, v = entry
    k = _text(k) if kc in _TEXT_CLASSES else k
    v = _text(v) if vc in _TEXT_CLASSES else v
    return [kc, _jsonable(k), vc, _jsonable(v)]


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return {BYTES_KEY: base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        if value.get("@") in _MAPS and isinstance(value.get("entries"), list):
            out = {str(k): _jsonable(v) for k, v in value.items() if k != "entries"}
            out["entries"] = [_entry_out(e) for e in value["entries"]]
            return out
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def dumps(value: Any) -> bytes:
    """``value`` (plain data) as UTF-8 JSON (module docstring)."""
    text = json.dumps(_jsonable(value), ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text).encode("utf-8")


def _entry_in(entry: list[Any]) -> list[Any]:
    kc, k, vc, v = (_restore(x) for x in entry)
    if kc in _TEXT_CLASSES and isinstance(k, str):
        k = k.encode("utf-8", "surrogateescape")
    if vc in _TEXT_CLASSES and isinstance(v, str):
        v = v.encode("utf-8", "surrogateescape")
    return [kc, k, vc, v]


def _restore(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and isinstance(value.get(BYTES_KEY), str):
            return base64.b64decode(value[BYTES_KEY], validate=True)
        if value.get("@") in _MAPS and isinstance(value.get("entries"), list):
            out = {k: _restore(v) for k, v in value.items() if k != "entries"}
            out["entries"] = [_entry_in(e) for e in value["entries"]]
            return out
        return {k: _restore(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore(v) for v in value]
    return value


def loads(data: bytes | str) -> Any:
    """The plain data :func:`dumps` wrote, its bytes restored (module docstring)."""
    return _restore(json.loads(data))
