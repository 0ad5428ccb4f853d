"""A Spark task of a run whose output is on a store works in a stage of its own on its worker
and keeps the store in step (core/run/spark_stage.py), without Spark: the worker side
(``run_staged``) and the driver side (``apply_events``, ``publish_driver``) called in this
process, against moto's S3 server on 127.0.0.1.

Issue 22: "Tasks read inputs and write outputs, collect tables, shuffle files and markers
through the storage layer; nothing is assumed to be on the driver's disk."
"""

from __future__ import annotations

import dataclasses
import functools
import os

import pytest
from crawlmill.core.run.spark_stage import apply_events, publish_driver, remap, run_staged
from crawlmill.core.spec import PipelineSpec
from crawlmill.core.storage_root import STAGES_ENV, staged

from tests.conftest import need

pytestmark = pytest.mark.xdist_group("storage-s3")


@pytest.fixture(scope="module")
def s3():
    need("moto.server")
    s3fs = need("s3fs")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    port = server._server.server_address[1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing")
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        s3fs.S3FileSystem.clear_instance_cache()
        fs = s3fs.S3FileSystem()
        fs.mkdir("stage-out")
        yield fs
        s3fs.S3FileSystem.clear_instance_cache()
    server.stop()


@dataclasses.dataclass(frozen=True)
class Payload:
    spec: dict
    files: tuple


def _spec(output: str) -> PipelineSpec:
    """A WARC -> WARC pipeline to ``output`` (its one input is never read here)."""
    return PipelineSpec.model_validate(
        {"inputs": {"paths": ["x.warc"]}, "writer": {"name": "warc"}, "output": output}
    )


def test_remap_rewrites_paths_below_the_stage_only():
    payload = Payload({"output": "/d/stage", "x": ["/d/stage/a", "/d/stagex"]}, ("/d/stage/t",))
    got = remap(payload, "/d/stage", "/w/task")
    assert got.spec == {"output": "/w/task", "x": ["/w/task/a", "/d/stagex"]}
    assert got.files == ("/w/task/t",)
    fn = remap(functools.partial(print, "/d/stage/p"), "/d/stage", "/w/task")
    assert fn.args == ("/w/task/p",)


def _task(payload: Payload, *args) -> dict:
    """A task: writes an output and a pass table in the root its payload names."""
    root = payload.spec["output"]
    os.makedirs(os.path.join(root, ".crawlmill", "passes", "p1"), exist_ok=True)
    with open(os.path.join(root, "part-0.txt"), "wb") as fh:
        fh.write(b"output bytes")
    with open(os.path.join(root, ".crawlmill", "passes", "p1", "t.arrow"), "wb") as fh:
        fh.write(b"table bytes")
    return {"root": root, "table": os.path.join(root, ".crawlmill/passes/p1/t.arrow")}


def _call(fn, payload, args):
    return fn(payload, *args)


def test_a_task_works_in_its_own_stage_and_the_driver_gets_placeholders(s3, tmp_path, monkeypatch):
    """The task never touches the driver's stage: it writes below the worker's folder
    (``SPARK_LOCAL_DIRS``); its files reach the store; the driver's stage gets the table's
    bytes and a placeholder of the output's size (no output byte downloaded), and the run's
    final publish uploads neither again."""
    worker = tmp_path / "worker"
    worker.mkdir()
    monkeypatch.setenv("SPARK_LOCAL_DIRS", str(worker))
    spec = _spec("s3://stage-out/run")
    with staged(spec, str(tmp_path / "driver")) as local:
        stage = local.output
        assert os.environ[STAGES_ENV] and stage in os.environ[STAGES_ENV]
        # the driver wrote a file the task needs before the job: it reaches the store
        plan = os.path.join(stage, ".crawlmill", "passes", "p1", "pass.json")
        os.makedirs(os.path.dirname(plan))
        with open(plan, "w") as fh:
            fh.write("{}")
        publish_driver()
        assert s3.cat("stage-out/run/.crawlmill/passes/p1/pass.json") == b"{}"

        result, events = run_staged(_call, _task, Payload({"output": stage}, ()), ())
        assert result == {"root": stage, "table": f"{stage}/.crawlmill/passes/p1/t.arrow"}
        assert not os.path.exists(os.path.join(stage, "part-0.txt"))  # written elsewhere
        assert os.listdir(worker) == []  # the task stage is removed
        s3.invalidate_cache()
        assert s3.cat("stage-out/run/part-0.txt") == b"output bytes"
        assert s3.cat("stage-out/run/.crawlmill/passes/p1/t.arrow") == b"table bytes"

        rest = apply_events([("log", "a line"), *events])
        assert rest == [("log", "a line")]
        with open(os.path.join(stage, ".crawlmill/passes/p1/t.arrow"), "rb") as fh:
            assert fh.read() == b"table bytes"
        placeholder = os.path.join(stage, "part-0.txt")
        assert os.path.getsize(placeholder) == len(b"output bytes")
        assert os.stat(placeholder).st_blocks == 0  # sparse: nothing downloaded
    assert STAGES_ENV not in os.environ
    s3.invalidate_cache()
    assert s3.cat("stage-out/run/part-0.txt") == b"output bytes"  # not replaced by zeros


def _sees(payload: Payload, *args) -> dict:
    """A task that reports the bookkeeping its stage holds."""
    meta = os.path.join(payload.spec["output"], ".crawlmill")
    found = []
    for dirpath, _, names in os.walk(meta):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), meta).replace(os.sep, "/")
            if rel.startswith(("done/", "pending/", "passes/")):
                found.append(rel)
    return {"seen": sorted(found)}


def test_a_task_pulls_its_own_marker_and_the_passes_it_reads_only(s3, tmp_path, monkeypatch):
    """Issue 22 item 2 at item 3's scale ("100,000 inputs"): a task of a run of N inputs pulls its own completion and pending markers and the pass folders its
    payload names a path in, not the N markers and every pass of the run."""
    monkeypatch.setenv("SPARK_LOCAL_DIRS", str(tmp_path))
    base = "stage-out/many/.crawlmill"
    for i in range(6):
        s3.pipe(f"{base}/done/k{i}.json", b'{"key": "k%d"}' % i)
    s3.pipe(f"{base}/pending/k1.json", b"{}")
    s3.pipe(f"{base}/pending/k2.json", b"{}")
    s3.pipe(f"{base}/passes/p1/table.arrow", b"t1")
    s3.pipe(f"{base}/passes/p2/table.arrow", b"t2")
    s3.invalidate_cache()
    spec = _spec("s3://stage-out/many")
    with staged(spec, str(tmp_path / "driver")) as local:
        stage = local.output
        table = os.path.join(stage, ".crawlmill", "passes", "p1", "table.arrow")
        payload = Payload({"output": stage, "key": "k1", "tables": {"filters[0]": table}}, ())
        result, _ = run_staged(_call, _sees, payload, ())
    assert result == {"seen": ["done/k1.json", "passes/p1/table.arrow", "pending/k1.json"]}
