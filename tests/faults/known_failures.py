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
    ('warc/gzip', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('warc/gzip-whole', 'bitflip-magic'): 'issue 6 item 7: the only gzip member (whole-file gzip) has a damaged magic: no later member to find',
    ('warc/gzip-whole', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('warc/gzip-whole', 'length-minus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
    ('warc/gzip-whole', 'bomb-header'): 'issue 6 item 12: a 64 MiB header line in a whole-file gzip (bounds lowered) is cut as a bomb (MAX_STREAM_RATIO) and the records after it are lost',
    ('warc/sample-gzip', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('warc/sample-gzip', 'length-minus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
    ('warc/sample-gzip-whole', 'bitflip-magic'): 'issue 6 item 7: the only gzip member (whole-file gzip) has a damaged magic: no later member to find',
    ('warc/sample-gzip-whole', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('warc/sample-gzip-whole', 'length-plus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
    ('arc/plain', 'bitflip-header'): 'issue 6 item 5: unreported: no damage reported (exit 0)',
    ('arc/plain', 'insert-restart'): 'issue 6 item 9: lost: 1 untouched records not delivered: #11 http://example1.org/member/11 (also: unreported, foreign)',
    ('arc/gzip', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('arc/gzip', 'length-plus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
    ('arc/sample-plain', 'bitflip-header'): 'issue 6 item 5: unreported: no damage reported (exit 0)',
    ('arc/sample-gzip', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('clueweb09/gzip-whole', 'bitflip-magic'): 'issue 6 item 7: the only gzip member (whole-file gzip) has a damaged magic: no later member to find',
    ('clueweb09/gzip-whole', 'gzip-flg-reserved'): 'issue 6 item 11: a member with reserved FLG bits decodes (ISA-L accepts it) and is re-encoded on output, but is not reported as damage',
    ('clueweb09/gzip-whole', 'bomb-header'): 'issue 6 item 12: a 64 MiB header line in a whole-file gzip (bounds lowered) is cut as a bomb (MAX_STREAM_RATIO) and the records after it are lost',
    ('clueweb09/sample-plain', 'length-minus'): 'issue 6 item 5: unreported: no damage reported (exit 0) (also: foreign)',
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
