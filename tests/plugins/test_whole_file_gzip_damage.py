"""Issue 6 item 13 through the CLI: a whole-file gzip WARC (as ClueWeb09 ships) with a bad CRC
or a corrupt byte near its end delivers every record before the damage, byte for byte (compared
with warcio on the intact original), and reports the damage (exit 3)."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.formats.codecs.gzip_member import header_length


def warc_records(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        body = b"<html>page %d " % i + b"word%d " % (i * 7) * (40 + i % 50) + b"</html>"
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
        head = (
            b"WARC/1.0\r\nWARC-Type: response\r\n"
            b"WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
            b"WARC-Date: 2009-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/%d\r\n"
            b"Content-Type: application/http; msgtype=response\r\n"
            b"Content-Length: %d\r\n\r\n" % (i, i, len(http))
        )
        out.append(head + http + b"\r\n\r\n")
    return out


def whole_file_gzip(records: list[bytes]) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(b"".join(records)) + c.flush()


def warcio_records(data: bytes) -> list[tuple[str, bytes]]:
    """(record id, content) of every record warcio reads from ``data``."""
    from warcio.archiveiterator import ArchiveIterator

    return [
        (r.rec_headers.get_header("WARC-Record-ID"), r.content_stream().read())
        for r in ArchiveIterator(io.BytesIO(data))
    ]


def output_stream(out: Path) -> bytes:
    (result,) = [p for p in out.rglob("*.warc*") if ".crawlmill" not in p.parts]
    return gzip.decompress(result.read_bytes())


@pytest.mark.parametrize("damage", ["crc", "byte-near-end"])
def test_whole_file_gzip_keeps_every_record_before_the_damage(tmp_path, capsys, damage, need):
    need("warcio")
    records = warc_records(2500)  # about 2 MB of records, one gzip member
    stream = b"".join(records)
    intact = whole_file_gzip(records)
    bad = bytearray(intact)
    if damage == "crc":
        bad[-7] ^= 0x10
        untouched = len(records)
    else:
        k = len(bad) - 3000
        bad[k : k + 6] = b"\xa5" * 6
        dec = zlib.decompressobj(31)
        prefix = dec.decompress(bytes(intact[:k]))  # what no damage after k can change
        ends = [sum(map(len, records[: i + 1])) for i in range(len(records))]
        untouched = sum(1 for e in ends if e <= len(prefix))
        assert untouched < len(records) - 5
    src = tmp_path / "clueweb.warc.gz"
    src.write_bytes(bytes(bad))
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 3, err  # damage is reported, not hidden
    assert str(src) in err
    got = output_stream(out)
    expected = b"".join(records[:untouched])
    assert got[: len(expected)] == expected  # byte-exact, in order
    # the same records as warcio reads from the intact original
    assert warcio_records(got)[:untouched] == warcio_records(stream)[:untouched]
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "compressed byte" in json.dumps(report)  # where decoding failed


@pytest.mark.parametrize("fmt", ["warc", "arc"])
def test_record_member_with_a_bad_crc_is_delivered_and_reported(tmp_path, capsys, fmt, arc_named):
    """Per-record gzip: a member whose CRC32 fails is damage, with its compressed bytes in the
    quarantine; WARC delivers the record decoded from it (all its bytes decoded), ARC does not."""
    if fmt == "warc":
        members = [bytearray(gzip.compress(r, mtime=0)) for r in warc_records(3)]
    else:
        data = arc_named("example.arc.gz").read_bytes()
        members, rest = [], data
        while rest:
            dec = zlib.decompressobj(31)
            dec.decompress(rest)
            members.append(bytearray(rest[: len(rest) - len(dec.unused_data)]))
            rest = dec.unused_data
    members[1][-6] ^= 0x01  # CRC32 of the second member
    src = tmp_path / f"in.{fmt}.gz"
    src.write_bytes(b"".join(members))
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 3, err
    offset = len(members[0])
    assert f"{src} at byte {offset}: " in err and "corrupt gzip member" in err
    quarantine = out / ".crawlmill" / "quarantine"
    entries = [
        json.loads(line) for p in quarantine.glob("*.jsonl") for line in p.read_text().splitlines()
    ]
    assert [(e["offset"], e["length"]) for e in entries] == [(offset, len(members[1]))]
    assert b"".join(p.read_bytes() for p in quarantine.glob("*.bin")) == members[1]
    got = output_stream(out)
    hlen, _ = header_length(bytes(members[1]))
    decoded = zlib.decompressobj(-15).decompress(bytes(members[1][hlen:]))  # no CRC check
    if fmt == "warc":
        assert got == b"".join(warc_records(3))
    else:
        # the ARC reader does not deliver a record its member cannot vouch for (the bytes are
        # in the quarantine above); the WARC reader delivers it unverified
        assert decoded.split(b"\n", 1)[0].split(b" ")[0] not in got  # the record's URL
        assert b"filedesc://" in got or b"metadata" in got  # the records around it are


@pytest.mark.parametrize("kind", ["zstd", "lz4"])
@pytest.mark.parametrize("damage", ["checksum", "byte-near-end"])
def test_whole_file_zstd_and_lz4_keep_every_record_before_the_damage(
    tmp_path, capsys, kind, damage
):
    """The same failure shapes in one zstd or LZ4 frame holding the whole file."""
    records = warc_records(2500)
    stream = b"".join(records)
    if kind == "zstd":
        import zstandard

        frame = zstandard.ZstdCompressor(write_checksum=True).compress(stream)
        new = zstandard.ZstdDecompressor().decompressobj
    else:
        import lz4.frame

        frame = lz4.frame.compress(stream, content_checksum=True)
        new = lz4.frame.LZ4FrameDecompressor
    bad = bytearray(frame)
    if damage == "checksum":
        bad[-1] ^= 0x10
        untouched = len(records)
    else:
        k = len(bad) - 3000
        bad[k : k + 6] = b"\xa5" * 6
        prefix = new().decompress(bytes(frame[:k]))  # what no damage after k can change
        ends = [sum(map(len, records[: i + 1])) for i in range(len(records))]
        untouched = sum(1 for e in ends if e <= len(prefix))
        assert 0 < untouched < len(records) - 5
    src = tmp_path / f"whole.warc.{'zst' if kind == 'zstd' else 'lz4'}"
    src.write_bytes(bytes(bad))
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 3, err
    got = output_stream(out)
    expected = b"".join(records[:untouched])
    assert got[: len(expected)] == expected


# -- issue 6 item 7: the only member's magic is damaged ----------------------------------------


@pytest.mark.parametrize("flip", [(0, 0x01), (0, 0x80), (1, 0x04), (1, 0x80)])
@pytest.mark.parametrize("name", [False, True])
def test_whole_file_gzip_with_a_damaged_magic_is_read_and_reported(
    tmp_path, capsys, flip, name, need
):
    need("warcio")
    records = warc_records(300)
    if name:  # FNAME in the header: the deflate stream starts after it
        intact = gzip.compress(b"".join(records), mtime=0)
        intact = intact[:3] + bytes([intact[3] | 8]) + intact[4:10] + b"in.warc\0" + intact[10:]
    else:
        intact = whole_file_gzip(records)
    bad = bytearray(intact)
    pos, bit = flip
    bad[pos] ^= bit
    src = tmp_path / "in.warc.gz"
    src.write_bytes(bytes(bad))
    out = tmp_path / "out"
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 3, err
    got = output_stream(out)
    assert got == b"".join(records)  # byte-exact, in order
    assert warcio_records(got) == warcio_records(b"".join(records))
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    (damage,) = report["damages"]
    assert damage["offset"] == 0 and "damaged gzip magic" in damage["reason"]
    assert report["written"] == 300


def test_a_non_warc_gzip_with_a_damaged_magic_is_not_claimed(tmp_path, capsys):
    bad = bytearray(gzip.compress(b"just some text, not an archive\n" * 100))
    bad[0] ^= 0x01
    src = tmp_path / "in.warc.gz"
    src.write_bytes(bytes(bad))
    code = main(["convert", str(src), "--to", "warc", "-o", str(tmp_path / "out")])
    assert code == 2
    assert "no reader claims" in capsys.readouterr().err
