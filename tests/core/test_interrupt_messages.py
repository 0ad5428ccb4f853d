"""What a user reads after Ctrl-C (issue 24): the summary says the run was interrupted and that
its accounting covers the inputs it finished (the progress line had shown more records), and
``crawlmill status`` says "interrupted", naming a stage only when the run has stages."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.run.status import format_status

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
RECORDS = 400
#: the CLI with Ctrl-C raising KeyboardInterrupt as from a terminal (see test_interrupt.py).
CLI = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from crawlmill.core.commands.cli import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.mark.slow
def test_ctrl_c_of_a_plain_convert(tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    for j in range(2):  # 400 records of 0.01 s each: 4 s an input
        lines = "".join(f"R http://ex.com/{j}/{k} response p{k}\n" for k in range(RECORDS))
        (src / f"{j}.txt").write_text(lines)
    args = [str(src), "--from", "fake-lines", "--reader-option", "delay=0.01", "--to"]
    args += ["fake-jsonl", "-o", str(out), "--workers", "1", "--plugin", "cm_fake"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKE_DIR), *sys.path]))
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI, "convert", *args, "--progress", "never"],
        env=env,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    tmp = out / ".crawlmill" / "tmp"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not tmp.exists():
        time.sleep(0.01)
    time.sleep(0.5)  # the first input is under way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    stderr = err.decode()
    assert proc.returncode == 130, stderr
    done = len(list((out / ".crawlmill" / "done").glob("*.json")))
    assert done < 2, stderr
    n = RECORDS * done
    assert (
        f"crawlmill: interrupted with {done} of 2 input(s) finished; the finished ones: "
        f"read {n} = written {n} + dropped 0 + quarantined 0; what the {2 - done} unfinished "
        "input(s) had read is not kept (a rerun converts them)"
    ) in stderr

    code = main(["status", str(out)])
    shown = capsys.readouterr().out
    assert code == 0
    lines = shown.splitlines()
    assert lines[0] == f"{out}: interrupted (SIGINT)"  # a plain convert has no stage
    assert "reduce" not in shown and "failed:" not in shown
    stage = f"stage convert (convert): interrupted: {done}/2 done, 0 failed, {2 - done} not done"
    assert stage in lines and "final pass" not in shown  # the stage listing alone answers


def _tasks(done: int, total: int) -> dict[str, int]:
    return {"total": total, "done": done, "running": 0, "failed": 0, "pending": total - done}


def test_status_names_the_stage_of_an_interrupted_shuffle():
    status = {
        "output": "/o",
        "state": "interrupted",
        "interrupted": "interrupted (SIGINT)",
        "passes": [],
        "shuffle": {
            "id": "ab12",
            "partitions": 2,
            "partitioning": "hash",
            "map": {"state": "interrupted", "tasks": _tasks(1, 3), "running": [], "failed": []},
            "partition": {"state": "pending", "tasks": _tasks(0, 2), "running": [], "failed": []},
        },
        "orphans": [],
    }
    lines = format_status(status).splitlines()
    assert lines[0] == "/o: interrupted (SIGINT) during the shuffle map pass [ab12]"
    assert (
        lines[1] == "shuffle map pass [ab12]: interrupted: 1/3 done, 0 running, 0 failed, 2 pending"
    )


def test_status_of_an_interrupted_run_whose_collect_pass_was_done():
    collect = {
        "name": "url-dedup",
        "id": "c0",
        "state": "done",
        "tasks": _tasks(2, 2),
        "running": [],
        "failed": [],
    }
    status = {
        "output": "/o",
        "state": "interrupted",
        "interrupted": "interrupted (terminated by signal 15)",
        "passes": [collect],
        "final": {"tasks": _tasks(1, 2), "running": [], "failed": []},
        "orphans": [],
    }
    first = format_status(status).splitlines()[0]
    assert first == "/o: interrupted (terminated by signal 15) during the final pass"
