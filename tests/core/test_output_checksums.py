"""Each output's checksum in its completion marker: the MD5 where a writer or layout reads it
(``Writer.needs_md5`` / ``Layout.needs_md5``, ``finalize`` receiving ``OutputFile.md5``) or the
run asks for it (``--md5``), else a CRC-32 named ``crc32`` (docs/architecture.md, "Completion
markers"). Every digest is compared with hashlib's or zlib's over the file's bytes."""

from __future__ import annotations

import hashlib
import io
import json
import zlib
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.file_writer import FileWriter
from crawlmill.core.messages import OutputFile
from crawlmill.core.plugin import Writer
from crawlmill.core.run.outputs import TaskOutputs, md5_needed
from crawlmill.plugins.writers import layout_clueweb
from crawlmill.plugins.writers.warc import WarcWriter

from tests.helpers import put_fake_plugins_on_path


def _warc(path: Path, n: int) -> Path:
    """A ``.warc.gz`` of ``n`` responses written by warcio (not by crawlmill)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for i in range(n):
            body = f"<html><body>page {i} of {path.name}</body></html>".encode()
            head = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(
                    f"http://example.org/{path.stem}/{i}",
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=head,
                )  # fmt: skip
            )
    return path


def _convert(src: Path, out: Path, *args: str) -> dict:
    code = main(["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1",
                 "--progress", "never", *args])  # fmt: skip
    assert code == 0
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def _outputs(out: Path) -> list[dict]:
    return [
        o
        for marker in sorted((out / ".crawlmill" / "done").glob("*.json"))
        for o in json.loads(marker.read_text())["outputs"]
    ]


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _crc32(path: Path) -> str:
    return f"{zlib.crc32(path.read_bytes()):08x}"


def test_plain_outputs_list_a_crc32_named_as_such_and_no_md5(tmp_path):
    out = tmp_path / "out"
    _convert(_warc(tmp_path / "in" / "a.warc.gz", 3), out)
    (entry,) = _outputs(out)
    data = out / entry["path"]
    assert "md5" not in entry  # nothing a reader could take for an MD5
    assert entry["crc32"] == _crc32(data) and entry["size"] == data.stat().st_size
    typed = OutputFile.from_dict(entry)
    assert (typed.md5, typed.crc32) == (None, _crc32(data))
    assert typed.to_dict() == {k: entry[k] for k in ("path", "size", "crc32")}


def test_the_md5_option_gives_every_output_its_md5(tmp_path):
    out = tmp_path / "out"
    _convert(_warc(tmp_path / "in" / "a.warc.gz", 3), out, "--md5")
    (entry,) = _outputs(out)
    assert entry["md5"] == _md5(out / entry["path"]) and "crc32" not in entry


def test_a_rerun_asking_for_md5_redoes_the_inputs_whose_markers_have_none(tmp_path):
    src, out = _warc(tmp_path / "in" / "a.warc.gz", 2), tmp_path / "out"
    _convert(src, out)
    assert "crc32" in _outputs(out)[0]
    report = _convert(src, out, "--md5")
    assert report["inputs_skipped"] == 0  # redone: its marker listed no MD5
    (entry,) = _outputs(out)
    assert entry["md5"] == _md5(out / entry["path"])
    assert _convert(src, out, "--md5")["inputs_skipped"] == 1
    assert _convert(src, out)["inputs_skipped"] == 1  # an MD5 listed serves any run


@pytest.mark.parametrize(("layout", "md5"), [("md5-seen", True), ("crc-seen", False)])
def test_a_third_party_layouts_finalize_gets_the_md5_unless_it_declines(
    tmp_path, monkeypatch, layout, md5
):
    put_fake_plugins_on_path(monkeypatch)
    out = tmp_path / "out"
    for name in ("a", "b"):
        _warc(tmp_path / "in" / f"{name}.warc.gz", 2)
    _convert(tmp_path / "in", out, "--plugin", "cm_md5_layout", "--option", f"layout={layout}")
    seen = [line.split() for line in (out / f"{layout}.txt").read_text().splitlines()]
    assert [row[0] for row in seen] == ["000-1.warc.gz", "001-1.warc.gz"]
    for path, size, got_md5, got_crc in seen:
        data = out / path
        assert int(size) == data.stat().st_size
        if md5:  # a layout with a finalize that says nothing keeps the MD5 (the contract)
            assert (got_md5, got_crc) == (_md5(data), "-")
        else:
            assert (got_md5, got_crc) == ("-", _crc32(data))


def test_the_clueweb09_layout_lists_the_md5_of_what_it_wrote_from_the_markers(
    tmp_path, monkeypatch
):
    def no_rereading(path):
        raise AssertionError(f"the layout hashed {path} again: its marker listed no MD5")

    monkeypatch.setattr(layout_clueweb, "_md5_of", no_rereading)
    out = tmp_path / "out"
    for name in ("a", "b"):
        _warc(tmp_path / "in" / f"{name}.warc.gz", 2)
    _convert(tmp_path / "in", out, "--option", "layout=clueweb09")
    entries = _outputs(out)
    assert len(entries) == 2
    for entry in entries:
        assert entry["md5"] == _md5(out / entry["path"])
    listed = (out / "ClueWeb_English_1.md5").read_text().splitlines()
    assert sorted(listed) == sorted(f"{e['md5']} *./{e['path'].split('/', 1)[1]}" for e in entries)


class _NoFinalize(Writer):
    name = "no-finalize"

    def write(self, record):  # pragma: no cover - not run
        pass


class _WithFinalize(_NoFinalize):
    @classmethod
    def finalize(cls, root, options, tasks, create):  # pragma: no cover - not run
        pass


def test_who_needs_md5():
    assert md5_needed(_NoFinalize, None) is False
    assert md5_needed(_NoFinalize, None, run_md5=True) is True
    assert md5_needed(_WithFinalize, None) is True  # a third-party finalize keeps it
    assert md5_needed(object, None) is True  # not a crawlmill writer: MD5s, as before
    plain = WarcWriter.Options()
    assert md5_needed(WarcWriter, plain) is False
    assert md5_needed(WarcWriter, WarcWriter.Options(layout="clueweb09")) is True
    assert md5_needed(WarcWriter, WarcWriter.Options(layout="chuweb21")) is True

    class OwnFinalize(WarcWriter):
        @classmethod
        def finalize(cls, root, options, tasks, create):  # pragma: no cover - not run
            pass

    assert issubclass(OwnFinalize, FileWriter) and md5_needed(OwnFinalize, plain) is True


@pytest.mark.parametrize("md5", [True, False])
def test_task_outputs_track_the_checksum_asked_for(tmp_path, md5):
    files = TaskOutputs(str(tmp_path / "root"), "k" * 32, md5=md5)
    files.start()
    chunks = [b"abc", bytearray(b"\x00" * 70000), memoryview(b"xyz\n")]
    handle = files.create("d/f.bin")
    for chunk in chunks:
        handle.write(chunk)
    (entry,) = files.commit()
    data = (tmp_path / "root" / "d" / "f.bin").read_bytes()
    assert data == b"".join(bytes(c) for c in chunks)
    want = {"md5": hashlib.md5(data).hexdigest()} if md5 else {"crc32": f"{zlib.crc32(data):08x}"}
    assert entry == {"path": "d/f.bin", "size": len(data), **want, "internal": False}


@pytest.mark.parametrize("md5", [True, False])
def test_write_parts_writes_and_sums_as_one_write_of_their_concatenation(tmp_path, md5):
    files = TaskOutputs(str(tmp_path / "root"), "p" * 32, md5=md5)
    files.start()
    handle = files.create("f.bin")
    handle.write(b"head-")  # buffered: it must land before the parts
    parts = [bytes([i % 251]) * (i * 37 % 5000) for i in range(2100)]  # more than one writev
    assert handle.write_parts(parts) == sum(map(len, parts))
    handle.write(memoryview(b"-tail"))
    (entry,) = files.commit()
    data = (tmp_path / "root" / "f.bin").read_bytes()
    assert data == b"head-" + b"".join(parts) + b"-tail"
    key, value = ("md5", hashlib.md5(data).hexdigest()) if md5 else ("crc32", _crc32_of(data))
    assert entry["size"] == len(data) and entry[key] == value


def _crc32_of(data: bytes) -> str:
    return f"{zlib.crc32(data):08x}"
