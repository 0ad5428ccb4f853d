"""The engine's typed messages (issue 7, item 7): task payloads, results, completion markers
and what ``Writer.finalize`` receives are frozen dataclasses with an Enum status, serialised to
exactly the JSON the markers held before, so markers of earlier versions still resume."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
from pathlib import Path

import pytest
from crawlmill.core.messages import (
    CompletedInput,
    Marker,
    OutputFile,
    PipelineStamp,
    TaskPayload,
    TaskResult,
    TaskStatus,
)
from crawlmill.core.plugin import InputFile
from crawlmill.core.stats import TaskStats

from tests.helpers import convert, put_fake_plugins_on_path


def _old_stats(**counters: int) -> dict:
    """``TaskStats`` as markers held it before step counters and writer-refusal groups (no
    ``counts`` or ``refused`` key)."""
    stats = dataclasses.asdict(TaskStats(**counters))
    stats.pop("counts", None)
    stats.pop("refused", None)
    return stats


#: a completion marker exactly as crawlmill wrote it before the types (keys and values).
TODAYS_MARKER = {
    "version": 1,
    "key": "0123456789abcdef0123456789abcdef",
    "fingerprint": "f" * 64,
    "input": "a.txt",
    "input_path": "/data/in/a.txt",
    "input_size": 42,
    "index": 0,
    "input_count": 2,
    "reader": "fake-lines",
    "outputs": [{"path": "a.txt.out", "size": 30, "md5": "d" * 32}],
    "quarantine": [],
    "notes": {"records": 2},
    "stats": _old_stats(read=2, records=2, received=2),
}


def test_a_marker_of_todays_shape_round_trips_to_the_same_json():
    marker = Marker.from_dict(TODAYS_MARKER)
    assert marker.outputs == (OutputFile("a.txt.out", 30, "d" * 32),)
    assert marker.stats.read == 2 and marker.stats.counts == {}
    assert marker.to_dict() == TODAYS_MARKER
    # keys a later version adds are kept, not lost, when this version writes the marker back
    later = TODAYS_MARKER | {"checks": {"md5": "ok"}}
    assert Marker.from_dict(later).to_dict() == later
    with pytest.raises(dataclasses.FrozenInstanceError):
        marker.key = "other"  # type: ignore[misc]


def test_payload_and_result_are_typed_picklable_and_keep_their_plain_forms():
    inp = InputFile("/in/a.txt", "a.txt", 3, {"md5": "x"}, "a")
    payload = TaskPayload({"output": "/o"}, inp, "warc", "k", "fp", 10, 5, ("old.out",))
    assert pickle.loads(pickle.dumps(payload)) == payload  # crosses the process boundary
    plain = payload.to_dict()
    assert plain["input"] == {
        "path": "/in/a.txt",
        "relpath": "a.txt",
        "index": 3,
        "meta": {"md5": "x"},
        "stem": "a",
        "parts": {},
        "expect": [],
    }
    assert TaskPayload.from_dict(plain) == payload
    result = TaskResult(
        TaskStatus.FAILED, "k", 3, "a.txt", "/in/a.txt", 5, error="E: x", stats=TaskStats(read=4)
    )
    assert pickle.loads(pickle.dumps(result)) == result
    assert result.read == 4
    assert result.to_dict()["status"] == "failed" and result.to_dict()["read"] == 4
    assert TaskStatus("damaged") is TaskStatus.DAMAGED


def test_finalize_entries_are_typed_and_still_read_like_the_old_dicts():
    out = OutputFile.from_dict({"path": "a.out", "size": 3, "md5": "m", "documents": 2})
    task = CompletedInput("a.txt", 0, (out,), {"records": 2})
    assert (task.outputs[0].path, out.extra) == ("a.out", {"documents": 2})
    # plugins written against the dicts finalize received before keep working
    assert task["outputs"][0]["path"] == "a.out" and task["notes"]["records"] == 2
    assert task.get("index", 9) == 0 and out.get("documents") == 2 and out["md5"] == "m"
    assert dict(task) == {
        "input": "a.txt",
        "index": 0,
        "outputs": [{"path": "a.out", "size": 3, "md5": "m", "documents": 2}],
        "notes": {"records": 2},
    }


# -- through the CLI -------------------------------------------------------------------------


@pytest.fixture
def inputs(tmp_path, monkeypatch) -> Path:
    put_fake_plugins_on_path(monkeypatch)
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("R http://a/1 response xx\nR http://a/2 response yyy\n")
    (src / "b.txt").write_text("R http://b/1 response z\n")
    return src


def _convert(src: Path, out: Path, writer: str = "fake-jsonl") -> tuple[int, str]:
    result = convert(src, writer, out, "--plugin", "cm_fake", "--plugin", "cm_counting",
                     "--from", "fake-lines", workers=1, progress=None)  # fmt: skip
    return result.exit_code, result.stderr


def _todays_marker(marker: dict) -> dict:
    """``marker`` rebuilt the way crawlmill built markers before the types (task.py's dict)."""
    stats = {k: marker["stats"][k] for k in _old_stats()}
    old = {
        "version": 1,
        "key": marker["key"],
        "fingerprint": marker["fingerprint"],
        "input": marker["input"],
        "input_path": marker["input_path"],
        "input_size": marker["input_size"],
        "index": marker["index"],
        "input_count": marker["input_count"],
        "reader": marker["reader"],
        "outputs": [{k: o[k] for k in ("path", "size", "md5")} for o in marker["outputs"]],
        "quarantine": marker["quarantine"],
        "notes": marker["notes"],
        "stats": stats,
    }
    return json.loads(json.dumps(old))


def test_a_marker_written_before_the_types_still_resumes(tmp_path, capsys, inputs):
    out = tmp_path / "out"
    code, err = _convert(inputs, out)
    assert code == 0, err
    done = sorted((out / ".crawlmill" / "done").glob("*.json"))
    assert len(done) == 2
    for path in done:
        marker = json.loads(path.read_text())
        # today's markers keep the old shape, with the input's stem added (resume checks it)
        assert marker.pop("stem") == marker["input"] and marker == _todays_marker(marker)
        path.write_text(json.dumps(_todays_marker(marker)))
    files = {p: p.read_bytes() for p in out.glob("*.out")}
    (out / "manifest.txt").unlink()  # finalize runs again over the resumed markers
    code, err = _convert(inputs, out)
    assert code == 0, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["inputs_skipped"] == 2 and report["inputs_done"] == 0
    assert report["read"] == report["written"] == 3
    assert {p: p.read_bytes() for p in out.glob("*.out")} == files
    assert (out / "manifest.txt").read_text().split("\n")[0].split()[-1] == "2"  # notes kept


def test_finalize_receives_typed_completed_inputs(tmp_path, capsys, inputs):
    out = tmp_path / "out"
    code, err = _convert(inputs, out, writer="counting-jsonl")
    assert code == 0, err
    rows = [line.split() for line in (out / "manifest.txt").read_text().splitlines()]
    assert [(r[0], r[1], r[2], r[5]) for r in rows] == [
        ("0", "a.txt", "a.txt.out", "2"),
        ("1", "b.txt", "b.txt.out", "1"),
    ]
    for _, _, path, size, md5, _ in rows:
        data = (out / path).read_bytes()
        assert (len(data), hashlib.md5(data).hexdigest()) == (int(size), md5)


def test_run_task_answers_a_typed_result_for_a_typed_or_plain_payload(tmp_path, inputs):
    from crawlmill.core.run.task import run_task
    from crawlmill.core.spec import PipelineSpec

    spec = PipelineSpec.model_validate(
        {
            "inputs": {"paths": [str(inputs)]},
            "reader": {"name": "fake-lines"},
            "writer": {"name": "fake-jsonl"},
            "output": str(tmp_path / "out"),
            "plugins": ["cm_fake"],
        }
    )
    good = InputFile(str(inputs / "a.txt"), "a.txt", 0)
    payload = TaskPayload(spec.model_dump(mode="json"), good, "fake-lines", "k0", "fp", None, 2)
    result = run_task(payload)
    assert result.status is TaskStatus.OK and result.stats is None
    assert isinstance(result.marker, Marker) and result.marker.stats.read == 2
    assert result.marker.outputs[0].path == "a.txt.out"
    saved = json.loads((tmp_path / "out" / ".crawlmill" / "done" / "k0.json").read_text())
    assert Marker.from_dict(saved) == result.marker  # what a resumed run reads back
    (inputs / "bad.txt").write_text("R http://x/ response y\nX broken reader\n")
    bad = dataclasses.replace(payload, input=InputFile(str(inputs / "bad.txt"), "bad.txt", 1))
    failed = run_task(bad.to_dict())  # the plain form is accepted too
    assert failed.status is TaskStatus.FAILED and failed.marker is None
    assert failed.error == "RuntimeError: broken reader" and failed.read == 1
    assert not (tmp_path / "out" / "bad.txt.out").exists()


#: report.json's keys before step counters (``counts`` and ``counts_total`` are new).
REPORT_KEYS = {
    "accounting", "added", "bytes_in", "checks_failed", "checks_passed", "complete", "damages",
    "dropped", "elapsed", "failures", "finalized", "fingerprint", "input_outputs", "inputs",
    "inputs_cancelled", "inputs_done", "inputs_skipped", "not_converted", "ok", "outputs",
    "orphans", "orphans_removed", "quarantine_files", "quarantined", "read", "unclaimed",
    "warnings", "written",
}  # fmt: skip


def test_pipeline_json_and_report_json_keep_their_shape(tmp_path, capsys, inputs):
    out = tmp_path / "out"
    code, err = _convert(inputs, out)
    assert code == 0, err
    meta = out / ".crawlmill"
    stamp = json.loads((meta / "pipeline.json").read_text())
    assert set(stamp) == {"fingerprint", "pipeline"}
    assert PipelineStamp.from_dict(stamp).to_dict() == stamp
    report = json.loads((meta / "report.json").read_text())
    new = {"counts", "counts_total", "warning_examples", "refused", "shuffle"}  # shuffle: {} here
    assert set(report) == REPORT_KEYS | new and report["shuffle"] == {}
    assert report["fingerprint"] == stamp["fingerprint"]
    assert [set(e) for e in report["input_outputs"]] == [{"input", "path", "outputs", "counts"}] * 2
