"""The local shuffle's disk use (issue 20 item 4): run files hold zstd frames, a hash
partition's runs go once it is committed, an intermediate merge takes only the smallest runs
that bring the count to the fan-in and (hash) consumes them, the last merge frees what it has
read, range runs are freed below the committed partitions; the run measures its peak scratch
bytes (``report.json``: ``shuffle.peak_scratch_bytes``); WARC -> nutch-segment and sorted WARC
conversions with many spills keep the output folder below 2x the output, with the same output
bytes throughout, and a run killed in the partition pass resumes or maps again."""

from __future__ import annotations

import json
import os
import random
import textwrap
from pathlib import Path

import pytest
from crawlmill.algorithms.sorted_runs import holes, runfile
from crawlmill.algorithms.sorted_runs import merge as merge_mod
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


def _project(tmp_path: Path, out: str, pages: int = 600, partitions: int = 3) -> Path:
    data = tmp_path / f"data{pages}"
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
            inputs: [{data.name}/in0.warc, {data.name}/in1.warc]
            writer:
              name: nutch-segment
              segment: "20240101000000"
              partitions: {partitions}
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


def _runs(folder: Path, sizes: list[int]) -> list[str]:
    """Run files of ``sizes`` entries each (distinct inputs), in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    runs = []
    for n, count in enumerate(sizes):
        w = RunWriter(str(folder / f"r{n:03d}.run"))
        keys = (f"{(k * 7919 + n) % 1000:04d}".encode() for k in range(count))
        for entry in sorted((key, n, k, b"v%d" % k * 40) for k, key in enumerate(keys)):
            w.add(*entry)
        runs.append(w.close())
    return runs


def test_merge_copies_only_what_brings_the_runs_to_the_fan_in(tmp_path) -> None:
    """5 equal runs at fan-in 4: one intermediate merge of the 2 smallest runs (5 -> 4), not
    every run copied in groups (as before: [4, 1], the whole input once more on disk)."""
    runs = _runs(tmp_path / "runs", [60, 50, 50, 50, 10])
    total = sum(os.path.getsize(p) for p in runs)
    meter = ScratchMeter()
    made: list[int] = []
    real_add = meter.add
    meter.add = lambda size: (made.append(size), real_add(size))  # type: ignore[method-assign]
    out = list(merge(runs, scratch=str(tmp_path / "scratch"), fan_in=4, meter=meter))
    assert len(out) == 220 and out == sorted(out, key=lambda e: e[:3])
    assert len(made) == 1  # one group
    smallest_two = sorted(os.path.getsize(p) for p in runs)[:2]
    assert made[0] <= sum(smallest_two) + 64 and meter.peak < total / 3
    assert all(os.path.exists(p) for p in runs)  # not consumed: the caller's runs stay


def _merge_watched(tmp_path: Path, name: str, sizes: list[int], consume: bool):
    """Merge runs of ``sizes`` at fan-in 3; the runs' and scratch folders' bytes each time
    an intermediate file is complete (its inputs still there), the bytes left once the
    first entry came (the intermediate merges done), the entries, the runs' bytes."""
    runs = _runs(tmp_path / name, sizes)
    total = sum(os.path.getsize(p) for p in runs)
    folders = (tmp_path / name, tmp_path / f"{name}-scratch")
    seen: list[int] = []
    meter = ScratchMeter()
    real_add = meter.add

    def add(size: int) -> None:
        real_add(size)
        seen.append(sum(folder_bytes(f) for f in folders))

    meter.add = add  # type: ignore[method-assign]
    stream = merge(runs, scratch=str(folders[1]), fan_in=3, meter=meter, consume=consume)
    first = next(stream)  # the intermediate merges are done before the first entry
    left = sum(folder_bytes(f) for f in folders)
    files = sum(len(os.listdir(f)) for f in folders)
    entries = [first, *stream]
    assert not list(folders[1].iterdir())
    return seen, left, files, entries, total, meter


def test_consumed_runs_are_replaced_not_doubled(tmp_path) -> None:
    """``consume``: a run merged into an intermediate file is removed at once, so the merge's
    files replace the runs on disk instead of adding a copy of them; the entries are the
    same as without it."""
    sizes = [40 + (n * 13) % 30 for n in range(23)]
    kept = _merge_watched(tmp_path, "kept", sizes, consume=False)
    seen, left, files, entries, total, meter = _merge_watched(tmp_path, "gone", sizes, True)
    assert entries == kept[3] and len(entries) == sum(sizes)
    assert len(seen) == len(kept[0]) == 10  # 23 runs -> 3: ten merges of three (-2 each)
    assert files == 3 and kept[2] == 23 + 3  # the last level's inputs; before: every run too
    assert left <= total * 1.02 < 1.9 * total <= kept[1]  # a copy of the runs, before
    # the most at once: the runs and the group being written (its inputs still there)
    assert max(seen) < 1.5 * total and max(seen) < 0.75 * max(kept[0])
    assert meter.peak <= max(seen) - total * 0.98 and meter.alive < 0


def folder_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def test_one_partition_multi_level_merge_within_the_output(tmp_path, monkeypatch) -> None:
    """nutch-segment's default, one partition, with many spills and a small fan-in: the
    intermediate merges replace the partition's runs (no second copy of them). The output
    folder, measured when each intermediate file is complete (its inputs still there) and
    at each entry the writer gets, stays within the runs plus one group's file, then within
    the output plus the runs, below 2x the output; the report's peak scratch says so too;
    the output bytes equal those of a run with no intermediate merge."""
    from crawlmill.core.run.shuffle import tasks as tasks_mod

    assert main(["run", str(_project(tmp_path, "wide", pages=150, partitions=1))]) == 0
    monkeypatch.setattr(merge_mod, "FAN_IN", 4)
    out = tmp_path / "narrow"
    merging: list[int] = []
    writing: list[int] = []
    real_add, real_merge = merge_mod.ScratchMeter.add, tasks_mod.merge

    def add(self, size):
        real_add(self, size)
        merging.append(folder_bytes(out))

    def merge_watched(*args, **kw):
        for entry in real_merge(*args, **kw):
            writing.append(folder_bytes(out))
            yield entry

    monkeypatch.setattr(merge_mod.ScratchMeter, "add", add)
    monkeypatch.setattr(tasks_mod, "merge", merge_watched)
    assert main(["run", str(_project(tmp_path, "narrow", pages=150, partitions=1))]) == 0
    assert len(merging) > 5 and len(writing) == 300  # many intermediate merges
    wide, narrow = _outputs(tmp_path / "wide"), _outputs(out)
    assert narrow and narrow == wide
    final = sum(len(b) for b in narrow.values())
    shuffle = json.loads((out / ".crawlmill/report.json").read_text())["shuffle"]
    runs = shuffle["run_bytes"]
    assert runs < final  # else no bound of the runs' order could hold 2x
    # before: every run copied once more, kept to the end (about 2x the runs, then the
    # output on top of 2x the runs)
    assert shuffle["peak_scratch_bytes"] <= runs * 1.5
    assert max(merging) <= runs * 1.5 + 65536  # the map markers, the report, empty parts
    assert max(writing) <= final + runs * 1.05
    assert max(merging + writing) < 2 * final


def test_a_kill_after_consumed_runs_maps_again_and_resumes(tmp_path, monkeypatch) -> None:
    """A partition killed after its intermediate merges removed some of its runs: the rerun
    finds the map tasks' runs not intact, maps again and writes the same output."""
    from crawlmill.core.run.shuffle import tasks as tasks_mod

    config = _project(tmp_path, "o", pages=150, partitions=2)
    assert main(["run", str(_project(tmp_path, "clean", pages=150, partitions=2))]) == 0
    monkeypatch.setattr(merge_mod, "FAN_IN", 3)
    real = tasks_mod.merge

    kept = 0

    def killed(*args, **kw):
        nonlocal kept
        kept = len(args[0])
        stream = real(*args, **kw)
        yield next(stream)
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(tasks_mod, "merge", killed)
    try:
        code = main(["run", str(config)])
    except KeyboardInterrupt:
        code = None
    assert code != 0
    (folder,) = (tmp_path / "o/.crawlmill/passes").iterdir()
    assert len(list((folder / "shuffle/p00000").iterdir())) < kept  # some runs consumed
    monkeypatch.setattr(tasks_mod, "merge", real)
    assert main(["run", str(config)]) == 0
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["inputs_skipped"] == 0  # mapped again: the consumed runs were gone
    assert report["written"] == report["read"] == 300
    assert _outputs(tmp_path / "o") == _outputs(tmp_path / "clean")


def disk_bytes(root: Path) -> int:
    """The blocks the files below ``root`` hold on disk (a freed run keeps its length)."""
    return sum(p.stat().st_blocks * 512 for p in root.rglob("*") if p.is_file())


@pytest.mark.skipif(not holes.can_free(), reason="no hole punching on this system")
def test_last_merge_frees_what_it_has_read(tmp_path, monkeypatch) -> None:
    """A consuming merge claims its runs (dot names: a rerun never takes them for whole
    runs) and frees the blocks it has read: half-way through, about half the runs' blocks
    are left; at the end none. A merge that does not consume leaves them as they were."""
    monkeypatch.setattr(merge_mod, "FREE_EVERY", 8192)
    rnd = random.Random(3)
    entries = sorted((b"%06d" % rnd.randrange(10**6), n, k, rnd.randbytes(3000))
                     for n in range(4) for k in range(100))  # fmt: skip
    for name in ("kept", "gone"):
        folder = tmp_path / name
        folder.mkdir()
        for n in range(4):
            w = RunWriter(str(folder / f"r{n}.run"))
            for entry in (e for e in entries if e[1] == n):
                w.add(*entry)
            w.close()
    runs = {name: sorted(str(p) for p in (tmp_path / name).iterdir()) for name in ("kept", "gone")}
    full = disk_bytes(tmp_path / "gone")
    meter = ScratchMeter()
    stream = merge(runs["gone"], meter=meter, consume=True)
    half = [next(stream) for _ in range(200)]
    assert sorted(p.name for p in (tmp_path / "gone").iterdir()) == [
        f".r{n}.run.merging" for n in range(4)
    ]
    assert disk_bytes(tmp_path / "gone") < 0.6 * full
    assert -meter.alive > 0.4 * full  # the freed bytes counted
    assert half + list(stream) == entries
    assert not list((tmp_path / "gone").iterdir())
    kept = merge(runs["kept"])
    assert [next(kept) for _ in range(200)] == half
    assert disk_bytes(tmp_path / "kept") == full


def _sorted_config(tmp_path: Path, out: str, sorted_option: str, memory: int) -> Path:
    """A config of WARC -> WARC ``sorted`` with many spills (200 pages, small memory)."""
    _project(tmp_path, "unused", pages=200)
    config = tmp_path / f"{out}.yaml"
    config.write_text(
        "version: 1\ninputs: [data200/in0.warc, data200/in1.warc]\n"
        f"writer: {{name: warc, sorted: {sorted_option}}}\n"
        f"output: {out}\nrun: {{workers: 1, shuffle_memory: {memory}}}\n"
    )
    return config


def _sorted_warc(tmp_path: Path, out: str) -> Path:
    """WARC -> WARC ``sorted`` (hash, one partition: the option's defaults), many spills."""
    return _sorted_config(tmp_path, out, "{partitions: 1}", 65536)


@pytest.mark.skipif(not holes.can_free(), reason="no hole punching on this system")
def test_sorted_warc_runs_and_output_not_both_whole(tmp_path, monkeypatch) -> None:
    """A sorted WARC's runs (zstd frames) are about as large as its gzip output, so the runs
    kept whole beside the output (as before) passed 2x the output. The folder's blocks,
    measured at each entry the writer gets and when the partition is committed, stay near
    the larger of the two; the output bytes are the same as with runs kept whole."""
    from crawlmill.core.run.shuffle import run as run_mod
    from crawlmill.core.run.shuffle import tasks as tasks_mod

    monkeypatch.setattr(merge_mod, "FREE_EVERY", 8192)
    real, real_drop = tasks_mod.merge, run_mod._drop_partition_runs
    peaks: dict[str, int] = {}

    def measure() -> None:
        peaks[out.name] = max(peaks.get(out.name, 0), disk_bytes(out))

    def watched(*args, **kw):
        for entry in real(*args, **{**kw, "consume": out.name == "freed"}):
            measure()
            yield entry

    def drop(folder, partition):
        measure()
        real_drop(folder, partition)

    monkeypatch.setattr(tasks_mod, "merge", watched)
    monkeypatch.setattr(run_mod, "_drop_partition_runs", drop)
    for name in ("kept", "freed"):
        out = tmp_path / name
        assert main(["run", str(_sorted_warc(tmp_path, name))]) == 0
    kept, freed = _outputs(tmp_path / "kept"), _outputs(tmp_path / "freed")
    assert freed and freed == kept
    final = disk_bytes(tmp_path / "freed") - disk_bytes(tmp_path / "freed/.crawlmill")
    report = json.loads((tmp_path / "freed/.crawlmill/report.json").read_text())
    runs = report["shuffle"]["run_bytes"]
    assert runs > 0.8 * final  # the case: runs about the output's size
    assert peaks["kept"] >= final + 0.8 * runs  # before: both whole at once
    assert peaks["freed"] <= 1.25 * max(final, runs) < 2 * final
    assert not list((tmp_path / "freed/.crawlmill").rglob("*.run*"))


def _range_warc(tmp_path: Path, out: str) -> Path:
    """WARC -> WARC ``sorted`` in 4 range partitions (one shared run set), many spills."""
    return _sorted_config(tmp_path, out, "{partitions: 4, partitioning: range}", 262144)


def _fine_index(monkeypatch) -> None:
    """An index item every 4 entries: runs of small tests have places to free from."""
    monkeypatch.setattr(runfile, "INDEX_ENTRIES", 4)


@pytest.mark.skipif(not holes.can_free(), reason="no hole punching on this system")
def test_range_runs_freed_below_the_committed_partitions(tmp_path, monkeypatch) -> None:
    """Range partitions share one run set; once partitions 0..j-1 are committed, the runs'
    bytes below partition j's start are freed, so the folder's blocks (measured at each
    entry a writer gets) stay well below runs plus output, kept whole before; same bytes."""
    from crawlmill.core.run.shuffle import run as run_mod
    from crawlmill.core.run.shuffle import tasks as tasks_mod

    _fine_index(monkeypatch)
    real, real_free = tasks_mod.merge, run_mod.free_below
    peaks: dict[str, int] = {}

    def watched(*args, **kw):
        for entry in real(*args, **kw):
            peaks[out.name] = max(peaks.get(out.name, 0), disk_bytes(out))
            yield entry

    monkeypatch.setattr(tasks_mod, "merge", watched)
    for name, free in (("kept", lambda *a: 0), ("freed", real_free)):
        monkeypatch.setattr(run_mod, "free_below", free)
        out = tmp_path / name
        assert main(["run", str(_range_warc(tmp_path, name))]) == 0
    kept, freed = _outputs(tmp_path / "kept"), _outputs(tmp_path / "freed")
    assert len(freed) == 4 and freed == kept
    final = disk_bytes(tmp_path / "freed") - disk_bytes(tmp_path / "freed/.crawlmill")
    runs = json.loads((tmp_path / "freed/.crawlmill/report.json").read_text())
    runs = runs["shuffle"]["run_bytes"]
    assert peaks["kept"] >= final * 0.7 + runs  # before: the runs whole to the end
    assert peaks["freed"] <= peaks["kept"] - 0.4 * runs
    assert peaks["freed"] < 2 * final


@pytest.mark.skipif(not holes.can_free(), reason="no hole punching on this system")
def test_range_runs_freed_then_killed_resume_or_map_again(tmp_path, monkeypatch) -> None:
    """Killed after partitions 0 and 1 were committed (the runs freed below partition 2):
    the rerun skips the map tasks and writes the rest from the runs' intact part; with
    partition 0's file removed before the rerun, the freed runs cannot serve it, so the
    rerun maps again. Both end with the files of an uninterrupted run."""
    from crawlmill.core.run.shuffle import run as run_mod

    _fine_index(monkeypatch)
    assert main(["run", str(_range_warc(tmp_path, "clean"))]) == 0
    clean = _outputs(tmp_path / "clean")
    real = run_mod.partition_task

    def failing(payload, entries=None):
        if payload["partition"] == 2:
            raise KeyboardInterrupt("killed")
        return real(payload, entries)

    for name, skipped in (("resumed", 2), ("remapped", 0)):
        config = _range_warc(tmp_path, name)
        monkeypatch.setattr(run_mod, "partition_task", failing)
        try:
            code = main(["run", str(config)])
        except KeyboardInterrupt:
            code = None
        assert code != 0
        (folder,) = (tmp_path / name / ".crawlmill/passes").iterdir()
        assert json.loads((folder / run_mod.FREED_NOTE).read_text()) == {"below_partition": 2}
        if name == "remapped":
            (part0,) = (tmp_path / name).glob("*00000*")
            part0.unlink()
        monkeypatch.setattr(run_mod, "partition_task", real)
        assert main(["run", str(config)]) == 0
        report = json.loads((tmp_path / name / ".crawlmill/report.json").read_text())
        assert report["inputs_skipped"] == skipped
        assert _outputs(tmp_path / name) == clean
        assert not (folder / run_mod.FREED_NOTE).exists()
