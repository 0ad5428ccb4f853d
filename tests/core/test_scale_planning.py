"""Planning at the scale of a real crawl (issue 22 item 3) without timing anything: a resumed
run and ``crawlmill status`` read each completion marker a constant number of times, and a
stage listing is written a constant number of times per run, whatever the number of inputs
(the figures of two sizes grow by their ratio, never by its square); the large JSON files are
written in chunks that read back as the same JSON."""

from __future__ import annotations

import gc
import importlib.util
import json
import os
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.messages import Marker, OutputFile
from crawlmill.core.run import engine, outputs, stage
from crawlmill.core.run.outputs import OutputRoot, json_chunks
from crawlmill.core.run.spill import MarkerStore, SpilledList
from crawlmill.core.run.status import read_status

#: the benchmark's builder of many tiny inputs (benchmarks/synthetic.py: no package)
_spec = importlib.util.spec_from_file_location(
    "crawlmill_bench_synthetic", Path(__file__).parents[2] / "benchmarks" / "synthetic.py"
)
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)


class _Counts:
    """Marker reads and stage-listing writes, counted while a run or a status read goes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        self.listings = 0
        read, write = OutputRoot.read_marker, stage.write_text_atomic

        def counted_read(root, key):
            self.reads += 1
            return read(root, key)

        def counted_write(path, chunks, **how):
            self.listings += 1
            return write(path, chunks, **how)

        monkeypatch.setattr(OutputRoot, "read_marker", counted_read)
        monkeypatch.setattr(stage, "write_text_atomic", counted_write)


def _converted(base: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``n`` one-record WARC inputs in folders of 10, converted once (in-process, no fsync:
    durability is not what this counts)."""
    src, out = base / "in", base / "out"
    synthetic.make_tiny_inputs(src, n, per_folder=10)  # the benchmark's inputs
    write = engine._write_report

    def counted(root, report, started, stream):  # markers alive as a fresh run ends
        gc.collect()
        _FRESH[n] = _markers_alive()
        return write(root, report, started, stream)

    with monkeypatch.context() as m:
        m.setattr(os, "fsync", lambda fd: None)
        m.setattr(outputs, "_syncfs", lambda path: True)
        m.setattr(engine, "_write_report", counted)
        assert _convert(src, out) == 0
    return src, out


#: markers alive when the fresh run of the ``roots`` fixture wrote its report, by size.
_FRESH: dict[int, int] = {}


def _convert(src: Path, out: Path) -> int:
    return main(["convert", str(src), "-o", str(out), "--workers", "1", "--progress", "never"])


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Path]]:
    """Converted roots of 10 and 20 inputs, shared by the tests of this module."""
    with pytest.MonkeyPatch.context() as mp:
        return {n: _converted(tmp_path_factory.mktemp(f"n{n}"), n, mp) for n in (10, 20)}


def test_a_resumed_run_reads_each_marker_a_constant_number_of_times(roots, monkeypatch):
    reads, listings = {}, {}
    for n, (src, out) in roots.items():
        counts = _Counts(monkeypatch)
        assert _convert(src, out) == 0
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
        assert report["inputs_skipped"] == n and report["inputs_done"] == 0
        reads[n], listings[n] = counts.reads, counts.listings
        monkeypatch.undo()
    # planning reads each marker once and the stage's own resume rule once: 2 per input
    # (it was 10: every marker read again by each of six whole-root scans)
    assert reads == {10: 20, 20: 40}
    # the convert stage's listing: written when its graph starts and when it ends, whatever n
    assert listings == {10: 2, 20: 2}


def test_status_reads_each_marker_once(roots, monkeypatch):
    reads = {}
    for n, (_, out) in roots.items():
        counts = _Counts(monkeypatch)
        status = read_status(str(out))
        assert status["stages"][0]["tasks"]["done"] == n
        assert status["orphans"] == []
        reads[n] = counts.reads
        monkeypatch.undo()
    assert reads == {10: 10, 20: 20}  # orphans_of_root: each marker's input, once


def test_the_stage_listing_is_json_with_a_task_per_input(roots):
    for n, (_, out) in roots.items():
        listing = json.loads((out / ".crawlmill" / "stages" / "convert.json").read_text())
        assert listing["state"] == "done"
        assert len(listing["tasks"]) == n and all(t["done"] for t in listing["tasks"])
        assert listing["tasks"][0]["marker"].startswith("done/")


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"tasks": []},
        {"tasks": [{"b": 1, "a": [1, 2]}, None, "x"], "name": "convert", "n": 1.5},
        {"nested": {"z": [1, {"y": None}], "a": "é\u2028"}, "tasks": iter([[1], {"k": ()}])},
    ],
)
def test_json_chunks_read_back_as_the_same_json(data):
    want = json.loads(json.dumps({k: list(v) if k == "tasks" else v for k, v in data.items()}))
    if "tasks" in data and not isinstance(data["tasks"], list):
        data = {**data, "tasks": iter(want["tasks"])}
    assert json.loads("".join(json_chunks(data))) == want


def _markers_alive() -> int:
    return sum(1 for o in gc.get_objects() if isinstance(o, Marker))


def test_the_driver_holds_no_marker_per_input_when_it_writes_the_report(roots, monkeypatch):
    """A fresh or resumed run's markers are in a spill file, not in the driver's memory: when the
    report is written (after summing, finalize and the orphans), no completion marker of
    the run is alive, whatever the number of inputs; report.json is the same JSON as the
    report the run returns, its input_outputs one entry per input read back from the spill."""
    for n, (src, out) in roots.items():
        alive: list[int] = []
        reports = []
        write = engine._write_report

        def counted(root, report, started, stream, write=write, alive=alive, reports=reports):
            gc.collect()
            alive.append(_markers_alive())
            reports.append(report)
            return write(root, report, started, stream)

        monkeypatch.setattr(engine, "_write_report", counted)
        assert _convert(src, out) == 0
        monkeypatch.undo()
        (report,) = reports
        assert alive == [0]  # before: n (every marker, for the report and finalize)
        assert _FRESH[n] == 0  # the fresh run that made the root held none either
        assert report.inputs_skipped == n
        assert isinstance(report.input_outputs, SpilledList)
        written = json.loads((out / ".crawlmill" / "report.json").read_text())
        assert written == json.loads(json.dumps(report.to_dict(), default=str))
        assert [e["input"] for e in written["input_outputs"]] == [
            synthetic.tiny_input_name(i, per_folder=10) for i in range(n)
        ]
        assert all(e["outputs"] == [e["input"]] for e in written["input_outputs"])


def test_a_marker_store_gives_back_what_it_was_given(tmp_path):
    markers = [
        Marker(key=f"k{i}", fingerprint="f", input=f"a/{i}", input_path=f"/in/a/{i}", index=i,
               input_count=3, outputs=(OutputFile(f"o{i}", 5, "ab"),), notes={"n": [i, "é"]},
               extra={"stem": f"a/{i}"})
        for i in range(3)
    ]  # fmt: skip
    store = MarkerStore((m.index, m) for m in markers)
    assert len(store) == 3 and list(store) == [0, 1, 2] and 1 in store and 3 not in store
    assert [store[i] for i in range(3)] == markers
    assert store.key_of(2) == "k2" and store.marker_keys() == {"k0", "k1", "k2"}
    assert store.holds(1, markers[1]) and not store.holds(1, markers[0])
    before = store.snapshot()
    store[1] = markers[0]
    del store[2]
    assert store[1] == markers[0] and 2 not in store and store.get(2) is None
    assert before[1] == markers[1] and before[2] == markers[2]  # the snapshot is unchanged
    assert len(store) == 2 and list(store) == [0, 1] and len(before) == 3
    store[7] = markers[2]  # indexes need not come in order (arrays by index inside)
    assert list(store) == [0, 1, 7] and 5 not in store and store.key_of(7) == "k2"
    for missing in (5, 70, -1, "0"):
        assert missing not in store
        with pytest.raises(KeyError):
            store[missing]
    with pytest.raises(KeyError):
        store.key_of(5)
    with pytest.raises(KeyError):
        del store[5]
    items = SpilledList([{"a": 1}, [2], "x"])
    items.append(None)
    assert list(items) == [{"a": 1}, [2], "x", None] and items[-2] == "x"
    assert items[1:3] == [[2], "x"] and len(items) == 4 and items == [{"a": 1}, [2], "x", None]
    with pytest.raises(IndexError):
        items[4]
