"""engine.run with the fake plugins: accounting, quarantine, config errors, error policy,
failing and crashing tasks, path safety, finalize and progress."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import queue
import random
import signal
import threading
import time

import pytest
from crawlmill.core.errors import ConfigError, DamagedRecordError
from crawlmill.core.run import engine
from crawlmill.core.run.executor import Channel
from crawlmill.core.run.progress import ProgressMonitor
from crawlmill.core.stats import AccountingError, TaskStats, filter_labels

KINDS = ["response", "request", "metadata"]


def _generate(path, rng, n):
    """A fake input with records, damage and writer-refused URLs; returns the expected counts
    computed here, independently of the engine."""
    lines, expect = (
        [],
        {"read": 0, "wrong-kind": 0, "too-long": 0, "damaged": 0, "refused": 0, "written": 0},
    )
    for i in range(n):
        roll = rng.random()
        expect["read"] += 1
        if roll < 0.1:
            lines.append(f"D broken-{i}")
            expect["damaged"] += 1
            continue
        kind = rng.choice(KINDS)
        payload = "p" * rng.randint(0, 12)
        url = f"http://{'refuse' if rng.random() < 0.1 else 'ok'}.example/{i}"
        lines.append(f"R {url} {kind} {payload}")
        if kind != "response":
            expect["wrong-kind"] += 1
        elif len(payload) > 8:
            expect["too-long"] += 1
        elif "refuse" in url:
            expect["refused"] += 1
        else:
            expect["written"] += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return lines, expect


FILTERS = [("fake-kind", {}), ("fake-threshold", {"threshold": 8})]


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_accounting_is_exact_with_drops_damage_and_writer_quarantine(tmp_path, fake, workers):
    rng = random.Random(7)
    total = {"read": 0, "wrong-kind": 0, "too-long": 0, "damaged": 0, "refused": 0, "written": 0}
    written_lines = []
    for j in range(5):
        lines, expect = _generate(tmp_path / "in" / f"f{j}.txt", rng, 60)
        for k in total:
            total[k] += expect[k]
    report = engine.run(fake([tmp_path / "in"], tmp_path / "out", filters=FILTERS, workers=workers))
    assert report.ok, report.failures
    assert report.read == total["read"]
    assert report.written == total["written"]
    assert report.dropped == {
        "fake-kind": {"wrong-kind": total["wrong-kind"]},
        "fake-threshold": {"too-long": total["too-long"]},
    }
    assert report.quarantined == total["damaged"] + total["refused"]
    assert len(report.damages) == total["damaged"]
    assert report.accounting_line() == (
        f"read {total['read']} = written {total['written']} + dropped {total['wrong-kind'] + total['too-long']} "
        f"(fake-kind:wrong-kind {total['wrong-kind']}, fake-threshold:too-long {total['too-long']}) "
        f"+ quarantined {total['damaged'] + total['refused']}"
    )
    for j in range(5):
        written_lines += (
            (tmp_path / "out" / f"f{j}.txt.out").read_text().splitlines()[1:]
        )  # minus header
    assert len(written_lines) == total["written"]
    assert all(" response " in line for line in written_lines)
    saved = json.loads((tmp_path / "out" / ".crawlmill" / "report.json").read_text())
    assert saved["read"] == total["read"] and saved["accounting"] == report.accounting_line()


def test_quarantine_holds_damaged_bytes_and_refused_records(tmp_path, fake, lines):
    src = lines(
        tmp_path / "sub" / "a.txt",
        ["R http://ok/1 response x", "D torn header", "R http://refuse/2 response y"],
    )
    data = src.read_bytes()
    report = engine.run(fake([tmp_path / "sub"], tmp_path / "out"))
    assert report.quarantined == 2 and report.written == 1
    qdir = tmp_path / "out" / ".crawlmill" / "quarantine"
    assert sorted(report.quarantine_files) == [
        ".crawlmill/quarantine/a.txt.bin",
        ".crawlmill/quarantine/a.txt.jsonl",
    ]
    index = [json.loads(line) for line in (qdir / "a.txt.jsonl").read_text().splitlines()]
    blob = (qdir / "a.txt.bin").read_bytes()
    damage, refused = index
    assert damage["reason"] == "torn header" and damage["data"] == "raw"
    expected_offset = data.index(b"D torn")
    assert damage["offset"] == expected_offset and damage["path"] == str(src)
    raw = blob[damage["bin_offset"] : damage["bin_offset"] + damage["bin_length"]]
    assert raw == data[expected_offset : expected_offset + damage["length"]] == b"D torn header\n"
    rec = json.loads(blob[refused["bin_offset"] : refused["bin_offset"] + refused["bin_length"]])
    assert refused["reason"] == "refused-url" and rec["url"] == "http://refuse/2"
    assert base64.b64decode(rec["payload"]["$b64"]) == b"y"


def test_damage_is_logged_with_file_and_offset(tmp_path, fake, lines):
    src = lines(tmp_path / "a.txt", ["R http://ok/1 response x", "D torn header"])
    stream = io.StringIO()
    engine.run(fake([src], tmp_path / "out"), progress=stream)
    assert f"{src} at byte 25: torn header" in stream.getvalue()


@pytest.mark.parametrize(
    ("filters", "writer_options", "location", "words"),
    [
        (
            [("fake-kind", {}), ("fake-threshold", {"threshold": 100})],
            {},
            "filters[1].threshold",
            "less than or equal to 64",
        ),
        ([("fake-kindd", {})], {}, "filters[0].name", "did you mean 'fake-kind'"),
        ([], {"bogus": 1}, "writer.bogus", "unknown option"),
    ],
)
def test_bad_config_names_the_place_and_writes_nothing(
    tmp_path, fake, lines, filters, writer_options, location, words
):
    src = lines(tmp_path / "a.txt", ["R http://ok/1 response x"])
    out = tmp_path / "out"
    with pytest.raises(ConfigError) as err:
        engine.run(fake([src], out, filters=filters, writer_options=writer_options))
    problems = dict(err.value.problems)
    assert location in problems and words in problems[location]
    assert not out.exists()


def test_on_error_fail_stops_at_first_damage(tmp_path, fake, lines):
    first = lines(tmp_path / "in" / "a.txt", ["R http://ok/1 response x"])
    bad = lines(
        tmp_path / "in" / "b.txt",
        ["R http://ok/1 response x", "R http://ok/2 response y", "D checksum mismatch", "D later"],
    )
    lines(tmp_path / "in" / "c.txt", ["R http://ok/1 response x"])
    out = tmp_path / "out"
    with pytest.raises(DamagedRecordError) as err:
        engine.run(fake([tmp_path / "in"], out, on_error="fail"))
    offset = bad.read_bytes().index(b"D checksum")
    assert str(err.value) == f"{bad} at byte {offset}: checksum mismatch"
    assert (out / "a.txt.out").exists()  # completed inputs stay completed
    assert not (out / "b.txt.out").exists() and not (out / "c.txt.out").exists()
    assert not (out / ".crawlmill" / "quarantine").exists()  # the failed task committed nothing
    assert not (out / ".crawlmill" / "tmp").exists() or not any(
        (out / ".crawlmill" / "tmp").iterdir()
    )
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["ok"] is False and "checksum mismatch" in report["failures"][0]["error"]
    assert report["inputs_done"] == 1 and report["inputs_cancelled"] == 1
    assert first.exists()


def test_on_error_fail_in_the_process_pool(tmp_path, fake, lines):
    for j in range(6):
        lines(
            tmp_path / "in" / f"{j}.txt",
            ["R http://ok/1 response x"] + (["D broken"] if j == 3 else []),
        )
    with pytest.raises(DamagedRecordError, match=r"3\.txt at byte 25: broken"):
        engine.run(fake([tmp_path / "in"], tmp_path / "out", on_error="fail", workers=2))
    assert not (tmp_path / "out" / "3.txt.out").exists()


def test_plugin_exception_fails_one_task_and_the_others_complete(tmp_path, fake, lines):
    for j in range(6):
        lines(
            tmp_path / "in" / f"{j}.txt",
            ["R http://ok/1 response x"] + (["X reader bug here"] if j == 2 else []),
        )
    out = tmp_path / "out"
    report = engine.run(fake([tmp_path / "in"], out, workers=2))
    assert not report.ok
    assert len(report.failures) == 1
    failure = report.failures[0]
    assert (
        failure["input"].endswith("2.txt") and "RuntimeError: reader bug here" in failure["error"]
    )
    assert "cm_fake.py" in failure["traceback"]
    assert report.inputs_done == 5 and report.read == 5
    assert sorted(p.name for p in out.glob("*.out")) == [f"{j}.txt.out" for j in (0, 1, 3, 4, 5)]
    assert (
        not (out / "manifest.txt").exists() and report.finalized is False
    )  # finalize skipped on failure
    # the failed input is redone (and fails again) on a rerun; the others are resumed
    again = engine.run(fake([tmp_path / "in"], out, workers=2))
    assert again.inputs_skipped == 5 and len(again.failures) == 1


def test_worker_crash_fails_only_its_task_and_never_hangs(tmp_path, fake, lines):
    for j in range(5):
        lines(
            tmp_path / "in" / f"{j}.txt", ["R http://ok/1 response x"] + (["K"] if j == 1 else [])
        )
    report = engine.run(fake([tmp_path / "in"], tmp_path / "out", workers=2))
    assert [f["input"].endswith("1.txt") for f in report.failures] == [True]
    assert "worker process" in report.failures[0]["error"] and "died" in report.failures[0]["error"]
    assert report.inputs_done == 4
    assert sorted(p.name for p in (tmp_path / "out").glob("*.out")) == [
        f"{j}.txt.out" for j in (0, 2, 3, 4)
    ]


_LOCK_HOLDER_RUN = """
import json, sys
sys.path.insert(0, {fake_dir!r})
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec

if __name__ == "__main__":
    spec = PipelineSpec.model_validate({spec!r})
    report = engine.run(spec)
    print(json.dumps({{"failures": report.failures, "done": report.inputs_done}}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("crasher", [0, 1, 4])
def test_worker_dying_with_the_event_queue_lock_held_never_hangs(tmp_path, lines, crasher):
    """A worker killed while its progress post holds the event queue's write lock (a
    cross-process semaphore nobody will release) must not block the other workers, the
    retries of the tasks in flight, nor their exit: the run ends with only that task failed."""
    import subprocess
    import sys

    from tests.core.conftest import FAKE_DIR

    for j in range(5):
        lines(
            tmp_path / "in" / f"{j}.txt",
            ["R http://ok/1 response x"] + (["L"] if j == crasher else []),
        )
    spec = {
        "inputs": {"paths": [str(tmp_path / "in")]},
        "reader": {"name": "fake-lines", "options": {}},
        "writer": {"name": "fake-jsonl", "options": {}},
        "output": str(tmp_path / "out"),
        "run": {"workers": 2, "progress": "never"},
        "plugins": ["cm_fake"],
    }
    script = tmp_path / "run_it.py"
    script.write_text(_LOCK_HOLDER_RUN.format(fake_dir=str(FAKE_DIR), spec=spec))
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired as exc:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the run hung after a worker died holding the queue lock") from exc
    assert proc.returncode == 0, err[-3000:]
    result = json.loads(out.strip().splitlines()[-1])
    assert [f["input"].endswith(f"{crasher}.txt") for f in result["failures"]] == [True]
    assert result["done"] == 4
    assert sorted(p.name for p in (tmp_path / "out").glob("*.out")) == [
        f"{j}.txt.out" for j in range(5) if j != crasher
    ]


@pytest.mark.parametrize(
    "template", ["../../escaped-{relpath}", "/tmp/escaped-crawlmill-{relpath}", ".crawlmill/done/x"]
)
def test_output_path_escape_is_refused_and_writes_nothing(tmp_path, fake, lines, template):
    src = lines(tmp_path / "in" / "a.txt", ["R http://ok/1 response x"])
    out = tmp_path / "deep" / "out"
    report = engine.run(fake([src], out, writer_options={"path": template}))
    assert len(report.failures) == 1 and "UnsafeOutputPath" in report.failures[0]["error"]
    assert not (tmp_path / "escaped-a.txt").exists() and not os.path.exists(
        "/tmp/escaped-crawlmill-a.txt"
    )
    files = [p for p in out.rglob("*") if p.is_file() and p.name not in ("lock", "report.json")]
    # the run's bookkeeping only: the stage listing (which names the failed task)
    assert [p.relative_to(out).as_posix() for p in files] == [".crawlmill/stages/convert.json"]


def test_finalize_sees_every_input_in_order_also_when_resumed(tmp_path, fake, lines):
    for j in range(3):
        lines(tmp_path / "in" / f"{j}.txt", [f"R http://ok/{k} response x" for k in range(j + 1)])
    out = tmp_path / "out"
    engine.run(fake([tmp_path / "in"], out, workers=2))
    manifest = (out / "manifest.txt").read_text().splitlines()
    assert [line.split()[0] for line in manifest] == ["0", "1", "2"]
    assert [line.split()[-1] for line in manifest] == [
        "1",
        "2",
        "3",
    ]  # writer notes reached finalize
    for line in manifest:
        _, path, size, md5, _ = line.split()
        data = (out / path).read_bytes()
        assert len(data) == int(size)
        assert hashlib.md5(data).hexdigest() == md5
    (out / "manifest.txt").unlink()
    report = engine.run(fake([tmp_path / "in"], out, workers=2))
    assert report.inputs_skipped == 3 and report.finalized
    assert (out / "manifest.txt").read_text().splitlines() == manifest


def test_duplicate_filters_get_numbered_labels(tmp_path, fake, lines):
    src = lines(
        tmp_path / "a.txt",
        ["R http://ok/1 request x", "R http://ok/2 response x", "R http://ok/3 metadata x"],
    )
    filters = [
        ("fake-kind", {"keep": ["response", "request"]}),
        ("fake-kind", {"keep": ["response"]}),
    ]
    report = engine.run(fake([src], tmp_path / "out", filters=filters))
    assert filter_labels(["fake-kind", "x", "fake-kind"]) == ["fake-kind#0", "x", "fake-kind#2"]
    assert report.dropped == {"fake-kind#0": {"wrong-kind": 1}, "fake-kind#1": {"wrong-kind": 1}}


def test_task_accounting_mismatch_is_an_error():
    stats = TaskStats(read=3, records=3, received=3, filters={})
    stats.check()
    stats.received = 2
    with pytest.raises(AccountingError):
        stats.check()
    stats = TaskStats(
        read=2, records=2, received=1, filters={"f": {"in": 2, "kept": 1, "dropped": {"x": 0}}}
    )
    with pytest.raises(AccountingError, match="filter f"):
        stats.check()


def test_progress_line_only_when_enabled_and_logs_always():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    cases = [
        (io.StringIO(), "auto", False),
        (Tty(), "auto", True),
        (io.StringIO(), "always", True),
        (Tty(), "never", False),
    ]
    for stream, mode, shown in cases:
        channel = Channel(queue.Queue(), threading.Event())
        with ProgressMonitor(channel, stream, mode, 2, 2000) as monitor:
            channel.post(("progress", "k", 10, 1000))
            channel.post(("log", "crawlmill: damage here"))
            deadline = time.monotonic() + 5
            while monitor.records < 10 and time.monotonic() < deadline:
                time.sleep(0.01)
            monitor.task_done("k", 1500)
        text = stream.getvalue()
        assert "crawlmill: damage here\n" in text
        assert ("inputs, " in text) == shown
        if shown:
            last = text.rstrip("\n").split("\n")[-1].split("\r\x1b[K")[-1]
            assert last.startswith("crawlmill: 1/2 inputs, 10 records, 1.5 kB of 2.0 kB (75%), ")


def test_on_error_fail_holds_even_when_the_reader_swallows_the_error(tmp_path, fake, lines):
    bad = lines(
        tmp_path / "a.txt", ["R http://ok/1 response x", "D first", "R http://ok/2 response y"]
    )
    with pytest.raises(DamagedRecordError, match=r"at byte 25: first"):
        engine.run(fake([bad], tmp_path / "out", on_error="fail", reader_options={"swallow": True}))
    assert not (tmp_path / "out" / "a.txt.out").exists()


def test_detected_reader_runs_in_workers_and_marker_lists_outputs(tmp_path, fake, lines):
    for j in range(3):
        lines(tmp_path / "in" / f"{j}.txt", [f"R http://ok/{j} response x"])
    out = tmp_path / "out"
    report = engine.run(fake([tmp_path / "in"], out, reader=None, workers=2))
    assert report.ok and report.written == 3
    markers = [json.loads(p.read_text()) for p in (out / ".crawlmill" / "done").glob("*.json")]
    assert sorted(m["input"] for m in markers) == ["0.txt", "1.txt", "2.txt"]
    for m in markers:
        assert m["reader"] == "fake-lines" and m["notes"] == {"records": 1}
        (entry,) = m["outputs"]
        data = (out / entry["path"]).read_bytes()
        assert entry["size"] == len(data) and entry["md5"] == hashlib.md5(data).hexdigest()
        assert m["stats"]["read"] == 1 and m["fingerprint"] == report.fingerprint


def test_reader_warnings_are_counted_per_message(tmp_path, fake, lines):
    for j in range(2):
        lines(
            tmp_path / "in" / f"{j}.txt",
            ["W lf-endings", "R http://ok/1 response x", "W lf-endings", "W bad-date"],
        )
    report = engine.run(fake([tmp_path / "in"], tmp_path / "out", workers=2))
    assert report.warnings == {"lf-endings": 4, "bad-date": 2}
    assert report.read == 2 and report.quarantined == 0  # warnings are not damage


def test_progress_events_arriving_after_their_task_are_not_counted_twice():
    channel = Channel(queue.Queue(), threading.Event())
    monitor = ProgressMonitor(channel, io.StringIO(), "never", 1, 1000)
    monitor._handle(("progress", "k", 5, 400))
    monitor.task_done("k", 1000)
    monitor._handle(("progress", "k", 2, 600))  # flushed by the worker after its result
    assert monitor.bytes == 1000 and monitor.records == 7
