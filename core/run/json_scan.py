"""Read a large JSON object file (a stage listing, ``report.json``: 100,000 entries at the
scale of a real crawl) without holding its long lists: each item of a chosen list member is
decoded on its own and handed to a callback, then dropped (issue 22 item 3: ``crawlmill
status`` in bounded memory).

Any JSON text whose top level is an object is read (not only what
:func:`~crawlmill.core.run.outputs.json_chunks` writes), by the C decoder one value at a
time, from a buffer of about 1 MB.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TextIO

__all__ = ["scan_json_object"]

#: characters read at a time.
_CHUNK = 1 << 20
_WS = " \t\n\r"


class _Reader:
    """A text file as a sliding buffer and a position in it."""

    def __init__(self, fh: TextIO) -> None:
        self._fh = fh
        self.buf = ""
        self.pos = 0
        self.eof = False

    def more(self) -> bool:
        """Read another chunk (dropping what was consumed); ``False`` at the end of the file."""
        if self.eof:
            return False
        chunk = self._fh.read(_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space (``""`` at the end of the file)."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def expect(self, chars: str) -> str:
        """Consume the next character, which must be one of ``chars``."""
        c = self.peek()
        if not c or c not in chars:
            raise json.JSONDecodeError(f"expected one of {chars!r}", self.buf, self.pos)
        self.pos += 1
        return c

    def value(self, decoder: json.JSONDecoder) -> Any:
        """Decode the next JSON value (reading more until it is whole: a number that ends at
        the end of the buffer may go on in the next chunk)."""
        self.peek()
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self.more():
                    continue
                raise
            if end < len(self.buf) or not self.more():
                self.pos = end
                return value


def scan_json_object(path: str, each: Mapping[str, Callable[[Any], None]]) -> dict[str, Any]:
    """The JSON object in the file ``path``, but for each member named in ``each`` whose value
    is a list: its items are passed one at a time, in order, to ``each[name]`` and not kept
    (the member's value in the result is the number of items). Other members are decoded
    whole. Raises ``OSError`` and ``ValueError`` (not JSON, or its top level no object)."""
    decoder = json.JSONDecoder()
    found: dict[str, Any] = {}
    with open(path, encoding="utf-8") as fh:
        r = _Reader(fh)
        r.expect("{")
        if r.peek() == "}":
            r.pos += 1
            return found
        while True:
            key = r.value(decoder)
            if not isinstance(key, str):
                raise json.JSONDecodeError("expected a member name", r.buf, r.pos)
            r.expect(":")
            callback = each.get(key)
            if callback is not None and r.peek() == "[":
                r.pos += 1
                count = 0
                if r.peek() == "]":
                    r.pos += 1
                else:
                    while True:
                        callback(r.value(decoder))
                        count += 1
                        if r.expect(",]") == "]":
                            break
                found[key] = count
            else:
                found[key] = r.value(decoder)
            if r.expect(",}") == "}":
                break
        if r.peek():
            raise json.JSONDecodeError("extra data after the object", r.buf, r.pos)
    return found
