"""ARC inputs through the ``crawlmill`` command: length rule, truncation, damaged first bytes,
corrupt members, absurd lengths, raw URL bytes and damage offsets (issue 6, items 5, 6, 7, 10,
14, 15). Outputs are read back with warcio (an independent reader)."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.arc.header import build_filedesc, build_header_line

from tests import helpers

HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
BODIES = [HTTP + b"<html>%d</html>\n" % i * (i + 1) for i in range(4)]


def head(url: bytes, length: int, eol: bytes = b"\n") -> bytes:
    return build_header_line(url, b"1.2.3.4", b"20120708221327", b"text/html", length) + eol


def arc(sep: bytes = b"\n", eol: bytes = b"\n", bodies=BODIES) -> bytes:
    fd = build_filedesc(b"t.arc", b"20120708221327")
    return fd + b"".join(
        head(b"http://a.example/%d" % i, len(b), eol) + b + sep for i, b in enumerate(bodies)
    )


def convert(tmp_path: Path, name: str, data: bytes, *extra: str, to: str = "warc"):
    src = tmp_path / "in" / name
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_bytes(data)
    out = tmp_path / f"out-{to}"
    result = helpers.convert(src, to, out, *extra, workers=1, progress=None)
    return result.exit_code, out, result.report


def warc_records(out: Path, need) -> list:
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    (warc,) = [p for p in out.iterdir() if p.name.endswith(".warc.gz")]
    got = []
    with open(warc, "rb") as fh:
        for rec in ArchiveIterator(fh):
            got.append((rec.rec_headers, rec.content_stream().read()))
    return got


def quarantine(out: Path, name: str) -> list[dict]:
    path = out / ".crawlmill" / "quarantine" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def bodies_of(records) -> list[bytes]:
    return [body for headers, body in records if headers.get_header("WARC-Type") == "response"]


# -- item 5: length heuristics that changed correct records -------------------------------------


@pytest.mark.parametrize(
    "sep,eol", [(b"", b"\n"), (b"\r\n", b"\r\n"), (b"\n", b"\n")], ids=["no-sep", "crlf", "lf"]
)
def test_correct_lengths_are_kept_byte_for_byte_and_exit_0(tmp_path, capsys, need, sep, eol):
    code, out, report = convert(tmp_path, "x.arc", arc(sep, eol))
    assert code == 0, capsys.readouterr().err
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES]
    assert bodies_of(warc_records(out, need)) == payloads
    assert not quarantine(out, "x.arc")


def test_trailing_filler_is_damage_and_the_last_record_stays_whole(tmp_path, capsys, need):
    """Filler right after the last block (no separator), as in NetarchiveSuite's get1.ARC."""
    data = arc(sep=b"") + b"XXXXXXXXXXXX\nXXXX\n"
    code, out, _ = convert(tmp_path, "x.arc", data)
    assert code == 3
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES]
    assert bodies_of(warc_records(out, need)) == payloads
    (entry,) = quarantine(out, "x.arc")
    assert entry["offset"] == len(arc(sep=b"")) and entry["length"] == 18


def test_a_length_repair_is_damage_with_the_original_bytes(tmp_path, capsys, need):
    bad = head(b"http://a.example/1", len(BODIES[1]) + 9) + BODIES[1] + b"\n"
    good = arc(bodies=BODIES[:1])
    rest = head(b"http://a.example/2", len(BODIES[2])) + BODIES[2] + b"\n"
    code, out, _ = convert(tmp_path, "x.arc", good + bad + rest)
    assert code == 3
    assert len(bodies_of(warc_records(out, need))) == 3
    (entry,) = quarantine(out, "x.arc")
    assert (entry["offset"], entry["length"]) == (len(good), len(bad))
    binary = (out / ".crawlmill" / "quarantine" / "x.arc.bin").read_bytes()
    assert binary == bad


# -- item 6: truncated last record ----------------------------------------------------------


@pytest.mark.parametrize("compressed", [False, True])
def test_truncated_last_record_is_written_marked_and_damage(tmp_path, capsys, need, compressed):
    plain = arc()
    if compressed:
        fd_end = plain.index(b"http://a.example/0")
        parts = [plain[:fd_end]] + [
            head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(BODIES)
        ]
        data = b"".join(gzip.compress(p, mtime=0) for p in parts)[:-30]
        name = "x.arc.gz"
    else:
        data, name = plain[:-30], "x.arc"
    code, out, _ = convert(tmp_path, name, data)
    assert code == 3
    records = warc_records(out, need)
    last = records[-1][0]
    assert last.get_header("WARC-Target-URI") == "http://a.example/3"
    assert last.get_header("WARC-Truncated") == "length"
    (entry,) = quarantine(out, name)
    assert entry["offset"] + entry["length"] == len(data)  # inside the file, up to its end


# -- item 7: damage in the first bytes ---------------------------------------------------------


@pytest.mark.parametrize("damage", ["flipped-magic", "zeros", "garbage", "cut-filedesc"])
def test_damaged_first_bytes_do_not_hide_the_file(tmp_path, capsys, need, damage):
    plain = arc()
    fd_end = plain.index(b"http://a.example/0")
    if damage == "flipped-magic":
        parts = [plain[:fd_end]] + [
            head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(BODIES)
        ]
        data = bytearray(b"".join(gzip.compress(p, mtime=0) for p in parts))
        data[1] ^= 0x04
        data, name = bytes(data), "x.arc.gz"
    elif damage == "zeros":
        data, name = bytes(300) + plain, "x.arc"
    elif damage == "garbage":
        data, name = b"\x89PNG junk \x00\xff" * 40 + b"\n" + plain, "x.arc"
    else:
        data, name = plain[15:], "x.arc"
    code, out, _ = convert(tmp_path, name, data)
    assert code == 3, capsys.readouterr().err
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES]
    assert bodies_of(warc_records(out, need)) == payloads
    assert quarantine(out, name)[0]["offset"] == 0


def test_damaged_first_bytes_detected_inside_a_folder(tmp_path, capsys, need):
    src = tmp_path / "in"
    src.mkdir()
    members = bytearray(gzip.compress(arc(), mtime=0) + gzip.compress(arc(), mtime=0))
    members[0] ^= 0x80  # the first gzip magic byte
    (src / "a.arc.gz").write_bytes(bytes(members))
    (src / "b.arc").write_bytes(arc())
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    assert code == 3
    assert sorted(p.name for p in out.iterdir() if p.name.endswith(".warc.gz")) == [
        "a.warc.gz",
        "b.warc.gz",
    ]


# -- item 10: a URL that is not UTF-8 ------------------------------------------------------------


@pytest.mark.parametrize("to", ["warc", "arc"])
def test_url_bytes_that_are_not_utf8_pass_through(tmp_path, capsys, need, to):
    url = b"http://a.example/\xff\xfe?q=\xe9"
    data = arc(bodies=BODIES[:1]) + head(url, len(BODIES[1])) + BODIES[1] + b"\n"
    extra = ("--option", "cdxj=true") if to == "warc" else ()
    code, out, report = convert(tmp_path, "x.arc", data, *extra, to=to)
    assert code == 0, capsys.readouterr().err
    files = [p for p in out.iterdir() if p.is_file()]
    if to == "arc":
        (arc_out,) = [p for p in files if ".arc" in p.name]
        raw = arc_out.read_bytes()
        raw = gzip.decompress(raw) if arc_out.name.endswith(".gz") else raw
        assert head(url, len(BODIES[1])) + BODIES[1] in raw
        return
    (warc,) = [p for p in files if p.name.endswith(".warc.gz")]
    assert b"WARC-Target-URI: " + url + b"\r\n" in gzip.decompress(warc.read_bytes())
    (cdxj,) = [p for p in files if p.name.endswith(".cdxj")]
    lines = cdxj.read_bytes().decode("utf-8").splitlines()  # valid UTF-8
    line = next(x for x in lines if "%FF" in x)
    assert line.startswith("example,a)/%ff%fe?q=%e9 ")
    assert json.loads(line.split(" ", 2)[2])["url"] == "http://a.example/%FF%FE?q=%E9"


# -- item 14: corrupt members and absurd lengths ---------------------------------------------


def test_absurd_length_loses_only_its_record(tmp_path, capsys, need):
    good = arc(bodies=BODIES[:1])
    bad = head(b"http://a.example/1", 10**15) + BODIES[1] + b"\n"
    rest = b"".join(
        head(b"http://a.example/%d" % i, len(BODIES[i])) + BODIES[i] + b"\n" for i in (2, 3)
    )
    code, out, _ = convert(tmp_path, "x.arc", good + bad + rest)
    assert code == 3
    uris = [h.get_header("WARC-Target-URI") for h, _ in warc_records(out, need)]
    assert [u for u in uris if u and u.startswith("http://a.example/")][-2:] == [
        "http://a.example/2",
        "http://a.example/3",
    ]
    (entry,) = quarantine(out, "x.arc")
    assert entry["offset"] == len(good) and entry["offset"] + entry["length"] <= len(
        good + bad + rest
    )


def test_zeroed_run_across_members_is_damage_and_neighbours_survive(
    tmp_path, capsys, need, samples, arc_named
):
    """The fault that delivered a corrupt member as a record: zeros across four members of the
    IAH blackbook ARC (300 gzip members)."""
    src = arc_named("IAH-20080430204825-00000-blackbook.arc.gz").read_bytes()
    data = src[:33676] + bytes(45577 - 33676) + src[45577:]
    code, out, report = convert(tmp_path, "x.arc.gz", data)
    assert code == 3
    entries = quarantine(out, "x.arc.gz")
    assert entries and all(e["offset"] + (e["length"] or 0) <= len(data) for e in entries)
    # every member outside the zeroed span is delivered
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    expected = []
    with open(arc_named("IAH-20080430204825-00000-blackbook.arc.gz"), "rb") as fh:
        it = ArchiveIterator(fh, arc2warc=True)
        for rec in it:
            body = rec.content_stream().read()
            off = it.get_record_offset()
            expected.append((off, rec.rec_headers.get_header("WARC-Target-URI"), body))
            it.read_to_end()
    delivered = {(h.get_header("WARC-Target-URI"), body) for h, body in warc_records(out, need)}
    survivors = [(u, b) for off, u, b in expected if off + 1 < 30017 or off >= 45577]
    missing = [u for u, b in survivors[1:] if (u, b) not in delivered]
    assert not missing
    covered = [e for e in entries if e["offset"] <= 30017 < e["offset"] + (e["length"] or 0)]
    assert covered  # the member the zeros start in is reported


# -- item 15: damage offsets are in one space and inside the file ---------------------------


def test_gzip_damage_offsets_are_compressed_spans_inside_the_file(tmp_path, capsys):
    parts = [build_filedesc(b"t.arc", b"20120708221327")] + [
        head(b"http://a.example/%d" % i, len(b) + (7 if i == 1 else 0)) + b + b"\n"
        for i, b in enumerate(BODIES)
    ]
    members = [gzip.compress(p, mtime=0) for p in parts]
    data = b"".join(members) + b"trailing junk"
    code, out, _ = convert(tmp_path, "x.arc.gz", data)
    assert code == 3
    entries = quarantine(out, "x.arc.gz")
    binary = (out / ".crawlmill" / "quarantine" / "x.arc.gz.bin").read_bytes()
    assert len(entries) == 2
    for e in entries:
        assert e["offset"] >= 0 and e["offset"] + e["length"] <= len(data)
        chunk = binary[e["bin_offset"] : e["bin_offset"] + e["bin_length"]]
        assert chunk == data[e["offset"] : e["offset"] + e["length"]]


# -- items 5 and 9: header damage the bytes prove --------------------------------------------


def test_invalid_length_field_is_damage_not_a_warning(tmp_path, capsys, need):
    """A flipped bit turns a length digit into ``$``: no length to trust. The block up to the
    next header is written, the run exits 3, the original bytes are in the quarantine."""
    good = arc(bodies=BODIES[:1])
    bad = b"http://a.example/1 1.2.3.4 20120708221327 text/html 5$\n" + BODIES[1] + b"\n"
    rest = head(b"http://a.example/2", len(BODIES[2])) + BODIES[2] + b"\n"
    code, out, report = convert(tmp_path, "x.arc", good + bad + rest)
    assert code == 3, capsys.readouterr().err
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES[:3]]
    assert bodies_of(warc_records(out, need)) == payloads
    (entry,) = quarantine(out, "x.arc")
    assert (entry["offset"], entry["length"]) == (len(good), len(bad))
    assert (out / ".crawlmill" / "quarantine" / "x.arc.bin").read_bytes() == bad
    assert not report["warnings"]


@pytest.mark.parametrize("compressed", [False, True])
def test_length_over_the_files_separator_is_the_declared_one(tmp_path, capsys, need, compressed):
    """Declared length + 1 over the separator every other record has, the next header (or
    member end) right after it: nothing but line ends, then a valid header, so the declared
    length is right (issue 25: what warcio and warctools read): written whole, exit 0,
    nothing quarantined."""
    recs = [head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(BODIES)]
    recs[2] = head(b"http://a.example/2", len(BODIES[2]) + 1) + BODIES[2] + b"\n"
    fd = arc(bodies=[])
    parts = [fd, *recs]
    data = b"".join(gzip.compress(p, mtime=0) for p in parts) if compressed else b"".join(parts)
    name = "x.arc.gz" if compressed else "x.arc"
    code, out, _ = convert(tmp_path, name, data)
    assert code == 0, capsys.readouterr().err
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES]
    payloads[2] += b"\n"
    assert bodies_of(warc_records(out, need)) == payloads
    assert quarantine(out, name) == []


def test_a_restarted_writer_costs_only_the_cut_header(tmp_path, capsys, need):
    """The first bytes of a header (cut inside its URL) glued to the next record's header line:
    the next record is written whole under its own URL, the cut bytes are damage."""
    good = arc(bodies=BODIES[:2])
    cut = head(b"http://a.example/restarted/page.html", 99)[:28]
    rest = head(b"http://a.example/2", len(BODIES[2])) + BODIES[2] + b"\n"
    code, out, _ = convert(tmp_path, "x.arc", good + cut + rest)
    assert code == 3, capsys.readouterr().err
    records = warc_records(out, need)
    uris = [
        h.get_header("WARC-Target-URI")
        for h, _ in records
        if h.get_header("WARC-Type") == "response"
    ]
    assert uris == ["http://a.example/0", "http://a.example/1", "http://a.example/2"]
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in BODIES[:3]]
    assert bodies_of(records) == payloads
    (entry,) = quarantine(out, "x.arc")
    assert (entry["offset"], entry["length"]) == (len(good), len(cut))


def test_length_short_of_a_crlf_before_the_files_separator_is_the_declared_one(
    tmp_path, capsys, need
):
    """A PDF ending in ``%%EOF\\r\\n`` declared 2 bytes short, in a per-record gzip ARC whose
    records all end in one ``\\n``: ``\\r\\n\\n`` then the member end follow the declared
    bytes, nothing but line ends, so the declared length is right (issue 25: warcio and
    warctools read it so): written at that length, exit 0, nothing quarantined."""
    bodies = [*BODIES[:2], HTTP + b"%PDF-1.4\r\n%%EOF\r\n", BODIES[3]]
    recs = [head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(bodies)]
    recs[2] = head(b"http://a.example/2", len(bodies[2]) - 2) + bodies[2] + b"\n"
    members = [gzip.compress(p, mtime=0) for p in [arc(bodies=[]), *recs]]
    code, out, _ = convert(tmp_path, "x.arc.gz", b"".join(members))
    assert code == 0, capsys.readouterr().err
    payloads = [b.split(b"\r\n\r\n", 1)[1] for b in bodies]
    payloads[2] = payloads[2][:-2]
    assert bodies_of(warc_records(out, need)) == payloads
    assert quarantine(out, "x.arc.gz") == []
    warcio = need("warcio.archiveiterator")
    with gzip.open(io.BytesIO(b"".join(members))) as fh:
        got = [r.content_stream().read() for r in warcio.ArchiveIterator(io.BytesIO(fh.read()))]
    assert got[3] == payloads[2]


def _http(i: int) -> bytes:
    body = b"<html>%d</html>" % i
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)


def test_a_header_restarted_after_a_slash_is_damage_with_exact_accounting(tmp_path, capsys, need):
    """Soak arc/plain/insert-restart/s7001: the first 20 bytes of a record's header line
    (``http://a.example/``) glued before the same header line were read as one header with
    the URL ``http://a.example/http://a.example/1`` and exit 0. Now the cut bytes are
    damage (exit 3, quarantined), the record is written whole under its own URL."""
    blocks = [_http(i) for i in range(3)]
    recs = [head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(blocks)]
    fd = arc(bodies=[])
    cut = recs[1][:17]
    assert cut == b"http://a.example/"
    data = fd + recs[0] + cut + recs[1] + recs[2]
    code, out, report = convert(tmp_path, "x.arc", data)
    assert code == 3, capsys.readouterr().err
    records = warc_records(out, need)
    uris = [
        h.get_header("WARC-Target-URI")
        for h, _ in records
        if h.get_header("WARC-Type") == "response"
    ]
    assert uris == ["http://a.example/0", "http://a.example/1", "http://a.example/2"]
    assert bodies_of(records) == [b"<html>%d</html>" % i for i in range(3)]
    assert (report["read"], report["written"], report["quarantined"]) == (5, 5, 1)
    assert [d["code"] for d in report["damages"]] == ["header-cut-short"]
    (entry,) = quarantine(out, "x.arc")
    assert (entry["offset"], entry["length"]) == (len(fd + recs[0]), len(cut))


def test_a_length_that_swallows_the_separator_is_damage_with_exact_accounting(
    tmp_path, capsys, need
):
    """Soak arc/plain/bitflip-header/s7000: a flipped bit made a declared length one longer,
    over the separator, with the next header right after: read as a block ending in ``\\n``
    and exit 0. The HTTP head's Content-Length disproves it: the record is written as the
    HTTP head says, its original bytes are damage (exit 3, quarantined)."""
    blocks = [_http(i) for i in range(3)]
    recs = [head(b"http://a.example/%d" % i, len(b)) + b + b"\n" for i, b in enumerate(blocks)]
    recs[1] = head(b"http://a.example/1", len(blocks[1]) + 1) + blocks[1] + b"\n"
    fd = arc(bodies=[])
    code, out, report = convert(tmp_path, "x.arc", fd + b"".join(recs))
    assert code == 3, capsys.readouterr().err
    assert bodies_of(warc_records(out, need)) == [b"<html>%d</html>" % i for i in range(3)]
    assert (report["read"], report["written"], report["quarantined"]) == (5, 5, 1)
    assert [d["code"] for d in report["damages"]] == ["bad-length"]
    (entry,) = quarantine(out, "x.arc")
    assert (entry["offset"], entry["length"]) == (len(fd + recs[0]), len(recs[1]))
    assert (out / ".crawlmill" / "quarantine" / "x.arc.bin").read_bytes() == recs[1]
