"""Cases that fail on today's code because of the issue 6 bugs other branches fix. One place,
keyed by (input id, pattern), optionally narrowed to seeds; the CI test marks exactly these
``xfail(strict=True)``, so a fixed case fails loudly until its entry is removed here."""

from __future__ import annotations

__all__ = ["KNOWN_FAILURES", "known_failure"]

#: (input id, pattern) -> (reason, seeds or None for every seed)
KNOWN_FAILURES: dict[tuple[str, str], tuple[str, frozenset[int] | None]] = {}


def known_failure(input_id: str, pattern: str, seed: int) -> str | None:
    """The reason a case is expected to fail today, or ``None``."""
    entry = KNOWN_FAILURES.get((input_id, pattern))
    if entry is None:
        return None
    reason, seeds = entry
    return reason if seeds is None or seed in seeds else None
