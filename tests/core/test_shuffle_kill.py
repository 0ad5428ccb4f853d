"""A sorted-shuffle run killed with SIGKILL in its map pass or in its partition pass, then run
again, ends with the same files as an uninterrupted run, without redoing the map tasks that
had finished (their markers are not rewritten)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"

_RUNNER = """
import sys
sys.path.insert(0, {fake_dir!r})
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec
report = engine.run(PipelineSpec.model_validate_json({spec!r}))
sys.exit(0 if report.ok else 1)
"""


def _spec(inputs: Path, out: Path, partitions: int, delay: float, workers: int = 2):
    from crawlmill.core.spec import PipelineSpec

    return PipelineSpec.model_validate(
        {
            "inputs": {"paths": [str(inputs)]},
            "reader": {"name": "fake-lines", "options": {"delay": delay}},
            "writer": {
                "name": "warc",
                "options": {
                    "gzip_backend": "zlib",
                    "sorted": {"partitions": partitions, "partitioning": "range"},
                },
            },
            "output": str(out),
            "run": {"workers": workers, "progress": "never", "shuffle_memory": 65536},
            "plugins": ["cm_fake"],
        }
    )


def _spawn(spec) -> subprocess.Popen:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    code = _RUNNER.format(fake_dir=str(FAKE_DIR), spec=spec.model_dump_json())
    return subprocess.Popen(
        [sys.executable, "-c", code], start_new_session=True, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _tree(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}


def _inputs(base: Path, n: int = 12, records: int = 12) -> Path:
    folder = base / "in"
    folder.mkdir(parents=True)
    for j in range(n):
        lines = [
            f"R http://h{(j * 7 + k) % 13}.example/{k} response p{j}-{k}" for k in range(records)
        ]
        (folder / f"{j:03d}.txt").write_text("".join(line + "\n" for line in lines))
    return folder


def _files(folder: Path, pattern: str) -> list[Path]:
    try:
        return [p for p in folder.glob(pattern) if p.is_file()]
    except OSError:
        return []


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["map", "partition"])
def test_sigkill_in_a_pass_then_rerun_equals_an_uninterrupted_run(
    tmp_path, phase, monkeypatch
) -> None:
    from crawlmill.core.run import engine

    from tests.helpers import put_fake_plugins_on_path

    src = _inputs(tmp_path)
    partitions = 4 if phase == "map" else 40
    delay = 0.03 if phase == "map" else 0.0
    clean, killed = tmp_path / "clean", tmp_path / "killed"
    # the uninterrupted run in this process, in-process (workers are not its point)
    put_fake_plugins_on_path(monkeypatch)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    assert engine.run(_spec(src, clean, partitions, delay, workers=1)).ok

    proc = _spawn(_spec(src, killed, partitions, delay))
    meta = killed / ".crawlmill"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if phase == "map" and len(_files(meta, "passes/*/map/*.json")) >= 2:
            break
        if phase == "partition" and len(_files(meta, "done/shuffle-*.json")) >= 2:
            break
        time.sleep(0.005)
    assert proc.poll() is None, proc.communicate()[1].decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = {p: p.stat().st_mtime_ns for p in _files(meta, "passes/*/map/*.json")}
    parts_done = len(_files(meta, "done/shuffle-*.json"))
    if phase == "map":
        assert 2 <= len(finished) < 12 and parts_done == 0
    else:
        assert len(finished) == 12 and 2 <= parts_done < partitions

    rerun = _spawn(_spec(src, killed, partitions, delay))
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    assert _tree(killed) == _tree(clean) != {}
    for path, mtime in finished.items():  # finished map tasks were not redone
        assert path.stat().st_mtime_ns == mtime
    assert not list(meta.rglob("*.run"))
