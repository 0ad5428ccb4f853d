"""Read one input (a file, or a folder a collection reader discovers units in) with one reader in this (fresh) process and print what it read and this
process's peak RSS as JSON: ``python read_peak.py PATH READER MAX_RECORD_BYTES``.

The memory harness (``test_memory.py``) runs it as a child; its peak is the child's own
``VmHWM`` (see :func:`_peak_kb`). Damage is counted, not kept
(``collect=False``), as a run writes it to the quarantine instead of holding it."""

from __future__ import annotations

import json
import os
import resource
import sys


def _peak_kb() -> int:
    """This process's peak RSS in KiB: ``VmHWM`` (the high-water mark of this address space,
    new at ``exec``), not ``ru_maxrss``, which Linux keeps across fork and exec (a child of a
    large test process would report that process's size)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


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
    peak = _peak_kb()
    return {
        "records": records,
        "payload": payload,
        "largest": largest,
        "damages": damages,
        "maxrss_kb": peak,
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
