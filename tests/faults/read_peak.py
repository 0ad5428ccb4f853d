"""Read one input (a file, or a folder a collection reader discovers units in) with one reader in this (fresh) process and print what it read and this
process's peak RSS as JSON: ``python read_peak.py PATH READER MAX_RECORD_BYTES``.

The memory harness (``test_memory.py``) runs it as a child, so ``ru_maxrss`` is the reader's
own (a fresh interpreter, not a fork of the large test process). Damage is counted, not kept
(``collect=False``), as a run writes it to the quarantine instead of holding it."""

from __future__ import annotations

import json
import os
import resource
import sys


def main(path: str, reader: str, max_record: int) -> dict:
    from crawlmill.core.plugin import InputFile, Limits
    from crawlmill.core.reading import RecordIterator
    from crawlmill.core.registry import Registry

    registry = Registry.load()
    cls = registry.reader(reader)
    damages: list[tuple[int, int | None, str]] = []
    records = payload = 0
    largest = 0
    units = [InputFile(path, os.path.basename(path))]
    if os.path.isdir(path):  # a collection reader: every unit it lists
        units = cls.discover(path, cls.Options()) or []
    for unit in units:
        it = RecordIterator(
            cls(cls.Options()),
            reader,
            unit,
            limits=Limits(max_record_bytes=max_record),
            registry=registry,
            on_damage=lambda d: damages.append((d.offset, d.length, d.code)),
            collect=False,
        )
        with it:
            for record in it:
                records += 1
                n = len(record.payload or b"")
                payload += n
                largest = max(largest, n)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "records": records,
        "payload": payload,
        "largest": largest,
        "damages": damages,
        "maxrss_kb": peak,
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
