"""A reader's declared sniff gates (plugins/manifest.py) against its ``sniff``: where the
declaration lets detection skip importing a reader, the reader's ``sniff`` claims nothing."""

from __future__ import annotations

import itertools

from crawlmill.core.registry import Registry
from crawlmill.plugins.manifest import PLUGINS
from crawlmill.plugins.readers.arc import ArcReader

#: first bytes of WARC files, well-formed and not, some shaped like an ARC header line
HEADS = [
    b"WARC/1.0\r\nWARC-Type: warcinfo\r\n",
    b"WARC/1.1\r\n",
    b"WARC/",
    b"WARC/1.0",
    b"WARC/0.17 http://x/ 1.2.3.4 20200101000000 text/html 5\n",
    b"WARC/ http://example.com/ 1.2.3.4 20200101000000 text/html 5\nfiledesc://",
    b"WARC/1.0 20200101 -\n",
]
NAMES = [
    "x.warc.gz", "x.warc", "x.gz", "x", "x.arc.gz", "X.ARC", "x.arc.bz2", "x.arc.lz4",
    "arcade.warc", "x.open", "dir/y.arc/x.warc",
]  # fmt: skip


def test_the_arc_declaration_is_the_sniffs_own_rule(tmp_path):
    declared = next(c for c in PLUGINS["arc-reader"]["components"] if c["name"] == "arc")
    assert declared["declines_magic"] == [b"WARC/"]
    registry = Registry.load(entry_points=True)
    component = registry.components["reader"]["arc"]
    skipped = 0
    for head, name in itertools.product(HEADS, NAMES):
        path = str(tmp_path / name)
        if not component.loaded and not component.may_claim(path, head):
            skipped += 1
            assert ArcReader.sniff(path, head) == 0.0, (head, name)
    assert skipped  # the gate answered for some
