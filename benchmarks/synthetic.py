"""Synthetic inputs for the benchmarks (and the tests that count what the benchmarks time):
web pages of HTML-ish text with a Zipf word distribution, so that pages compress about as well
as real ones (roughly 3:1 with gzip level 6); many tiny WARC inputs (:func:`make_tiny_inputs`)."""

from __future__ import annotations

import gzip
import os
import random
import shutil
from pathlib import Path

_LETTERS = "etaoinshrdlucmfwypvbgkjqxz"
#: English letter frequencies (per cent), in the order of _LETTERS.
_WEIGHTS = [
    12,
    9,
    8,
    8,
    7,
    7,
    6,
    6,
    6,
    4,
    4,
    3,
    3,
    2,
    2,
    2,
    2,
    2,
    1.5,
    1.5,
    1,
    1,
    0.5,
    0.3,
    0.3,
    0.2,
]
_BOILERPLATE = (
    '<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
    '<link rel="stylesheet" href="/static/css/main.css"><script src="/static/js/app.js" defer></script>'
    '<nav class="top"><ul><li><a href="/">Home</a></li><li><a href="/about">About</a></li>'
    '<li><a href="/contact">Contact</a></li></ul></nav>'
)


class PageMaker:
    """Deterministic page generator: the same seed gives the same pages."""

    def __init__(self, rng: random.Random, vocabulary: int = 5000) -> None:
        self.rng = rng
        self.words = [
            "".join(rng.choices(_LETTERS, _WEIGHTS, k=rng.randint(2, 10)))
            for _ in range(vocabulary)
        ]
        total, self.cum = 0.0, []
        for rank in range(1, vocabulary + 1):  # Zipf: the word of rank r has weight 1/r
            total += 1.0 / rank
            self.cum.append(total)

    def text(self, k: int) -> str:
        """``k`` words drawn from the Zipf distribution, space separated."""
        return " ".join(self.rng.choices(self.words, cum_weights=self.cum, k=k))

    def page(self, size: int, host: str = "https://example{n}.org") -> bytes:
        """An HTML page of about ``size`` bytes with paragraphs and links to ``host``."""
        rng = self.rng
        parts = ["<!DOCTYPE html>\n<html><head><title>", self.text(6)]
        parts.append("</title>" + _BOILERPLATE + "</head><body>\n")
        n = 0
        while n < size:
            body = self.text(rng.randint(20, 120))
            href = f"{host.format(n=rng.randint(1, 500))}/{rng.choice(self.words)}/{rng.randint(1, 99999)}"
            chunk = f'<div class="c{rng.randint(1, 40)}"><p>{body}</p><a href="{href}">{rng.choice(self.words)}</a></div>\n'
            parts.append(chunk)
            n += len(chunk)
        parts.append("</body></html>\n")
        return "".join(parts).encode()


def tiny_warc() -> bytes:
    """One gzip member holding one WARC response record (220 bytes)."""
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>hi</html>"
    head = (
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\n"
        b"WARC-Record-ID: <urn:uuid:12345678-1234-1234-1234-123456789012>\r\n"
        b"Content-Type: application/http; msgtype=response\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0)


def tiny_input_name(i: int, per_folder: int = 1000) -> str:
    """The relative path :func:`make_tiny_inputs` gives its ``i``-th input."""
    return f"seg{i // per_folder:05d}/f{i:06d}.warc.gz"


def make_tiny_inputs(folder: Path, n: int, per_folder: int = 1000) -> None:
    """``n`` tiny WARC inputs (:func:`tiny_warc`) below ``folder``, ``per_folder`` to a folder
    (``seg00000/f000000.warc.gz`` ...), hard links of one file where the file system allows
    them (copies elsewhere); kept when ``folder`` already holds ``n`` files."""
    if folder.is_dir() and sum(len(f) for _, _, f in os.walk(folder)) == n:
        return
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    one = folder / "one.tmp"
    one.write_bytes(tiny_warc())
    for i in range(n):
        target = folder / tiny_input_name(i, per_folder)
        if i % per_folder == 0:
            target.parent.mkdir()
        try:
            os.link(one, target)
        except OSError:
            shutil.copyfile(one, target)
    one.unlink()
