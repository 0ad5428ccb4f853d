"""``crawlmill status OUT`` reads every stage from its listing (``OUT/.crawlmill/stages/
<name>.json``, written by ``run_stages`` at the start and end of each stage) through one code
path: a plain conversion, a two-pass url-dedup run (collect and driver reduce stages), a split
reduce and a sorted shuffle, each finished and failed; a root without ``stages/`` (written
before listings existed) is still read by the older readers."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.core.test_passes import args, make_inputs
from tests.helpers import put_fake_plugins_on_path


@pytest.fixture(autouse=True)
def plugins(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def status(out: Path, capsys) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["status", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert main(["status", str(out)]) == 0
    return data, capsys.readouterr().out


def by_label(data: dict) -> dict[str, dict]:
    return {s["label"] or s["name"]: s for s in data["stages"]}


def test_a_plain_conversion_is_one_stage_and_an_old_root_is_read_as_before(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(["convert", str(src), "-o", str(out), "--progress", "never"]) == 0
    data, text = status(out, capsys)
    (stage,) = data["stages"]
    assert (stage["name"], stage["state"], stage["failed"]) == ("convert", "done", [])
    assert stage["tasks"] == {"total": 3, "done": 3, "running": 0, "failed": 0, "pending": 0}
    assert "stage convert (convert): done: 3/3 done, 0 failed, 0 not done" in text
    listing = json.loads((out / ".crawlmill" / "stages" / "convert.json").read_text())
    assert [t["name"] for t in listing["tasks"]] == ["in-0.warc", "in-1.warc", "in-2.warc"]
    assert all((out / ".crawlmill" / t["marker"]).is_file() for t in listing["tasks"])
    # a task whose marker went missing is not done, whatever the listing said when written
    os.remove(out / ".crawlmill" / listing["tasks"][1]["marker"])
    (stage,) = status(out, capsys)[0]["stages"]
    assert stage["state"] == "incomplete" and stage["tasks"]["done"] == 2

    # the listings alone answer: no per-mechanism keys, no line said twice
    assert not {"passes", "final", "shuffle"} & set(data)
    assert "final pass" not in text and len(text.splitlines()) == len(set(text.splitlines()))

    # a root written before listings: no "stages", the older readers answer as before
    old = tmp_path / "old"
    assert main(["convert", str(src), "-o", str(old), "--progress", "never"]) == 0
    new, new_text = status(old, capsys)
    shutil.rmtree(old / ".crawlmill" / "stages")
    before, before_text = status(old, capsys)
    assert "stages" not in before and "stage " not in before_text
    assert {k: v for k, v in new.items() if k != "stages"} == {
        k: v for k, v in before.items() if k not in ("passes", "final")
    }
    assert before["passes"] == [] and before["final"]["tasks"]["done"] == 3
    assert before["state"] == "finished"
    assert "final pass: 3/3 done, 0 running, 0 failed, 0 pending" in before_text


def test_a_failed_plain_conversion_names_the_input(tmp_path, capsys, monkeypatch):
    from crawlmill.core.run import engine
    from crawlmill.core.spec import PipelineSpec
    from crawlmill.plugins.writers import warc

    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": [str(src)]}, "writer": {"name": "warc"}, "output": str(out),
         "run": {"workers": 1, "progress": "never"}}
    )  # fmt: skip
    real = warc.WarcWriter.open

    def failing_open(self, ctx):
        if ctx.input.relpath == "in-1.warc":
            raise RuntimeError("disk on fire")
        return real(self, ctx)

    monkeypatch.setattr(warc.WarcWriter, "open", failing_open)
    assert not engine.run(spec, progress=open(os.devnull, "w")).ok  # noqa: SIM115
    data, text = status(out, capsys)
    (stage,) = data["stages"]
    assert stage["state"] == "failed"
    assert (stage["tasks"]["done"], stage["tasks"]["failed"]) == (2, 1)
    ((failed),) = stage["failed"]
    assert failed["input"] == "in-1.warc" and "disk on fire" in failed["error"]
    assert "stage convert (convert): failed: 2/3 done, 1 failed, 0 not done" in text
    assert "  failed: in-1.warc: " in text


def test_a_two_pass_url_dedup_run_lists_collect_reduce_and_write(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(args(src, out)) == 0
    data, text = status(out, capsys)
    stages = by_label(data)
    assert list(stages) == [
        "collect for url-dedup", "reduce for url-dedup",
        "collect for host-min", "reduce for host-min", "write (final pass)",
    ]  # fmt: skip
    assert {s["state"] for s in stages.values()} == {"done"}
    assert stages["collect for host-min"]["tasks"]["done"] == 3
    assert stages["reduce for host-min"]["tasks"]["total"] == 1
    assert "(write (final pass)): done: 3/3 done" in text


def test_a_failed_collect_task_and_a_failed_driver_reduce(tmp_path, capsys, monkeypatch):
    src = make_inputs(tmp_path / "in")
    monkeypatch.setenv("CM_PASSES_FAIL", "collect:1")
    assert main(args(src, tmp_path / "a")) == 1
    stages = by_label(status(tmp_path / "a", capsys)[0])
    assert stages["collect for url-dedup"]["state"] == "done"
    collect = stages["collect for host-min"]
    assert collect["state"] == "failed" and collect["tasks"]["done"] == 2
    assert collect["failed"] == [
        {"input": "in-1.warc", "error": "RuntimeError: test failure at collect:1"}
    ]
    # one graph: the stages after the failed one are listed, never started
    assert stages["reduce for host-min"]["state"] == "not run"
    final = stages["write (final pass)"]
    assert final["state"] == "not run" and final["tasks"]["done"] == 0
    assert final["depends"] == [stages["reduce for host-min"]["name"]]

    monkeypatch.setenv("CM_PASSES_FAIL", "reduce")
    assert main(args(src, tmp_path / "b")) == 1
    data, text = status(tmp_path / "b", capsys)
    reduce = by_label(data)["reduce for host-min"]
    assert reduce["state"] == "failed" and reduce["tasks"]["failed"] == 1
    error = "pass host-min (reduce): RuntimeError: test failure at reduce"
    assert reduce["failed"] == [{"input": "(reduce)", "error": error}]
    assert f"failed: (reduce): {error}" in text
    monkeypatch.delenv("CM_PASSES_FAIL")
    assert main(args(src, tmp_path / "b")) == 0  # the rerun: the listing follows
    assert {s["state"] for s in status(tmp_path / "b", capsys)[0]["stages"]} == {"done"}


def test_a_finished_sorted_shuffle_lists_its_map_and_partition_stages(
    tmp_path, capsys, monkeypatch
):
    from crawlmill.core.run import engine
    from crawlmill.core.spec import PipelineSpec

    from tests.core.test_shuffle_kill import FAKE_DIR, _inputs, _spec

    monkeypatch.syspath_prepend(str(FAKE_DIR))
    src, out = _inputs(tmp_path, n=3, records=4), tmp_path / "out"
    data = _spec(src, out, 2, 0.0).model_dump(mode="json")
    data["run"]["workers"] = 1
    assert engine.run(PipelineSpec.model_validate(data), progress=open(os.devnull, "w")).ok  # noqa: SIM115
    status_data, text = status(out, capsys)
    stages = {s["name"]: s for s in status_data["stages"]}
    assert list(stages) == ["shuffle-map", "shuffle-partition"]
    assert stages["shuffle-map"]["tasks"]["done"] == 3
    assert stages["shuffle-partition"]["tasks"] == {
        "total": 2, "done": 2, "running": 0, "failed": 0, "pending": 0
    }  # fmt: skip
    assert "stage shuffle-map (shuffle map): done: 3/3 done" in text
    assert "stage shuffle-partition (shuffle write): done: 2/2 done" in text
