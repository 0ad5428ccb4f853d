"""How the local executor's workers start (core/run/pool_start.py): forked from a forkserver
that imported crawlmill once, yet with the parent's environment, ``sys.path`` and installed
plugins of now; spawned when asked for, or when a variable read at start differs."""

from __future__ import annotations

import ast
import io
import multiprocessing
import os
import subprocess
import sys
from multiprocessing import forkserver
from pathlib import Path

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.registry import Registry
from crawlmill.core.run import pool_start
from crawlmill.core.run.executor import InProcessExecutor, LocalExecutor
from crawlmill.core.run.stage import Stage, run_stages

ROOT = Path(__file__).resolve().parents[2]
HAS_FORKSERVER = "forkserver" in multiprocessing.get_all_start_methods()
needs_forkserver = pytest.mark.skipif(not HAS_FORKSERVER, reason="no forkserver here (Windows)")


def _run(fn, payloads, workers: int = 1) -> dict:
    ex = LocalExecutor(workers)
    try:
        return dict(ex.map(fn, payloads))
    finally:
        ex.close()


def _state(_payload: int) -> dict:
    """In a worker: how it started and what it sees."""
    import cm_pool_plugin  # only on the sys.path the parent had when the pool started

    return {
        "forked": forkserver.get_inherited_fds() is not None,  # a forkserver child
        "environ": dict(os.environ),
        "sys_path": list(sys.path),
        "plugin": cm_pool_plugin.VALUE,
        "preloaded": all(name in sys.modules for name in pool_start.PRELOAD),
    }


@needs_forkserver
def test_a_forked_worker_sees_the_parents_environ_sys_path_and_modules_of_now(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(pool_start.START_METHOD_ENV, raising=False)
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "cm_pool_plugin.py").write_text("VALUE = 'from the parent path'\n")
    monkeypatch.syspath_prepend(str(mods))
    pool_start.context()  # the server runs from here on, with the environment of now
    monkeypatch.setenv("CM_POOL_ADDED", "set after the server started")
    monkeypatch.setenv("PATH", os.environ["PATH"] + os.pathsep + str(tmp_path))
    (seen,) = _run(_state, [0]).values()
    assert seen["forked"], "the worker was not forked from the forkserver"
    assert seen["preloaded"]
    assert seen["environ"] == dict(os.environ)
    assert seen["environ"]["CM_POOL_ADDED"] == "set after the server started"
    assert seen["sys_path"][: len(sys.path)] == sys.path
    assert seen["plugin"] == "from the parent path"


@needs_forkserver
def test_a_variable_gone_from_the_parent_is_gone_in_the_worker(monkeypatch):
    monkeypatch.delenv(pool_start.START_METHOD_ENV, raising=False)
    monkeypatch.setenv("CM_POOL_GONE", "in the server's environment")
    pool_start.context()  # may start the server with it (or one runs already, without it)
    monkeypatch.delenv("CM_POOL_GONE")
    (env,) = _run(_environ, [0]).values()
    assert "CM_POOL_GONE" not in env and env == dict(os.environ)


def _environ(_payload: int) -> dict:
    return dict(os.environ)


def _plugin_names(_payload: int) -> list[str]:
    return sorted(Registry.load([]).plugins)


@needs_forkserver
def test_a_plugin_installed_after_the_server_and_the_worker_started_is_seen(tmp_path, monkeypatch):
    """The registry keeps its entry-point scan while ``sys.path`` and its folders' mtimes are
    unchanged: a distribution installed since (its ``*.dist-info`` folder) is found, by a
    worker that scanned before and by a worker forked later."""
    monkeypatch.delenv(pool_start.START_METHOD_ENV, raising=False)
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    ex = LocalExecutor(1)
    try:
        (before,) = dict(ex.map(_plugin_names, [0])).values()
        dist = site / "cm_pool_late-1.0.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cm-pool-late\nVersion: 1.0\n")
        (dist / "entry_points.txt").write_text("[crawlmill]\ncm_pool_late = cm_pool_late_mod\n")
        (site / "cm_pool_late_mod.py").write_text('"""A plugin with no components."""\n')
        (same_worker,) = dict(ex.map(_plugin_names, [0])).values()
    finally:
        ex.close()
    (new_worker,) = _run(_plugin_names, [0]).values()
    assert "cm_pool_late" not in before
    assert "cm_pool_late" in same_worker
    assert "cm_pool_late" in new_worker


def _forked(_payload: int) -> bool:
    return forkserver.get_inherited_fds() is not None if HAS_FORKSERVER else False


def test_spawn_when_asked_for(monkeypatch):
    monkeypatch.setenv(pool_start.START_METHOD_ENV, "spawn")
    assert pool_start.context().get_start_method() == "spawn"
    assert _run(_forked, [0]) == {0: False}


def test_an_unknown_start_method_is_refused(monkeypatch):
    monkeypatch.setenv(pool_start.START_METHOD_ENV, "fork")
    with pytest.raises(ConfigError, match="CRAWLMILL_START_METHOD: 'fork' is not"):
        pool_start.context()


@needs_forkserver
def test_spawn_when_a_variable_read_at_start_changed_since_the_server_started(monkeypatch):
    monkeypatch.delenv(pool_start.START_METHOD_ENV, raising=False)
    assert pool_start.context().get_start_method() == "forkserver"
    for name in ("CRAWLMILL_PURE", "PYTHONHASHSEED"):
        with monkeypatch.context() as m:
            m.setenv(name, os.environ.get(name, "") + "1")
            assert pool_start.context().get_start_method() == "spawn", name
    assert pool_start.context().get_start_method() == "forkserver"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="counts threads in /proc")
def test_the_preloaded_server_is_single_threaded_and_light():
    """What the forkserver imports starts no thread (it forks: a lock another thread held
    would be copied locked) and imports neither numpy nor pyarrow (they start threads)."""
    code = (
        "import os, sys\n"
        "import crawlmill.core.run.pool_preload\n"
        "from crawlmill.core.run.pool_start import PRELOAD\n"
        "print(len(os.listdir('/proc/self/task')))\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'pyarrow', 'pandas'}))\n"
        "print([m for m in PRELOAD if m not in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.split("\n")
    assert out[:3] == ["1", "[]", "[]"], out


def _module_level_env_reads(tree: ast.Module) -> set[str]:
    """Names of environment variables read outside any function or lambda."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return
        text = ast.unparse(node) if isinstance(node, ast.Call | ast.Subscript) else ""
        if text.startswith(("os.environ.get(", "os.getenv(", "os.environ[", "environ.get(")):
            first = node.args[0] if isinstance(node, ast.Call) else node.slice
            found.add(first.value if isinstance(first, ast.Constant) else ast.unparse(first))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def test_every_variable_read_at_import_is_listed():
    """A forked worker inherits the preloaded modules: a variable one of them reads at import
    must be in IMPORT_TIME_ENV, so that a pool is spawned when it changed."""
    found = {}
    for package in ("core", "formats", "plugins", "algorithms"):
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "environ" not in text and "getenv" not in text:
                continue
            names = _module_level_env_reads(ast.parse(text))
            for name in names:
                found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    assert "CRAWLMILL_PURE" in found  # the scan sees what it is for
    assert set(found) <= set(pool_start.IMPORT_TIME_ENV), found


# -- a run's pools: nested run_stages calls share the outer one's idle pool -------------------


def _pid(_payload: int) -> dict:
    return {"status": "ok", "pid": os.getpid()}


def _stage(name: str, fn, n: int, executor, pids: dict, **kw) -> Stage:
    def record(outcome, _log) -> None:
        pids.setdefault(name, set()).add(outcome.result["pid"])

    done = {"done": lambda i: {"i": i}, "resume": False}  # every task runs
    return Stage(name, [0] * n, fn, executor=executor, record=record, **done, **kw)


def test_a_stage_run_inside_a_stage_takes_the_runs_idle_pool():
    """The split-reduce tasks of a pass run as a stage of their own from the in-process reduce
    stage: they take the workers the collect stage started."""
    pids: dict[str, set[int]] = {}

    def nested(_payload: int) -> dict:
        inner = _stage("inner", _pid, 4, lambda: LocalExecutor(2), pids)
        runs = run_stages([inner], stream=io.StringIO(), progress="never")
        return {"status": "ok" if runs["inner"].complete else "failed", "pid": os.getpid()}

    outer = _stage("outer", _pid, 4, lambda: LocalExecutor(2), pids)
    middle = _stage("middle", nested, 1, InProcessExecutor, pids, depends=("outer",))
    runs = run_stages([outer, middle], stream=io.StringIO(), progress="never")
    assert all(run.complete for run in runs.values())
    assert pids["middle"] == {os.getpid()}
    assert pids["inner"] and pids["inner"] <= pids["outer"], pids


def test_a_stage_run_while_a_stage_runs_on_the_pool_gets_its_own():
    pids: dict[str, set[int]] = {}
    inner_runs = []

    def record(outcome, _log) -> None:
        pids.setdefault("outer", set()).add(outcome.result["pid"])
        if not inner_runs:  # the outer stage's pool is mid-map here
            inner = _stage("inner", _pid, 2, lambda: LocalExecutor(2), pids)
            inner_runs.append(run_stages([inner], stream=io.StringIO(), progress="never"))

    outer = Stage(
        "outer", [0] * 4, _pid, done=lambda i: {"i": i}, record=record,
        executor=lambda: LocalExecutor(2), resume=False,
    )  # fmt: skip
    runs = run_stages([outer], stream=io.StringIO(), progress="never")
    assert runs["outer"].complete and inner_runs[0]["inner"].complete
    assert pids["inner"] and not pids["inner"] & pids["outer"], pids
