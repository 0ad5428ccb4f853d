"""``crawlmill dedup-runs``: TREC run files and qrels rewritten through a cluster table, as
the Chuweb21D paper's section 5.2 did to compare systems on the deduplicated collection.

The cluster table is the Parquet file a near-duplicate step wrote (``simhash-dedup``:
``OUT/clusters.parquet`` by default), given as the file or as the output root of the run
(see :func:`find_cluster_table`). Its
columns ``doc_id``, ``cluster`` and ``representative_doc_id`` are read, for the doc ids the
runs and qrels name only. The rewrite rules are in :mod:`crawlmill.algorithms.trec_runs`.
Each rewritten file goes to the output folder under its own name, written atomically; every
input is parsed before anything is written, so a malformed line (reported with file and
line) writes nothing. Each file's report says how many of its lines matched the table; a
run file of which none or few matched (fewer than half of its lines, :data:`MIN_MATCHED`:
the run names documents otherwise than the table, TREC ids against record ids...) makes the
command exit 3, naming it: a rewrite that changed nothing is no result.
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crawlmill.algorithms.trec_runs import (
    Cluster,
    TrecFormatError,
    dedup_qrels,
    dedup_run,
    parse_qrels,
    parse_run,
)

from ..errors import CrawlmillError

__all__ = [
    "MIN_MATCHED",
    "DedupRunsError",
    "FileResult",
    "cluster_lookup",
    "dedup_runs",
    "few_matched",
    "find_cluster_table",
]

#: a run file "matches" the cluster table when at least this share of its lines name a
#: document of the table; fewer ("few") means the run and the table name documents
#: differently (TREC ids against record ids...), and the command exits 3.
MIN_MATCHED = 0.5

#: the columns of the cluster table this command reads.
COLUMNS = ("doc_id", "cluster", "representative_doc_id")
CLUSTERS_FILE = "clusters.parquet"


class DedupRunsError(CrawlmillError):
    """A cluster table, run or qrels file this command cannot use (the message says why)."""


@dataclass(frozen=True)
class FileResult:
    """One rewritten file: ``kind`` (``run`` or ``qrels``), its input and output paths and
    the counts of :class:`~crawlmill.algorithms.trec_runs.RewriteCounts`."""

    kind: str
    source: str
    target: str
    counts: dict[str, int]


def find_cluster_table(path: str) -> str:
    """The cluster table's Parquet path: ``path`` itself, or found in the output root
    ``path``: ``clusters.parquet``, else the one Parquet file with the table's columns that a
    pass of the root lists as its output (``clusters:`` elsewhere), else (roots of earlier
    versions) the one ``.crawlmill/passes/*/clusters.parquet``."""
    if os.path.isfile(path):
        return path
    if not os.path.isdir(path):
        raise DedupRunsError(f"{path}: no such cluster table or output folder")
    direct = os.path.join(path, CLUSTERS_FILE)
    if os.path.isfile(direct):
        return direct
    found = sorted(set(_listed_tables(path)))
    if not found:
        found = sorted(glob.glob(os.path.join(path, ".crawlmill", "passes", "*", CLUSTERS_FILE)))
    if len(found) == 1:
        return found[0]
    if not found:
        raise DedupRunsError(f"{path}: no {CLUSTERS_FILE} (give the cluster table's path)")
    raise DedupRunsError(f"{path}: several cluster tables, name one: {', '.join(found)}")


def _listed_tables(root: str) -> list[str]:
    """Parquet outputs of the root's passes that have the cluster table's columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    tables = []
    for marker in glob.glob(os.path.join(root, ".crawlmill", "passes", "*", "done.json")):
        try:
            with open(marker, encoding="utf-8") as fh:
                entries = json.load(fh).get("outputs") or []
        except (OSError, ValueError, AttributeError):
            continue
        for entry in entries:
            if not (isinstance(entry, list) and entry and str(entry[0]).endswith(".parquet")):
                continue
            candidate = os.path.join(root, *str(entry[0]).split("/"))
            try:
                names = pq.read_schema(candidate).names
            except (OSError, pa.ArrowException):
                continue
            if all(c in names for c in COLUMNS):
                tables.append(candidate)
    return tables


def _bare(doc: str) -> str:
    """A run's ``<urn:uuid:X>`` / ``urn:uuid:X`` as the ``X`` the cluster table holds."""
    value = doc[1:-1] if doc.startswith("<") and doc.endswith(">") else doc
    return value[len("urn:uuid:") :] if value.lower().startswith("urn:uuid:") else value


def cluster_lookup(table_path: str, docs: set[str]) -> dict[str, Cluster]:
    """Doc id -> :class:`Cluster` for the ``docs`` the table holds (a record id written
    ``<urn:uuid:X>`` in a run finds the table's ``X``)."""
    docs = docs | {_bare(d) for d in docs}
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(table_path)
    except (OSError, pa.ArrowException) as exc:
        raise DedupRunsError(f"{table_path}: not a Parquet cluster table: {exc}") from None
    missing = [c for c in COLUMNS if c not in schema.names]
    if missing:
        raise DedupRunsError(f"{table_path}: the cluster table has no column {', '.join(missing)}")
    table = pq.read_table(
        table_path,
        columns=list(COLUMNS),
        filters=pc.field("doc_id").isin(pa.array(sorted(docs), pa.string())),
    )
    lookup: dict[str, Cluster] = {}
    for doc, cluster, rep in zip(
        table["doc_id"].to_pylist(),
        table["cluster"].to_pylist(),
        table["representative_doc_id"].to_pylist(),
        strict=True,
    ):
        found = Cluster(int(cluster), rep)
        if lookup.setdefault(doc, found) != found:
            raise DedupRunsError(
                f"{table_path}: doc id {doc!r} is in two clusters ({lookup[doc].cluster} and "
                f"{cluster}); a run cannot say which is meant"
            )
    return lookup


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read().splitlines()
    except OSError as exc:
        raise DedupRunsError(f"{path}: {exc.strerror or exc}") from None


def _write_atomic(path: str, lines: list[str]) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as f:
        f.writelines(line + "\n" for line in lines)
    os.replace(tmp, path)


def dedup_runs(
    clusters: str,
    runs: Sequence[str],
    qrels: Sequence[str],
    output: str,
    *,
    by: str = "rank",
    overwrite: bool = False,
) -> list[FileResult]:
    """Rewrite ``runs`` and ``qrels`` through the cluster table ``clusters`` (a Parquet file
    or an output root) into the folder ``output``; returns what each file became."""
    files = [("run", p) for p in runs] + [("qrels", p) for p in qrels]
    if not files:
        raise DedupRunsError("nothing to rewrite: give --run and/or --qrels files")
    table_path = find_cluster_table(clusters)
    targets: dict[str, str] = {}
    sources = {os.path.realpath(p) for _, p in files}
    for _, path in files:
        target = os.path.join(output, os.path.basename(path))
        if target in targets.values():
            raise DedupRunsError(f"two inputs are called {os.path.basename(path)!r}")
        if os.path.realpath(target) in sources:
            raise DedupRunsError(f"{target}: would replace an input (choose another -o)")
        if os.path.exists(target) and not overwrite:
            raise DedupRunsError(f"{target}: exists (--overwrite replaces it)")
        targets[path] = target
    parsed: list[tuple[str, str, Any]] = []
    docs: set[str] = set()
    for kind, path in files:
        lines = _read_lines(path)
        try:
            items = parse_run(lines, path) if kind == "run" else parse_qrels(lines, path)
        except TrecFormatError as exc:
            raise DedupRunsError(str(exc)) from None
        docs.update(item.doc for item in items)
        parsed.append((kind, path, items))
    table = cluster_lookup(table_path, docs)

    def lookup(doc: str) -> Cluster | None:
        return table.get(doc) or table.get(_bare(doc))

    os.makedirs(output, exist_ok=True)
    results = []
    for kind, path, items in parsed:
        if kind == "run":
            lines, counts = dedup_run(items, lookup, by)
        else:
            lines, counts = dedup_qrels(items, lookup)
        _write_atomic(targets[path], lines)
        found = counts.as_dict()
        found["matched"] = found["lines_in"] - found["unknown"]
        results.append(FileResult(kind, path, targets[path], found))
    return results


def few_matched(result: FileResult, minimum: float = MIN_MATCHED) -> bool:
    """Whether a run file matched none or few of its lines (fewer than ``minimum`` of them,
    :data:`MIN_MATCHED`) to the cluster table; qrels never count (they may judge documents
    outside any collection)."""
    c = result.counts
    return result.kind == "run" and c["lines_in"] > 0 and c["matched"] < minimum * c["lines_in"]


def describe(result: FileResult) -> str:
    """One line saying what changed in a file."""
    c = result.counts
    text = (
        f"{result.kind} {result.source} -> {result.target}: {c['lines_in']} line(s) in "
        f"{c['topics']} topic(s), {c['lines_out']} out; {c['removed']} removed, "
        f"{c['replaced']} replaced by their representative"
    )
    if result.kind == "qrels":
        text += f", {c['raised']} given a higher relevance"
    text += f", {c['unknown']} not in the cluster table"
    text += f"; {c['matched']} of {c['lines_in']} line(s) matched the cluster table"
    if c["unnamed"]:
        text += f", {c['unnamed']} in clusters whose representative has no doc id (kept)"
    return text
