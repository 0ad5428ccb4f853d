"""Sorted shuffles: records serialised compactly (:mod:`.serial`), spilled as sorted runs per
partition (:mod:`.spill`) and merged back in key order per partition (:mod:`.merge`).

A writer declares a shuffle with :class:`ShuffleSpec` (``Writer.shuffle()``); the engine's
glue is :mod:`.run`. Keys compare as unsigned bytes, the order of Hadoop's raw comparator
for ``Text`` keys.
"""

from __future__ import annotations

from ...shuffle_spec import ShuffleSpec

__all__ = ["ShuffleSpec"]
