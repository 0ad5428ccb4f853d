"""``simhash-dedup``: near-duplicate removal as Chuweb21D did it (Chu et al., SIGIR-AP 2023).

A whole-collection filter (:mod:`crawlmill.core.run.passes`), global (no ``reduce_by``: the
clustering must see every row):

* **collect**: for every record of the kinds in ``kinds`` (default ``response`` and
  ``resource``), the 64- and 128-bit simhash of what ``hash`` names, bit-identical to the
  ``simhash`` package 2.1.2 that the paper used (:mod:`crawlmill.algorithms.simhash`, without
  the package's overflow): ``payload`` is the WARC block, HTTP head and payload as stored
  (what the Chuweb21D case files suggest), ``html`` the payload without the HTTP head, and
  ``text`` the body text without script, style and comments (lxml, no network,
  :mod:`crawlmill.algorithms.simhash_text`). Bytes are decoded as UTF-8 (``encoding: utf-8``) or
  by the record's charset when Python knows it (``encoding: declared``), invalid bytes
  replaced (which removes them: they are not word characters). ``hash: text`` with
  ``extractor`` ``resiliparse``, ``trafilatura`` or ``lxml`` hashes the text extraction
  component's main text instead (:func:`crawlmill.algorithms.text_extraction.record_text`: body
  de-chunked and decompressed, charset found, ``encoding`` unused): other codes than the
  default ``body`` (the rule above), so other clusters; a record that is not an HTML page
  then hashes as an empty text (counted ``no-text``). Every page without word
  characters (an empty payload too) gets one and the same code, as with the package.
* **reduce**: the 64-bit codes clustered at Hamming distance ``tau``
  (:mod:`crawlmill.algorithms.simhash_cluster`): ``method: exact`` finds every pair within
  ``tau`` (pigeonhole tables, ``blocks`` or a cost model), ``method: bucketing`` is the
  paper's randomized bucketing (``bits`` B, ``rounds`` T, ``seed``) for replication; with
  ``tau128`` a pair must also be within ``tau128`` on the 128-bit codes (the paper's second
  check). Pairs go into union-find; each cluster keeps one representative by
  ``representative``:

  - ``first``: the first document in pipeline order (input order, then record order);
  - ``smallest-id``: the smallest doc id as the cluster table names it (option ``doc_id``,
    compared as text; documents named by position lose);
  - ``earliest``: the oldest capture date (undated documents lose);
  - ``longest``: the longest hashed input (bytes for ``payload`` and ``html``, characters
    for ``text``);

  each ending in the pipeline order as tie-break, so the result does not depend on the
  worker count.
* **final pass**: the representatives and every record that does not take part are kept;
  the other members are dropped with reason ``near-duplicate`` (counted as
  ``simhash-dedup:near-duplicate``, so read = written + dropped + quarantined holds).

**The cluster table.** The reduce's table is the cluster table, one row per document that
took part: ``input``, ``seq``, ``file`` (the input's relpath), ``doc_id`` (by the ``doc_id``
option: the TREC id, else the record id's UUID as Chuweb21D names documents, a URL or a WARC
header; ``<file>#<seq>`` for a document without one, counted as ``ids-by-position``: never
null), ``url``,
``simhash64``, ``simhash128_high`` (the 128-bit code's high half; its low half is
``simhash64``), ``cluster`` (the pipeline ordinal of the cluster's first document),
``cluster_size``, ``representative_doc_id``, ``representative_url``, ``kept``, ``distance``
and ``distance128`` (Hamming distances to the representative). It is the pass's
``table.arrow`` and is written as Parquet into the output root at ``clusters`` (default
``OUT/clusters.parquet``; a relative path, never outside the root; ``clusters: null`` writes
none) by the engine's reduce outputs (``ctx.output``): renamed into place when the reduce
succeeds, kept on resume, rewritten when a run with other options makes another pass. The
reduce counts ``documents``, ``clusters``, ``near-duplicates``, ``pairs`` (node pairs found)
and ``largest-cluster``. ``crawlmill dedup-runs`` rewrites TREC runs and qrels through it.

**Statistics** (the paper's Table 2 and Figures 3 and 4). ``thresholds: [0, 1, 2, 3]``
clusters the same signatures at each threshold (with the run's ``tau128`` check, if any;
``tau`` is still the one whose collection is written, and its row is marked ``chosen``), ``thresholds128`` at each 128-bit threshold at
``tau`` (the paper's tau~ axis). One row per clustering: documents, kept, removed, duplicate
clusters, largest cluster, kept and largest ratios, pairs
(:mod:`crawlmill.algorithms.simhash_stats`), written to ``<stats>.csv`` and ``<stats>.json``
(with the chosen clustering's cluster-size distribution, also ``<stats>-sizes.csv``); with
``plots`` and matplotlib (the ``plots`` extra) ``<stats>-tau``, ``<stats>-tau128`` and
``<stats>-sizes`` as PNG and SVG (:mod:`crawlmill.plugins.filters.simhash_plots`); without
matplotlib a note on the terminal and the tables only. ``stats`` defaults to
``simhash-stats`` when thresholds are given.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from crawlmill.algorithms.document_ids import bare_record_id, document_id
from crawlmill.algorithms.text_extraction import BODY, FeatureExtractor, feature_text
from crawlmill.core import (
    Drop,
    Filter,
    FilterContext,
    LazySchema,
    PluginOptions,
    Record,
    ReduceContext,
    comma_list,
    hookimpl,
)
from crawlmill.core.reduce_tables import epoch_micros, rows_of_input
from pydantic import AliasChoices, Field, field_validator, model_validator

from .kinds import Kinds, kinds_field

__all__ = ["SimhashDedupFilter", "bare_record_id", "document_id"]

_MASK64 = (1 << 64) - 1
#: the cluster table's default place in the output root (option ``clusters``).
CLUSTERS_FILE = "clusters.parquet"
#: the statistics' default prefix in the output root (option ``stats``).
STATS_PREFIX = "simhash-stats"


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("doc_id", pa.string()),
            ("url", pa.string()),
            ("date", pa.int64()),
            ("length", pa.int64()),
            ("simhash64", pa.uint64()),
            ("simhash128_high", pa.uint64()),
        ]
    )


class SimhashDedupFilter(Filter):
    """Drop near-duplicates (simhash within tau, clustered), keeping one per cluster."""

    reduce_summary = ("document(s) hashed", "document(s) clustered")

    name = "simhash-dedup"

    class Options(PluginOptions):
        tau: int = Field(
            3,
            ge=0,
            le=32,
            validation_alias=AliasChoices("tau", "threshold"),
            description="Hamming distance of near-duplicates (also: threshold); the "
            "collection written is this clustering's",
        )
        method: Literal["exact", "bucketing"] = Field(
            "exact",
            description="exact: every pair within tau (pigeonhole tables); bucketing: the "
            "Chuweb21D paper's randomized bucketing (bits, rounds, seed)",
        )
        blocks: int | None = Field(
            None, ge=1, le=64, description="exact: blocks per code (default: a cost model)"
        )
        bits: int = Field(16, ge=1, le=64, description="bucketing: sampled bits B")
        rounds: int = Field(20, ge=1, le=10_000, description="bucketing: rounds T")
        seed: int = Field(0, ge=0, description="bucketing: random seed")
        tau128: int | None = Field(
            None,
            ge=0,
            le=128,
            description="also require the 128-bit codes within this distance (the paper's "
            "second check); none: no check",
        )
        hash: Literal["payload", "html", "text"] = Field(
            "payload",
            description="what is hashed: payload (HTTP head + payload), html (payload "
            "without the HTTP head) or text (body text without script and style)",
        )
        extractor: FeatureExtractor = Field(
            BODY,
            description="hash: text: body (the text nodes of <body> without script and "
            "style, as Chuweb21D; the default) or the text component's main text by "
            "resiliparse, trafilatura or lxml (other codes; see docs/outputs.md)",
        )
        encoding: Literal["utf-8", "declared"] = Field(
            "utf-8",
            description="how bytes become text: utf-8, or the record's declared charset "
            "(utf-8 when unknown); invalid bytes are replaced",
        )
        representative: Literal["first", "smallest-id", "earliest", "longest"] = Field(
            "first",
            description="which document a cluster keeps: first (pipeline order), "
            "smallest-id (doc id), earliest (capture date), longest (hashed input); ties "
            "go to the first in pipeline order",
        )
        clusters: str | None = Field(
            CLUSTERS_FILE,
            description="the cluster table (Parquet), a path relative to the output root "
            "(never outside it); none: not written",
        )
        thresholds: list[int] | None = Field(
            None,
            description="statistics (and plots) for each of these 64-bit thresholds, from "
            "the same signatures; tau's row is the collection written",
        )
        thresholds128: list[int] | None = Field(
            None,
            description="statistics (and plots) for each of these 128-bit thresholds at tau "
            "(the paper's tau~ axis)",
        )
        stats: str | None = Field(
            None,
            description="where the statistics go, relative to the output root: <stats>.csv, "
            "<stats>.json, <stats>-sizes.csv and the plots (default simhash-stats when "
            "thresholds or thresholds128 are given; else none)",
        )
        doc_id: str = Field(
            "auto",
            description="each document's id in the cluster table: auto (its WARC-TREC-ID, "
            "else the UUID of its WARC-Record-ID, as Chuweb21D names documents), trec, "
            "record-id, url, or the name of a WARC header; a document without it is named "
            "<file>#<seq> (counted as ids-by-position)",
        )
        plots: bool = Field(
            True,
            description="with statistics, draw them as PNG and SVG (needs the plots extra, "
            "matplotlib; without it a note and the tables only)",
        )
        kinds: Kinds = kinds_field("record kinds that take part; records of other kinds are kept")

        @field_validator("thresholds", "thresholds128", mode="before")
        @classmethod
        def _int_list(cls, value: Any) -> Any:
            return comma_list(value)

        @field_validator("thresholds")
        @classmethod
        def _tau_range(cls, value: list[int] | None) -> list[int] | None:
            if value is not None and not all(0 <= t <= 32 for t in value):
                raise ValueError("thresholds must be 0..32")
            return value

        @field_validator("thresholds128")
        @classmethod
        def _tau128_range(cls, value: list[int] | None) -> list[int] | None:
            if value is not None and not all(0 <= t <= 128 for t in value):
                raise ValueError("thresholds128 must be 0..128")
            return value

        @field_validator("clusters", "stats")
        @classmethod
        def _inside_root(cls, value: str | None) -> str | None:
            from crawlmill.core.output_paths import safe_relpath

            return None if value is None else safe_relpath(value)

        def stats_prefix(self) -> str | None:
            """Where the statistics go (``None``: no statistics)."""
            if self.stats is not None:
                return self.stats
            return STATS_PREFIX if self.thresholds or self.thresholds128 else None

        @model_validator(mode="after")
        def _extractor_hashes_text(self) -> SimhashDedupFilter.Options:
            if self.extractor != BODY and self.hash != "text":
                raise ValueError(f"extractor {self.extractor} needs hash: text")
            return self

        @model_validator(mode="after")
        def _blocks_above_tau(self) -> SimhashDedupFilter.Options:
            if self.method == "exact" and self.blocks is not None and self.blocks <= self.tau:
                raise ValueError(f"blocks must exceed tau ({self.blocks} <= {self.tau})")
            return self

    collect_schema: ClassVar[Any] = LazySchema(_schema)

    def signature(self, record: Record) -> tuple[int, int, int]:
        """``(simhash64, simhash128, length of the hashed input)`` of ``record``."""
        from crawlmill.algorithms.simhash import simhash64_128, simhash_bytes  # numpy: lazily
        from crawlmill.algorithms.simhash_text import decode

        mode, charset = self.options.hash, None
        if self.options.encoding == "declared":
            charset = record.charset
        if mode == "text":
            text = feature_text(record, self.options.extractor, charset)
            if text is None:
                self.ctx.count("no-text")
                text = ""
            v64, v128 = simhash64_128(text)
            return v64, v128, len(text)
        data = record.block if mode == "payload" else record.payload
        if charset is None:
            v64, v128 = simhash_bytes(data)
        else:
            v64, v128 = simhash64_128(decode(data, charset))
        return v64, v128, len(data)

    def collect(self, record: Record) -> list[tuple] | None:
        """One row per record that takes part: doc id, URL, date (microseconds since the
        epoch), hashed length, the 64-bit code and the 128-bit code's high half."""
        if record.kind not in self.options.kinds:
            return None
        v64, v128, length = self.signature(record)
        date = epoch_micros(record.date)
        doc_id = document_id(record, self.options.doc_id)
        return [(doc_id, record.url, date, length, v64, v128 >> 64)]

    @classmethod
    def reduce(cls, rows: Any, options: Any, ctx: ReduceContext) -> Any:
        """The cluster table (see the module docstring), in input and seq order; also
        written as Parquet in the pass folder."""
        return cluster_table(rows, options, ctx)

    def open(self, ctx: FilterContext) -> None:
        """Load this input's dropped documents (sorted by seq) from the cluster table."""
        super().open(ctx)
        self._drops: list[int] = []
        self._urls: list[str | None] = []
        self._next = 0
        table = ctx.table()
        if table is None:  # the collect pass: nothing to drop yet
            return
        mine = rows_of_input(table, ctx.input.index)
        import pyarrow.compute as pc

        dropped = mine.filter(pc.invert(mine["kept"]))
        self._drops = dropped["seq"].to_pylist()
        self._urls = dropped["url"].to_pylist()

    def apply(self, record: Record) -> Record | Drop:
        """Drop the record when the reduce made it a non-representative cluster member."""
        if self._next >= len(self._drops) or self.ctx.seq != self._drops[self._next]:
            return record
        url = self._urls[self._next]
        self._next += 1
        if record.kind not in self.options.kinds or record.url != url:
            raise RuntimeError(
                f"simhash-dedup: record {self.ctx.seq} of {self.ctx.input.path} is not the "
                "document the collect pass saw (the input changed or its reader is not "
                "deterministic)"
            )
        return Drop("near-duplicate")


def _ranks(rows: Any, rule: str) -> Any:
    """Each row's rank for ``rule`` (0 wins), pipeline order as the last tie-break."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = rows.num_rows
    order_col = pa.array(np.arange(n, dtype=np.int64))
    if rule == "first":
        return np.arange(n, dtype=np.int64)
    column, direction = {
        "smallest-id": ("doc_id", "ascending"),
        "earliest": ("date", "ascending"),
        "longest": ("length", "descending"),
    }[rule]
    key = rows[column]
    keyed = pa.table({"missing": pc.is_null(key), "k": key, "row": order_col})
    order = pc.sort_indices(  # documents without the key lose, in any direction
        keyed, sort_keys=[("missing", "ascending"), ("k", direction), ("row", "ascending")]
    ).to_numpy()
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    return rank


def _clustering(c64: Any, hi: Any, options: Any, tau: int, tau128: int | None) -> Any:
    """The clusters of the codes at ``tau`` (and ``tau128``) by the options' method."""
    from crawlmill.algorithms.simhash_cluster import cluster

    blocks = options.blocks if options.blocks is not None and options.blocks > tau else None
    return cluster(
        c64,
        tau,
        options.method,
        blocks=blocks,
        bits=options.bits,
        rounds=options.rounds,
        seed=options.seed,
        hi=hi if tau128 is not None else None,
        tau128=tau128,
    )


def cluster_table(rows: Any, options: Any, ctx: ReduceContext) -> Any:
    """Cluster the collected rows and build the cluster table; write it (option
    ``clusters``) and the statistics (:func:`write_stats`) into the output root."""
    import numpy as np
    import pyarrow as pa
    from crawlmill.algorithms.simhash_cluster import popcount, representatives

    n = rows.num_rows
    c64 = rows["simhash64"].to_numpy().astype(np.uint64) if n else np.zeros(0, np.uint64)
    hi = rows["simhash128_high"].to_numpy().astype(np.uint64) if n else np.zeros(0, np.uint64)
    result = _clustering(c64, hi, options, options.tau, options.tau128)
    rep = representatives(result.label, _ranks(rows, options.representative))
    rows_index = np.arange(n, dtype=np.int64)
    kept = rep == rows_index
    take = pa.array(rep)
    input_col = rows["input"].to_numpy() if n else np.zeros(0, np.int32)
    files = [""] * (
        max([inp.index for inp in ctx.inputs] + [int(input_col.max()) if n else -1]) + 1
    )
    for inp in ctx.inputs:  # rows["input"] holds each input's index
        files[inp.index] = inp.relpath
    doc_ids = rows["doc_id"]
    if n and doc_ids.null_count:  # every document gets an id: <file>#<seq> where none
        named = doc_ids.to_pylist()
        seqs = rows["seq"].to_pylist()
        doc_ids = pa.array(
            [
                d if d is not None else f"{files[i]}#{q}"
                for d, i, q in zip(named, input_col, seqs, strict=True)
            ],
            pa.string(),
        )
    ctx.count("ids-by-position", rows["doc_id"].null_count if n else 0)
    file_col = pa.DictionaryArray.from_arrays(
        pa.array(input_col, pa.int32()), pa.array(files, pa.string())
    )
    table = pa.table(
        {
            "input": rows["input"],
            "seq": rows["seq"],
            "file": file_col,
            "doc_id": doc_ids,
            "url": rows["url"],
            "simhash64": pa.array(c64, pa.uint64()),
            "simhash128_high": pa.array(hi, pa.uint64()),
            "cluster": pa.array(result.cluster, pa.int64()),
            "cluster_size": pa.array(result.size, pa.int64()),
            "representative_doc_id": doc_ids.take(take),
            "representative_url": rows["url"].take(take),
            "kept": pa.array(kept, pa.bool_()),
            "distance": pa.array(popcount(c64 ^ c64[rep]), pa.int32()),
            "distance128": pa.array(popcount(c64 ^ c64[rep]) + popcount(hi ^ hi[rep]), pa.int32()),
        }
    )
    ctx.count("documents", n)
    ctx.count("clusters", int(kept.sum()))
    ctx.count("near-duplicates", int(n - kept.sum()))
    ctx.count("pairs", result.pairs)
    ctx.count("largest-cluster", int(result.size.max()) if n else 0)
    if options.clusters is not None:
        write_parquet(table, ctx.output(options.clusters))
    prefix = options.stats_prefix()
    if prefix is not None:
        write_stats(c64, hi, options, result, prefix, ctx)
    return table


def write_parquet(table: Any, path: str) -> str:
    """Write ``table`` as Parquet to ``path`` (the engine renames it into place)."""
    import pyarrow.parquet as pq

    pq.write_table(table, path)
    return path


def stats_rows(c64: Any, hi: Any, options: Any, chosen: Any) -> list[Any]:
    """One statistics row per clustering the options ask for (``chosen``: the clustering
    at ``tau``/``tau128``, reused): the ``tau`` axis for ``thresholds`` (each with the run's
    ``tau128`` check), the ``tau128`` axis for ``thresholds128`` (at ``tau``); the chosen
    clustering alone when neither is given."""
    from crawlmill.algorithms.simhash_stats import stats_row

    rows = []
    taus = sorted(set(options.thresholds or [])) if options.thresholds else []
    taus128 = sorted(set(options.thresholds128 or [])) if options.thresholds128 else []
    if not taus and not taus128:
        taus = [options.tau]
    for tau in taus:
        mine = tau == options.tau
        result = chosen if mine else _clustering(c64, hi, options, tau, options.tau128)
        rows.append(stats_row(result, "tau", tau, options.tau128, mine))
    for t128 in taus128:
        mine = t128 == options.tau128
        result = chosen if mine else _clustering(c64, hi, options, options.tau, t128)
        rows.append(stats_row(result, "tau128", options.tau, t128, mine))
    return rows


def write_stats(
    c64: Any, hi: Any, options: Any, chosen: Any, prefix: str, ctx: ReduceContext
) -> list[str]:
    """The statistics table (``<prefix>.csv``, ``<prefix>.json``), the chosen clustering's
    cluster sizes (``<prefix>-sizes.csv``) and, with ``plots`` and matplotlib, the plots
    (:mod:`crawlmill.plugins.filters.simhash_plots`); returns the relpaths written."""
    from crawlmill.algorithms.simhash_stats import (
        size_distribution,
        sizes_csv,
        stats_csv,
        stats_json,
    )

    from .simhash_plots import matplotlib_missing, write_plots

    rows = stats_rows(c64, hi, options, chosen)
    sizes = size_distribution(chosen)
    texts = {
        f"{prefix}.csv": stats_csv(rows),
        f"{prefix}.json": stats_json(rows, sizes),
        f"{prefix}-sizes.csv": sizes_csv(sizes),
    }
    for relpath, text in texts.items():
        with open(ctx.output(relpath), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    written = list(texts)
    if options.plots:
        missing = matplotlib_missing()
        if missing is not None:
            ctx.log(f"simhash-dedup: {missing}")
        else:
            written += write_plots(rows, sizes, options.tau, ctx.output, prefix)
    return written


@hookimpl
def crawlmill_register_filters(register):
    """Register ``simhash-dedup``."""
    register(SimhashDedupFilter)
