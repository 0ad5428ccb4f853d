"""Collect/reduce passes through the CLI: a run killed with SIGKILL in a collect pass or in a
reduce ends, when started again, byte-identical to an uninterrupted run without redoing the
finished passes or collect tasks; a changed option of a later component keeps an earlier
pass; a changed input redoes the passes and every final task that reads their tables; a
writer's collect step and ``ctx.seq``; the pass id at the mechanism."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.helpers import FAKE_DIR, put_fake_plugins_on_path


def warc(n: int, url: str, date: str, body: bytes) -> bytes:
    """A WARC/1.0 resource record numbered ``n``."""
    header = (
        f"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return header + body + b"\r\n\r\n"


#: per input: (url, date, body); duplicates within and across inputs, hosts with one record.
INPUTS = [
    [("http://a.ex/1", "2020", b"a1"), ("http://b.ex/", "2020", b"b"), ("http://a.ex/1", "2021", b"a1-again")],
    [("http://a.ex/2", "2020", b"a2"), ("http://lonely.ex/", "2020", b"l"), ("http://b.ex/", "2019", b"b-old")],
    [("http://a.ex/1", "2019", b"a1-old"), ("http://c.ex/", "2020", b"c"), ("http://c.ex/2", "2020", b"c2")],
]  # fmt: skip


def make_inputs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    n = 0
    for i, records in enumerate(INPUTS):
        data = b""
        for url, year, body in records:
            n += 1
            data += warc(n, url, f"{year}-01-01T00:00:00Z", body)
        (folder / f"in-{i}.warc").write_bytes(data)
    return folder


@pytest.fixture(autouse=True)
def plugins(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def args(src: Path, out: Path, *extra: str, host_min: int = 2, workers: int = 1) -> list[str]:
    return [
        "convert", str(src), "-o", str(out), "--to", "warc", "--option", "gzip_backend=zlib",
        "--filter", "url-dedup", "--filter", "host-min", f"min={host_min}",
        "--plugin", "cm_passes", "--workers", str(workers), "--progress", "never", *extra,
    ]  # fmt: skip


def outputs(out: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and ".crawlmill" not in p.parts
    }


def pass_dirs(out: Path) -> dict[str, Path]:
    """Component name -> pass folder."""
    found = {}
    for info in (out / ".crawlmill" / "passes").glob("*/pass.json"):
        found[json.loads(info.read_text())["name"]] = info.parent
    return found


def stamps(folder: Path) -> dict[str, tuple[int, int]]:
    """File -> (inode, mtime_ns) of every file below ``folder``: a rewritten file changes."""
    return {
        str(p.relative_to(folder)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def run_killed(argv: list[str], block: str, flag: Path, while_blocked=None) -> None:
    """Run the CLI in a subprocess that blocks at ``block``; SIGKILL it there (after calling
    ``while_blocked()``)."""
    code = "import sys; from crawlmill.core.commands.cli import main; sys.exit(main(sys.argv[1:]))"
    env = dict(
        os.environ,
        CM_PASSES_BLOCK=block,
        CM_PASSES_FLAG=str(flag),
        PYTHONPATH=os.pathsep.join([str(FAKE_DIR), *sys.path]),
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *argv],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while not flag.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before blocking: {proc.stderr.read().decode()}")
        assert time.monotonic() < deadline, "the run never reached the blocking point"
        time.sleep(0.05)
    try:
        if while_blocked is not None:
            while_blocked()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


@pytest.fixture
def reference(tmp_path) -> dict[str, bytes]:
    """The outputs of an uninterrupted run."""
    src = make_inputs(tmp_path / "in")
    assert main(args(src, tmp_path / "ref")) == 0
    files = outputs(tmp_path / "ref")
    assert files  # something to compare
    return files


def test_kill_in_collect_pass_resumes_without_redoing_finished_work(tmp_path, reference, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    run_killed(args(src, out), "collect:1", tmp_path / "flag")
    dirs = pass_dirs(out)
    first = dirs["url-dedup"]
    assert (first / "done.json").exists()  # pass 1 finished before the kill
    assert not (dirs["host-min"] / "done.json").exists()
    done_tasks = sorted(p.name for p in (dirs["host-min"] / "tasks").glob("*[0-9].json"))
    assert done_tasks == ["000000.json"]  # input 0 collected, input 1 killed in its collect
    before = stamps(first)
    task0 = stamps(dirs["host-min"] / "tasks")
    capsys.readouterr()

    assert main(args(src, out)) == 0
    assert outputs(out) == reference
    assert stamps(first) == before  # the finished pass was not redone
    after = stamps(dirs["host-min"] / "tasks")
    for name in ("000000.json", "000000.arrow"):
        assert after[name] == task0[name]  # the finished collect task was not redone
    err = capsys.readouterr().err
    assert "url-dedup" in err and "complete (kept from an earlier run)" in err
    assert "collecting 2 of 3 input(s)" in err


def test_kill_in_reduce_resumes_with_the_reduce_only(tmp_path, reference, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    run_killed(args(src, out), "reduce", tmp_path / "flag")
    dirs = pass_dirs(out)
    assert (dirs["url-dedup"] / "done.json").exists()
    assert (dirs["host-min"] / "reduce.start.json").exists()
    assert not (dirs["host-min"] / "done.json").exists()
    before = {name: stamps(path) for name, path in dirs.items()}
    before["host-min"] = stamps(dirs["host-min"] / "tasks")
    capsys.readouterr()

    assert main(args(src, out)) == 0
    assert outputs(out) == reference
    assert stamps(dirs["url-dedup"]) == before["url-dedup"]
    tasks_after = stamps(dirs["host-min"] / "tasks")
    assert {k: v for k, v in tasks_after.items() if not k.endswith("start.json")} == {
        k: v for k, v in before["host-min"].items() if not k.endswith("start.json")
    }  # no collect task ran again
    err = capsys.readouterr().err
    # the reduce ran again (host-min sets no reduce_summary: the default words)
    assert "collecting" not in err and "record(s) collected, " in err


def test_changed_option_of_a_later_component_keeps_the_earlier_pass(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(args(src, out)) == 0
    first = pass_dirs(out)["url-dedup"]
    old_second = pass_dirs(out)["host-min"]
    before = stamps(first)
    capsys.readouterr()
    assert main(args(src, out, "--overwrite", host_min=3)) == 0
    assert stamps(first) == before
    assert pass_dirs(out)["host-min"] != old_second and not old_second.exists()
    assert main(args(src, tmp_path / "fresh", host_min=3)) == 0
    assert outputs(out) == outputs(tmp_path / "fresh")


def test_changed_input_redoes_the_final_task_of_an_unchanged_input(tmp_path):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(args(src, out)) == 0
    kept = outputs(out)
    assert b"http://c.ex/2" in gzip.decompress(kept["in-2.warc.gz"])
    # input 0 gains the first capture of http://c.ex/2: input 2's copy is now a duplicate,
    # although input 2 itself did not change
    with open(src / "in-0.warc", "ab") as fh:
        fh.write(warc(99, "http://c.ex/2", "2020-01-01T00:00:00Z", b"c2-first"))
    assert main(args(src, out)) == 0
    assert main(args(src, tmp_path / "fresh")) == 0
    assert outputs(out) == outputs(tmp_path / "fresh")
    assert b"http://c.ex/2" not in gzip.decompress(outputs(out)["in-2.warc.gz"])
    assert len(list((out / ".crawlmill" / "passes").iterdir())) == 2  # old ids removed


@pytest.mark.slow
def test_writer_collect_step_and_seq(tmp_path):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    argv = ["convert", str(src), "-o", str(out), "--to", "seq-lines", "--plugin", "cm_passes"]
    assert main([*argv, "--filter", "url-dedup", "--progress", "never", "--workers", "2"]) == 0
    lines = [(out / f"in-{i}.warc.seq").read_text().splitlines() for i in range(3)]
    # url-dedup (first) drops the later captures of http://a.ex/1 and http://b.ex/; the
    # writer numbers what reaches it, as its collect pass did
    assert lines[0] == ["0 http://a.ex/1 1/1", "1 http://b.ex/ 1/1"]
    assert lines[1] == ["0 http://a.ex/2 1/1", "1 http://lonely.ex/ 1/1"]
    assert lines[2] == ["0 http://c.ex/ 1/1", "1 http://c.ex/2 1/1"]


def test_pass_id_depends_on_what_the_pass_reads(tmp_path):
    from crawlmill.core.components import resolve_pipeline
    from crawlmill.core.inputs import expand_inputs
    from crawlmill.core.registry import Registry
    from crawlmill.core.run.passes import plan_passes
    from crawlmill.core.spec import ComponentSpec, InputSpec, PipelineSpec

    src = make_inputs(tmp_path / "in")

    def ids(dedup: dict, host: dict, writer: str = "warc", more: tuple = ()) -> list[str]:
        spec = PipelineSpec(
            inputs=InputSpec(paths=[str(src)]),
            filters=[
                ComponentSpec(name="url-dedup", options=dedup),
                ComponentSpec(name="host-min", options=host),
            ],
            writer=ComponentSpec(name=writer),
            output=str(tmp_path / "out"),
            plugins=["cm_passes", *more],
        )
        registry = Registry.load(spec.plugins)
        pipeline = resolve_pipeline(spec, registry)
        return [
            p.id
            for p in plan_passes(spec, registry, pipeline, expand_inputs(spec, registry)).passes
        ]

    base = ids({}, {"min": 2})
    assert len(base) == 2 and base == ids({}, {"min": 2})
    assert ids({}, {"min": 3})[0] == base[0] != ids({"rule": "latest"}, {"min": 2})[0]
    assert ids({}, {"min": 3})[1] != base[1]
    assert ids({"rule": "latest"}, {"min": 2})[1] != base[1]  # it reads the earlier table
    assert len(ids({}, {"min": 2}, "seq-lines")) == 3  # the writer's pass comes last
    assert ids({}, {"min": 2}, "seq-lines")[:2] == base  # a later writer keeps them
    assert ids({}, {"min": 2}, more=("cm_fake",)) == base  # a plugin no pass component uses
    (src / "in-1.warc").write_bytes((src / "in-1.warc").read_bytes() + b"")
    os.utime(src / "in-1.warc", ns=(1, 1))
    assert ids({}, {"min": 2})[0] != base[0]  # mtime of an input


def status(out: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["status", str(out), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_status_of_a_running_then_killed_run_then_resumed(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    seen = {}

    def look():
        seen["running"] = status(out, capsys)
        assert main(["status", str(out)]) == 0
        seen["text"] = capsys.readouterr().out

    run_killed(args(src, out, workers=2), "collect:1", tmp_path / "flag", look)
    running = seen["running"]
    assert running["state"] == "running"
    assert not {"passes", "final"} & set(running)  # the stage listings answer alone
    stages = {s["label"]: s for s in running["stages"]}
    assert list(stages) == [
        "collect for url-dedup", "reduce for url-dedup", "collect for host-min",
        "reduce for host-min", "write (final pass)",
    ]  # fmt: skip
    assert stages["collect for url-dedup"]["state"] == "done"
    second = stages["collect for host-min"]
    assert second["state"] == "running"
    assert second["tasks"]["running"] >= 1 and second["tasks"]["total"] == 3
    assert "in-1.warc" in [t["input"] for t in second["running"]]
    assert stages["write (final pass)"]["tasks"] == {
        "total": 3, "done": 0, "running": 0, "failed": 0, "pending": 3
    }  # fmt: skip
    assert "(collect for host-min): running" in seen["text"]
    assert "running: in-1.warc" in seen["text"]

    killed = status(out, capsys)
    assert killed["state"] == "killed"
    stages = {s["label"]: s for s in killed["stages"]}
    assert stages["collect for url-dedup"]["state"] == "done"
    collect = stages["collect for host-min"]
    assert collect["state"] == "interrupted" and collect["failed"] == []
    assert collect["tasks"]["running"] == 0
    assert collect["tasks"]["done"] + collect["tasks"]["pending"] == 3
    # a root written before listings: each pass's own reader, as before
    listings = out / ".crawlmill" / "stages"
    kept = {p.name: p.read_bytes() for p in listings.iterdir()}
    shutil.rmtree(listings)
    second = status(out, capsys)["passes"][1]
    assert second["state"] in ("interrupted", "pending") and second["tasks"]["running"] == 0
    assert second["tasks"]["done"] == collect["tasks"]["done"]
    listings.mkdir()
    for name, data in kept.items():
        (listings / name).write_bytes(data)
    # killed with a pool of 2 workers: the rerun ends as an uninterrupted run does
    assert main(args(src, out, workers=2)) == 0
    assert main(args(src, tmp_path / "fresh")) == 0
    assert outputs(out) == outputs(tmp_path / "fresh")
    assert status(out, capsys)["state"] == "finished"


def test_status_names_the_reason_of_a_failed_collect_task(tmp_path, capsys, monkeypatch):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    monkeypatch.setenv("CM_PASSES_FAIL", "collect:1")
    assert main(args(src, out)) == 1
    err = capsys.readouterr().err
    assert "in-1.warc" in err and "test failure at collect:1" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["inputs_cancelled"] == 3 and report["written"] == 0
    data = status(out, capsys)
    assert data["state"] == "failed"
    second = [s for s in data["stages"] if s["label"] == "collect for host-min"][0]
    assert second["state"] == "failed" and second["tasks"]["failed"] == 1
    assert second["failed"] == [
        {"input": "in-1.warc", "error": "RuntimeError: test failure at collect:1"}
    ]
    assert main(["status", str(out)]) == 0
    assert "failed: in-1.warc: RuntimeError: test failure at collect:1" in capsys.readouterr().out
    monkeypatch.delenv("CM_PASSES_FAIL")
    assert main(args(src, out)) == 0  # the rerun redoes the failed task and goes on
    assert {s["state"] for s in status(out, capsys)["stages"]} == {"done"}


def test_status_of_finished_runs_and_of_other_folders(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(args(src, out)) == 0
    data = status(out, capsys)
    assert data["state"] == "finished" and data["accounting"].startswith("read 9 = written 4")
    assert [(s["label"], s["state"]) for s in data["stages"]] == [
        ("collect for url-dedup", "done"), ("reduce for url-dedup", "done"),
        ("collect for host-min", "done"), ("reduce for host-min", "done"),
        ("write (final pass)", "done"),
    ]  # fmt: skip
    assert data["stages"][-1]["tasks"]["done"] == 3 and data["stages"][-1]["failed"] == []
    shutil.rmtree(out / ".crawlmill" / "stages")  # as a root written before listings
    data = status(out, capsys)
    assert [(p["name"], p["state"]) for p in data["passes"]] == [
        ("url-dedup", "done"),
        ("host-min", "done"),
    ]
    assert data["final"]["tasks"]["done"] == 3 and data["final"]["failed"] == []
    plain = tmp_path / "plain"
    assert main(["convert", str(src), "-o", str(plain), "--progress", "never"]) == 0
    data = status(plain, capsys)
    assert [s["name"] for s in data["stages"]] == ["convert"]
    assert data["stages"][0]["tasks"]["done"] == 3
    assert main(["status", str(src)]) == 2


def test_no_resume_redoes_the_passes(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    assert main(args(src, out)) == 0
    capsys.readouterr()
    assert main(args(src, out)) == 0  # everything complete: no pass runs
    assert "pass " not in capsys.readouterr().err
    assert main(args(src, out, "--no-resume")) == 0
    err = capsys.readouterr().err
    assert err.count("collecting 3 of 3 input(s)") == 2


def test_a_failed_reduce_stops_the_run_and_status_names_it(tmp_path, capsys, monkeypatch):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    monkeypatch.setenv("CM_PASSES_FAIL", "reduce")
    assert main(args(src, out)) == 1
    assert "pass host-min (reduce): RuntimeError: test failure at reduce" in capsys.readouterr().err
    assert outputs(out) == {}  # the final pass did not run
    error = "pass host-min (reduce): RuntimeError: test failure at reduce"
    stages = {s["label"]: s for s in status(out, capsys)["stages"]}
    assert stages["collect for host-min"]["state"] == "done"
    reduce = stages["reduce for host-min"]
    assert reduce["state"] == "failed" and reduce["failed"] == [
        {"input": "(reduce)", "error": error}
    ]
    shutil.rmtree(out / ".crawlmill" / "stages")  # as a root written before listings
    second = status(out, capsys)["passes"][1]
    assert second["state"] == "failed" and second["tasks"]["done"] == 3
    assert second["failed"] == [{"input": None, "error": error}]
    monkeypatch.delenv("CM_PASSES_FAIL")
    capsys.readouterr()
    assert main(args(src, out)) == 0
    assert "collecting" not in capsys.readouterr().err  # its collect tasks were kept


def test_a_collect_task_runs_from_its_payload_as_json(tmp_path):
    """What another executor (Spark) ships: the payload through JSON, run by the module-level
    task function; its result is JSON too."""
    from crawlmill.core.components import resolve_pipeline
    from crawlmill.core.inputs import expand_inputs
    from crawlmill.core.registry import Registry
    from crawlmill.core.run.pass_tasks import collect_payload, collect_task
    from crawlmill.core.run.passes import plan_passes
    from crawlmill.core.run.tables import load_table
    from crawlmill.core.spec import ComponentSpec, InputSpec, PipelineSpec

    src = make_inputs(tmp_path / "in")
    spec = PipelineSpec(
        inputs=InputSpec(paths=[str(src)]),
        filters=[ComponentSpec(name="host-min")],
        writer=ComponentSpec(name="warc"),
        output=str(tmp_path / "out"),
        plugins=["cm_passes"],
    )
    registry = Registry.load(spec.plugins)
    planned = expand_inputs(spec, registry)
    [p] = plan_passes(spec, registry, resolve_pipeline(spec, registry), planned).passes
    payload = collect_payload(
        spec.model_dump(mode="json"), planned[2].input, planned[2].reader, 3, p.info(), {}
    )
    result = collect_task(json.loads(json.dumps(payload)))
    assert json.loads(json.dumps(result)) == result
    assert result["status"] == "ok" and result["rows"] == 3
    rows = load_table(str(Path(p.dir) / "tasks" / "000002.arrow"))
    assert rows.to_pydict() == {
        "host": ["a.ex", "c.ex", "c.ex"],
        "input": [2, 2, 2],
        "seq": [0, 1, 2],
    }


def test_progress_of_the_collect_passes(tmp_path, capsys):
    src, out = make_inputs(tmp_path / "in"), tmp_path / "out"
    argv = [a if a != "never" else "always" for a in args(src, out)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    # a last progress line for each collect pass and for the final pass, each after its
    # pass's first line
    lines = [line.split("\r\x1b[K")[-1] for line in err.split("\n")]
    finals = [i for i, line in enumerate(lines) if re.match(r"crawlmill: .*3/3 inputs, 9 ", line)]
    # each names its pass (issue 24): two collect passes, then the final one
    labels = [lines[i].split(": ")[1] for i in finals]
    assert [x.split(" for ")[0] for x in labels] == ["collect", "collect", "write (final pass)"]
    starts = [i for i, line in enumerate(lines) if "collecting 3 of 3" in line]
    assert len(finals) == 3 and len(starts) == 2
    assert starts[0] < finals[0] < starts[1] < finals[1] < finals[2]
