"""Planning at the scale of a real crawl (issue 22 item 3) without timing anything: a resumed
run and ``crawlmill status`` read each completion marker a constant number of times, and a
stage listing is written a constant number of times per run, whatever the number of inputs
(the figures of two sizes grow by their ratio, never by its square); the large JSON files are
written in chunks that read back as the same JSON."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.run import outputs, stage
from crawlmill.core.run.outputs import OutputRoot, json_chunks
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

        def counted_write(path, chunks):
            self.listings += 1
            return write(path, chunks)

        monkeypatch.setattr(OutputRoot, "read_marker", counted_read)
        monkeypatch.setattr(stage, "write_text_atomic", counted_write)


def _converted(base: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """``n`` one-record WARC inputs in folders of 10, converted once (in-process, no fsync:
    durability is not what this counts)."""
    src, out = base / "in", base / "out"
    synthetic.make_tiny_inputs(src, n, per_folder=10)  # the benchmark's inputs
    with monkeypatch.context() as m:
        m.setattr(os, "fsync", lambda fd: None)
        m.setattr(outputs, "_syncfs", lambda path: True)
        assert _convert(src, out) == 0
    return src, out


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
