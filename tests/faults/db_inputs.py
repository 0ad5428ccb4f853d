"""Intact inputs of the ``nutch-webgraph`` and ``nutch-hostdb`` readers: a web graph
(``outlinks``, ``inlinks``, ``nodes``, ``loops``, each ``current/part-r-00000`` a MapFile) and
a host db, written with crawlmill's MapFile writer with sync markers (or blocks) close together
so that damage has neighbours. Each :class:`DbInput` names the part whose ``data`` file the
damage goes into; the CLI reads the whole database folder, as users run it."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DB_INPUTS", "DbInput"]

TEXT = "org.apache.hadoop.io.Text"


@dataclass(frozen=True)
class DbInput:
    """One database folder; ``make(folder)`` writes it and returns the damaged part's
    ``data`` file; ``root(path)`` is the database folder the CLI reads."""

    id: str
    reader: str
    make: Callable[[Path], Path]
    #: how many folders up from the damaged ``data`` file the database folder is
    #: (``<db>/[<sub>/]current/part-r-00000/data``).
    levels: int

    def root(self, path: Path) -> Path:
        """The database folder holding the damaged file ``path``."""
        return path.parents[self.levels - 1]


def _values(kind: str, n: int, seed: int) -> list[tuple[str, object]]:
    """``n`` sorted ``(key, value)`` of the graph folder (or host db) ``kind``."""
    from crawlmill.formats.hadoop import nutch_graph as g
    from crawlmill.formats.hadoop.nutch_io import Metadata
    from crawlmill.formats.hadoop.nutch_tools import LoopSet
    from crawlmill.formats.hadoop.writables import MapValue

    rng = random.Random(f"{kind}/{seed}")
    out: list[tuple[str, object]] = []
    for i in range(n):
        url = f"http://example.com/{seed}/{i // 2 if kind == 'outlinks' else i:04d}"
        other = f"http://example.org/{rng.randrange(1000)}/" + "p" * rng.randrange(0, 120)
        if kind in ("outlinks", "inlinks"):
            anchor = "a" * rng.randrange(0, 60)
            value: object = g.LinkDatum(other, anchor, rng.random(), 1_700_000_000_000 + i,
                                        2 if kind == "outlinks" else 1)  # fmt: skip
        elif kind == "nodes":
            meta = Metadata([("k", ["v" * rng.randrange(1, 40)])] if i % 3 else [])
            value = g.Node(rng.randrange(50), rng.randrange(50), rng.random(), meta)
        elif kind == "loops":
            value = LoopSet([other, url])
        else:  # hostdb: host name keys
            url = f"host{i:04d}.example.com"
            md = MapValue([(TEXT, b"k", TEXT, b"v" * rng.randrange(1, 50))] if i % 2 else [])
            value = g.HostDatum(rng.random(), 1_700_000_000_000, f"http://{url}/", i, 2, 3, 4,
                                5, 6, 7, 8, md)  # fmt: skip
        out.append((url, value))
    return out


def _part(folder: Path, kind: str, value_class: str, compression: str, n: int, seed: int) -> Path:
    from crawlmill.formats.hadoop.codecs import codec_named
    from crawlmill.formats.hadoop.mapfile import MapFileWriter
    from crawlmill.formats.hadoop.nutch import encode_nutch
    from crawlmill.formats.hadoop.vint import encode_vlong

    part = folder / "current" / "part-r-00000"
    part.mkdir(parents=True)
    codec = codec_named("default") if compression != "none" else None
    with open(part / "data", "wb") as data, open(part / "index", "wb") as index:
        w = MapFileWriter(data, index, TEXT, value_class, compression=compression, codec=codec,
                          sync=random.Random(seed).randbytes(16), sync_interval=700,
                          block_size=1200)  # fmt: skip
        for key, value in _values(kind, n, seed):
            raw = key.encode()
            w.append(encode_vlong(len(raw)) + raw, encode_nutch(value_class, value))
        w.close()
    return part / "data"


def _graph(damaged: str, compression: str) -> Callable[[Path], Path]:
    """A web graph of four folders; ``damaged`` is written with ``compression``."""

    def make(folder: Path) -> Path:
        from crawlmill.formats.hadoop import nutch_graph as g
        from crawlmill.formats.hadoop.nutch_tools import LOOP_SET

        classes = {"outlinks": g.LINK_DATUM, "inlinks": g.LINK_DATUM, "nodes": g.NODE,
                   "loops": LOOP_SET}  # fmt: skip
        root = folder / "webgraph"
        target = None
        for i, (sub, cls) in enumerate(classes.items()):
            comp = compression if sub == damaged else "none"
            n = 50 if sub == damaged else 6
            path = _part(root / sub, sub, cls, comp, n, seed=11 + i)
            target = path if sub == damaged else target
        assert target is not None
        return target

    return make


def _hostdb(compression: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        from crawlmill.formats.hadoop import nutch_graph as g

        return _part(folder / "hostdb", "hostdb", g.HOST_DATUM, compression, 50, seed=21)

    return make


DB_INPUTS: list[DbInput] = [
    DbInput("nutch-webgraph/outlinks-none", "nutch-webgraph", _graph("outlinks", "none"), 4),
    DbInput("nutch-webgraph/nodes-record", "nutch-webgraph", _graph("nodes", "record"), 4),
    DbInput("nutch-webgraph/loops-block", "nutch-webgraph", _graph("loops", "block"), 4),
    DbInput("nutch-hostdb/none", "nutch-hostdb", _hostdb("none"), 3),
    DbInput("nutch-hostdb/block", "nutch-hostdb", _hostdb("block"), 3),
]
