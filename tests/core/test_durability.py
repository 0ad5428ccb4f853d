"""The durability rule (docs/architecture.md, "Durability"): an output is durable before any
marker says it is done; files a rerun writes again or that only describe a run in progress
are written atomically but not fsynced."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main


def _one_record_warc(path: Path) -> None:
    """A ``.warc.gz`` of one response record, written by warcio (not by crawlmill)."""
    pytest.importorskip("warcio")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=True)
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        record = writer.create_warc_record(
            "http://example.com/", "response", payload=io.BytesIO(b"<p>hi</p>"), http_headers=http
        )
        writer.write_record(record)


def _spied_convert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list]:
    """Convert one record in-process; every fsync (with the path of its file or folder),
    rename, hard link and removal, in order."""
    src, out = tmp_path / "one.warc.gz", tmp_path / "out"
    _one_record_warc(src)
    calls: list[tuple[str, str]] = []
    real_fsync, real_replace, real_link = os.fsync, os.replace, os.link

    def fsync(fd: int) -> None:
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(a: str, b: str) -> None:
        calls.append(("rename", str(b)))
        real_replace(a, b)

    def link(a: str, b: str) -> None:
        calls.append(("link", str(b)))
        real_link(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "link", link)
    argv = ["convert", str(src), "--to", "warc", "-o", str(out), "--progress", "never"]
    assert main(argv) == 0
    monkeypatch.undo()
    return out, calls


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc to name fds")
def test_a_convert_fsyncs_the_output_then_the_markers_that_trust_it(tmp_path, monkeypatch):
    out, calls = _spied_convert(tmp_path, monkeypatch)
    meta = out / ".crawlmill"
    key = next((meta / "done").glob("*.json")).stem
    synced = [path for kind, path in calls if kind == "fsync"]
    at = {(kind, path): n for n, (kind, path) in reversed(list(enumerate(calls)))}

    # the output: its bytes (under its temporary name), then its name (the folder)
    out_file = next(p for p in synced if p.endswith("/one.warc.gz"))
    assert "/.crawlmill/tmp/" in out_file
    pending, done = meta / "pending" / f"{key}.json", meta / "done" / f"{key}.json"
    order = [
        at["fsync", out_file],
        at["rename", str(pending)],  # after its temp file's fsync
        at["fsync", str(meta / "pending")],
        at["link", str(out / "one.warc.gz")],
        at["fsync", str(out)],
        at["rename", str(done)],
        at["fsync", str(meta / "done")],
    ]
    assert order == sorted(order)
    for marker in (pending, done):  # each marker's own bytes are durable before its rename
        temp_synced = [
            n for n, (k, p) in enumerate(calls) if k == "fsync" and p.startswith(f"{marker}.tmp-")
        ]
        assert temp_synced and temp_synced[0] < at["rename", str(marker)]
    # nothing else: run.json, the stage listing, replaceable.json, pipeline.json, an empty
    # finalize marker and report.json are written again by a rerun or describe a run only
    assert len(synced) == 6, synced
    assert not [p for p in synced if "stages" in p or p.startswith(str(meta) + "/report")]
    assert (meta / "report.json").is_file() and (meta / "stages" / "convert.json").is_file()
    assert (meta / "finalize.json").is_file() and (meta / "pipeline.json").is_file()
