"""What each built-in plugin registers, declared so the registry need not import it.

The registry reads this table through the ``crawlmill_manifests`` entry-point group (this
module imports nothing) and imports a plugin's module only when a run uses one of its
components, or when detection needs its reader's ``sniff``. A third-party package may declare
its plugins the same way (an entry point in ``crawlmill_manifests`` naming a dict like
:data:`PLUGINS`); a plugin without a declaration is imported at start, as before.

Each entry: the ``crawlmill`` entry point's name -> ``module`` (the entry point's value: a
declaration for another value is ignored) and ``components``, each a dict of ``kind``
(reader, writer, filter, layout, writable) and ``name``, and:

* readers: ``file_suffixes`` (as the class's), ``sniffs`` (``folders``: its ``sniff`` claims
  only directories, so it is not imported to sniff a file; default ``any``) and
  ``file_magic`` (its ``sniff`` claims a file only when the file's first bytes start with
  one of these; default: any file) and ``declines_magic`` (its ``sniff`` claims nothing of a
  file whose first bytes start with one of these unless one of its ``file_suffixes`` occurs
  in the file's name);
* writables: ``java_names`` (as the class's).

A plugin that implements ``crawlmill_detect_format`` says ``"detect_format": True`` (detection
then imports it).

``tests/core/test_registry_lazy.py`` checks every declaration against what importing the
module registers.
"""

#: first bytes of a file the cc-metadata reader may claim (see its ``sniff``)
JSON_OR_SEQ = [b"SEQ", b"{", b" ", b"\t", b"\r", b"\x00", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]

PLUGINS = {
    "arc-reader": {
        "module": "crawlmill.plugins.readers.arc",
        "components": [
            # a WARC file's first line is no ARC header: the sniff says 0 unless named .arc
            {
                "kind": "reader",
                "name": "arc",
                "file_suffixes": [".arc"],
                "declines_magic": [b"WARC/"],
            },
        ],
    },
    "arc-writer": {
        "module": "crawlmill.plugins.writers.arc",
        "components": [
            {"kind": "writer", "name": "arc"},
        ],
    },
    "basic-filters": {
        "module": "crawlmill.plugins.filters.basic",
        "components": [
            {"kind": "filter", "name": "kind"},
            {"kind": "filter", "name": "url-match"},
            {"kind": "filter", "name": "http-status"},
            {"kind": "filter", "name": "size"},
        ],
    },
    "cc-metadata-reader": {
        "module": "crawlmill.plugins.readers.cc_metadata",
        "components": [
            {
                "kind": "reader",
                "name": "cc-metadata",
                "file_suffixes": [".jsonl"],
                # a SequenceFile, or a first line json.loads may read as an object: "{" after
                # JSON whitespace, or UTF-8 with BOM, UTF-16/32 (json.detect_encoding)
                "file_magic": JSON_OR_SEQ,
            },
        ],
    },
    "cc-metadata-writer": {
        "module": "crawlmill.plugins.writers.cc_metadata",
        "components": [
            {"kind": "writer", "name": "cc-metadata"},
        ],
    },
    "cc2012-reader": {
        "module": "crawlmill.plugins.readers.cc2012",
        "components": [
            {"kind": "reader", "name": "cc2012", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "cc2012-writer": {
        "module": "crawlmill.plugins.writers.cc2012",
        "components": [
            {"kind": "writer", "name": "cc2012"},
        ],
    },
    "clueweb-layouts": {
        "module": "crawlmill.plugins.writers.layout_clueweb",
        "components": [
            {"kind": "layout", "name": "clueweb09"},
            {"kind": "layout", "name": "chuweb21"},
        ],
    },
    "clueweb09-reader": {
        "module": "crawlmill.plugins.readers.clueweb09",
        "components": [
            {"kind": "reader", "name": "clueweb09", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "parquet-writer": {
        "module": "crawlmill.plugins.writers.parquet",
        "components": [
            {"kind": "writer", "name": "parquet"},
        ],
    },
    "pyserini-writer": {
        "module": "crawlmill.plugins.writers.jsonl",
        "components": [
            {"kind": "writer", "name": "pyserini"},
            {"kind": "writer", "name": "ir-datasets"},
        ],
    },
    "trec-writer": {
        "module": "crawlmill.plugins.writers.trec",
        "components": [
            {"kind": "writer", "name": "trec"},
        ],
    },
    "wet-writer": {
        "module": "crawlmill.plugins.writers.wet",
        "components": [
            {"kind": "writer", "name": "wet"},
        ],
    },
    "cooked-text-filter": {
        "module": "crawlmill.plugins.filters.cooked_text",
        "components": [
            {"kind": "filter", "name": "cooked-text"},
        ],
    },
    "exact-dedup-filter": {
        "module": "crawlmill.plugins.filters.exact_dedup",
        "components": [
            {"kind": "filter", "name": "exact-dedup"},
        ],
    },
    "hadoop-writables": {
        "module": "crawlmill.plugins.writables.hadoop_io",
        "components": [
            {"kind": "writable", "name": "org.apache.hadoop.io.Text"},
            {
                "kind": "writable",
                "name": "org.commoncrawl.util.TextBytes",
                "java_names": ["org.commoncrawl.util.shared.TextBytes"],
            },
            {"kind": "writable", "name": "org.apache.hadoop.io.UTF8", "java_names": ["UTF8"]},
            {"kind": "writable", "name": "org.apache.hadoop.io.BytesWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.IntWritable"},
            {
                "kind": "writable",
                "name": "org.apache.hadoop.io.LongWritable",
                "java_names": ["long"],
            },
            {"kind": "writable", "name": "org.apache.hadoop.io.FloatWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.DoubleWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.ByteWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.ShortWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.VIntWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.VLongWritable"},
            {"kind": "writable", "name": "org.apache.hadoop.io.BooleanWritable"},
            {
                "kind": "writable",
                "name": "org.apache.hadoop.io.NullWritable",
                "java_names": ["null"],
            },
            {"kind": "writable", "name": "org.apache.hadoop.io.MD5Hash", "java_names": ["MD5Hash"]},
            {"kind": "writable", "name": "org.apache.hadoop.io.MapWritable"},
        ],
    },
    "html-length-filter": {
        "module": "crawlmill.plugins.filters.html_length",
        "components": [
            {"kind": "filter", "name": "html-length"},
        ],
    },
    "language-filter": {
        "module": "crawlmill.plugins.filters.language",
        "components": [
            {"kind": "filter", "name": "language"},
        ],
    },
    "mapfile-reader": {
        "module": "crawlmill.plugins.readers.mapfile",
        "components": [
            {"kind": "reader", "name": "mapfile", "file_suffixes": [], "file_magic": [b"SEQ"]},
        ],
    },
    "mapfile-writer": {
        "module": "crawlmill.plugins.writers.mapfile",
        "components": [
            {"kind": "writer", "name": "mapfile"},
        ],
    },
    "mime-filter": {
        "module": "crawlmill.plugins.filters.mime",
        "components": [
            {"kind": "filter", "name": "mime"},
        ],
    },
    "ntcir-reader": {
        "module": "crawlmill.plugins.readers.ntcir",
        "components": [
            {"kind": "reader", "name": "ntcir", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "ntcir-writer": {
        "module": "crawlmill.plugins.writers.ntcir",
        "components": [
            {"kind": "writer", "name": "ntcir"},
        ],
    },
    "nutch-db-readers": {
        "module": "crawlmill.plugins.readers.nutch_db",
        "components": [
            {"kind": "reader", "name": "nutch-crawldb", "file_suffixes": [], "sniffs": "folders"},
            {"kind": "reader", "name": "nutch-linkdb", "file_suffixes": [], "sniffs": "folders"},
            {"kind": "reader", "name": "nutch-hostdb", "file_suffixes": [], "sniffs": "folders"},
            {"kind": "reader", "name": "nutch-webgraph", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "nutch-db-writers": {
        "module": "crawlmill.plugins.writers.nutch_db",
        "components": [
            {"kind": "writer", "name": "nutch-crawldb"},
            {"kind": "writer", "name": "nutch-linkdb"},
        ],
    },
    "nutch-legacy-reader": {
        "module": "crawlmill.plugins.readers.nutch_legacy",
        "components": [
            {"kind": "reader", "name": "nutch-legacy", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "nutch-legacy-writables": {
        "module": "crawlmill.plugins.writables.nutch_legacy",
        "components": [
            {
                "kind": "writable",
                "name": "org.apache.nutch.pagedb.FetchListEntry",
                "java_names": ["net.nutch.pagedb.FetchListEntry", "FetchListEntry"],
            },
            {
                "kind": "writable",
                "name": "org.apache.nutch.fetcher.FetcherOutput",
                "java_names": ["net.nutch.fetcher.FetcherOutput", "FetcherOutput"],
            },
            {
                "kind": "writable",
                "name": "org.apache.nutch.fetcher.FetcherContent",
                "java_names": ["net.nutch.fetcher.FetcherContent", "FetcherContent"],
            },
            {
                "kind": "writable",
                "name": "org.apache.nutch.fetcher.FetcherText",
                "java_names": ["net.nutch.fetcher.FetcherText", "FetcherText"],
            },
            {"kind": "writable", "name": "net.nutch.protocol.Content"},
            {"kind": "writable", "name": "net.nutch.parse.ParseText"},
            {"kind": "writable", "name": "net.nutch.parse.ParseData"},
            {
                "kind": "writable",
                "name": "org.apache.nutch.db.Page",
                "java_names": ["net.nutch.db.Page", "Page"],
            },
            {
                "kind": "writable",
                "name": "org.apache.nutch.db.Link",
                "java_names": ["net.nutch.db.Link", "Link"],
            },
            {"kind": "writable", "name": "Content"},
            {"kind": "writable", "name": "ParseText"},
            {"kind": "writable", "name": "ParseData"},
        ],
    },
    "nutch-segment-reader": {
        "module": "crawlmill.plugins.readers.nutch_segment",
        "components": [
            {"kind": "reader", "name": "nutch-segment", "file_suffixes": [], "sniffs": "folders"},
        ],
    },
    "nutch-segment-writer": {
        "module": "crawlmill.plugins.writers.nutch_segment",
        "components": [
            {"kind": "writer", "name": "nutch-segment"},
        ],
    },
    "nutch-writables": {
        "module": "crawlmill.plugins.writables.nutch",
        "components": [
            {
                "kind": "writable",
                "name": "org.apache.nutch.protocol.Content",
                "java_names": ["Content"],
            },
            {"kind": "writable", "name": "org.apache.nutch.crawl.CrawlDatum"},
            {
                "kind": "writable",
                "name": "org.apache.nutch.parse.ParseText",
                "java_names": ["ParseText"],
            },
            {
                "kind": "writable",
                "name": "org.apache.nutch.parse.ParseData",
                "java_names": ["ParseData"],
            },
            {"kind": "writable", "name": "org.apache.nutch.crawl.Inlinks"},
            {"kind": "writable", "name": "org.apache.nutch.protocol.ProtocolStatus"},
            {"kind": "writable", "name": "org.apache.nutch.crawl.MapWritable"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.LinkDatum"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.Node"},
            {"kind": "writable", "name": "org.apache.nutch.hostdb.HostDatum"},
            {"kind": "writable", "name": "org.apache.nutch.crawl.Inlink"},
            {"kind": "writable", "name": "org.apache.nutch.parse.Outlink"},
            {"kind": "writable", "name": "org.apache.nutch.metadata.Metadata"},
            {"kind": "writable", "name": "org.apache.nutch.parse.ParseStatus"},
            {"kind": "writable", "name": "org.apache.nutch.indexer.NutchField"},
            {"kind": "writable", "name": "org.apache.nutch.indexer.NutchDocument"},
            {"kind": "writable", "name": "org.apache.nutch.indexer.NutchIndexAction"},
            {"kind": "writable", "name": "org.apache.nutch.crawl.Generator$SelectorEntry"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.LinkDumper$LinkNode"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.LinkDumper$LinkNodes"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.Loops$Route"},
            {"kind": "writable", "name": "org.apache.nutch.scoring.webgraph.Loops$LoopSet"},
        ],
    },
    "plain-layout": {
        "module": "crawlmill.plugins.writers.layout_plain",
        "components": [
            {"kind": "layout", "name": "plain"},
        ],
    },
    "sequencefile-reader": {
        "module": "crawlmill.plugins.readers.sequencefile",
        "components": [
            {
                "kind": "reader",
                "name": "sequencefile",
                "file_suffixes": [".seq"],
                "file_magic": [b"SEQ"],
            },
        ],
    },
    "sequencefile-writer": {
        "module": "crawlmill.plugins.writers.sequencefile",
        "components": [
            {"kind": "writer", "name": "sequencefile"},
        ],
    },
    "simhash-dedup-filter": {
        "module": "crawlmill.plugins.filters.simhash_dedup",
        "components": [
            {"kind": "filter", "name": "simhash-dedup"},
        ],
    },
    "tld-filter": {
        "module": "crawlmill.plugins.filters.tld",
        "components": [
            {"kind": "filter", "name": "tld"},
        ],
    },
    "url-dedup-filter": {
        "module": "crawlmill.plugins.filters.url_dedup",
        "components": [
            {"kind": "filter", "name": "url-dedup"},
        ],
    },
    "warc-reader": {
        "module": "crawlmill.plugins.readers.warc",
        "components": [
            {"kind": "reader", "name": "warc", "file_suffixes": [".warc", ".wet", ".wat"]},
        ],
    },
    "warc-writer": {
        "module": "crawlmill.plugins.writers.warc",
        "components": [
            {"kind": "writer", "name": "warc"},
        ],
    },
}
