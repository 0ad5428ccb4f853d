"""``crawlmill get DIR KEY``: the value of one key of a Hadoop MapFile, found as Hadoop's
``MapFile.Reader.get`` finds it (index binary search, seek, scan in the key class's raw byte
order; :class:`crawlmill.formats.hadoop.mapfile.MapFile`).

DIR is a MapFile directory, its ``data`` file, a job output directory of
``part-NNNNN``/``part-r-NNNNN`` MapFiles, or any folder holding such directories (every
folder ``convert`` accepts: a CrawlDB or LinkDB, a Nutch segment, a whole crawl folder): then
each folder of parts below it is a collection looked in on its own, and each that holds the
key prints its value after a line ``# <folder>`` (``--json``: one line each, its
``mapfile`` naming the part; ``--raw`` needs one collection). In a directory of parts every part is looked in, in
name order, and the first that holds the key answers: Hadoop's ``HashPartitioner`` is not
assumed, since Nutch partitions its segments and CrawlDB by host, not by key hash
(``--hash-partitioned`` looks only in the part ``HashPartitioner`` names, as
``MapFileOutputFormat.getEntry`` does).

Output: the value's content (the text of a ``Text``, the bytes of a ``BytesWritable``, the
number of a number class, the decoded value of another class a Writable reads, else its
bytes); ``--raw``: the serialized value bytes as stored; ``--json``: one JSON object with the
part, the position of the record (of its block in BLOCK data), the classes, key and value
(decoded, and their serialized bytes in base64).
Several keys are looked up in turn, each value printed as one would be after a line
``# key: KEY`` (a key not found: ``# (not found)`` there, its name on stderr and a closing
count of the keys not found; ``--json``: one line each, the key in it). Exit codes: 0 all found, 1 one not found, 2 usage (not a MapFile, a key its class
cannot hold), 3 a key not found in a part whose index is damaged or disagrees with its data.
A damaged data block is skipped: its keys are not found.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
from typing import Any

from ..errors import ConfigError

# the Hadoop codecs are imported when ``get`` runs, not when the CLI starts

__all__ = ["EXAMPLES", "add_parser", "run"]

EXAMPLES = """\
example:
  crawlmill get crawldb/current http://example.com/
  crawlmill get crawl/crawldb http://example.com/
  crawlmill get crawl/segments/20240101000000 http://example.com/ --json
  crawlmill get segment/content/part-00000 http://example.com/ --raw > page.bin
  crawlmill get out/ 0a1b 0a1c --key-hex --json

Exits 0 when every key is found, 1 when one is not, 2 when DIR is not a MapFile or KEY cannot
be a key of its class, 3 when a key is not found in a part whose index is damaged."""

_TEXTS = {"org.apache.hadoop.io.Text", "org.apache.hadoop.io.UTF8",
          "org.commoncrawl.util.TextBytes", "org.commoncrawl.util.shared.TextBytes"}  # fmt: skip


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add the ``get`` subcommand to ``sub``."""
    get = sub.add_parser(
        "get",
        parents=parents,
        help="look a key up in a Hadoop MapFile",
        description="Print the value of KEY in the MapFile DIR (or a folder of part-NNNNN "
        "MapFiles), found as Hadoop's MapFile.Reader.get finds it.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    get.add_argument(
        "mapfile", metavar="DIR", help="MapFile folder, its data file, or a folder of parts"
    )
    get.add_argument(
        "keys",
        nargs="+",
        metavar="KEY",
        help="the key: text (Text, UTF8, BytesWritable) or a number; several: each looked up in turn",
    )
    get.add_argument(
        "--key-hex", action="store_true", help="KEY is the serialized key in hex (any class)"
    )
    out = get.add_mutually_exclusive_group()
    out.add_argument("--raw", action="store_true", help="print the serialized value bytes")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    get.add_argument(
        "--hash-partitioned",
        action="store_true",
        help="look only in the part Hadoop's HashPartitioner names (default: every part)",
    )  # fmt: skip


def _groups(path: str) -> list[list[str]]:
    """The MapFile collections of ``path``, each a list of MapFile folders looked in in
    turn: ``path`` itself (a MapFile, its ``data``, a folder of parts), else every folder
    below it holding MapFiles or parts (a CrawlDB's ``current/``, each subdirectory of a
    Nutch segment, every one of a whole crawl folder), in path order."""
    from crawlmill.formats.hadoop.mapfile import DATA, is_mapfile, mapfile_dirs

    if os.path.isfile(path) and os.path.basename(path) == DATA:
        path = os.path.dirname(path) or "."
    found = mapfile_dirs(path)
    if found:
        return [found]
    groups = []
    for dirpath, dirnames, _ in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
        if is_mapfile(dirpath):
            dirnames[:] = []  # a MapFile's own folder: found as a part of its parent
            continue
        parts = mapfile_dirs(dirpath)
        if parts:
            groups.append(parts)
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in parts]
    if not groups:
        raise ConfigError([("DIR", f"{path} is not a MapFile (data + index), nor a folder of MapFile parts, nor holds any")])  # fmt: skip
    return groups


def _key(args: argparse.Namespace, text: str, key_class: str) -> bytes:
    from crawlmill.formats.hadoop.mapfile import key_from_text

    try:
        if args.key_hex:
            return bytes.fromhex(text)
        return key_from_text(key_class, text)
    except ValueError as exc:
        raise ConfigError([("KEY", f"{text!r}: {exc}")]) from None


def _decoded(registry: Any, value_class: str, value: bytes) -> tuple[bool, Any]:
    """``(True, value)`` as the class's Writable reads it, else ``(False, None)``."""
    from crawlmill.formats.hadoop.writables import canonical_name

    cls = registry.writable(value_class) or registry.writable(canonical_name(value_class))
    if cls is None:
        return False, None
    try:
        return True, cls().read(value)
    except Exception:
        return False, None


def _jsonable(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(raw).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "entries"):  # a MapWritable's value
        return {"classes": _jsonable(getattr(value, "classes", [])), "entries": _jsonable(value.entries)}  # fmt: skip
    return str(value)


def run(args: argparse.Namespace, registry: Any) -> int:
    """Look each key up and print its value (see the module docstring); the exit code."""
    from crawlmill.formats.hadoop.mapfile import MapFile

    groups = _groups(args.mapfile)
    if args.raw and len(groups) > 1:
        names = ", ".join(os.path.dirname(g[0]) for g in groups)
        raise ConfigError([("DIR", f"{args.mapfile} holds {len(groups)} MapFile collections ({names}); --raw prints one value: name one of them")])  # fmt: skip
    opened: list[list[Any]] = []
    try:
        for dirs in groups:
            opened.append([])
            for folder in dirs:
                opened[-1].append(MapFile(folder))
        missing: list[str] = []
        damaged = 0
        labelled = len(args.keys) > 1 and not (args.json or args.raw)
        for text in args.keys:
            found = hurt = False
            if labelled:  # several keys: each value after its key
                print(f"# key: {text}", file=sys.stdout, flush=True)
            for maps in opened:
                if len(opened) > 1 and not args.json:
                    label = os.path.dirname(maps[0].path)
                    header = f"# {label}"
                else:
                    header = None
                hit, harm = _lookup(args, registry, maps, text, header)
                found, hurt = found or hit, hurt or harm
            if not found:
                missing.append(text)
                damaged += hurt
                print(f"crawlmill: {text!r} is not a key of {args.mapfile}", file=sys.stderr)
                if labelled:
                    print("# (not found)", file=sys.stdout, flush=True)
    finally:
        for maps in opened:
            for m in maps:
                m.close()
    if not missing:
        return 0
    if len(args.keys) > 1:
        names = ", ".join(repr(k) for k in missing)
        print(
            f"crawlmill: {len(missing)} of {len(args.keys)} key(s) not found: {names}",
            file=sys.stderr,
        )
    return 3 if damaged else 1


def _lookup(args: argparse.Namespace, registry: Any, maps: list[Any], text: str,
            header: str | None = None) -> tuple[bool, bool]:  # fmt: skip
    """Print the value of key ``text`` from the first part holding it (after the line
    ``header``, when given): ``(found, damage seen in a part looked in)``."""
    from crawlmill.formats.hadoop.mapfile import hash_partition

    damaged = False
    for n, m in enumerate(maps):
        key = _key(args, text, m.header.key_class)
        if args.hash_partitioned and len(maps) > 1 and hash_partition(m.header.key_class, key, len(maps)) != n:  # fmt: skip
            continue
        damaged = damaged or bool(m.problems)
        entry = m.get(key)
        if entry is not None:
            if header is not None:
                print(header, file=sys.stdout, flush=True)
            _print(args, registry, m.path, m.header, entry)
            return True, damaged
    return False, damaged


def _print(args: argparse.Namespace, registry: Any, folder: str, h: Any, entry: Any) -> None:
    from crawlmill.formats.hadoop.writables import canonical_name, content_of, prefixed

    out = sys.stdout
    if args.raw:
        out.flush()
        out.buffer.write(entry.value)
        out.buffer.flush()
        return
    ok, value = _decoded(registry, h.value_class, entry.value)
    if args.json:
        key_ok, key_value = _decoded(registry, h.key_class, entry.key)
        doc = {
            "mapfile": folder,
            "position": entry.offset,
            "key_class": h.key_class,
            "value_class": h.value_class,
            "key": _jsonable(key_value if key_ok else content_of(h.key_class, entry.key)),
            "key_base64": base64.b64encode(entry.key).decode("ascii"),
            "value": _jsonable(value if ok else content_of(h.value_class, entry.value)),
            "value_base64": base64.b64encode(entry.value).decode("ascii"),
        }
        print(json.dumps(doc, ensure_ascii=False), file=out)
        return
    content = content_of(h.value_class, entry.value)
    if prefixed(h.value_class) and content is not entry.value:
        # the text of a Text / UTF8, the bytes of a BytesWritable, as stored
        newline = b"\n" if canonical_name(h.value_class) in _TEXTS else b""
        out.flush()
        out.buffer.write(content + newline)
        out.buffer.flush()
        return
    if ok:
        print(json.dumps(_jsonable(value), ensure_ascii=False), file=out)
        return
    out.flush()
    out.buffer.write(entry.value)
    out.buffer.flush()
