"""kill -9 at every stage boundary of a run, then a rerun: the outputs are those of an
uninterrupted run, and the stages that had finished before the kill are resumed, not redone
(issue 21: "with kill -9 at every stage boundary resuming identical").

A run is one graph of stages (``run_stages``): a collect/reduce run is collect and reduce of
``url-dedup``, collect and reduce of ``host-min``, then the per-input conversion; a sorted
shuffle is its map stage then its partition stage. The run is forked (the local executor,
in-process) and kills itself with SIGKILL as a stage begins (before its driver work), or
after the last stage ended, before the report."""

from __future__ import annotations

import io
import json
import os
import signal
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.core.test_passes import args, make_inputs, outputs
from tests.helpers import put_fake_plugins_on_path


def _plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.core.test_shuffle_kill import FAKE_DIR

    put_fake_plugins_on_path(monkeypatch)
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


@pytest.fixture(autouse=True)
def plugins(monkeypatch):
    _plugins(monkeypatch)


def _killed_at(boundary: int, run) -> None:
    """Fork; the child runs ``run()`` and SIGKILLs itself as its stage number ``boundary``
    (counted from 0 over the run's stages) begins, or, when ``boundary`` is the number of
    stages, once the last one ended."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            from crawlmill.core.run import stage as stage_mod

            real, begun = stage_mod._ordered, []

            def die() -> None:
                os.kill(os.getpid(), signal.SIGKILL)

            def ordered(stages):
                placed = real(stages)
                final = len(placed) - 1
                for n, s in enumerate(placed):
                    prepare, finish = s.prepare, s.finish

                    def begin(prepare=prepare):
                        begun.append(1)
                        if len(begun) - 1 == boundary:
                            die()
                        if prepare is not None:
                            prepare()

                    def end(run, finish=finish, last=n == final):
                        if finish is not None:
                            finish(run)
                        if last and len(begun) == boundary:
                            die()

                    s.prepare, s.finish = begin, end
                return placed

            stage_mod._ordered = ordered
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            run()
        finally:
            os._exit(3)  # the run ended without reaching the boundary
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status


def _listings(out: Path) -> dict[str, dict]:
    folder = out / ".crawlmill" / "stages"
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def _finished(out: Path) -> dict[str, tuple[int, int]]:
    """Marker -> (inode, mtime) of every task of the stages listed done: what a rerun must
    keep as it is."""
    meta = out / ".crawlmill"
    found = {}
    for listing in _listings(out).values():
        if listing["state"] == "done":
            for task in listing["tasks"]:
                path = meta / task["marker"]
                if path.is_file():
                    found[task["marker"]] = (path.stat().st_ino, path.stat().st_mtime_ns)
    return found


def _report(out: Path) -> dict:
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def _check_resumes(out: Path, finished: dict, reference: tuple, rerun) -> None:
    rerun()
    assert (outputs(out), _report(out)["counts"], _report(out)["outputs"]) == reference
    meta = out / ".crawlmill"
    for marker, stamp in finished.items():  # a finished stage's tasks were not redone
        path = meta / marker
        assert (path.stat().st_ino, path.stat().st_mtime_ns) == stamp, marker
    assert {s["state"] for s in _listings(out).values()} == {"done"}


#: collect and reduce of url-dedup and of host-min, then the conversion.
PASS_STAGES = 5


def _reference(ref: Path) -> tuple:
    return outputs(ref), _report(ref)["counts"], _report(ref)["outputs"]


@pytest.fixture(scope="module")
def passes(tmp_path_factory) -> tuple[Path, tuple]:
    """The inputs of a collect/reduce run and what an uninterrupted run of them gives."""
    base = tmp_path_factory.mktemp("passes")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _plugins(monkeypatch)
        src = make_inputs(base / "in")
        assert main(args(src, base / "ref")) == 0
    assert len(_listings(base / "ref")) == PASS_STAGES
    return src, _reference(base / "ref")


@pytest.mark.parametrize("boundary", range(PASS_STAGES + 1))
def test_a_collect_reduce_run_killed_at_a_stage_boundary_resumes_identical(
    tmp_path, boundary, passes
):
    (src, reference), out = passes, tmp_path / "out"
    _killed_at(boundary, lambda: main(args(src, out)))
    # killed where meant: the stages before the boundary done, none after it begun
    states = sorted(s["state"] for s in _listings(out).values())
    assert states == ["done"] * boundary + ["pending"] * (PASS_STAGES - boundary)
    finished = _finished(out)
    assert len(finished) == [0, 3, 4, 7, 8, 11][boundary]  # 3 + 1 + 3 + 1 + 3 markers
    _check_resumes(out, finished, reference, lambda: main(args(src, out)) == 0 or 1 / 0)


def _shuffle(src: Path, out: Path):
    from crawlmill.core.run import engine
    from crawlmill.core.spec import PipelineSpec

    from tests.core.test_shuffle_kill import _spec

    data = _spec(src, out, 2, 0.0).model_dump(mode="json")
    data["run"]["workers"] = 1
    report = engine.run(PipelineSpec.model_validate(data), progress=io.StringIO())
    assert report.ok


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory) -> tuple[Path, tuple]:
    """The inputs of a sorted shuffle and what an uninterrupted run of them gives."""
    from tests.core.test_shuffle_kill import _inputs

    base = tmp_path_factory.mktemp("shuffle")
    with pytest.MonkeyPatch.context() as monkeypatch:
        _plugins(monkeypatch)
        src = _inputs(base, n=3, records=4)
        _shuffle(src, base / "ref")
    assert sorted(_listings(base / "ref")) == ["shuffle-map", "shuffle-partition"]
    return src, _reference(base / "ref")


@pytest.mark.parametrize("boundary", range(3))
def test_a_sorted_shuffle_killed_at_a_stage_boundary_resumes_identical(
    tmp_path, boundary, shuffled
):
    (src, reference), out = shuffled, tmp_path / "out"
    _killed_at(boundary, lambda: _shuffle(src, out))
    states = sorted(s["state"] for s in _listings(out).values())
    assert states == ["done"] * boundary + ["pending"] * (2 - boundary)
    finished = _finished(out)
    assert len(finished) == [0, 3, 5][boundary]  # 3 map tasks, then 2 partitions
    _check_resumes(out, finished, reference, lambda: _shuffle(src, out))
