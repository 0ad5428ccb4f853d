"""Ownership at the mechanism: the commit guard of TaskOutputs, pending markers, the
fingerprint with versions, and the planning checks (engine with the fake plugins)."""

from __future__ import annotations

import json
import os

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.registry import Registry
from crawlmill.core.run import engine
from crawlmill.core.run.outputs import OutputConflict, OutputRoot, TaskOutputs, pending_path
from crawlmill.core.run.ownership import component_versions, describe_difference
from crawlmill.core.spec import PipelineSpec


def _task(root, key="k", **kwargs) -> TaskOutputs:
    files = TaskOutputs(str(root), key, **kwargs)
    files.start()
    return files


def test_commit_refuses_a_file_it_may_not_replace_and_touches_nothing(tmp_path):
    (tmp_path / "a.out").write_bytes(b"mine")
    files = _task(tmp_path)
    files.create("b.out").write(b"new b")
    files.create("a.out").write(b"new a")
    with pytest.raises(OutputConflict, match="a.out exists and crawlmill did not write it"):
        files.commit()
    assert (tmp_path / "a.out").read_bytes() == b"mine"
    assert not (tmp_path / "b.out").exists()  # checked before the first rename


def test_commit_replaces_what_it_was_allowed_to(tmp_path):
    (tmp_path / "a.out").write_bytes(b"old output")
    files = _task(tmp_path, replaceable=["a.out"])
    files.create("a.out").write(b"new")
    files.commit()
    assert (tmp_path / "a.out").read_bytes() == b"new"
    (tmp_path / "c.out").write_bytes(b"foreign")
    files = _task(tmp_path, overwrite=True)
    files.create("c.out").write(b"replaced")
    files.commit()
    assert (tmp_path / "c.out").read_bytes() == b"replaced"


def test_commit_honours_the_runs_shared_list(tmp_path):
    (tmp_path / "a.out").write_bytes(b"old output")
    (tmp_path / ".crawlmill").mkdir()
    (tmp_path / ".crawlmill" / "replaceable.json").write_text(
        '{"replaceable": ["a.out"], "protected": ["in.warc"]}'
    )
    files = _task(tmp_path)
    files.create("a.out").write(b"new")
    files.commit()
    assert (tmp_path / "a.out").read_bytes() == b"new"
    (tmp_path / "in.warc").write_bytes(b"an input")
    files = _task(tmp_path, overwrite=True)  # not even --overwrite replaces an input
    files.create("in.warc").write(b"x")
    with pytest.raises(OutputConflict, match="is an input of this run"):
        files.commit()
    assert (tmp_path / "in.warc").read_bytes() == b"an input"


def test_a_dangling_symlink_is_a_file_too(tmp_path):
    os.symlink(tmp_path / "nowhere", tmp_path / "a.out")
    files = _task(tmp_path)
    files.create("a.out").write(b"x")
    with pytest.raises(OutputConflict):
        files.commit()


def test_commit_writes_a_pending_marker_before_the_renames(tmp_path):
    files = _task(tmp_path, key="abc")
    files.create("a.out").write(b"x")
    files.create(".crawlmill/quarantine/q.bin", internal=True).write(b"q")
    files.commit()
    with open(pending_path(str(tmp_path), "abc")) as fh:
        pending = json.load(fh)
    assert pending["state"] == "committing"
    assert pending["outputs"] == [{"path": "a.out"}]
    assert pending["quarantine"] == [{"path": ".crawlmill/quarantine/q.bin"}]
    assert "a.out" in OutputRoot(str(tmp_path)).listed_files()


def test_fingerprint_includes_versions_only_when_given():
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": ["x"]}, "writer": {"name": "warc"}, "output": "o"}
    )
    plain = spec.fingerprint()
    assert spec.fingerprint({}) == plain  # unchanged for callers without versions
    a = spec.fingerprint({"crawlmill": "1.0"})
    assert a != plain and a != spec.fingerprint({"crawlmill": "1.1"})
    overwriting = spec.model_copy(update={"run": spec.run.model_copy(update={"overwrite": True})})
    assert overwriting.fingerprint({"crawlmill": "1.0"}) == a  # not an output setting


def test_component_versions_name_the_distributions_used():
    registry = Registry.load()
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": ["x"]}, "reader": {"name": "arc"}, "writer": {"name": "warc"},
         "output": "o"}
    )  # fmt: skip
    versions = component_versions(spec, registry)
    from crawlmill.core import __version__

    assert versions == {"crawlmill": __version__}


def test_describe_difference_names_keys_and_versions():
    old = {"writer": {"name": "warc"}, "versions": {"crawlmill": "1.0", "x": "2"}}
    new = {"writer": {"name": "arc"}, "versions": {"crawlmill": "1.1", "x": "2"}}
    assert describe_difference(old, new) == "it differs in versions: crawlmill 1.0 -> 1.1; writer"
    assert describe_difference(None, new) == "its settings are not recorded"


def test_planning_refusals_list_every_problem_and_write_nothing(tmp_path, fake, lines):
    src = lines(tmp_path / "in" / "a.txt", ["R http://ok/1 response x"])
    lines(tmp_path / "in" / "b.txt", ["R http://ok/2 response y"])
    out = tmp_path / "in"
    with pytest.raises(ConfigError) as info:
        engine.run(fake([src.parent], out))
    assert "is the input folder" in str(info.value)
    assert not (out / ".crawlmill").exists()


def test_a_rerun_after_a_sibling_came_redoes_the_renamed_input(tmp_path, capsys, need):
    import shutil

    from crawlmill.core.commands.cli import main

    from ..conftest import SAMPLES

    data = SAMPLES / "webrecorder-warcio" / "test" / "data"
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(data / "example.warc.gz", src / "x.warc.gz")
    out = tmp_path / "out"
    args = ["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]
    assert main(args) == 0
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["x.warc.gz"]
    shutil.copy(data / "example.arc.gz", src / "x.arc.gz")
    assert main(args) == 0, capsys.readouterr().err
    # both renamed; the old x.warc.gz (crawlmill's own, superseded) is gone
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == [
        "x.arc.warc.gz",
        "x.warc.warc.gz",
    ]
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["ok"] and report["inputs_skipped"] == 0


def test_a_pending_marker_whose_files_were_taken_over_is_void(tmp_path, fake, lines):
    src = lines(tmp_path / "in" / "a.txt", ["R http://ok/1 response x"])
    out = tmp_path / "out"
    engine.run(fake([src], out))
    # a killed commit of some other input once listed a.txt.out and orphan.out
    (out / "orphan.out").write_bytes(b"left by a killed commit")
    pending = out / ".crawlmill" / "pending" / "deadbeef.json"
    pending.parent.mkdir(exist_ok=True)
    pending.write_text(
        json.dumps(
            {"key": "deadbeef", "state": "committing", "quarantine": [],
             "outputs": [{"path": "a.txt.out"}, {"path": "orphan.out"}]}
        )
    )  # fmt: skip
    report = engine.run(fake([src], out, resume=False))
    assert report.ok and (out / "a.txt.out").exists()
    assert not pending.exists() and not (out / "orphan.out").exists()
