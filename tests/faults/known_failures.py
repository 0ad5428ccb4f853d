"""Cases that fail on today's code because of the issue 6 bugs other branches fix. One place,
keyed by (input id, pattern), optionally narrowed to seeds; the CI test marks exactly these
``xfail(strict=True)``, so a fixed case fails loudly until its entry is removed here.

When a fix lands: run ``python -m pytest -q tests/faults``; every XPASS(strict) names a case
to delete below (``benchmarks/fault_soak.py`` lists them as "known passed")."""

from __future__ import annotations

__all__ = ["KNOWN_FAILURES", "known_failure"]

#: (input id, pattern) -> reason: the issue 6 item(s) whose fix should make the case pass,
#: then the first failing assertion on today's code (and the other failing ones). Made from
#: ``python benchmarks/fault_soak.py --seeds 1`` after the issue 6 reader fixes merged.
# fmt: off
_TODAY: dict[tuple[str, str], str] = {
    ('arc/plain', 'bitflip-header'): 'issue 6 item 5: unreported: no damage reported (exit 0)',
    ('arc/plain', 'insert-restart'): 'issue 6 item 9: lost: 1 untouched records not delivered: #11 http://example1.org/member/11 (also: unreported, foreign)',
    ('arc/gzip', 'length-plus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
    ('arc/sample-plain', 'bitflip-header'): 'issue 6 item 5: unreported: no damage reported (exit 0)',
}
# fmt: on

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
