"""Counters of one task and the report of a whole run, with the accounting identity.

Every record a reader yields or reports as damaged is *read*; it then ends in exactly one of
*written* (received by ``Writer.write`` and not quarantined by the writer), *dropped* by one
filter step (per reason) or *quarantined* (damage reported by the reader, or handed back by
the writer through ``ctx.quarantine``; a damaged range reported in parts, ``Damage.continues``
on all but the first, is one record). A writer may also *add* records that no input held
(the WARC writer's crawlmill ``warcinfo``, the ARC writer's generated ``filedesc``); they count
in ``written`` too, so ``written`` is the number of records in the output files. So, per task
and per run::

    read + added = written + sum(dropped) + quarantined

printed as ``read 6 + added 1 by the writer = written 7 + dropped 0 + quarantined 0`` (and
``read 6 = written 6 + ...`` when the writer added nothing). :meth:`TaskStats.check` asserts it
from independently counted numbers; a mismatch is a bug in the engine or a plugin and fails
the task (:class:`AccountingError`), never passes silently.

*Step counters* are a step's own numbers (``ctx.count(label, n)`` on the read, filter and
write contexts, as datatrove's ``stat_update``): :attr:`TaskStats.counts` keeps them per step
(``reader``, a filter's label, ``writer``) and label, the run report sums them over inputs
and workers. They describe what a step saw, not where records went: they are never part of
the accounting identity.

*Checks* are verifications of a collection rather than records (a ClueWeb09 file's md5 and
record count against the collection's lists): they are counted beside the accounting, never
in ``read``; a failed check is damage-level (the run exits 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .errors import CrawlmillError

__all__ = ["AccountingError", "RunReport", "TaskStats", "add_counts", "filter_labels"]

#: damages kept per task in markers and reports (the count is always exact).
MAX_DAMAGES_LISTED = 10_000
#: distinct warning codes counted per task (the rest are counted under "other").
MAX_WARNING_KINDS = 100
#: warning codes named, with their counts, in the summary line.
SUMMARY_CODES = 5


class AccountingError(CrawlmillError):
    """The counters of a task or run do not add up: a bug, reported as a failure."""


def filter_labels(names: list[str]) -> list[str]:
    """Counter labels of filter steps: the name, or ``name#i`` (``i`` its position in the
    filter list) when the same filter appears more than once."""
    return [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def add_counts(into: dict[str, dict[str, int]], counts: dict[str, dict[str, int]]) -> None:
    """Add the step counters ``counts`` (step -> label -> n) to ``into``."""
    for step, labels in counts.items():
        mine = into.setdefault(step, {})
        for label, n in labels.items():
            mine[label] = mine.get(label, 0) + n


def counts_text(counts: dict[str, dict[str, int]]) -> str:
    """``reader lines 6; dedup seen 3, unique 2`` (steps in order, labels sorted)."""
    return "; ".join(
        f"{step} " + ", ".join(f"{label} {n}" for label, n in sorted(labels.items()))
        for step, labels in counts.items()
        if labels
    )


@dataclass
class TaskStats:
    """Counters of one task (one input file)."""

    read: int = 0
    #: records yielded by the reader (``read`` minus damages).
    records: int = 0
    damaged: int = 0
    #: records handed to ``Writer.write``.
    received: int = 0
    writer_quarantined: int = 0
    #: records the writer added that no input held (``WriteContext.added_records``).
    added: int = 0
    bytes_in: int = 0
    #: filter label -> {"in": n, "kept": n, "dropped": {reason: n}}, in pipeline order.
    filters: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: warning code -> count (codes: ``docs/problems.md``).
    warnings: dict[str, int] = field(default_factory=dict)
    #: warning code -> the message of its first occurrence (the specifics of one example).
    warning_examples: dict[str, str] = field(default_factory=dict)
    damages: list[dict[str, Any]] = field(default_factory=list)
    #: collection checks that passed, and those that failed (path, check, reason).
    checks_passed: int = 0
    checks_failed: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    #: the steps' own counters (``ctx.count``): step -> label -> n; outside the accounting.
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: records the writer quarantined, grouped by code: code -> ``{"count", "example" (input:
    #: reason of the first), "kinds" (the record kinds refused)}`` (every entry: the quarantine).
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def written(self) -> int:
        """Records in the output files: received by the writer and not quarantined by it,
        plus the records it added."""
        return self.received - self.writer_quarantined + self.added

    @property
    def quarantined(self) -> int:
        """Damaged records plus records the writer quarantined."""
        return self.damaged + self.writer_quarantined

    def dropped(self) -> dict[str, dict[str, int]]:
        """Filter label -> reason -> count."""
        return {label: dict(f["dropped"]) for label, f in self.filters.items()}

    def add_warning(self, code: str, message: str = "") -> None:
        """Count one warning (of the reader or the writer) under its code; keep the message
        of the first one of each code as its example."""
        key = code if code in self.warnings or len(self.warnings) < MAX_WARNING_KINDS else "other"
        self.warnings[key] = self.warnings.get(key, 0) + 1
        if key not in self.warning_examples and message:
            self.warning_examples[key] = message

    def add_refused(self, code: str, example: str, kind: str) -> None:
        """Count one record the writer quarantined under ``code`` (``example``: the first's
        ``input: reason``; ``kind``: its record kind)."""
        self.writer_quarantined += 1
        group = self.refused.setdefault(code, {"count": 0, "example": example, "kinds": []})
        group["count"] += 1
        if kind not in group["kinds"]:
            group["kinds"].append(kind)

    def count(self, step: str, label: str, n: int = 1) -> None:
        """Add ``n`` to the counter ``label`` of ``step`` (``ctx.count``)."""
        labels = self.counts.setdefault(step, {})
        labels[label] = labels.get(label, 0) + n

    def add_damage(self, info: dict[str, Any], continues: bool = False) -> None:
        """Count one damaged record (listed up to :data:`MAX_DAMAGES_LISTED`); with
        ``continues`` (a later part of the damage before it) list it but count nothing."""
        if not continues:
            self.damaged += 1
            self.read += 1
        if len(self.damages) < MAX_DAMAGES_LISTED:
            self.damages.append(info)

    def add_check(self, info: dict[str, Any]) -> None:
        """Count one collection check (``info``: path, check, ok, reason)."""
        if info.get("ok"):
            self.checks_passed += 1
        elif len(self.checks_failed) < MAX_DAMAGES_LISTED:
            self.checks_failed.append({k: v for k, v in info.items() if k != "ok"})

    def check(self) -> None:
        """Assert the accounting identity and the filter chain; raise :class:`AccountingError`."""
        problems = []
        if self.read != self.records + self.damaged:
            problems.append(f"read {self.read} != records {self.records} + damaged {self.damaged}")
        flowing = self.records
        for label, f in self.filters.items():
            dropped = sum(f["dropped"].values())
            if f["in"] != flowing or f["in"] != f["kept"] + dropped:
                problems.append(
                    f"filter {label}: in {f['in']} (expected {flowing}), kept {f['kept']} + dropped {dropped}"
                )
            flowing = f["kept"]
        if self.received != flowing:
            problems.append(f"writer received {self.received}, filters passed {flowing}")
        dropped_total = sum(sum(d.values()) for d in self.dropped().values())
        if self.read + self.added != self.written + dropped_total + self.quarantined:
            problems.append(
                f"read {self.read} + added {self.added} != written {self.written} + dropped "
                f"{dropped_total} + quarantined {self.quarantined}"
            )
        if self.added < 0:
            problems.append(f"writer added {self.added} records")
        if self.written - self.added < 0:
            problems.append(
                f"writer quarantined {self.writer_quarantined} records but received {self.received}"
            )
        if problems:
            raise AccountingError("accounting mismatch: " + "; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (stored in the completion marker); ``counts`` only when a step counted,
        so markers of pipelines that count nothing keep the shape they always had."""
        data = asdict(self)
        if not data["counts"]:
            del data["counts"]
        if not data["refused"]:
            del data["refused"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskStats:
        """Inverse of :meth:`to_dict` (unknown keys ignored)."""
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class RunReport:
    """What a run did, over all its inputs (resumed ones count with the numbers their
    completion markers recorded, so the accounting describes the whole output)."""

    inputs: int = 0
    inputs_skipped: int = 0
    read: int = 0
    #: records in the output files (``added`` included).
    written: int = 0
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    quarantined: int = 0
    #: records the writer added that no input held (crawlmill's warcinfo).
    added: int = 0
    #: damaged records (path, offset, reason, length), at most ``MAX_DAMAGES_LISTED``.
    damages: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    # -- run-level additions (how far the run got, resume) -------------------------------
    #: inputs completed by this run's tasks.
    inputs_done: int = 0
    #: inputs not started because the run stopped early (on_error=fail).
    inputs_cancelled: int = 0
    bytes_in: int = 0
    #: warning code -> count, over all tasks (codes: ``docs/problems.md``).
    warnings: dict[str, int] = field(default_factory=dict)
    #: warning code -> the message of one occurrence (the first task's example).
    warning_examples: dict[str, str] = field(default_factory=dict)
    quarantine_files: list[str] = field(default_factory=list)
    #: whether ``Writer.finalize`` ran (it is skipped when a task failed).
    finalized: bool = False
    #: files met while listing input folders that no reader claims (path, reason): not read.
    unclaimed: list[dict[str, Any]] = field(default_factory=list)
    #: inputs that were meant to be converted but no reader claims (path, reason): the run
    #: is incomplete (exit 3).
    not_converted: list[dict[str, Any]] = field(default_factory=list)
    #: collection checks (md5 and record-count lists) that passed / failed (path, check, reason).
    checks_passed: int = 0
    checks_failed: list[dict[str, Any]] = field(default_factory=list)
    fingerprint: str = ""
    #: per input in input order: ``{"input": relpath, "path", "outputs": [relpath, ...],
    #: "counts": {step: {label: n}}}`` (``counts``: the input's step counters).
    #: (after a run: a :class:`~collections.abc.Sequence` read back from a spill file.)
    input_outputs: Sequence[dict[str, Any]] = field(default_factory=list)
    #: the steps' own counters (``ctx.count``) summed over the inputs: step -> label -> n.
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: records the writer quarantined, per code over all tasks (:attr:`TaskStats.refused`);
    #: every entry is in the quarantine's ``.jsonl`` files (``quarantine_files``).
    refused: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: completion markers of inputs no longer in the run, with their files
    #: (:func:`crawlmill.core.run.orphans.find_orphans`): kept unless ``run.remove_orphans``.
    orphans: list[dict[str, Any]] = field(default_factory=list)
    #: the orphans' files this run deleted (``run.remove_orphans``).
    orphans_removed: list[str] = field(default_factory=list)
    #: a local sorted shuffle's disk use: ``run_bytes`` (its run files), ``peak_scratch_bytes``
    #: (run and merge files alive at once), ``compressed_runs`` (empty: no local shuffle).
    shuffle: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when nothing failed (tasks, finalize, output and accounting checks)."""
        return not self.failures

    @property
    def complete(self) -> bool:
        """True when every input was converted whole: nothing quarantined, no input left
        unconverted, no collection check failed (otherwise the run exits 3)."""
        return not (self.quarantined or self.not_converted or self.checks_failed)

    def add_task(self, stats: TaskStats, labels: list[str]) -> None:
        """Add one task's counters."""
        self.read += stats.read
        self.written += stats.written
        self.quarantined += stats.quarantined
        self.added += stats.added
        self.checks_passed += stats.checks_passed
        room = max(0, MAX_DAMAGES_LISTED - len(self.checks_failed))
        self.checks_failed.extend(stats.checks_failed[:room])
        self.bytes_in += stats.bytes_in
        for label in labels:
            self.dropped.setdefault(label, {})
        for label, reasons in stats.dropped().items():
            into = self.dropped.setdefault(label, {})
            for reason, n in reasons.items():
                into[reason] = into.get(reason, 0) + n
        for code, n in stats.warnings.items():
            self.warnings[code] = self.warnings.get(code, 0) + n
        for code, message in stats.warning_examples.items():
            self.warning_examples.setdefault(code, message)
        self.damages.extend(stats.damages[: max(0, MAX_DAMAGES_LISTED - len(self.damages))])
        add_counts(self.counts, stats.counts)
        for code, group in stats.refused.items():
            into = self.refused.setdefault(
                code, {"count": 0, "example": group["example"], "kinds": []}
            )
            into["count"] += group["count"]
            into["kinds"] += [k for k in group["kinds"] if k not in into["kinds"]]

    def refused_lines(self, writer_kinds: tuple[str, ...] | None) -> list[str]:
        """One line per code of the records the writer quarantined: the count, the first
        example and, when they were record kinds the writer cannot hold (``writer_kinds``: the
        kinds it takes), the filter that avoids them."""
        lines = []
        for code, group in sorted(self.refused.items(), key=lambda i: (-i[1]["count"], i[0])):
            line = (
                f"crawlmill: {group['count']} record(s) quarantined by the writer [{code}], "
                f"first: {group['example']}"
            )
            foreign = [k for k in group["kinds"] if writer_kinds and k not in writer_kinds]
            if writer_kinds and foreign:
                line += (
                    f"; to leave out the {', '.join(sorted(foreign))} records: "
                    f"--filter kind keep={','.join(writer_kinds)}"
                )
            lines.append(line)
        return lines

    def counts_total(self) -> dict[str, int]:
        """The step counters summed over steps too: label -> n."""
        total: dict[str, int] = {}
        for labels in self.counts.values():
            for label, n in labels.items():
                total[label] = total.get(label, 0) + n
        return dict(sorted(total.items()))

    def counts_line(self) -> str | None:
        """``counts: reader lines 6; dedup seen 3`` (the steps' own counters), or ``None``."""
        text = counts_text(self.counts)
        return f"counts: {text}" if text else None

    def dropped_total(self) -> int:
        """All dropped records."""
        return sum(sum(r.values()) for r in self.dropped.values())

    def check(self) -> None:
        """Assert the run-wide accounting identity (:class:`AccountingError`)."""
        if self.read + self.added != self.written + self.dropped_total() + self.quarantined:
            raise AccountingError(
                f"run accounting mismatch: read {self.read} + added {self.added} != written "
                f"{self.written} + dropped {self.dropped_total()} + quarantined {self.quarantined}"
            )

    def accounting_line(self) -> str:
        """``read 101 = written 99 + dropped 1 (kind:wrong-kind 1) + quarantined 1``, or
        ``read 6 + added 1 by the writer = written 7 + ...`` when the writer added records."""
        parts = [
            f"{label}:{reason} {n}"
            for label, reasons in self.dropped.items()
            for reason, n in sorted(reasons.items())
            if n
        ]
        detail = f" ({', '.join(parts)})" if parts else ""
        added = f" + added {self.added} by the writer" if self.added else ""
        return (
            f"read {self.read}{added} = written {self.written} + dropped "
            f"{self.dropped_total()}{detail} + quarantined {self.quarantined}"
        )

    def checks_line(self) -> str | None:
        """``checks: 12 passed, 1 failed`` (collection checks), or ``None`` when none ran."""
        if not self.checks_passed and not self.checks_failed:
            return None
        return f"checks: {self.checks_passed} passed, {len(self.checks_failed)} failed"

    def warnings_line(self, report_path: str) -> str | None:
        """``7 warnings of 2 kinds (bad-length 5, invalid-date 2); see
        OUT/.crawlmill/report.json``: counted per code, the most frequent
        :data:`SUMMARY_CODES` named; ``None`` without warnings."""
        total = sum(self.warnings.values())
        if not total:
            return None
        kinds = len(self.warnings)
        ranked = sorted(self.warnings.items(), key=lambda item: (-item[1], item[0]))
        named = ", ".join(f"{code} {n}" for code, n in ranked[:SUMMARY_CODES])
        more = ", ..." if kinds > SUMMARY_CODES else ""
        return (
            f"{total} warning{'s' if total != 1 else ''} of {kinds} kind{'s' if kinds != 1 else ''}"
            f" ({named}{more}); see {report_path}"
        )

    def to_dict(self, *, stream: bool = False) -> dict[str, Any]:
        """JSON-able form (written to ``<output>/.crawlmill/report.json``). With ``stream``,
        ``input_outputs`` is an iterator over its entries (read one at a time from the run's
        spill file, for a writer in chunks) instead of a list of them all."""
        entries = self.input_outputs
        data = asdict(replace(self, input_outputs=[]))
        if stream:
            data["input_outputs"] = iter(entries)
        else:  # a copy, as asdict makes
            data["input_outputs"] = (
                deepcopy(entries) if isinstance(entries, list) else list(entries)
            )
        data["ok"] = self.ok
        data["complete"] = self.complete
        data["accounting"] = self.accounting_line()
        data["counts_total"] = self.counts_total()
        return data
