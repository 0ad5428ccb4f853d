"""JSON with very long strings, parsed with one copy of each long string.

``json.loads(data)`` on bytes decodes the whole document to a ``str`` first and builds each
string value from that: a document holding one 60 MiB string (a Common Crawl 2012 metadata
value with a page title of that size) is held three times while it is parsed (the bytes,
the decoded document, the string). :func:`loads` gives the same result, or raises the same
error, holding it twice: each long string literal without escapes is decoded straight from
``data`` and the rest of the document (the literal replaced by a placeholder) goes to
``json.loads``. A long literal with escapes, one used as a key, or a document that is not
UTF-8 is left to ``json.loads`` as it is.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

__all__ = ["LONG_STRING", "loads"]

#: a string literal of at least this many bytes is decoded on its own.
LONG_STRING = 1 << 20

# a JSON string literal (RFC 8259 section 7): a quote, characters or escapes, a quote
_LITERAL = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# what RFC 8259 section 7 forbids unescaped inside a string (json.loads' strict mode)
_CONTROL = re.compile(rb"[\x00-\x1f]")


def loads(data: bytes, long: int = LONG_STRING) -> Any:
    """``json.loads(data)``: the same value, or the same exception; long string literals
    (``long`` bytes or more) without escapes are decoded straight from ``data``."""
    if len(data) < long or json.detect_encoding(data[:4]) != "utf-8":  # (a BOM: utf-8-sig)
        return json.loads(data)
    spans = [m.span() for m in _LITERAL.finditer(data) if m.end() - m.start() >= long]
    spans = [(a, b) for a, b in spans if data.find(b"\\", a, b) < 0]
    if not spans:
        return json.loads(data)
    mark = "\x00long-json-" + uuid.uuid4().hex + "-"
    pieces, prev = [], 0
    for i, (a, b) in enumerate(spans):
        pieces += [data[prev:a], json.dumps(f"{mark}{i}").encode()]
        prev = b
    pieces.append(data[prev:])
    try:
        value = json.loads(b"".join(pieces))
    except ValueError:
        return json.loads(data)  # its own error message
    del pieces
    view = memoryview(data)
    strings = []
    for a, b in spans:
        if _CONTROL.search(data, a + 1, b - 1):
            return json.loads(data)  # the error json.loads reports for it
        try:
            strings.append(str(view[a + 1 : b - 1], "utf-8", "surrogatepass"))
        except UnicodeDecodeError:
            return json.loads(data)
    value, placed = _place(value, mark, strings)
    return value if placed == len(strings) else json.loads(data)


def _place(value: Any, mark: str, strings: list[str]) -> tuple[Any, int]:
    """``value`` with each placeholder string (``mark`` + index) replaced by its string, and
    how many were placed (a placeholder used as a key, or dropped by a repeated key, is not)."""
    placed = 0

    def one(item: Any) -> Any:
        nonlocal placed
        if isinstance(item, str) and item.startswith(mark):
            placed += 1
            return strings[int(item[len(mark) :])]
        return item

    value = one(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, dict | list):
                    stack.append(v)
                else:
                    node[k] = one(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, dict | list):
                    stack.append(v)
                else:
                    node[i] = one(v)
    return value, placed
