"""The assertions of one case, evaluated on what the CLI run left behind. Each failure is a
``(assertion, message)`` pair; the first one is the case's "first failing assertion".

Assertions, in order:

* ``exception``: the run ended with exit 0 or 3, no traceback, no timeout, no failed task,
  and wrote ``report.json`` (or, for a damaged magic, the CLI refused the file by name with
  exit 2: :func:`refused_undetected`);
* ``lost`` / ``changed``: every record the damage did not touch is in the output, byte for
  byte as the intact file's conversion wrote it;
* ``unreported``: detectable damage was reported (exit 3) with a damage entry for the file
  starting inside the damage window; ``spurious``: a valid file got no damage entry;
* ``offsets``: every damage entry names the file and lies inside it;
* ``accounting``: read + added = written + dropped + quarantined (``added``: records the
  writer adds, crawlmill's warcinfo), and ``written`` is the number of records in the output;
* ``foreign``: records that are no original record appear only with a damage report (unless
  the damage is undetectable, e.g. a flipped bit inside an uncompressed block);
* ``unreadable``: warcio reads every output file to its end;
* ``duplicate-ids``: the records of an output file crawlmill built (its warcinfo first) have
  unique ``WARC-Record-ID``s (WARC 1.1 section 5.2);
* ``memory``: the run's peak RSS stays under the bound;
* ``quarantine``: bounded runs keep at most the input plus one record bound in quarantine,
  and every raw quarantine entry holds the input's bytes at the offset it names (a prefix of
  them when the entry is cut at the record bound).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .damage import Damaged
from .oracle import Intact, OutRecord, read_output
from .runner import RunResult

__all__ = [
    "BOUNDS",
    "Baseline",
    "Failure",
    "evaluate",
    "memory_bound_kb",
    "report_failures",
    "run_failures",
]

Failure = tuple[str, str]

#: run settings of bounded (bomb) runs, and what memory may grow by in every run.
BOUNDS = {"max_record_bytes": 4 << 20, "max_decompressed_bytes": 128 << 20}
SLACK_BYTES = 48 << 20


def memory_bound_kb(baseline_kb: int, damaged_size: int, bounded: bool) -> int:
    """Peak RSS allowed: the intact run's, plus twice the record bound and 48 MiB for bounded
    runs (56 MiB), plus 64 MiB and twice the input size otherwise."""
    if bounded:  # bombs inflate to 256 MiB, header lines are 64 MiB: growth with them fails
        extra = 2 * BOUNDS["max_record_bytes"] + SLACK_BYTES
    else:
        extra = 64 * 1024 * 1024 + 2 * damaged_size
    return baseline_kb + extra // 1024


@dataclass
class Baseline:
    """The intact file's conversion: the exact output form of each original record."""

    exact: dict[int, tuple] = field(default_factory=dict)
    rss_kb: int = 0
    failures: list[Failure] = field(default_factory=list)


def _report(out: Path) -> dict | None:
    try:
        return json.loads((out / ".crawlmill" / "report.json").read_text())
    except (OSError, ValueError):
        return None


def _by_key(outs: list[OutRecord]) -> dict[tuple, list[OutRecord]]:
    """Output records under each of their matching keys."""
    by_key: dict[tuple, list[OutRecord]] = {}
    for o in outs:
        for k in set(o.keys):
            by_key.setdefault(k, []).append(o)
    return by_key


def _short(items: list, n: int = 6) -> str:
    s = ", ".join(str(x) for x in items[:n])
    return s + (f", ... ({len(items)} in all)" if len(items) > n else "")


def baseline_of(intact: Intact, run: RunResult, out: Path) -> Baseline:
    """Check the intact conversion and keep each record's exact output form."""
    base = Baseline(rss_kb=run.maxrss_kb)
    outs, unreadable = read_output(str(out))
    by_key = _by_key(outs)
    missing = []
    for r in intact.records:
        cands = by_key.get(r.key, [])
        if cands:
            base.exact[r.index] = cands[0].exact(intact.volatile)
        else:
            missing.append(f"#{r.index} {r.label}")
    report = _report(out)
    if run.rc != 0:
        base.failures.append(
            ("exception", f"intact file: exit {run.rc}: {run.stderr.strip()[-400:]}")
        )
    if report and report.get("damages"):
        base.failures.append(("spurious", f"intact file: damage reported: {report['damages'][:2]}"))
    if missing:
        base.failures.append(
            ("lost", f"intact file: records not delivered byte-exact: {_short(missing)}")
        )
    if unreadable:
        base.failures.append(("unreadable", "; ".join(unreadable)))
    return base


def duplicate_id_failures(outs: list[OutRecord]) -> list[Failure]:
    """``duplicate-ids`` for each output file crawlmill built whose records share an id."""
    built = {o.file for o in outs if o.writer_info}
    seen: dict[tuple[str, str], int] = {}
    for o in outs:
        if o.file in built:
            key = (o.file, dict(o.headers).get("WARC-Record-ID", ""))
            seen[key] = seen.get(key, 0) + 1
    repeated = sorted(f"{f}: {rid} x{n}" for (f, rid), n in seen.items() if n > 1 or not rid)
    return [("duplicate-ids", _short(repeated))] if repeated else []


def refused_undetected(dmg: Damaged, path: Path, run: RunResult) -> bool:
    """A file given alone whose first bytes (its magic) are damaged is not guessed at: the
    CLI refuses with exit 2 before running anything, naming the file and the reason with the
    way out (``--from``), as docs/cli.md's exit codes promise ("nothing was run"). Met in a
    folder with other files, the same file is listed as not converted (exit 3)."""
    return (
        dmg.pattern == "bitflip-magic"
        and run.rc == 2
        and f"{path}: format not detected" in run.stderr
        and "--from" in run.stderr
        and "Traceback" not in run.stderr
    )


def evaluate(
    intact: Intact, base: Baseline, dmg: Damaged, path: Path, run: RunResult, out: Path
) -> list[Failure]:
    """All failed assertions of one damaged run (empty: the case passes)."""
    if refused_undetected(dmg, path, run):
        return []
    fails: list[Failure] = []
    size = len(dmg.data)
    report = _report(out)
    fails.extend(run_failures(run, report))
    report = report or {}

    outs, unreadable = read_output(str(out))
    by_key = _by_key(outs)
    lost, changed = [], []
    for r in intact.records:
        if r.index in dmg.touched or r.index in dmg.removed or r.index not in base.exact:
            continue
        want = base.exact[r.index]
        cands = by_key.get(r.key, [])
        hit = next((o for o in cands if o.exact(intact.volatile) == want), None)
        if hit is not None:
            for k in set(hit.keys):
                by_key[k].remove(hit)
        elif cands:
            changed.append(f"#{r.index} {r.label}")
        else:
            lost.append(f"#{r.index} {r.label}")
    if lost:
        fails.append(("lost", f"{len(lost)} untouched records not delivered: {_short(lost)}"))
    if changed:
        fails.append(
            (
                "changed",
                f"{len(changed)} untouched records delivered with other bytes: {_short(changed)}",
            )
        )

    fails.extend(report_failures(report, dmg, path, len(outs), bool(unreadable)))
    fails.extend(duplicate_id_failures(outs))
    damages = report.get("damages") or []

    known = {r.key for r in intact.records}
    foreign = [o for o in outs if not o.writer_info and not (set(o.keys) & known)]
    if foreign and not damages and dmg.expect_report:
        fails.append(
            (
                "foreign",
                f"{len(foreign)} output records match no original record and no damage was reported",
            )
        )
    if unreadable:
        fails.append(("unreadable", _short(unreadable, 2)))

    bound = memory_bound_kb(base.rss_kb, size, dmg.bounded)
    if run.maxrss_kb > bound:
        fails.append(
            (
                "memory",
                f"peak RSS {run.maxrss_kb // 1024} MiB > bound {bound // 1024} MiB (intact run {base.rss_kb // 1024} MiB)",
            )
        )
    fails.extend(_quarantine(out, dmg, path))
    return fails


def run_failures(run: RunResult, report: dict | None) -> list[Failure]:
    """``exception``: a timeout, a traceback, an exit code other than 0 and 3, no
    ``report.json``, or a failed task."""
    fails: list[Failure] = []
    tail = run.stderr.strip()[-600:]
    if run.timed_out:
        fails.append(("exception", f"timed out after {run.seconds}s"))
    if "Traceback (most recent call last)" in run.stderr:
        fails.append(("exception", f"unhandled exception: {tail}"))
    if run.rc not in (0, 3):
        fails.append(("exception", f"exit {run.rc}: {tail}"))
    if report is None:
        fails.append(("exception", "no report.json"))
        report = {}
    if report.get("failures"):
        f0 = report["failures"][0]
        fails.append(("exception", f"task failed: {str(f0.get('error', f0))[:300]}"))
    return fails


def report_failures(
    report: dict, dmg: Damaged, path: Path, n_out: int, unreadable: bool
) -> list[Failure]:
    """``spurious``/``unreported`` (damage entries against what the damage promises),
    ``offsets`` (every entry names the file and lies inside it) and ``accounting`` (read +
    added = written + dropped + quarantined; ``written`` = the ``n_out`` output records)."""
    fails: list[Failure] = []
    size = len(dmg.data)
    damages = report.get("damages") or []
    if dmg.clean and damages:
        fails.append(("spurious", f"damage reported for a valid file: {damages[:2]}"))
    if dmg.expect_report:
        if not damages:
            fails.append(("unreported", "no damage reported"))
        else:
            lo, hi = dmg.window
            near = [
                d
                for d in damages
                if _same(d.get("path"), path)
                and isinstance(d.get("offset"), int)
                and lo <= d["offset"] <= hi
            ]
            if not near:
                got = [(d.get("offset"), d.get("reason", "")[:60]) for d in damages[:4]]
                fails.append(("unreported", f"no damage entry starts in [{lo}, {hi}]: {got}"))
    bad_offsets = []
    for d in damages:
        off, length = d.get("offset"), d.get("length")
        if not _same(d.get("path"), path):
            bad_offsets.append(f"path {d.get('path')!r}")
        elif not isinstance(off, int) or not 0 <= off <= size:
            bad_offsets.append(f"offset {off} outside the file (size {size})")
        elif isinstance(length, int) and (length < 0 or off + length > size):
            bad_offsets.append(f"offset {off} + length {length} past the end (size {size})")
    if bad_offsets:
        fails.append(("offsets", _short(bad_offsets, 3)))

    if report:
        read, added, written, quarantined = (
            report.get("read", 0),
            report.get("added", 0),
            report.get("written", 0),
            report.get("quarantined", 0),
        )
        dropped = sum(sum(v.values()) for v in (report.get("dropped") or {}).values())
        if read + added != written + dropped + quarantined:
            fails.append(
                (
                    "accounting",
                    f"read {read} + added {added} != written {written} + dropped {dropped} "
                    f"+ quarantined {quarantined}",
                )
            )
        if not unreadable and written != n_out:
            fails.append(
                (
                    "accounting",
                    f"written {written}, but the output holds {n_out} records",
                )
            )

    return fails


def _same(a: str | None, b: Path) -> bool:
    if not a:
        return False
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.basename(a) == b.name


def _quarantine(out: Path, dmg: Damaged, path: Path) -> list[Failure]:
    qdir = out / ".crawlmill" / "quarantine"
    fails: list[Failure] = []
    total = sum(p.stat().st_size for p in qdir.rglob("*.bin")) if qdir.is_dir() else 0
    if dmg.bounded and total > len(dmg.data) + BOUNDS["max_record_bytes"]:
        fails.append(("quarantine", f"{total} bytes quarantined from a {len(dmg.data)}-byte input"))
    wrong = []
    for index in qdir.rglob("*.jsonl") if qdir.is_dir() else []:
        blob = index.with_suffix(".bin").read_bytes() if index.with_suffix(".bin").exists() else b""
        for line in index.read_text().splitlines():
            e = json.loads(line)
            off, length = e.get("offset"), e.get("length")
            if e.get("data") != "raw" or not isinstance(off, int) or not isinstance(length, int):
                continue
            stored = blob[e["bin_offset"] : e["bin_offset"] + e["bin_length"]]
            # a bounded entry may keep a prefix of its range (Damage.data <= max_record_bytes)
            if len(stored) > length or stored != dmg.data[off : off + len(stored)]:
                wrong.append(f"entry at {off}+{length} holds {len(stored)} other bytes")
    if wrong:
        fails.append(
            (
                "quarantine",
                "quarantined bytes are not the input's bytes at the named offset: "
                + _short(wrong, 3),
            )
        )
    return fails
