"""Cases known to fail on today's code, in one place, keyed by (input id, pattern), optionally
narrowed to seeds; the CI test marks exactly these ``xfail(strict=True)``, so a fixed case
fails loudly until its entry is removed here. Empty since the issue 6 fixes. A reader that
lands with known gaps lists them here, each with its reason.

When a fix lands: run ``python -m pytest -q tests/faults``; every XPASS(strict) names a case
to delete below (``benchmarks/fault_soak.py`` lists them as "known passed")."""

from __future__ import annotations

__all__ = ["KNOWN_FAILURES", "known_failure"]

#: (input id, pattern) -> reason: the issue whose fix should make the case pass, then the
#: first failing assertion (``python benchmarks/fault_soak.py --seeds 1`` lists them).
_TODAY: dict[tuple[str, str], str] = {}


#: (input id, pattern) -> (reason, seeds or None for every seed)
KNOWN_FAILURES: dict[tuple[str, str], tuple[str, frozenset[int] | None]] = {
    key: (reason, None) for key, reason in _TODAY.items()
}


def known_failure(input_id: str, pattern: str, seed: int) -> str | None:
    """The reason a case is expected to fail today, or ``None``."""
    entry = KNOWN_FAILURES.get((input_id, pattern))
    if entry is None:
        return None
    reason, seeds = entry
    return reason if seeds is None or seed in seeds else None
