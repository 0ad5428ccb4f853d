"""Every WARC file of ``samples/real-world-2026-11`` against two independent readers.

For each of the 42 WARC files (SOURCES.md there says what each holds) crawlmill reads it with
the ``warc`` reader and converts it WARC -> WARC through the CLI; warcio and FastWARC read it
too. Every record an independent reader delivers must be delivered by crawlmill byte for byte
(header fields in order, and block), or the difference must be reported as damage covering
that record's offset in report.json, and the run exits 3 exactly when there is damage. The
converted output, read back by warcio, holds every delivered record's block.

Where an independent reader is itself wrong, ``ORACLE_WRONG`` says so with the reason; only
those records are exempt from the comparison with that reader.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from crawlmill.core import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.plugins.readers.warc import WarcReader

FOLDER = "real-world-2026-11"

#: every WARC file of the folder (a file whose name holds ``.warc``), as ``owner-repo/name``.
WARC_FILES = [
    "N0taN3rd-node-warc/test__files__books.toscrape.warc",
    "N0taN3rd-node-warc/test__files__parseMe.warc.gz",
    "archivesunleashed-aut/src__test__resources__warc__example.docs.warc.gz",
    "archivesunleashed-aut/src__test__resources__warc__example.pdf.warc.gz",
    "archivesunleashed-aut/src__test__resources__warc__example.txt.warc.gz",
    "archivesunleashed-aut/src__test__resources__warc__issue-493.warc",
    "archivesunleashed-aut/src__test__resources__warc__issue-514.warc",
    "chfoo-warcat/example__at.warc",
    "chfoo-warcat/example__at.warc.gz",
    "chfoo-warcat/example__bad_http_chunked_content.warc",
    "chfoo-warcat/example__c1_warcinfo.warc",
    "chfoo-warcat/example__not_utf8_http_header.warc",
    "commoncrawl-ia-web-commons/src__test__resources__org__archive__resource__html__html-lang-attribute.warc",
    "datatogether-warc/testdata__test.warc.gz",
    "datatogether-warc/testdata__warcio__example-trunc.warc",
    "harvard-lil-js-wacz/fixtures__lil-projects.warc.gz",
    "hrbrmstr-jwatr/inst__extdata__bbc.warc",
    "iipc-openwayback/wayback-webapp__src__test__resources__warcs__sopa-wikipedia-homepage.warc.gz",
    "iipc-webarchive-commons/src__test__resources__org__archive__format__warc__IAH-urls-wget.warc",
    "iipc-webarchive-commons/src__test__resources__org__archive__format__warc__mutliple-headers.warc",
    "internetarchive-gowarc/testdata__warcs__skip-non-open.warc.gz",
    "internetarchive-gowarc/testdata__warcs__test.warc.gz",
    "internetarchive-warc/test_data__crlf_at_1k_boundary.warc.gz",
    "netarchivesuite-netarchivesuite/archive__archive-test__tests__dk__netarkivet__archive__distribute__arcrepository__data__originals__NAS-20100909163324-00000-mette.kb.dk.warc",
    "netarchivesuite-netarchivesuite/common__common-test__tests__dk__netarkivet__common__utils__cdx__data__input__warcs__netarkivet-20081105135926-00001.warc",
    "netarchivesuite-netarchivesuite/harvester__harvester-test__tests__dk__netarkivet__harvester__webinterface__data__warc-originals__2-metadata-1.warc",
    "oduwsdl-ipwb/samples__warcs__1memento.warc",
    "oduwsdl-ipwb/samples__warcs__broken.warc",
    "oduwsdl-ipwb/samples__warcs__sample-1.warc.gz",
    "oduwsdl-ipwb/samples__warcs__variableSizedDates.warc",
    "openzim-warc2zim/tests__data-special__qsl.net-encoding-alias.warc.gz",
    "openzim-warc2zim/tests__data__example-response.warc",
    "openzim-warc2zim/tests__data__example-revisit.warc.gz",
    "openzim-warc2zim/tests__data__example-utf8.warc",
    "openzim-warc2zim/tests__data__http-return-codes.warc.gz",
    "openzim-warc2zim/tests__data__solidaritenum.warc.gz",
    "richardlehane-webarchive/examples__jhove__valid__valid-warcfile-contenttype-continuation.warc",
    "webrecorder-py-wacz/tests__fixtures__example-warcinfo-metadata.warc",
    "webrecorder-wabac.js/examples__embed-test.warc",
    "webrecorder-warcio.js/test__data__example-bad-length.warc",
    "webrecorder-warcio.js/test__data__example-resource.warc.gz",
    "webrecorder-warcio.js/test__data__post-test-more.warc",
]

#: files with damage crawlmill must report (exit 3), with the records it still delivers and
#: writes; every other file converts with exit 0 and every record warcio counts.
DAMAGED = {
    # 4 records; a response's Content-Length is 7 bytes short (no boundary after it): damage
    "datatogether-warc/testdata__warcio__example-trunc.warc": 3,
    # 1 record, Content-Length 43428 with 26051 bytes present: the partial record is written
    # (WARC-Truncated) and reported
    "hrbrmstr-jwatr/inst__extdata__bbc.warc": 1,
    # 6 records; one response declares Content-Length 7 while its block is longer: damage
    "oduwsdl-ipwb/samples__warcs__broken.warc": 5,
    # 6 records; one response's Content-Length is 1 byte short: damage
    "webrecorder-warcio.js/test__data__example-bad-length.warc": 5,
}

#: ``(reader, file) -> why``: an independent reader that is wrong on a file. Its records there
#: are not compared (the other reader still is).
ORACLE_WRONG = {
    ("warcio", "datatogether-warc/testdata__test.warc.gz"): "warcio refuses whole-file gzip "
    "after its first records (ArchiveLoadFailed: 'non-chunked gzip file'); the file is valid",
    ("warcio", "internetarchive-gowarc/testdata__warcs__skip-non-open.warc.gz"): "warcio refuses "
    "whole-file gzip after its first records (ArchiveLoadFailed); the file is valid",
}


def _sample(samples: Path, rel: str) -> Path:
    return samples / FOLDER / rel


def test_every_warc_file_of_the_folder_is_listed(samples):
    found = sorted(
        f"{p.parent.name}/{p.name}"
        for p in (samples / FOLDER).rglob("*")
        if p.is_file() and ".warc" in p.name.lower()
    )
    assert found == sorted(WARC_FILES) and len(found) == 42


# -- the three readers -----------------------------------------------------------------------


class Ours:
    """crawlmill's reader on one file: ``(headers, block)`` per record, and the damage."""

    def __init__(self, path: Path) -> None:
        self.records = []
        with open_reader(path, WarcReader) as it:
            records = list(it)
        self.damage = it.damages
        for r in records:
            w = r.extras["warc"]
            block = (r.http_head or b"") + r.payload
            if w["cl_includes_separator"]:
                block += w["separator"]
            self.records.append((list(w["headers"]), block, bool(w.get("truncated"))))


def _warcio(path: Path, need) -> tuple[list, str | None]:
    """warcio's ``(offset, headers, block)`` per record, and the error that stopped it."""
    archive = need("warcio.archiveiterator")
    out, error = [], None
    with open(path, "rb") as fh:
        it = archive.ArchiveIterator(fh, no_record_parse=True, check_digests=False)
        try:
            for r in it:
                block = r.raw_stream.read()
                out.append((it.get_record_offset(), r.rec_headers.headers, block))
        except Exception as exc:  # noqa: BLE001 - the oracle's own failure is data here
            error = repr(exc)
    return out, error


def _fastwarc(path: Path, need) -> tuple[list, str | None]:
    """FastWARC's records; quirks mode, because its strict mode rejects LF-only headers
    (ipwb's 1memento.warc, variableSizedDates.warc, jwatr's bbc.warc) as no record at all."""
    warc = need("fastwarc.warc")
    out, error = [], None
    with open(path, "rb") as fh:
        try:
            for r in warc.ArchiveIterator(
                fh,
                parse_http=False,
                quirks_mode=True,
                record_types=warc.WarcRecordType.any_type,
            ):
                out.append((r.stream_pos, list(r.headers), r.reader.read()))
        except Exception as exc:  # noqa: BLE001
            error = repr(exc)
    return out, error


def _as_text(value: bytes) -> set[str]:
    """How an oracle may have decoded a header value (UTF-8, or Latin-1 as a fallback)."""
    forms = {value.decode("latin-1")}
    with contextlib.suppress(UnicodeDecodeError):
        forms.add(value.decode("utf-8"))
    return forms


def _oracle_value(name: bytes, value: bytes) -> set[str]:
    """The forms an oracle may give ``value`` in. warcio strips the ``<>`` that wget 1.14 put
    around WARC-Target-URI (a heuristic of its own); crawlmill keeps the header bytes as
    written (and strips them only in ``Record.url``, with a warning)."""
    forms = _as_text(value)
    if name.lower() == b"warc-target-uri" and value.startswith(b"<") and value.endswith(b">"):
        forms |= _as_text(value[1:-1])
    return forms


def _same_headers(ours: list[tuple[bytes, bytes]], theirs: list[tuple[str, str]]) -> bool:
    if len(ours) != len(theirs):
        return False
    return all(
        n.decode("latin-1").strip() == tn.strip() and tv.strip() in _oracle_value(n, v.strip())
        for (n, v), (tn, tv) in zip(ours, theirs, strict=True)
    )


@pytest.fixture(scope="module")
def cache():
    return {}


def _ours(cache, samples, rel) -> Ours:
    key = ("ours", rel)
    if key not in cache:
        cache[key] = Ours(_sample(samples, rel))
    return cache[key]


def _covered(ours: Ours, offset: int) -> bool:
    """Whether a reported damage range covers file offset ``offset``."""
    for d in ours.damage:
        end = d.offset + (d.length or 1)
        if d.offset <= offset < end:
            return True
    return False


@pytest.mark.parametrize("oracle", ["warcio", "fastwarc"])
@pytest.mark.parametrize("rel", WARC_FILES)
def test_every_record_an_independent_reader_delivers_is_delivered(
    rel, oracle, samples, need, cache
):
    path = _sample(samples, rel)
    ours = _ours(cache, samples, rel)
    theirs, error = (_warcio if oracle == "warcio" else _fastwarc)(path, need)
    if (oracle, rel) not in ORACLE_WRONG and error is not None:
        # an oracle that stops on damage: the damage must be ours too
        assert ours.damage, f"{oracle} failed ({error}) but crawlmill reported no damage"
    by_block: dict[bytes, list] = {}
    for headers, block, _ in ours.records:
        by_block.setdefault(block, []).append(headers)
    for offset, headers, block in theirs:
        candidates = by_block.get(block, [])
        if any(_same_headers(h, headers) for h in candidates):
            continue
        assert _covered(ours, offset), (
            f"{oracle} delivers a record at offset {offset} ({len(block)} bytes) that crawlmill "
            "neither delivers byte for byte nor reports as damage"
        )


@pytest.mark.parametrize("rel", WARC_FILES)
def test_warc_to_warc_through_the_cli(rel, samples, need, cache, tmp_path):
    path = _sample(samples, rel)
    ours = _ours(cache, samples, rel)
    out = tmp_path / "out"
    code = main(["convert", str(path), "--from", "warc", "--to", "warc", "-o", str(out)])
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert bool(report["damages"]) == (rel in DAMAGED)
    assert code == (3 if rel in DAMAGED else 0)
    assert report["read"] == report["written"] + report["quarantined"]
    assert len(report["damages"]) == len(ours.damage)
    size = path.stat().st_size
    for d in report["damages"]:
        assert 0 <= d["offset"] < size and d["offset"] + (d["length"] or 0) <= size
    archive = need("warcio.archiveiterator")
    blocks = []
    for produced in sorted(out.glob("*.warc*")):
        with open(produced, "rb") as fh:
            blocks += [
                r.raw_stream.read() for r in archive.ArchiveIterator(fh, no_record_parse=True)
            ]
    assert blocks == [block for _, block, _ in ours.records]
    if rel in DAMAGED:
        assert len(blocks) == DAMAGED[rel]
    else:
        warcio_records, error = _warcio(path, need)
        if ("warcio", rel) not in ORACLE_WRONG:
            assert error is None and len(blocks) == len(warcio_records)
