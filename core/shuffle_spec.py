"""What a writer asks of a shuffle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["ShuffleSpec"]


@dataclass(frozen=True)
class ShuffleSpec:
    """A writer's shuffle: its records reach ``partitions`` writer tasks, each in
    ``Writer.sort_key`` order (unsigned bytes, ties in input order). ``partitioning``:
    ``hash``, each record goes to ``Writer.partition_of(record, partitions)``; ``range``,
    partition ``i`` gets the ``i``-th key range, with boundaries taken from the sorted keys
    (``Writer.partition_of`` is not called)."""

    partitions: int
    partitioning: Literal["hash", "range"] = "hash"

    def __post_init__(self) -> None:
        if self.partitions < 1:
            raise ValueError("a shuffle needs at least one partition")
        if self.partitioning not in ("hash", "range"):
            raise ValueError(f"unknown partitioning {self.partitioning!r}: hash or range")
