"""The Writables of the file formats page that only round trips checked, read and written by
Nutch's own classes compiled from its source (tests/oracles/nutch/, with stubs only for what
the outer classes' MapReduce jobs use): ``ParseStatus``, ``ProtocolStatus``, ``CrawlDatum``,
``Content``, ``ParseText``, ``ParseData``, ``Generator$SelectorEntry`` and
``LinkDumper$LinkNode``/``$LinkNodes`` of release-1.22; ``Loops$Route``/``$LoopSet`` and
Nutch's own ``MapWritable`` of release-1.10 (Nutch removed Loops in 1.12, NUTCH-2201, and its
MapWritable in 1.11).

Both ways: crawlmill writes, Java's ``readFields`` consumes the bytes exactly and holds every
field as we meant it (compared field by field with Java's own fields, read by reflection), and
writes the same bytes back; Java writes (its rewrite of a version-1 value, and values its
no-argument constructors make, never read), crawlmill reads Java's fields.

The page: "The list below indicates all of the Nutch custom writable's which implement the
Hadoop interface ... ./src/java/org/apache/nutch/crawl/CrawlDatum.java
./src/java/org/apache/nutch/crawl/Generator.java ... ./src/java/org/apache/nutch/crawl/MapWritable.java
... ./src/java/org/apache/nutch/parse/ParseStatus.java ./src/java/org/apache/nutch/parse/ParseText.java
./src/java/org/apache/nutch/protocol/Content.java ./src/java/org/apache/nutch/protocol/ProtocolStatus.java
... ./src/java/org/apache/nutch/scoring/webgraph/LinkDumper.java
./src/java/org/apache/nutch/scoring/webgraph/Loops.java"."""

from __future__ import annotations

from typing import Any

import pytest
from crawlmill.formats.hadoop import nutch_tools as tl
from crawlmill.formats.hadoop.nutch import (
    CONTENT,
    CRAWL_DATUM,
    NUTCH_MAP,
    PARSE_DATA,
    PARSE_TEXT,
    PROTOCOL_STATUS,
    decode_nutch,
    encode_nutch,
)
from crawlmill.formats.hadoop.nutch_content import Content
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum, NutchMapValue
from crawlmill.formats.hadoop.nutch_graph import PARSE_STATUS, Node
from crawlmill.formats.hadoop.nutch_io import Metadata, ParseStatus, ProtocolStatus
from crawlmill.formats.hadoop.nutch_parse import Outlink, ParseData, ParseText
from crawlmill.formats.hadoop.writables import MapValue

from tests.nutch_oracle import OLD_RELEASE

H = "org.apache.hadoop.io."
TEXT, INT, LONG, FLOAT = H + "Text", H + "IntWritable", H + "LongWritable", H + "FloatWritable"
MD = MapValue([(TEXT, b"_pst_", INT, 7), (TEXT, b"caf\xc3\xa9", TEXT, b"\xe6\x97\xa5")])
META = Metadata([("Content-Type", ["text/html"]), ("X", ["1", "2"])])
DATUM = CrawlDatum(status=0x21, fetch_time=1_700_000_000_123, retries=2, fetch_interval=2_592_000,
                   score=0.25, modified_time=1_600_000_000_000, signature=bytes(range(250, 256)) * 3,
                   metadata=MD)  # fmt: skip
NODE = Node(3, 4, 1.25, Metadata([("k", ["v1", "v2"])]))

#: per class: the release whose class reads it, and the values crawlmill writes.
VALUES: dict[str, tuple[str, list[Any]]] = {
    PARSE_STATUS: ("1.22", [ParseStatus(2, 2, 200, ["http://x/", "\u00e9"]),
                            ParseStatus(2, 0, 0, None), ParseStatus(2, 1, 100, [None, ""])]),
    PROTOCOL_STATUS: ("1.22", [ProtocolStatus(2, 14, 1_700_000_000_000, ["404"]),
                               ProtocolStatus(2, 1, 0, None)]),
    CRAWL_DATUM: ("1.22", [DATUM, CrawlDatum(status=0x01, fetch_time=0, score=1.0)]),
    CONTENT: ("1.22", [Content("http://a/", "http://a/b", b"\x00\xff<p>", "text/html", META),
                       Content("http://a/", "", b"", "", Metadata())]),
    PARSE_TEXT: ("1.22", [ParseText("caf\u00e9 \U0001f600"), ParseText("")]),
    PARSE_DATA: ("1.22", [ParseData(ParseStatus(2, 1, 0, None), "T\u00e9",
                                    [Outlink("http://b/", "B", MD), Outlink("http://c/", "", None)],
                                    META, Metadata([("p", ["q"])])),
                          ParseData(ParseStatus(2, 0, 0, None), "", [], Metadata(), Metadata())]),
    tl.SELECTOR_ENTRY: ("1.22", [tl.SelectorEntry("http://a.example/", DATUM, 3)]),
    tl.LINK_NODE: ("1.22", [tl.LinkNode("http://a.example/\u00e9", NODE)]),
    tl.LINK_NODES: ("1.22", [tl.LinkNodes([tl.LinkNode("http://a/", NODE),
                                           tl.LinkNode("http://b/", Node())]),
                             tl.LinkNodes([])]),
    tl.ROUTE: (OLD_RELEASE, [tl.Route("http://a/", "http://b/", True),
                             tl.Route("http://a/", "", False)]),
    tl.LOOP_SET: (OLD_RELEASE, [tl.LoopSet(["http://b/", "http://a/", "http://\u00e9/"]),
                                tl.LoopSet([])]),
    NUTCH_MAP: (OLD_RELEASE, [NutchMapValue([(TEXT, b"k", INT, 7), (TEXT, b"l", LONG, -5),
                                             (TEXT, b"s", PROTOCOL_STATUS,
                                              ProtocolStatus(2, 14, 9, ["x"]))])]),
}  # fmt: skip


def _s(v: Any) -> Any:
    return v.decode("utf-8") if isinstance(v, bytes) else v


def _writable(cls: str, v: Any) -> Any:
    """A map key or value as CrawlmillOracle.fields shows it."""
    if cls == TEXT:
        return _s(v)
    if cls in (INT, LONG, FLOAT):
        return {"@": cls, "value": v}
    return as_java(cls, v)


def _map(m: MapValue | None) -> Any:
    if m is None:
        return None
    return [[_writable(kc, k), _writable(vc, v)] for kc, k, vc, v in m.entries]


def _meta(m: Metadata) -> dict:
    return {"@": "org.apache.nutch.metadata.Metadata", "metadata": [[k, v] for k, v in m.entries]}


def _node(n: Node) -> dict:
    return {"@": "org.apache.nutch.scoring.webgraph.Node", "numInlinks": n.num_inlinks,
            "numOutlinks": n.num_outlinks, "inlinkScore": n.inlink_score,
            "metadata": _meta(n.metadata)}  # fmt: skip


def as_java(name: str, v: Any) -> Any:
    """Every field Java should hold for our value ``v`` of class ``name`` (Java's field names)."""
    f: dict[str, Any] = {"@": name}
    if name == PARSE_STATUS:
        f.update(majorCode=v.major, minorCode=v.minor, args=v.args)
    elif name == PROTOCOL_STATUS:
        f.update(code=v.code, lastModified=v.last_modified, args=v.args)
    elif name == CRAWL_DATUM:
        sig = None if v.signature is None else {"hex": v.signature.hex()}
        f.update(status=v.status, fetchTime=v.fetch_time, retries=v.retries,
                 fetchInterval=v.fetch_interval, score=v.score, signature=sig,
                 modifiedTime=v.modified_time, metaData=_map(v.metadata) or None)  # fmt: skip
    elif name == CONTENT:
        f.update(version=v.version, url=v.url, base=v.base, content={"hex": v.content.hex()},
                 contentType=v.content_type, metadata=_meta(v.metadata), mimeTypes=None)  # fmt: skip
    elif name == PARSE_TEXT:
        f.update(text=v.text)
    elif name == PARSE_DATA:
        links = [{"@": "org.apache.nutch.parse.Outlink", "toUrl": o.to_url, "anchor": o.anchor,
                  "md": _map(o.metadata)} for o in v.outlinks]  # fmt: skip
        f.update(title=v.title, outlinks=links, contentMeta=_meta(v.content_meta),
                 parseMeta=_meta(v.parse_meta), status=as_java(PARSE_STATUS, v.status),
                 version=v.version)  # fmt: skip
    elif name == tl.SELECTOR_ENTRY:
        f.update(url=v.url, datum=as_java(CRAWL_DATUM, v.datum),
                 segnum={"@": INT, "value": v.segnum})  # fmt: skip
    elif name == tl.LINK_NODE:
        f.update(url=v.url, node=_node(v.node))
    elif name == tl.LINK_NODES:
        # readFields: "if (numLinks > 0) { links = new LinkNode[numLinks]; ...": else null
        f.update(links=[as_java(tl.LINK_NODE, n) for n in v.links] or None)
    elif name == tl.ROUTE:
        f.update(outlinkUrl=v.outlink_url, lookingFor=v.looking_for, found=v.found)
    elif name == tl.LOOP_SET:
        f.update(loopSet=list(v.urls))
    elif name == NUTCH_MAP:
        return _map(v)
    else:
        raise AssertionError(name)
    return f


def canon(x: Any) -> Any:
    """Java's HashMaps and HashSets have no order we control: sort lists of pairs and sets."""
    if isinstance(x, dict):
        out = {k: canon(v) for k, v in x.items()}
        if x.get("@") in ("org.apache.nutch.metadata.Metadata",):
            out["metadata"] = sorted(out["metadata"], key=repr)
        if x.get("@") == tl.LOOP_SET:
            out["loopSet"] = sorted(out["loopSet"])
        for key in ("metaData", "md"):
            if isinstance(out.get(key), list):
                out[key] = sorted(out[key], key=repr)
        return out
    if isinstance(x, list):
        items = [canon(i) for i in x]
        if items and all(isinstance(i, list) and len(i) == 2 for i in items):
            return sorted(items, key=repr)  # a map's [key, value] pairs
        return items
    return x


@pytest.fixture(scope="module")
def java_read(nutch_java, tmp_path_factory):
    """Java's reading of every value of VALUES: ``{class: [result per value]}``, one JVM per
    release."""
    tmp = tmp_path_factory.mktemp("values")
    results: dict[str, list[dict]] = {}
    for release in sorted({r for r, _ in VALUES.values()}):
        names = [n for n, (r, _) in VALUES.items() if r == release]
        pairs = [(n, encode_nutch(n, v)) for n in names for v in VALUES[n][1]]
        got = iter(nutch_java.read_many(release, pairs, tmp / release))
        for n in names:
            results[n] = [next(got) for _ in VALUES[n][1]]
    return results


#: classes whose values hold a Java HashMap/HashSet of several entries (Metadata, LoopSet).
UNORDERED = {CONTENT, PARSE_DATA, tl.LOOP_SET}
IDS = [n.rsplit(".", 1)[-1] for n in VALUES]


@pytest.mark.parametrize("name", list(VALUES), ids=IDS)
def test_nutchs_class_reads_our_bytes_field_by_field_and_writes_them_back(name, java_read):
    values = VALUES[name][1]
    for value, got in zip(values, java_read[name], strict=True):
        data = encode_nutch(name, value)
        assert got.get("error") is None, f"{name}: Java: {got.get('error')}"
        assert canon(got["fields"]) == canon(as_java(name, value))
        java_bytes = bytes.fromhex(got["hex"])
        if name in UNORDERED:  # Java writes its HashMap/HashSet order: the same fields
            assert len(java_bytes) == len(data)
            assert canon(as_java(name, decode_nutch(name, java_bytes))) == canon(got["fields"])
        elif name == tl.LINK_NODES and not value.links:
            # write: "if (links != null && links.length > 0) { ... out.writeInt(numLinks)": a
            # count of 0 reads back as null links, which Java writes as no bytes at all
            assert java_bytes == b""
        else:
            assert java_bytes == data  # Java writes our bytes
            assert decode_nutch(name, java_bytes) == value


def test_a_field_we_got_wrong_would_show(java_read):
    """The comparison can fail: a ParseStatus whose minor code is not Java's is caught."""
    got = java_read[PARSE_STATUS][0]
    wrong = as_java(PARSE_STATUS, ParseStatus(2, 2, 201, ["http://x/", "\u00e9"]))
    assert canon(got["fields"]) != canon(wrong)


#: version-1 values (ParseStatus, ProtocolStatus) Java reads and writes again as version 2.
VERSION_1 = {
    PARSE_STATUS: ParseStatus(1, 2, 200, ["gzip", "args"]),
    PROTOCOL_STATUS: ProtocolStatus(1, 14, 5, ["gzip"]),
}


@pytest.fixture(scope="module")
def java_rewrites(nutch_java, tmp_path_factory):
    """Java's reading of each of :data:`VERSION_1` (one JVM): ``{class: result}``."""
    pairs = [(name, encode_nutch(name, old)) for name, old in VERSION_1.items()]
    got = nutch_java.read_many("1.22", pairs, tmp_path_factory.mktemp("version-1"))
    return dict(zip(VERSION_1, got, strict=True))


@pytest.mark.parametrize("name", list(VERSION_1), ids=["ParseStatus", "ProtocolStatus"])
def test_java_rewrites_a_version_1_value_as_2_and_we_read_its_bytes(name, java_rewrites):
    # ParseStatus/ProtocolStatus.readFields: "case 1: ... WritableUtils.readCompressedStringArray";
    # write: "out.writeByte(VERSION)" (2) and a plain string array
    old, got = VERSION_1[name], java_rewrites[name]
    assert got.get("error") is None, got
    java_bytes = bytes.fromhex(got["hex"])
    assert java_bytes[0] == 2
    ours = decode_nutch(name, java_bytes)
    assert ours.version == 2 and ours.args == old.args
    assert canon(got["fields"]) == canon(as_java(name, ours))


#: classes whose no-argument constructor makes a value Java can write (the others hold nulls
#: their write() dereferences: Content, ParseText, ParseData, LinkNode, Route, MapWritable).
BLANK = {"1.22": [PARSE_STATUS, PROTOCOL_STATUS, CRAWL_DATUM, tl.SELECTOR_ENTRY, tl.LINK_NODES],
         OLD_RELEASE: [tl.LOOP_SET]}  # fmt: skip


@pytest.mark.parametrize("release", list(BLANK))
def test_we_read_the_values_javas_constructors_make(release, nutch_java):
    for name, got in zip(BLANK[release], nutch_java.blank(release, BLANK[release]), strict=True):
        assert got.get("error") is None, f"{name}: {got}"
        data = bytes.fromhex(got["hex"])
        ours = decode_nutch(name, data)
        assert canon(as_java(name, ours)) == canon(got["fields"]), name
        assert encode_nutch(name, ours) == data
    # LinkNodes(): links is null and write() writes nothing; we keep that as count_written=False
    if release == "1.22":
        assert decode_nutch(tl.LINK_NODES, b"") == tl.LinkNodes([], count_written=False)
