"""The Record's contract: ``kind`` has no default, ``Provenance`` says which offset space it
uses (set by every reader, shown by ``crawlmill inspect`` and in the quarantine index), and each
format's ``extras`` schema is a TypedDict beside its codec."""

from __future__ import annotations

import gzip
import json
import typing

import pytest
from crawlmill.core import OffsetSpace, Provenance, Record, RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.arc.extras import ArcExtras
from crawlmill.formats.warc.extras import WarcExtras

from tests.conftest import ARC_SAMPLES
from tests.helpers import gz

WARC_RECORD = (
    b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:%d>\r\n"
    b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.example/%d\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n"
)


def _warc(n: int) -> list[bytes]:
    return [WARC_RECORD % (i, i) for i in range(n)]


# -- kind ------------------------------------------------------------------------------------


def test_a_record_has_no_default_kind():
    with pytest.raises(TypeError, match="kind"):
        Record(url="http://a.example/")  # type: ignore[call-arg]
    assert Record(RecordKind.RESOURCE).kind is RecordKind.RESOURCE


PLUGIN = '''
from crawlmill.core import Provenance, Reader, Record, hookimpl

class NoKind(Reader):
    """Yields a record without a kind."""
    name = "nokind"
    def read(self, ctx):
        yield Record(url="http://a.example/", source=Provenance(ctx.path, 0, 1, "nokind"))

@hookimpl
def crawlmill_register_readers(register):
    register(NoKind)
'''


def test_a_reader_that_gives_no_kind_fails_its_task_through_the_cli(tmp_path, capsys, monkeypatch):
    (tmp_path / "cm_nokind.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    src = tmp_path / "in.txt"
    src.write_text("http://a.example/\n")
    code = main(
        ["convert", str(src), "--plugin", "cm_nokind", "--from", "nokind", "--to", "warc",
         "-o", str(tmp_path / "out"), "--workers", "1"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 1 and "missing 1 required positional argument: 'kind'" in err
    assert not list((tmp_path / "out").glob("*.warc*"))


# -- offset spaces ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "build", "space"),
    [
        ("plain.warc", lambda rs: b"".join(rs), OffsetSpace.FILE),
        ("members.warc.gz", lambda rs: b"".join(gz(r) for r in rs), OffsetSpace.MEMBER),
        ("whole.warc.gz", lambda rs: gz(b"".join(rs)), OffsetSpace.STREAM),
    ],
)
def test_the_warc_reader_names_the_offset_space_of_each_record(tmp_path, name, build, space):
    path = tmp_path / name
    path.write_bytes(build(_warc(3)))
    with open_reader(path, "warc") as records:
        sources = [r.source for r in records]
    assert [s.space for s in sources] == [space] * 3
    data = (
        path.read_bytes() if space is not OffsetSpace.STREAM else gzip.decompress(path.read_bytes())
    )
    if space is OffsetSpace.MEMBER:
        data = gzip.decompress(data[sources[1].offset : sources[1].offset + sources[1].length])
    else:
        data = data[sources[1].offset : sources[1].offset + sources[1].length]
    assert data == _warc(3)[1]  # the offset and length count the bytes the space names


def test_the_arc_reader_names_the_offset_space_of_each_record(samples):
    spaces = {}
    for rel in ARC_SAMPLES[:3]:  # example.arc, example.arc.gz, example-space-in-url.arc
        with open_reader(samples / rel, "arc") as records:
            spaces[rel.rsplit("/", 1)[-1]] = {r.source.space for r in records}
    assert spaces == {
        "example.arc": {OffsetSpace.FILE},
        "example.arc.gz": {OffsetSpace.MEMBER},
        "example-space-in-url.arc": {OffsetSpace.FILE},
    }


def test_a_whole_file_gzip_arc_record_has_no_offset_and_no_space(tmp_path, samples):
    path = tmp_path / "whole.arc.gz"
    path.write_bytes(gz((samples / ARC_SAMPLES[0]).read_bytes()))
    with open_reader(path, "arc") as records:
        sources = [r.source for r in records]
    assert len(sources) > 1 and {(s.offset, s.space) for s in sources[1:]} == {(None, None)}


def test_inspect_shows_the_offset_space(tmp_path, capsys):
    path = tmp_path / "whole.warc.gz"
    path.write_bytes(gz(b"".join(_warc(2))))
    assert main(["inspect", str(path), "-n", "2"]) == 0
    out = capsys.readouterr().out
    assert f"byte {len(_warc(1)[0])}, {len(_warc(1)[0])} bytes in the decompressed stream" in out


def test_a_refused_records_offset_space_is_in_the_quarantine_index(tmp_path, capsys):
    # WARC -> ARC: the ARC writer refuses request records; in a whole-file gzip WARC their
    # position is in the decompressed stream, which is not a byte range of the file
    req = (
        b"WARC/1.0\r\nWARC-Type: request\r\nWARC-Record-ID: <urn:uuid:9>\r\n"
        b"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.example/\r\n"
        b"Content-Type: application/http; msgtype=request\r\nContent-Length: 18\r\n\r\n"
        b"GET / HTTP/1.1\r\n\r\n\r\n\r\n"
    )
    path = tmp_path / "in.warc.gz"
    first = _warc(1)[0]
    path.write_bytes(gz(first + req))
    out = tmp_path / "out"
    assert main(["convert", str(path), "--to", "arc", "-o", str(out), "--workers", "1"]) == 3
    (index,) = (out / ".crawlmill" / "quarantine").glob("*.jsonl")
    (entry,) = [json.loads(line) for line in index.read_text().splitlines()]
    assert (entry["offset"], entry["space"], entry["code"]) == (
        len(first),
        "stream",
        "unwritable-kind",
    )
    assert "inconsistent" not in entry  # a stream position is not checked against the file


# -- extras schemas ---------------------------------------------------------------------------


@pytest.mark.slow
def test_the_readers_extras_follow_their_typed_dicts(samples):
    warc_keys = set(typing.get_type_hints(WarcExtras))
    arc_keys = set(typing.get_type_hints(ArcExtras))
    seen_warc: set[str] = set()
    seen_arc: set[str] = set()
    for path in sorted(samples.rglob("*.warc.gz"))[:20] + sorted(samples.rglob("*.warc"))[:20]:
        with open_reader(path, "warc") as records:
            for r in records:
                assert set(r.extras) <= {"warc", "neutral"}
                seen_warc |= set(r.extras["warc"])
    for rel in ARC_SAMPLES:
        with open_reader(samples / rel, "arc") as records:
            for r in records:
                seen_arc |= set(r.extras["arc"])
    assert {"version", "headers", "raw_header", "member"} <= seen_warc <= warc_keys
    assert {"header_line", "fields", "filedesc"} <= seen_arc <= arc_keys


def test_provenance_without_a_space_is_unknown():
    assert Provenance("x").space is None
