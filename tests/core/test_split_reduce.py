"""Keyed reduces split over tasks (``reduce_by``): rows larger than ``run.reduce_memory`` are
reduced in partitions by the executor's workers, never all in the driver, with the same
outputs and counts as one reduce in the driver; a run killed in the middle of the partitions
resumes with the partitions not done yet; a ``reduce_by`` that names no column is a config
error; the partitioning at the mechanism."""

from __future__ import annotations

import json
import textwrap
import zlib
from pathlib import Path

import pyarrow as pa
import pytest
from crawlmill.core import Filter, reduce_key
from crawlmill.core.commands.cli import main
from crawlmill.core.run.pass_tasks import PassDir
from crawlmill.core.run.reduce_tasks import (
    MAX_PARTITIONS,
    ReduceDir,
    key_bytes,
    partition_count,
    split_task,
)
from crawlmill.core.run.tables import table_loader, write_table

from tests.core.test_passes import make_inputs, outputs, pass_dirs, run_killed, stamps
from tests.helpers import put_fake_plugins_on_path


@pytest.fixture(autouse=True)
def plugins(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def config(tmp_path: Path, name: str, *, workers: int = 1, memory: int | None = None) -> Path:
    """A pipeline file: url-dedup (rule latest) then host-min, both keyed reduces."""
    run = {"workers": workers, "progress": "never"}
    if memory is not None:
        run["reduce_memory"] = memory
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            inputs: [{tmp_path / "in"}]
            plugins: [cm_passes]
            filters:
              - {{name: url-dedup, rule: latest}}
              - {{name: host-min, min: 2}}
            writer: {{name: warc, gzip_backend: zlib}}
            output: {tmp_path / name}
            run: {json.dumps(run)}
            """
        )
    )
    return path


def report(out: Path) -> dict:
    data = json.loads((out / ".crawlmill" / "report.json").read_text())
    return {k: data[k] for k in ("read", "written", "dropped", "quarantined", "counts")}


@pytest.fixture
def reference(tmp_path) -> tuple[dict[str, bytes], dict]:
    """Outputs and report counts of a run whose reduces run in the driver."""
    make_inputs(tmp_path / "in")
    assert main(["run", str(config(tmp_path, "ref"))]) == 0
    out = tmp_path / "ref"
    for folder in pass_dirs(out).values():
        marker = json.loads((folder / "done.json").read_text())
        assert marker["tables"] == [["table.arrow", marker["size"]]]
    return outputs(out), report(out)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_split_reduce_gives_the_outputs_and_counts_of_a_driver_reduce(
    tmp_path, reference, capsys, workers
):
    capsys.readouterr()
    out = tmp_path / f"split{workers}"
    assert main(["run", str(config(tmp_path, out.name, workers=workers, memory=1024))]) == 0
    assert outputs(out) == reference[0]
    assert report(out) == reference[1]
    err = capsys.readouterr().err
    for name, folder in pass_dirs(out).items():
        marker = json.loads((folder / "done.json").read_text())
        parts = len(marker["tables"])
        assert parts > 1, name  # the rows (Arrow files of > 1 KiB) did not fit 1 KiB
        assert [n for n, _ in marker["tables"]] == [f"table-{k:05d}.arrow" for k in range(parts)]
        assert not (folder / "table.arrow").exists() and not (folder / "work").exists()
        said = f"]: {marker['rows_in']} "  # "9 capture(s) seen, 3 duplicate(s) to drop"
        assert said in err and f"in {parts} partitions" in err
    hosts = pass_dirs(out)["host-min"]
    loader = table_loader(str(hosts / "table.arrow"))
    assert sum(t.num_rows for t in loader.parts()) == loader().num_rows
    # every host once, in the partition its name hashes to
    for k, part in enumerate(loader.parts()):
        for host in part["host"].to_pylist():
            assert zlib.crc32(host.encode()) % len(loader.parts()) == k


def test_kill_between_partitions_resumes_with_the_partitions_not_done(tmp_path, reference, capsys):
    out = tmp_path / "out"
    cfg = config(tmp_path, "out", memory=1024)
    run_killed(["run", str(cfg)], "reduce:2", tmp_path / "flag")
    folder = pass_dirs(out)["host-min"]
    assert not (folder / "done.json").exists()
    done = sorted(p.name for p in folder.glob("table-*.arrow"))
    assert done == ["table-00000.arrow", "table-00001.arrow"]  # in-process: in order
    before = stamps(folder)
    capsys.readouterr()
    assert main(["status", str(out), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert main(["status", str(out)]) == 0
    text = capsys.readouterr().out
    # from the stage listings (one reader for every kind of stage)
    parts = json.loads((folder / "work" / "plan.json").read_text())["partitions"]
    stages = {s["label"]: s for s in status["stages"]}
    assert stages["split for host-min"]["state"] == "done"
    reduce = stages["reduce for host-min"]
    assert reduce["state"] == "interrupted" and reduce["failed"] == []
    assert (reduce["tasks"]["done"], reduce["tasks"]["total"]) == (2, parts)
    assert f"(reduce for host-min): interrupted: 2/{parts} done" in text

    assert main(["run", str(cfg)]) == 0
    assert outputs(out) == reference[0]
    assert report(out) == reference[1]
    after = stamps(folder)
    for name in done + ["tasks/000000.arrow", "tasks/000001.arrow", "tasks/000002.arrow"]:
        assert after[name] == before[name], name  # neither redone nor rewritten
    err = capsys.readouterr().err
    assert len(json.loads((folder / "done.json").read_text())["tables"]) == parts
    assert main(["status", str(out), "--json"]) == 0
    finished = json.loads(capsys.readouterr().out)["stages"]
    # the work folder with the split and reduce markers is gone: the pass's marker says done
    assert not (folder / "work").exists()
    assert {s["state"] for s in finished} == {"done"}
    assert {s["label"]: s["tasks"]["done"] for s in finished}["reduce for host-min"] == parts
    assert f"reducing {parts - 2} of {parts} partitions" in err
    assert "splitting" not in err.split("host-min")[-1]  # the splits were done


def test_a_changed_memory_bound_keeps_finished_passes(tmp_path, reference, capsys):
    """``reduce_memory`` decides how a reduce runs, not what it gives: the passes of a run
    with another bound are kept."""
    out = tmp_path / "out"
    assert main(["run", str(config(tmp_path, "out", memory=1024))]) == 0
    before = {name: stamps(folder) for name, folder in pass_dirs(out).items()}
    capsys.readouterr()
    assert main(["run", str(config(tmp_path, "out"))]) == 0
    assert {name: stamps(folder) for name, folder in pass_dirs(out).items()} == before
    assert outputs(out) == reference[0]


def test_reduce_by_must_name_a_collect_column(tmp_path, capsys, monkeypatch):
    import cm_passes

    monkeypatch.setattr(cm_passes.HostMinFilter, "reduce_by", "hostname")
    make_inputs(tmp_path / "in")
    assert main(["run", str(config(tmp_path, "out"))]) == 2
    err = capsys.readouterr().err
    assert "filters[1]" in err and "reduce_by is 'hostname'" in err and "(host)" in err


def test_reduce_key_at_the_mechanism():
    class Plain(Filter):
        name = "plain"
        collect_schema = pa.schema([("k", pa.binary())])

        def apply(self, record):
            return record

    assert reduce_key(Plain) is None
    Plain.reduce_by = "k"
    assert reduce_key(Plain) == "k"
    Plain.reduce_by = 3
    with pytest.raises(TypeError, match="must name a column"):
        reduce_key(Plain)


@pytest.mark.parametrize(
    ("size", "memory", "parts"),
    [(1, 1024, 2), (1024, 1024, 4), (1025, 1024, 5), (10**12, 1024, MAX_PARTITIONS)],
)
def test_partition_count(size, memory, parts):
    assert partition_count(size, memory) == parts


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, b""),
        (b"\xff", b"\xff"),
        ("é", "é".encode()),
        (True, b"\1"),
        (-1, b"\xff" * 16),
        (1.5, b"1.5"),
    ],
)
def test_key_bytes(value, expected):
    assert key_bytes(value) == expected


def test_split_keeps_row_order_within_a_partition_and_every_key_in_one(tmp_path):
    pdir = PassDir(str(tmp_path))
    (tmp_path / "tasks").mkdir()
    keys = [f"k{i % 7}".encode() for i in range(50)] + [None, None]
    rows = pa.table(
        {
            "key": pa.array(keys, pa.binary()),
            "input": pa.array([3] * len(keys), pa.int32()),
            "seq": pa.array(range(len(keys)), pa.int64()),
        }
    )
    write_table(pdir.task_file(3, "arrow"), rows)
    assert split_task({"dir": str(tmp_path), "index": 3, "key": "key", "partitions": 4}) == {
        "status": "ok"
    }
    rdir = ReduceDir(pdir)
    marker = json.loads(Path(rdir.split_file(3, "json")).read_text())
    offsets = marker["offsets"]
    assert offsets[0] == 0 and offsets[-1] == len(keys) == marker["rows"] and len(offsets) == 5
    split = pa.ipc.open_file(rdir.split_file(3, "arrow")).read_all()
    for k in range(4):
        part = split.slice(offsets[k], offsets[k + 1] - offsets[k])
        seqs = part["seq"].to_pylist()
        assert seqs == sorted(seqs)  # the rows' order kept
        for key in part["key"].to_pylist():
            assert zlib.crc32(key or b"") % 4 == k
    assert sorted(split["seq"].to_pylist()) == list(range(len(keys)))  # no row lost


def test_a_split_task_reports_a_missing_rows_file(tmp_path):
    result = split_task({"dir": str(tmp_path), "index": 0, "key": "key", "partitions": 2})
    assert result["status"] == "failed" and "000000.arrow" in result["error"]


def test_a_killed_split_reduce_finished_in_the_driver_leaves_no_partition_tables(
    tmp_path, reference
):
    """A run killed between partitions, resumed with a bound the rows fit: the reduce runs in
    the driver and the partition tables of the killed run are removed."""
    out = tmp_path / "out"
    run_killed(["run", str(config(tmp_path, "out", memory=1024))], "reduce:1", tmp_path / "flag")
    folder = pass_dirs(out)["host-min"]
    assert (folder / "table-00000.arrow").exists()
    assert main(["run", str(config(tmp_path, "out"))]) == 0
    assert outputs(out) == reference[0]
    marker = json.loads((folder / "done.json").read_text())
    assert marker["tables"] == [["table.arrow", marker["size"]]]
    assert sorted(p.name for p in folder.glob("table*")) == ["table.arrow"]


def test_epoch_micros():
    from datetime import UTC, datetime, timedelta, timezone

    from crawlmill.core.reduce_tables import epoch_micros

    assert epoch_micros(None) is None
    assert epoch_micros(datetime(1970, 1, 1, tzinfo=UTC)) == 0
    assert epoch_micros(datetime(1970, 1, 1, 0, 0, 1, 5)) == 1_000_005  # naive: UTC
    assert epoch_micros(datetime(1969, 12, 31, 23, 59, 59, tzinfo=UTC)) == -1_000_000
    plus2 = timezone(timedelta(hours=2))
    assert epoch_micros(datetime(2020, 1, 1, 2, tzinfo=plus2)) == 1577836800 * 1_000_000


def test_comma_list_and_lazy_schema():
    from crawlmill.core import LazySchema, comma_list

    assert comma_list("a, b,,c ") == ["a", "b", "c"] and comma_list(["x"]) == ["x"]
    built = []

    class Step:
        collect_schema = LazySchema(lambda: built.append(1) or pa.schema([("k", pa.binary())]))

    assert not built  # nothing built at class creation
    assert Step.collect_schema.names == ["k"] and built == [1]
