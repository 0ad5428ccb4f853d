"""The default worker count: a small job runs in-process (a pool costs more than it saves),
with the same results as a worker pool; a worker count the user sets is honoured."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.run import executor

from tests.helpers import convert


def _inputs(base: Path, n: int) -> Path:
    folder = base / "in"
    folder.mkdir(parents=True)
    for j in range(n):
        lines = [f"R http://ex.com/{j}/{k} response payload{k}" for k in range(4)]
        if j == 2:
            lines.insert(1, "D damaged")
        (folder / f"{j:03d}.txt").write_text("".join(line + "\n" for line in lines))
    return folder


def _convert(src: Path, out: Path, *extra: str) -> int:
    return convert(
        src, "fake-jsonl", out, "--from", "fake-lines", "--plugin", "cm_fake", *extra
    ).exit_code


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and (
            not p.relative_to(root).as_posix().startswith(".crawlmill/")
            or ".crawlmill/quarantine/" in p.as_posix()
        )
    }


class _Spawned(Exception):
    pass


def _refuse_pools(monkeypatch) -> list[int]:
    """Pretend there are 8 cores and fail any pool; returns the pool sizes asked for."""
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    made: list[int] = []

    def refuse(workers):
        made.append(workers)
        raise _Spawned(f"a pool of {workers} workers for a tiny job")

    monkeypatch.setattr(executor, "LocalExecutor", refuse)
    return made


def test_a_small_job_runs_in_process_by_default(tmp_path, fake, monkeypatch):
    # the default worker count is the number of cores: pretend there are 8
    made = _refuse_pools(monkeypatch)
    src = _inputs(tmp_path, 5)
    assert _convert(src, tmp_path / "auto") == 3  # one damaged record quarantined
    assert made == []


@pytest.mark.slow
def test_results_are_the_same_in_process_and_in_a_pool(tmp_path, fake):
    src = _inputs(tmp_path, 5)
    assert _convert(src, tmp_path / "auto") == 3
    assert _convert(src, tmp_path / "pool", "--workers", "2") == 3
    assert _convert(src, tmp_path / "one", "--workers", "1") == 3
    auto, pool, one = (_tree(tmp_path / name) for name in ("auto", "pool", "one"))
    assert len(auto) == 5 + 1 + 2  # outputs, manifest, quarantine pair
    assert auto == pool == one


def test_a_set_worker_count_is_honoured(tmp_path, fake, monkeypatch):
    made = []
    real = executor.LocalExecutor

    def spy(workers):
        made.append(workers)
        return real(workers)

    monkeypatch.setattr(executor, "LocalExecutor", spy)
    assert _convert(_inputs(tmp_path, 3), tmp_path / "out", "--workers", "2") == 3
    assert made == [2]


def test_a_run_override_keeps_the_default_worker_count(tmp_path, fake, monkeypatch):
    """`crawlmill run --no-resume` overrides one setting; the worker count stays a default
    (so a small job still runs in-process), not a count the user set."""
    made = _refuse_pools(monkeypatch)
    src = _inputs(tmp_path, 5)
    config = tmp_path / "pipeline.yaml"
    config.write_text(
        f"inputs: {src}\nreader: fake-lines\nwriter: fake-jsonl\nplugins: [cm_fake]\n"
        f"output: {tmp_path / 'out'}\nrun: {{progress: never}}\n"
    )
    assert main(["run", str(config), "--no-resume"]) == 3
    assert made == []
