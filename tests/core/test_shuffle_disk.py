"""The local shuffle's disk use (issue 20 item 4): run files hold zstd frames, a hash
partition's runs go once it is committed, an intermediate merge's inputs go once merged; the
run measures its peak scratch bytes (``report.json``: ``shuffle.peak_scratch_bytes``) and a
WARC -> nutch-segment conversion with many spills and a multi-level merge keeps it within the
final output's size, with the same output bytes as uncompressed run files."""

from __future__ import annotations

import json
import os
import random
import textwrap
from pathlib import Path

import pytest
from crawlmill.algorithms.sorted_runs import merge as merge_mod
from crawlmill.algorithms.sorted_runs import runfile
from crawlmill.algorithms.sorted_runs.merge import ScratchMeter, merge
from crawlmill.algorithms.sorted_runs.runfile import (
    MAGIC,
    ZMAGIC,
    RunFileError,
    RunReader,
    RunWriter,
)
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.sequencefile import read_header

WORDS = [
    "crawl", "archive", "record", "segment", "page", "link", "text", "index", "web", "host",
    "content", "parse", "fetch", "datum", "signature", "url", "anchor", "title", "meta", "body",
]  # fmt: skip


def _response(i: int, rnd: random.Random) -> bytes:
    """A WARC response record: an HTML page of a few KiB with outlinks."""
    words = " ".join(rnd.choice(WORDS) + str(rnd.randrange(50)) for _ in range(600))
    links = "".join(
        f'<a href="http://h{rnd.randrange(9)}.example/{rnd.randrange(10**6)}">l</a>'
        for _ in range(8)
    )
    html = f"<html><head><title>page {i}</title></head><body><p>{words}</p>{links}</body></html>"
    body = html.encode()
    http = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: http://h{i % 7}.example/page/{i:06d}\r\n"
        "WARC-Date: 2020-01-01T00:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{i:012d}>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return head + http + b"\r\n\r\n"


def _project(tmp_path: Path, out: str, pages: int = 600) -> Path:
    data = tmp_path / "data"
    if not data.exists():
        data.mkdir()
        rnd = random.Random(7)
        for n in range(2):
            body = b"".join(_response(n * pages + i, rnd) for i in range(pages))
            (data / f"in{n}.warc").write_bytes(body)
    config = tmp_path / f"{out}.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            inputs: [data/in0.warc, data/in1.warc]
            writer:
              name: nutch-segment
              segment: "20240101000000"
              partitions: 3
            output: {out}
            run: {{"workers": 1, "shuffle_memory": 65536}}
            """
        )
    )
    return config


def _outputs(out: Path) -> dict[str, bytes]:
    """The output files' bytes, each SequenceFile's random sync hash (16 bytes Hadoop draws
    per file) replaced by zeros wherever it occurs: everything else must be equal."""
    files = {}
    for where, dirs, names in os.walk(out):
        dirs[:] = [d for d in dirs if d != ".crawlmill"]
        for name in names:
            path = Path(where) / name
            data = path.read_bytes()
            if data.startswith(b"SEQ"):
                sync = read_header(data).sync
                assert sync and data.count(sync) >= 1
                data = data.replace(sync, bytes(16))
            files[str(path.relative_to(out))] = data
    return files


def _merges(monkeypatch) -> list[int]:
    """Lower the merge fan-in (intermediate merges happen) and record each merge's peak."""
    monkeypatch.setattr(merge_mod, "FAN_IN", 4)
    peaks: list[int] = []
    real = merge_mod.ScratchMeter.add

    def add(self, size):
        real(self, size)
        peaks.append(self.peak)

    monkeypatch.setattr(merge_mod.ScratchMeter, "add", add)
    return peaks


def test_nutch_segment_scratch_within_the_output_and_same_bytes(tmp_path, monkeypatch) -> None:
    peaks = _merges(monkeypatch)
    monkeypatch.setattr(runfile, "COMPRESS", False)  # the run files as before: blobs as they are
    assert main(["run", str(_project(tmp_path, "plain"))]) == 0
    monkeypatch.setattr(runfile, "COMPRESS", True)
    assert main(["run", str(_project(tmp_path, "zstd"))]) == 0
    assert peaks, "no intermediate merge happened: the test does not exercise them"
    plain, packed = _outputs(tmp_path / "plain"), _outputs(tmp_path / "zstd")
    assert plain and plain == packed  # byte-identical outputs
    final = sum(len(b) for b in packed.values())
    report = json.loads((tmp_path / "zstd/.crawlmill/report.json").read_text())
    before = json.loads((tmp_path / "plain/.crawlmill/report.json").read_text())
    shuffle = report["shuffle"]
    assert shuffle["compressed_runs"] is True and before["shuffle"]["compressed_runs"] is False
    # the bound: the work folder's peak (outputs + scratch) at most 2x the output
    assert shuffle["peak_scratch_bytes"] <= final
    assert shuffle["run_bytes"] * 2 < before["shuffle"]["run_bytes"]  # zstd pays
    assert shuffle["peak_scratch_bytes"] >= shuffle["run_bytes"]  # every run was alive once
    # nothing of the shuffle's bulk left
    assert not list((tmp_path / "zstd/.crawlmill").rglob("*.run"))


def test_committed_partition_runs_removed_and_resume_still_works(tmp_path, monkeypatch) -> None:
    """A partition's runs go once it is committed; a rerun after a run killed in the
    partition pass still finds the runs of the partitions not yet written."""
    from crawlmill.core.run.shuffle import run as run_mod
    from crawlmill.core.run.shuffle import tasks as tasks_mod

    config = _project(tmp_path, "o", pages=150)
    real = tasks_mod.partition_task
    seen: list[list[str]] = []

    def failing(payload, entries=None):
        shuffle = Path(payload["folder"]) / "shuffle"
        seen.append(sorted(p.name for p in shuffle.iterdir()))
        if payload["partition"] == 2:
            raise KeyboardInterrupt("killed")
        return real(payload, entries)

    monkeypatch.setattr(run_mod, "partition_task", failing)
    try:
        code = main(["run", str(config)])
    except KeyboardInterrupt:
        code = None
    assert code != 0
    # partitions 0 and 1 were committed and their run folders removed before 2 started
    assert seen[0] == ["p00000", "p00001", "p00002"]
    assert seen[-1] == ["p00002"]
    monkeypatch.setattr(run_mod, "partition_task", real)
    assert main(["run", str(config)]) == 0
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["inputs_skipped"] == 2  # the map tasks were not redone
    assert report["written"] == report["read"]


def test_run_file_blobs_are_zstd_frames_and_both_versions_read(tmp_path) -> None:
    blob = b"<html>" + b"crawl archive " * 500 + b"</html>"
    for compress, magic in ((True, ZMAGIC), (False, MAGIC)):
        w = RunWriter(str(tmp_path / f"{compress}.run"), compress=compress)
        w.add(b"a", 0, 0, blob)
        w.add(b"b", 0, 1, b"")
        path = w.close()
        assert Path(path).read_bytes()[:8] == magic
        assert list(RunReader(path)) == [(b"a", 0, 0, blob), (b"b", 0, 1, b"")]
    assert os.path.getsize(tmp_path / "True.run") * 5 < os.path.getsize(tmp_path / "False.run")


def test_damaged_zstd_frame_is_an_error_naming_the_offset(tmp_path) -> None:
    w = RunWriter(str(tmp_path / "r.run"), compress=True)
    w.add(b"k", 0, 0, b"x" * 1000)
    path = w.close()
    data = bytearray(Path(path).read_bytes())
    # a frame that is no zstd frame, with a crc32 that matches it: the decoder finds it
    import struct
    import zlib

    head_at = len(ZMAGIC)
    key_len, blob_len, _i, _s = struct.unpack_from(">IQIQ", data, head_at)
    start = head_at + 24 + key_len
    data[start : start + blob_len] = b"\x00" * blob_len
    crc = zlib.crc32(
        bytes(data[start : start + blob_len]),
        zlib.crc32(b"k", zlib.crc32(bytes(data[head_at : head_at + 24]))),
    )
    struct.pack_into(">I", data, start + blob_len, crc)
    Path(path).write_bytes(bytes(data))
    with pytest.raises(RunFileError) as err:
        list(RunReader(path))
    assert err.value.offset == head_at and "zstd" in err.value.reason


def test_merge_meter_counts_intermediate_files_and_removes_them(tmp_path) -> None:
    runs = []
    for n in range(9):
        w = RunWriter(str(tmp_path / f"r{n}.run"))
        for k in range(50):
            w.add(f"{k:04d}".encode(), n, k, b"v" * 200)
        runs.append(w.close())
    meter = ScratchMeter()
    scratch = tmp_path / "scratch"
    out = list(merge(runs, scratch=str(scratch), fan_in=2, meter=meter))
    assert len(out) == 450 and out == sorted(out, key=lambda e: e[:3])
    assert meter.peak > 0 and meter.alive == 0
    assert not list(scratch.iterdir())
    # at no time were all levels kept: below the sum of every level's files
    one_level = sum(os.path.getsize(p) for p in runs)
    assert meter.peak < 2 * one_level
