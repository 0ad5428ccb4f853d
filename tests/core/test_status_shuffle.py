"""``crawlmill status OUT`` of a sorted-shuffle run shows its map stage and its partition
stage from their listings (tasks done, running, failed, pending), also as ``--json``: while
it runs, after it was killed with SIGKILL in the map stage, and once the rerun finished; a
failed partition names its reason. The same root with its listings removed (as written
before listings existed) is read by the shuffle's own reader as before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time

import pytest
from crawlmill.core.commands.cli import main

from tests.core.test_shuffle_kill import _files, _inputs, _spawn, _spec


def _status(out, capsys) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["status", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["status", str(out)]) == 0
    return data, capsys.readouterr().out


@pytest.mark.slow
def test_status_of_a_shuffle_running_killed_in_the_map_pass_and_rerun(tmp_path, capsys):
    src, out = _inputs(tmp_path), tmp_path / "out"
    spec = _spec(src, out, 4, 0.03)
    proc = _spawn(spec)
    meta = out / ".crawlmill"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(_files(meta, "passes/*/map/*.json")) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()[1].decode()
    # a snapshot with a map task running: between two tasks a worker holds none (two tasks
    # of the same length end together), so look again until one does (or the map pass ends)
    while True:
        running, text = _status(out, capsys)
        maps = _stages(running)["shuffle-map"]["tasks"]
        if maps["running"] or maps["done"] == maps["total"] or proc.poll() is not None:
            break
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

    assert running["state"] == "running"
    assert not {"passes", "final", "shuffle"} & set(running)  # the stage listings answer
    maps = _stages(running)["shuffle-map"]
    assert maps["state"] == "running" and maps["tasks"]["total"] == 12
    assert maps["tasks"]["done"] >= 2 and maps["tasks"]["running"] >= 1
    assert maps["tasks"]["failed"] == 0
    assert sum(maps["tasks"][k] for k in ("done", "running", "pending")) == 12
    assert {t["input"] for t in maps["running"]} <= {f"{j:03d}.txt" for j in range(12)}
    parts = _stages(running)["shuffle-partition"]
    assert parts["state"] == "pending" and parts["depends"] == ["shuffle-map"]
    assert parts["tasks"] == {"total": 4, "done": 0, "running": 0, "failed": 0, "pending": 4}
    assert "stage shuffle-map (shuffle map): running: " in text and "  running: " in text
    assert "stage shuffle-partition (shuffle write): pending: 0/4 done, 0 failed, 4 not done" in (
        text
    )

    finished = len(_files(meta, "passes/*/map/*.json"))
    killed, text = _status(out, capsys)
    assert killed["state"] == "killed"
    maps = _stages(killed)["shuffle-map"]
    assert maps["state"] == "interrupted" and maps["tasks"]["running"] == 0
    assert maps["tasks"]["done"] == finished and 2 <= finished < 12
    assert maps["tasks"]["pending"] == 12 - finished
    assert _stages(killed)["shuffle-partition"]["tasks"]["done"] == 0
    assert f"stage shuffle-map (shuffle map): interrupted: {finished}/12 done" in text

    rerun = _spawn(spec)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    done, text = _status(out, capsys)
    assert done["state"] == "finished"
    assert _stages(done)["shuffle-map"]["state"] == "done"
    assert _stages(done)["shuffle-map"]["tasks"]["done"] == 12
    assert _stages(done)["shuffle-partition"]["state"] == "done"
    assert _stages(done)["shuffle-partition"]["tasks"]["done"] == 4
    assert "stage shuffle-partition (shuffle write): done: 4/4 done, 0 failed, 0 not done" in text


def _stages(status: dict) -> dict[str, dict]:
    return {s["name"]: s for s in status["stages"]}


def test_status_names_a_failed_partition(tmp_path, capsys, monkeypatch):
    """A partition task that fails (its writer raises) is a failed task of the partition pass,
    with the reason; the map pass is done."""
    from crawlmill.core.run import engine
    from crawlmill.core.spec import PipelineSpec

    from tests.core.test_shuffle_kill import FAKE_DIR

    monkeypatch.syspath_prepend(str(FAKE_DIR))
    src, out = _inputs(tmp_path, n=3, records=4), tmp_path / "out"
    data = _spec(src, out, 3, 0.0).model_dump(mode="json")
    data["run"]["workers"] = 1
    data["writer"]["options"]["sorted"]["partitioning"] = "hash"
    spec = PipelineSpec.model_validate(data)

    from crawlmill.plugins.writers import warc

    real = warc.WarcWriter.open

    def failing_open(self, ctx):
        if ctx.input.relpath == "part-00001":
            raise RuntimeError("disk on fire")
        return real(self, ctx)

    monkeypatch.setattr(warc.WarcWriter, "open", failing_open)
    report = engine.run(spec, progress=open(os.devnull, "w"))  # noqa: SIM115
    assert not report.ok
    errors = [f["error"] for f in report.failures if not f["input"]]
    assert errors == ["1 of 3 shuffle partition task(s) did not complete"]  # not the map's
    assert report.shuffle is not None and report.written == 0
    status, text = _status(out, capsys)
    assert status["state"] == "failed"
    stages = {s["name"]: s for s in status["stages"]}  # from the stage listings
    assert stages["shuffle-map"]["state"] == "done"
    assert stages["shuffle-map"]["tasks"]["done"] == 3
    written = stages["shuffle-partition"]
    assert written["state"] == "failed" and written["tasks"]["done"] == 2
    ((failed),) = written["failed"]
    assert failed["input"] == "part-00001" and "disk on fire" in failed["error"]
    assert "stage shuffle-partition (shuffle write): failed: 2/3 done, 1 failed" in text
    assert "shuffle partition pass" not in text  # no line said twice

    # a root written before listings: the shuffle's own reader, as before
    shutil.rmtree(out / ".crawlmill" / "stages")
    status, text = _status(out, capsys)
    assert "stages" not in status and "stage " not in text
    assert status["shuffle"]["map"]["state"] == "done"
    parts = status["shuffle"]["partition"]
    assert parts["state"] == "failed" and parts["tasks"]["failed"] == 1
    assert parts["tasks"]["done"] == 2
    assert {"input": "part-00001", "error": "shuffle partition 1: RuntimeError: disk on fire"} in (
        parts["failed"]
    )
    assert "failed: part-00001: shuffle partition 1: RuntimeError: disk on fire" in text


@pytest.mark.slow
def test_status_of_a_shuffle_killed_in_the_partition_pass(tmp_path, capsys):
    src, out = _inputs(tmp_path), tmp_path / "out"
    proc = _spawn(_spec(src, out, 40, 0.0))
    meta = out / ".crawlmill"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if len(_files(meta, "done/shuffle-*.json")) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()[1].decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = len(_files(meta, "done/shuffle-*.json"))
    killed, text = _status(out, capsys)
    assert killed["state"] == "killed"
    stages = _stages(killed)
    assert stages["shuffle-map"]["state"] == "done"
    assert stages["shuffle-map"]["tasks"]["done"] == 12
    parts = stages["shuffle-partition"]
    assert parts["state"] == "interrupted" and 2 <= written < 40
    assert parts["tasks"] == {
        "total": 40, "done": written, "running": 0, "failed": 0, "pending": 40 - written
    }  # fmt: skip
    assert f"interrupted: {written}/40 done, 0 failed, {40 - written} not done" in text

    # a root written before listings: the shuffle's own reader, as before
    shutil.rmtree(meta / "stages")
    killed, text = _status(out, capsys)
    parts = killed["shuffle"]["partition"]
    assert killed["shuffle"]["map"]["state"] == "done"
    assert parts["state"] == "interrupted"
    assert f"interrupted: {written}/40 done, 0 running, 0 failed, {40 - written} pending" in text
