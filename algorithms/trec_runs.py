"""TREC run files and qrels rewritten through near-duplicate clusters (the Chuweb21D paper's
section 5.2 step). Pure text in, text out; imports nothing else of crawlmill.

* A **run** line is ``topic Q0 docno rank score tag`` (six fields, whitespace separated,
  as ``trec_eval`` and NTCIREVAL's TREC import read it). Per topic, the entries are ordered
  by rank (``by="rank"``: the rank field, ties in file order) or as ``trec_eval`` orders
  them (``by="score"``: score descending, ties by docno descending). For each cluster only
  the highest-ranked member is kept, replaced by the cluster's representative; the others
  are removed; ranks are renumbered 1, 2, ... per topic. **Scores**: the kept entry keeps
  the score of the member it replaces, as written (so the order a score-sorting evaluator
  sees is the order of the rewritten ranks whenever the input's scores followed its ranks).
  The paper's example: ``a1 b2 c2 c1 d1 b1`` becomes ``a1 b1 c1 d1``.
* A **qrels** line is ``topic iteration docno relevance`` (TREC, four fields) or ``topic
  docno relevance`` (NTCIR, three fields; relevance ``L2`` or ``2``). Per topic, each
  cluster keeps one line: the representative, with the maximum relevance of the cluster's
  lines (the first such line in the file gives the other fields); the example: ``a1 L2, a2
  L3, a3 L1`` becomes ``a1 L3``.

Documents that are in no cluster (``lookup`` returns ``None``) pass through unchanged. A
malformed line raises :class:`TrecFormatError` naming the file, the line number and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = [
    "Cluster",
    "QrelsLine",
    "RunLine",
    "RewriteCounts",
    "TrecFormatError",
    "dedup_qrels",
    "dedup_run",
    "parse_qrels",
    "parse_run",
    "relevance_value",
]


class TrecFormatError(ValueError):
    """A line of a run or qrels file that is not in the format (file, line number, reason)."""

    def __init__(self, name: str, lineno: int, reason: str) -> None:
        super().__init__(f"{name}: line {lineno}: {reason}")
        self.name, self.lineno, self.reason = name, lineno, reason


@dataclass(frozen=True)
class Cluster:
    """What the cluster table says of one document: its ``cluster`` id and the doc id of
    the cluster's ``representative`` (``None`` when the representative has no doc id)."""

    cluster: int
    representative: str | None


@dataclass(frozen=True)
class RunLine:
    """One entry of a run: the six fields as written (``rank`` parsed)."""

    lineno: int
    topic: str
    q0: str
    doc: str
    rank: int
    score: str
    tag: str

    def format(self, doc: str, rank: int) -> str:
        """The line with ``doc`` and ``rank`` in place of its own."""
        return f"{self.topic} {self.q0} {doc} {rank} {self.score} {self.tag}"


@dataclass(frozen=True)
class QrelsLine:
    """One judgment: ``fields`` as written (3 or 4), the doc id's position, relevance."""

    lineno: int
    fields: tuple[str, ...]
    relevance: int

    @property
    def topic(self) -> str:
        return self.fields[0]

    @property
    def doc(self) -> str:
        return self.fields[-2]

    def format(self, doc: str) -> str:
        """The line with ``doc`` in place of its own."""
        return " ".join([*self.fields[:-2], doc, self.fields[-1]])


@dataclass
class RewriteCounts:
    """What a rewrite changed: ``lines_in``/``lines_out``; ``removed`` (a cluster already
    had its line in the topic), ``replaced`` (doc id changed to the representative),
    ``raised`` (qrels: the line kept got a higher relevance than it had), ``unknown``
    (doc ids in no cluster, passed through), ``unnamed`` (clusters whose representative
    has no doc id: the member's own id is kept), ``topics``."""

    lines_in: int = 0
    lines_out: int = 0
    removed: int = 0
    replaced: int = 0
    raised: int = 0
    unknown: int = 0
    unnamed: int = 0
    topics: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts as a plain dict."""
        return {
            "lines_in": self.lines_in,
            "lines_out": self.lines_out,
            "removed": self.removed,
            "replaced": self.replaced,
            "raised": self.raised,
            "unknown": self.unknown,
            "unnamed": self.unnamed,
            "topics": self.topics,
        }


Lookup = Callable[[str], "Cluster | None"]


def _content(lines: Iterable[str]) -> Iterable[tuple[int, list[str]]]:
    """``(line number, fields)`` of the lines that are not blank."""
    for lineno, line in enumerate(lines, 1):
        fields = line.split()
        if fields:
            yield lineno, fields


def parse_run(lines: Iterable[str], name: str) -> list[RunLine]:
    """The entries of a TREC run (``name`` is the file's name, for errors)."""
    out = []
    for lineno, f in _content(lines):
        if len(f) != 6:
            raise TrecFormatError(
                name,
                lineno,
                f"a run line has 6 fields (topic Q0 docno rank score tag), not {len(f)}",
            )
        try:
            rank = int(f[3])
        except ValueError:
            raise TrecFormatError(name, lineno, f"rank {f[3]!r} is not an integer") from None
        try:
            float(f[4])
        except ValueError:
            raise TrecFormatError(name, lineno, f"score {f[4]!r} is not a number") from None
        out.append(RunLine(lineno, f[0], f[1], f[2], rank, f[4], f[5]))
    return out


def relevance_value(text: str) -> int | None:
    """The relevance grade of ``text`` (``2``, ``-1``, ``L2``), or ``None``."""
    body = text[1:] if text[:1] in ("L", "l") else text
    try:
        return int(body)
    except ValueError:
        return None


def parse_qrels(lines: Iterable[str], name: str) -> list[QrelsLine]:
    """The judgments of a qrels file (``name`` is the file's name, for errors)."""
    out = []
    for lineno, f in _content(lines):
        if len(f) not in (3, 4):
            raise TrecFormatError(
                name,
                lineno,
                "a qrels line has 4 fields (topic iteration docno relevance) or 3 (topic "
                f"docno relevance), not {len(f)}",
            )
        value = relevance_value(f[-1])
        if value is None:
            raise TrecFormatError(name, lineno, f"relevance {f[-1]!r} is not a grade (2 or L2)")
        out.append(QrelsLine(lineno, tuple(f), value))
    return out


def _by_topic(items: list) -> dict[str, list]:
    topics: dict[str, list] = {}
    for item in items:
        topics.setdefault(item.topic, []).append(item)
    return topics


def _name(doc: str, found: Cluster | None, counts: RewriteCounts) -> tuple[object, str]:
    """``(cluster key, doc id written)`` of ``doc``."""
    if found is None:
        counts.unknown += 1
        return ("doc", doc), doc
    if found.representative is None:
        counts.unnamed += 1
        return ("cluster", found.cluster), doc
    return ("cluster", found.cluster), found.representative


def dedup_run(
    entries: list[RunLine], lookup: Lookup, by: str = "rank"
) -> tuple[list[str], RewriteCounts]:
    """The run's lines after the rewrite (topics in order of first appearance) and the
    counts."""
    if by not in ("rank", "score"):
        raise ValueError(f"by must be rank or score, not {by!r}")
    counts = RewriteCounts(lines_in=len(entries))
    out: list[str] = []
    for topic_entries in _by_topic(entries).values():
        counts.topics += 1
        if by == "rank":
            ranked = sorted(topic_entries, key=lambda e: e.rank)
        else:  # trec_eval: score descending, then docno descending
            ranked = sorted(topic_entries, key=lambda e: e.doc, reverse=True)
            ranked.sort(key=lambda e: float(e.score), reverse=True)
        seen: set[object] = set()
        rank = 0
        for entry in ranked:
            key, doc = _name(entry.doc, lookup(entry.doc), counts)
            if key in seen:
                counts.removed += 1
                continue
            seen.add(key)
            rank += 1
            counts.replaced += doc != entry.doc
            out.append(entry.format(doc, rank))
    counts.lines_out = len(out)
    return out, counts


def dedup_qrels(judgments: list[QrelsLine], lookup: Lookup) -> tuple[list[str], RewriteCounts]:
    """The qrels' lines after the rewrite (topics, and clusters inside a topic, in order of
    first appearance) and the counts. Lines of documents in no cluster are kept as they
    are."""
    counts = RewriteCounts(lines_in=len(judgments))
    out: list[str] = []
    for topic_lines in _by_topic(judgments).values():
        counts.topics += 1
        best: dict[object, tuple[QrelsLine, str]] = {}
        own: dict[object, int | None] = {}
        order: list[object] = []
        for line in topic_lines:
            found = lookup(line.doc)
            if found is None:
                counts.unknown += 1
                key: object = ("line", line.lineno)
                doc = line.doc
            else:
                key, doc = _name(line.doc, found, counts)
            if key not in best:
                order.append(key)
                best[key] = (line, doc)
                own[key] = None
            elif line.relevance > best[key][0].relevance:
                best[key] = (line, doc)
                counts.removed += 1
            else:
                counts.removed += 1
            if line.doc == doc:  # the representative's own judgment
                own[key] = line.relevance if own[key] is None else max(own[key], line.relevance)
        for key in order:
            line, doc = best[key]
            counts.replaced += doc != line.doc
            mine = own[key]
            counts.raised += mine is not None and line.relevance > mine
            out.append(line.format(doc))
    counts.lines_out = len(out)
    return out, counts
