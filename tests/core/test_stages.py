"""The one stage model (core/run/stage.py): resume and confirmation are the commit rule read
by the driver; a dependency that did not finish blocks a stage; and a task whose files the
driver cannot see is a failure that names it (issue 25, "Exit 0 over missing outputs": "Every
task the driver cannot confirm (its marker and its files visible and whole) is a failure that
names it; exit 0 only when the driver has verified every output")."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.run import convert
from crawlmill.core.run.executor import InProcessExecutor
from crawlmill.core.run.stage import Stage, run_stages

from tests.helpers import warc_record

# -- the model, with plain functions -----------------------------------------------------


def _write(payload: dict) -> dict:
    """A task: write ``payload['path']`` and its marker, say ok."""
    Path(payload["path"]).write_text(payload["text"])
    Path(payload["path"] + ".done").write_text(str(len(payload["text"])))
    return {"status": "ok"}


def _lie(payload: dict) -> dict:
    """A task that says ok and writes nothing."""
    return {"status": "ok"}


def _done_rule(paths: list[str]):
    """The commit rule: the marker is there and the file has the size it records."""

    def done(i: int):
        try:
            size = int(Path(paths[i] + ".done").read_text())
            return {"size": size} if os.path.getsize(paths[i]) == size else None
        except OSError:
            return None

    return done


def _stage(tmp_path: Path, name: str, fn, texts: list[str], **kw) -> Stage:
    paths = [str(tmp_path / f"{name}-{i}") for i in range(len(texts))]
    payloads = [{"path": p, "text": t} for p, t in zip(paths, texts, strict=True)]
    return Stage(name=name, payloads=payloads, fn=fn, done=_done_rule(paths), **kw)


def _run(stages):
    return run_stages(stages, InProcessExecutor, stream=io.StringIO(), progress="never")


def test_a_stage_runs_its_tasks_and_the_driver_confirms_each(tmp_path):
    runs = _run([_stage(tmp_path, "a", _write, ["x", "yy", "zzz"])])
    assert runs["a"].complete and runs["a"].done == {0: {"size": 1}, 1: {"size": 2}, 2: {"size": 3}}
    assert runs["a"].failed == {} and runs["a"].resumed == set()


def test_resume_is_the_commit_rule_a_task_whose_files_are_whole_is_not_run_again(tmp_path):
    _run([_stage(tmp_path, "a", _write, ["x", "yy"])])
    (tmp_path / "a-1").write_text("y")  # no longer the size its marker records
    seen = []

    def counted(payload):
        seen.append(payload["path"])
        return _write(payload)

    runs = _run([_stage(tmp_path, "a", counted, ["x", "yy"])])
    assert seen == [str(tmp_path / "a-1")] and runs["a"].resumed == {0}
    assert runs["a"].complete


def test_a_task_saying_ok_without_its_files_is_a_failure_that_names_it(tmp_path):
    runs = _run([_stage(tmp_path, "a", _lie, ["x"], keys=["the-input"])])
    assert not runs["a"].complete
    assert (
        "task the-input reported success but the driver cannot confirm it" in (runs["a"].failed[0])
    )


def test_a_stage_waits_for_the_stages_it_depends_on(tmp_path):
    order = []

    def first(payload):
        order.append("first")
        return _lie(payload)

    def second(payload):
        order.append("second")
        return _write(payload)

    runs = _run(
        [
            _stage(tmp_path, "b", second, ["x"], depends=("a",)),
            _stage(tmp_path, "a", first, ["x"]),
        ]
    )
    assert order == ["first"]  # a failed, so b never ran
    assert runs["b"].blocked and runs["b"].not_run == 1 and not runs["b"].complete


def test_stages_in_a_circle_are_refused(tmp_path):
    with pytest.raises(ValueError, match="circle"):
        _run(
            [
                _stage(tmp_path, "a", _write, ["x"], depends=("b",)),
                _stage(tmp_path, "b", _write, ["x"], depends=("a",)),
            ]
        )


# -- a worker writing to a disk the driver does not see -----------------------------------


class _WorkerOwnDisk(InProcessExecutor):
    """Runs each task, then moves what it wrote below the output folder to the "worker's own
    disk", as a Spark worker that does not share the output folder with the driver."""

    def __init__(self, out: Path, elsewhere: Path) -> None:
        super().__init__()
        self.out, self.elsewhere = out, elsewhere

    def _files(self) -> set[Path]:
        return {p for p in self.out.rglob("*") if p.is_file()} if self.out.exists() else set()

    def map(self, fn, payloads):
        for i, result in super().map(fn, payloads):
            for path in self._files() - self.before:
                target = self.elsewhere / path.relative_to(self.out)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(path, target)
            self.before = self._files()
            yield i, result


@pytest.fixture
def worker_disk(tmp_path, monkeypatch):
    out, elsewhere = tmp_path / "out", tmp_path / "worker-disk"

    def make(name, workers, spark=None):
        ex = _WorkerOwnDisk(out, elsewhere)
        ex.before = ex._files()
        return ex

    monkeypatch.setattr(convert, "make_executor", make)
    return out, elsewhere


def _inputs(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    for n in range(2):
        (src / f"in-{n}.warc").write_bytes(b"".join(warc_record(10 * n + i) for i in range(3)))
    return src


def _report(out: Path) -> dict:
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def test_plain_conversion_outputs_on_a_workers_disk_fail_naming_each_input(
    tmp_path, worker_disk, capsys
):
    out, elsewhere = worker_disk
    src = _inputs(tmp_path)
    code = main(["convert", str(src), "-o", str(out), "--to", "warc", "--progress", "never"])
    assert code != 0
    report = _report(out)
    assert not report["ok"] and report["inputs_done"] == 0
    failed = sorted(os.path.basename(f["input"]) for f in report["failures"] if f["input"])
    assert failed == ["in-0.warc", "in-1.warc"]
    assert all("driver cannot confirm" in f["error"] for f in report["failures"] if f["input"])
    assert any(p.suffix == ".gz" or p.name.endswith(".warc.gz") for p in elsewhere.rglob("*"))
    assert "driver cannot confirm" in capsys.readouterr().err


def test_a_collect_task_whose_marker_the_driver_cannot_see_fails_the_run(
    tmp_path, worker_disk, capsys
):
    """With url-dedup the collect pass ran on the workers: the run used to write nothing and
    report ``ok: true, complete: true, failures: []``."""
    out, _ = worker_disk
    src = _inputs(tmp_path)
    argv = ["convert", str(src), "-o", str(out), "--to", "warc", "--filter", "url-dedup"]
    assert main([*argv, "--progress", "never"]) != 0
    report = _report(out)
    assert not report["ok"] and report["failures"]
    named = [f for f in report["failures"] if f["input"]]
    assert sorted(os.path.basename(f["input"]) for f in named) == ["in-0.warc", "in-1.warc"]
    assert all("(collect)" in f["error"] and "cannot confirm" in f["error"] for f in named)


# -- the run machinery's imports -----------------------------------------------------------

CORE = Path(__file__).resolve().parents[2] / "core"


def _core_imports() -> tuple[dict[str, set[str]], list[str]]:
    """Module -> the core modules it imports (at any level), and every use of another core
    module's ``_private`` name (``from .x import _name`` or ``x._name``)."""
    import ast

    modules = {}
    for path in CORE.rglob("*.py"):
        name = ".".join(("core", *path.relative_to(CORE).with_suffix("").parts))
        modules[name.removesuffix(".__init__")] = path
    edges: dict[str, set[str]] = {m: set() for m in modules}
    crossings = []
    for mod, path in modules.items():
        package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text())
        aliases = {}
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    edges[mod].add(sub)
                    aliases[alias.asname or alias.name] = sub
                elif target in modules:
                    edges[mod].add(target)
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        crossings.append(f"{mod}: from {target} import {alias.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                crossings.append(f"{mod}: {aliases[node.value.id]}.{node.attr}")
    return edges, crossings


def test_no_module_of_core_uses_another_modules_private_name():
    _, crossings = _core_imports()
    assert crossings == []


def test_the_run_machinery_has_no_import_circle():
    """Circles among core's modules (imports at any level, type-checking ones too): none."""
    edges, _ = _core_imports()
    circles = []
    for start in edges:
        stack, seen = [(start, (start,))], set()
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    circles.append(frozenset(path))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, (*path, nxt)))
    assert circles == []


def test_a_shuffle_map_task_whose_files_the_driver_cannot_see_fails_naming_its_input(
    tmp_path, worker_disk
):
    out, _ = worker_disk
    src = _inputs(tmp_path)
    config = tmp_path / "sorted.yaml"
    config.write_text(
        f"version: 1\ninputs: [{src}]\noutput: {out}\nrun: {{workers: 1, progress: never}}\n"
        "writer:\n  name: warc\n  gzip_backend: zlib\n"
        "  sorted: {partitions: 2, partitioning: hash}\n"
    )
    assert main(["run", str(config)]) != 0
    report = _report(out)
    assert not report["ok"] and report["inputs_done"] == 0 and report["written"] == 0
    named = [f for f in report["failures"] if f["input"]]
    assert sorted(os.path.basename(f["input"]) for f in named) == ["in-0.warc", "in-1.warc"]
    assert all("driver cannot confirm" in f["error"] for f in named)
