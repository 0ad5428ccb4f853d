"""Sorting more entries than memory holds: sorted run files (:mod:`.runfile`), bounded buffers
spilled as runs per partition (:mod:`.spill`), streaming merges and key ranges (:mod:`.merge`),
and :class:`~.external_sort.ExternalSort`, the one-partition sort a reader or writer uses for
entries it gets out of key order.

An entry is ``(key, input, seq, blob)``; keys compare as unsigned bytes (Hadoop's raw order of
``Text`` keys), equal keys keep ``(input, seq)`` order. Nothing here knows of pipelines: the
engine's sorted shuffle (``crawlmill.core.run.shuffle``) and the ``nutch-segment`` reader's join
both build on it.
"""

from __future__ import annotations

from .external_sort import ExternalSort
from .runfile import Entry

__all__ = ["Entry", "ExternalSort"]
