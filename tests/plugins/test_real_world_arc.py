"""Every ARC file of ../shared/samples/real-world-2026-11 through ``crawlmill convert --to warc``,
checked against independent readers (issue 6, "Must show").

For each file of ``REAL_WORLD_ARC_SAMPLES`` in tests/conftest.py (the ``real_arc`` parameter;
test_arc_reader.py fails when the folder holds an ARC file that is not listed) (17 ARC files and one
non-archive control, see the folder's SOURCES.md) the CLI converts it
to WARC; then every record that an independent reader delivers intact must be in our WARC with
the same URL and the same block byte for byte (blocks compared raw, ``no_record_parse``), or
a damage entry in the run's quarantine must cover the place where that reader found it. The
exit code is 3 exactly when damage was reported.

Oracles: warcio's ARC support (``ArchiveIterator`` with ``arc2warc=False`` and ``True``; records
before an exception count) and warctools (``hanzo.warctools``), whose filedesc handling is
ignored (warcio drops the version block of a filedesc, warctools keeps one byte of it): our
filedesc is checked against the warcinfo payload warcio makes of it. Where an oracle is itself
wrong, :data:`ORACLE_WRONG` names the record and the reason, and the test checks that reason.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from crawlmill.core.commands.cli import main

#: (file name suffix, oracle, URL or None) -> why the oracle's record is not ours to match.
ORACLE_WRONG = {
    ("integrity1.ARC", "warcio", None): (
        "the file starts with a blank line: warcio reads everything as one record without a "
        "URL (we skip the newline with a warning and read the records after it)"
    ),
    ("input-nonarc.arc", "warcio", "This%20file%20is"): (
        "the file is the text 'This file is not an arc file.': warcio takes its words for "
        "header fields"
    ),
    ("badexample.arc.gz", "warctools", "http://www.archive.org/"): (
        "the records declare 680 bytes but the next header follows after about 208: warctools "
        "reads 680 bytes, swallowing the next records (one gzip member for the whole file, so "
        "it gives no offset); we cut at the next header and report each as damage"
    ),
}

#: what SOURCES.md says, checked as exact numbers: file name suffix -> (records, damages).
EXPECTED = {
    "IAH-20080430204825-00000-blackbook-truncated.arc": (9, 0),  # separators missing only
    "NetarchiveSuite-correct2.arc": (20, 0),  # filedesc without separator: not damage
    "30-metadata-4.arc": (30, 0),  # the second filedesc (length 0) is a record
    "CorrectTest1.ARC": (4, 0),  # no filedesc
    "hello-world.arc": (2, 0),  # CRLF line ends and separators
    "cz-pagesinczech.arc.gz": (3, 9),  # 9 of 12 members corrupt
    "input-nonarc.arc": (0, 1),  # not an archive
    "fyensdk.arc": (190, 0),
    "NetarchiveSuite-netarkivet.arc.gz": (66, 0),
    "testdata1.arc": (75, 0),
    "badexample.arc.gz": (6, 3),  # three records declaring 680 bytes: cut, cut, truncated
    "get1.ARC": (4, 2),  # a length overrunning the next record; X filler after the last
    "integrity1.ARC": (4, 2),
    "hello-world2.arc": (2, 1),  # filedesc length 2 bytes past its separator
    "alexa_short_header.arc.gz": (2, 0),
    "kb-prod-har-003.kb.dk_truncated.arc": (4, 0),
    "input-illegal.arc": (1, 0),
    "sb-test-har-001.statsbiblioteket.dk.arc": (5, 0),
}


def _quiet(fn):
    """Run ``fn`` with warcio's warnings (printed to stdout/stderr) swallowed."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        return fn()


def warcio_records(path: Path) -> list[dict]:
    from warcio.archiveiterator import ArchiveIterator

    out: list[dict] = []
    for arc2warc in (False, True):

        def read(arc2warc=arc2warc) -> None:
            with open(path, "rb") as fh:
                it = ArchiveIterator(fh, arc2warc=arc2warc, no_record_parse=True)
                with contextlib.suppress(Exception):
                    for rec in it:
                        h = rec.rec_headers
                        url = h.get_header("WARC-Target-URI") if arc2warc else h.get_header("uri")
                        block = rec.raw_stream.read()
                        out.append(
                            {
                                "oracle": "warcio",
                                "type": rec.rec_type,
                                "url": url,
                                "block": block,
                                "offset": it.get_record_offset(),
                            }
                        )

        _quiet(read)
    return out


def warctools_records(path: Path) -> list[dict]:
    from hanzo.warctools import MixedRecord

    out: list[dict] = []

    def read() -> None:
        fh = MixedRecord.open_archive(filename=str(path), gzip="auto")
        with contextlib.suppress(Exception):
            for offset, rec, errors in fh.read_records(limit=None, offsets=True):
                if rec is None or errors or rec.type == b"filedesc":
                    continue
                out.append(
                    {
                        "oracle": "warctools",
                        "type": rec.type.decode(),
                        "url": rec.url.decode("utf-8", "surrogateescape").replace(" ", "%20"),
                        "block": rec.content[1],
                        "offset": offset,
                    }
                )

    _quiet(read)
    return out


def our_warc(out: Path) -> list[dict]:
    from warcio.archiveiterator import ArchiveIterator

    (warc,) = [p for p in out.iterdir() if p.name.endswith(".warc.gz")] or [None]
    if warc is None:
        return []
    got = []
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh, no_record_parse=True):
            h = rec.rec_headers
            got.append(
                {
                    "type": rec.rec_type,
                    "url": h.get_header("WARC-Target-URI"),
                    "block": rec.raw_stream.read(),
                    "truncated": h.get_header("WARC-Truncated"),
                    "crawlmill": (h.get_header("WARC-Filename") or "").endswith(".warc.gz")
                    and rec.rec_type == "warcinfo",
                }
            )
    return got


def covered(entry: dict, offset: int | None) -> bool:
    """Whether a quarantine entry describes the place an oracle found a record."""
    if offset is None:
        return False
    start, length = entry["offset"], entry["length"]
    return start == offset or (length is not None and start <= offset < start + length)


def test_real_world_arc_matches_independent_readers(real_arc, samples, tmp_path, need, capsys):
    need("warcio")
    need("hanzo.warctools")
    path = samples / real_arc
    name = path.name
    out = tmp_path / "out"
    code = main(["convert", str(path), "--to", "warc", "-o", str(out), "--workers", "1"])
    capsys.readouterr()
    qpath = out / ".crawlmill" / "quarantine" / f"{name}.jsonl"
    entries = [json.loads(x) for x in qpath.read_text().splitlines()] if qpath.exists() else []
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert code == (3 if entries else 0), report
    size = path.stat().st_size
    for e in entries:  # one offset space, inside the file (item 15)
        assert 0 <= e["offset"] < size and (
            e["length"] is None or e["offset"] + e["length"] <= size
        )

    ours = [r for r in our_warc(out) if not r["crawlmill"]]
    records = [
        r for r in ours if r["type"] != "metadata" or not str(r["url"]).startswith("filedesc")
    ]
    for suffix, (n_records, n_damage) in EXPECTED.items():
        if name.endswith(suffix):
            assert (len(ours), len(entries)) == (n_records, n_damage)

    blocks = {(r["url"], r["block"]) for r in records}
    filedescs = [r["block"] for r in ours if str(r["url"]).startswith("filedesc")]
    problems = []
    for ref in warcio_records(path) + warctools_records(path):
        if ref["type"] in ("arc_header", "warcinfo"):
            # warcio keeps the filedesc block after its version lines: ours holds all of it
            if (
                ref["type"] == "warcinfo"
                and not any(ref["block"] in b for b in filedescs)
                and not any(covered(e, ref["offset"]) for e in entries)
            ):
                problems.append(("filedesc", ref["oracle"], ref["offset"]))
            continue
        if (ref["url"], ref["block"]) in blocks:
            continue
        if any(covered(e, ref["offset"]) for e in entries):
            continue  # the difference is reported as damage
        why = next(
            (
                r
                for (s, o, u), r in ORACLE_WRONG.items()
                if name.endswith(s) and o == ref["oracle"] and u == ref["url"]
            ),
            None,
        )
        if why is not None:
            continue
        problems.append((ref["oracle"], ref["url"], ref["offset"], len(ref["block"])))
    assert not problems


def test_separator_less_blackbook_gives_the_records_of_the_full_arc(
    samples, tmp_path, need, arc_named, real_world_arcs
):
    """IAH blackbook-truncated.arc is the first 9 records of the jwat blackbook ARC with the LF
    separators removed: warcio stops after its first record; we read all 9, byte for byte."""
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    (rel,) = [r for r in real_world_arcs if r.endswith("blackbook-truncated.arc")]
    out = tmp_path / "out"
    assert (
        main(["convert", str(samples / rel), "--to", "warc", "-o", str(out), "--workers", "1"]) == 0
    )
    ours = [r for r in our_warc(out) if not r["crawlmill"]]
    full = []
    with open(arc_named("IAH-20080430204825-00000-blackbook.arc.gz"), "rb") as fh:
        for rec in ArchiveIterator(fh, arc2warc=True, no_record_parse=True):
            full.append((rec.rec_headers.get_header("WARC-Target-URI"), rec.raw_stream.read()))
            if len(full) == 9:
                break
    assert [(r["url"], r["block"]) for r in ours[1:]] == full[1:]
    assert len(ours) == 9


def test_the_oracle_wrong_cases_are_really_wrong(samples, need, real_world_arcs) -> None:
    """Each ORACLE_WRONG entry: the oracle really delivers that record (the reason holds)."""
    need("warcio")
    need("hanzo.warctools")
    rels = real_world_arcs
    for (suffix, oracle, url), _why in ORACLE_WRONG.items():
        (rel,) = [r for r in rels if r.endswith(suffix)]
        read = warcio_records if oracle == "warcio" else warctools_records
        refs = read(samples / rel)
        assert any(r["url"] == url and r["type"] not in ("arc_header", "warcinfo") for r in refs)
    # badexample: the oracle's 680-byte reading is where we report the cut as damage
    (rel,) = [r for r in rels if r.endswith("badexample.arc.gz")]
    refs = [r for r in warctools_records(samples / rel) if r["url"] == "http://www.archive.org/"]
    assert refs and all(len(r["block"]) == 680 for r in refs)


def test_the_real_world_folder_holds_17_arcs_and_the_control(samples, real_world_arcs) -> None:
    rels = real_world_arcs
    assert all((samples / r).is_file() for r in rels)
    assert len(rels) == 18
    assert sum(r.endswith("input-nonarc.arc") for r in rels) == 1
