"""Statistics of near-duplicate clusterings, as the Chuweb21D paper's Table 2 and Figures 3
and 4 show them: per threshold, documents in, kept, removed, clusters, largest cluster and
ratios; the cluster-size distribution. numpy only; imports nothing else of crawlmill but
:mod:`crawlmill.algorithms.simhash_cluster`.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from .simhash_cluster import Clusters

__all__ = ["StatsRow", "size_distribution", "stats_csv", "stats_json", "stats_row", "sizes_csv"]


@dataclass(frozen=True)
class StatsRow:
    """One clustering: ``axis`` (``tau``: the 64-bit threshold varies; ``tau128``: the
    128-bit check varies at a fixed ``tau``), its thresholds, and what it gives.
    ``kept`` is the number of clusters (one document kept per cluster), ``duplicate_clusters``
    those of two or more documents, ``largest_cluster`` the documents of the largest,
    ``kept_ratio`` and ``largest_ratio`` fractions of ``documents`` (the paper's "remained
    ratio" and "max cluster / total"), ``pairs`` the pairs of distinct codes found, ``chosen``
    whether this is the clustering whose collection the run writes."""

    axis: str
    tau: int
    tau128: int | None
    documents: int
    kept: int
    removed: int
    duplicate_clusters: int
    largest_cluster: int
    kept_ratio: float
    largest_ratio: float
    pairs: int
    chosen: bool


def _cluster_sizes(result: Clusters) -> np.ndarray:
    """The size of every cluster (one entry per cluster)."""
    if result.label.size == 0:
        return np.zeros(0, dtype=np.int64)
    counts = np.bincount(result.label)
    return counts[counts > 0]


def stats_row(result: Clusters, axis: str, tau: int, tau128: int | None, chosen: bool) -> StatsRow:
    """The statistics of one clustering."""
    n = int(result.label.size)
    sizes = _cluster_sizes(result)
    kept = int(sizes.size)
    largest = int(sizes.max()) if kept else 0
    return StatsRow(
        axis=axis,
        tau=tau,
        tau128=tau128,
        documents=n,
        kept=kept,
        removed=n - kept,
        duplicate_clusters=int((sizes > 1).sum()),
        largest_cluster=largest,
        kept_ratio=kept / n if n else 1.0,
        largest_ratio=largest / n if n else 0.0,
        pairs=int(result.pairs),
        chosen=chosen,
    )


def size_distribution(result: Clusters) -> list[tuple[int, int, int]]:
    """``(cluster size, clusters of that size, documents in them)``, by size (Figure 4)."""
    sizes = _cluster_sizes(result)
    values, counts = np.unique(sizes, return_counts=True)
    return [(int(s), int(c), int(s * c)) for s, c in zip(values, counts, strict=True)]


_FIELDS = list(StatsRow.__dataclass_fields__)


def stats_csv(rows: Sequence[StatsRow]) -> str:
    """The rows as CSV (a header line; ``tau128`` empty when there is no 128-bit check)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_FIELDS)
    for row in rows:
        writer.writerow(["" if v is None else v for v in asdict(row).values()])
    return buf.getvalue()


def sizes_csv(distribution: Sequence[tuple[int, int, int]]) -> str:
    """The size distribution as CSV: ``size,clusters,documents``."""
    lines = ["size,clusters,documents"] + [f"{s},{c},{d}" for s, c, d in distribution]
    return "\n".join(lines) + "\n"


def stats_json(rows: Sequence[StatsRow], distribution: Sequence[tuple[int, int, int]]) -> str:
    """The rows and the chosen clustering's size distribution as one JSON document."""
    return json.dumps(
        {
            "rows": [asdict(r) for r in rows],
            "sizes": [{"size": s, "clusters": c, "documents": d} for s, c, d in distribution],
        },
        indent=1,
    )
