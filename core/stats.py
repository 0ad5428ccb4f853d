"""Counters of one task and the report of a whole run, with the accounting identity.

Every record a reader yields or reports as damaged is *read*; it then ends in exactly one of
*written* (received by ``Writer.write`` and not quarantined by the writer), *dropped* by one
filter step (per reason) or *quarantined* (damage reported by the reader, or handed back by
the writer through ``ctx.quarantine``). So, per task and per run::

    read = written + sum(dropped) + quarantined

:meth:`TaskStats.check` asserts it from independently counted numbers; a mismatch is a bug in
the engine or a plugin and fails the task (:class:`AccountingError`), never passes silently.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .errors import CrawlmillError

__all__ = ["AccountingError", "RunReport", "TaskStats", "filter_labels"]

#: damages kept per task in markers and reports (the count is always exact).
MAX_DAMAGES_LISTED = 10_000
#: distinct warning messages counted per task (the rest are counted under "other").
MAX_WARNING_KINDS = 100


class AccountingError(CrawlmillError):
    """The counters of a task or run do not add up: a bug, reported as a failure."""


def filter_labels(names: list[str]) -> list[str]:
    """Counter labels of filter steps: the name, or ``name#i`` (``i`` its position in the
    filter list) when the same filter appears more than once."""
    return [f"{n}#{i}" if names.count(n) > 1 else n for i, n in enumerate(names)]


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
    bytes_in: int = 0
    #: filter label -> {"in": n, "kept": n, "dropped": {reason: n}}, in pipeline order.
    filters: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: dict[str, int] = field(default_factory=dict)
    damages: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def written(self) -> int:
        """Records received by the writer and not quarantined by it."""
        return self.received - self.writer_quarantined

    @property
    def quarantined(self) -> int:
        """Damaged records plus records the writer quarantined."""
        return self.damaged + self.writer_quarantined

    def dropped(self) -> dict[str, dict[str, int]]:
        """Filter label -> reason -> count."""
        return {label: dict(f["dropped"]) for label, f in self.filters.items()}

    def add_warning(self, message: str) -> None:
        """Count one reader warning under its message."""
        key = (
            message
            if message in self.warnings or len(self.warnings) < MAX_WARNING_KINDS
            else "other"
        )
        self.warnings[key] = self.warnings.get(key, 0) + 1

    def add_damage(self, info: dict[str, Any]) -> None:
        """Count one damaged record (listed up to :data:`MAX_DAMAGES_LISTED`)."""
        self.damaged += 1
        self.read += 1
        if len(self.damages) < MAX_DAMAGES_LISTED:
            self.damages.append(info)

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
        if self.read != self.written + dropped_total + self.quarantined:
            problems.append(
                f"read {self.read} != written {self.written} + dropped {dropped_total} + quarantined {self.quarantined}"
            )
        if self.written < 0:
            problems.append(
                f"writer quarantined {self.writer_quarantined} records but received {self.received}"
            )
        if problems:
            raise AccountingError("accounting mismatch: " + "; ".join(problems))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (stored in the completion marker)."""
        return asdict(self)

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
    written: int = 0
    dropped: dict[str, dict[str, int]] = field(default_factory=dict)
    quarantined: int = 0
    #: damaged records (path, offset, reason, length), at most ``MAX_DAMAGES_LISTED``.
    damages: list[dict[str, Any]] = field(default_factory=list)
    failures: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    elapsed: float = 0.0
    # -- additions beyond ENGINE_API.md -------------------------------------------------
    #: inputs completed by this run's tasks.
    inputs_done: int = 0
    #: inputs not started because the run stopped early (on_error=fail).
    inputs_cancelled: int = 0
    bytes_in: int = 0
    warnings: dict[str, int] = field(default_factory=dict)
    quarantine_files: list[str] = field(default_factory=list)
    #: whether ``Writer.finalize`` ran (it is skipped when a task failed).
    finalized: bool = False
    #: files met while listing input folders that no reader claims (path, reason): not read.
    unclaimed: list[dict[str, Any]] = field(default_factory=list)
    fingerprint: str = ""
    #: per input in input order: ``{"input": relpath, "path", "outputs": [relpath, ...]}``.
    input_outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no task failed."""
        return not self.failures

    def add_task(self, stats: TaskStats, labels: list[str]) -> None:
        """Add one task's counters."""
        self.read += stats.read
        self.written += stats.written
        self.quarantined += stats.quarantined
        self.bytes_in += stats.bytes_in
        for label in labels:
            self.dropped.setdefault(label, {})
        for label, reasons in stats.dropped().items():
            into = self.dropped.setdefault(label, {})
            for reason, n in reasons.items():
                into[reason] = into.get(reason, 0) + n
        for message, n in stats.warnings.items():
            self.warnings[message] = self.warnings.get(message, 0) + n
        self.damages.extend(stats.damages[: max(0, MAX_DAMAGES_LISTED - len(self.damages))])

    def dropped_total(self) -> int:
        """All dropped records."""
        return sum(sum(r.values()) for r in self.dropped.values())

    def check(self) -> None:
        """Assert the run-wide accounting identity (:class:`AccountingError`)."""
        if self.read != self.written + self.dropped_total() + self.quarantined:
            raise AccountingError(
                f"run accounting mismatch: read {self.read} != written {self.written} + "
                f"dropped {self.dropped_total()} + quarantined {self.quarantined}"
            )

    def accounting_line(self) -> str:
        """``read 101 = written 99 + dropped 1 (kind:wrong-kind 1) + quarantined 1``."""
        parts = [
            f"{label}:{reason} {n}"
            for label, reasons in self.dropped.items()
            for reason, n in sorted(reasons.items())
            if n
        ]
        detail = f" ({', '.join(parts)})" if parts else ""
        return (
            f"read {self.read} = written {self.written} + dropped {self.dropped_total()}{detail}"
            f" + quarantined {self.quarantined}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (written to ``<output>/.crawlmill/report.json``)."""
        data = asdict(self)
        data["ok"] = self.ok
        data["accounting"] = self.accounting_line()
        return data
