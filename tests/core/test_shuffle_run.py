"""The engine's sorted-shuffle passes (core/run/shuffle/run.py) through `crawlmill run`: a tiny
``run.shuffle_memory`` (many spills, a multi-level merge) gives the same files as a large one;
what a killed run left in the shuffle folder is redone; a failing partition task or
``on_error: fail`` damage fails the run without a partial collection counted as written."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest
from crawlmill.algorithms.sorted_runs import merge as merge_mod
from crawlmill.core.commands.cli import main
from crawlmill.core.run.shuffle import run as run_mod
from crawlmill.core.run.shuffle import tasks as tasks_mod

from tests.conftest import SAMPLES
from tests.helpers import warc_record

WARC_B = (
    SAMPLES
    / "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"
)


def _project(
    tmp_path: Path,
    out: str,
    *,
    memory: int | None = None,
    extra: str = "",
    damage: bool = False,
    big: bool = True,
) -> Path:
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    body = b"".join(warc_record(i) for i in range(20))
    if damage:
        body = warc_record(100) + b"JUNK\r\n\r\n" + body
    small = data / "small.warc"
    if not small.exists() or small.read_bytes() != body:  # unchanged: the same pass id
        small.write_bytes(body)
    run = {
        "workers": 1,
        **({"shuffle_memory": memory} if memory else {}),
        **json.loads(extra or "{}"),
    }
    config = tmp_path / f"{out}.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            inputs: [{f"{WARC_B}, " if big else ""}data/small.warc]
            writer:
              name: warc
              gzip_backend: zlib
              sorted: {{partitions: 2, partitioning: range}}
            output: {out}
            run: {json.dumps(run)}
            """
        )
    )
    return config


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def test_tiny_memory_many_spills_same_files(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(merge_mod, "FAN_IN", 3)  # in-process: the partition merge goes multi-level
    spilled = []
    real = tasks_mod.Spiller.spill

    def counting(self):
        spilled.append(self.buffered)
        return real(self)

    monkeypatch.setattr(tasks_mod.Spiller, "spill", counting)
    assert main(["run", str(_project(tmp_path, "big"))]) == 0
    big = len(spilled)
    assert main(["run", str(_project(tmp_path, "tiny", memory=65536))]) == 0
    assert len(spilled) - big > 10  # the tiny bound spilled many runs
    assert _files(tmp_path / "tiny") == _files(tmp_path / "big") != {}


def test_leftovers_of_a_killed_run_are_redone(tmp_path) -> None:
    config = _project(tmp_path, "o")
    assert main(["run", str(config)]) == 0
    clean = _files(tmp_path / "o")
    (folder,) = (tmp_path / "o/.crawlmill/passes").iterdir()
    shutil.rmtree(folder / "map")  # no map task finished: the map pass is redone
    # what a run killed in its map pass leaves: half a run file, a stray run, a map marker
    (folder / "shuffle" / "p00000").mkdir(parents=True)
    (folder / "shuffle" / "p00000" / ".x-00000.run.1.tmp").write_bytes(b"CMSHUF\x00\x01partial")
    (folder / "shuffle" / "p00000" / "stale-00000.run").write_bytes(b"junk")
    (folder / "map").mkdir()
    (folder / "map" / "stale.json").write_text("{}")
    (tmp_path / "o" / "part-00001.warc.gz").write_bytes(b"half written")  # a killed commit
    assert main(["run", str(config)]) == 0
    assert _files(tmp_path / "o") == clean
    assert not (folder / "shuffle").exists()  # the bulk is removed, the map markers kept
    assert len(list((folder / "map").iterdir())) == 2


def test_a_failing_partition_fails_the_run(tmp_path, monkeypatch, capsys) -> None:
    calls = {"n": 0}
    real = tasks_mod.decode

    def flaky(blob):
        calls["n"] += 1
        if calls["n"] == 700:
            raise RuntimeError("disk on fire")
        return real(blob)

    monkeypatch.setattr(tasks_mod, "decode", flaky)
    assert main(["run", str(_project(tmp_path, "o"))]) == 1
    err = capsys.readouterr().err
    assert "disk on fire" in err and "shuffle partition" in err
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["written"] == 0 and report["inputs_done"] == 0
    assert any("shuffle partition" in f["error"] for f in report["failures"])
    monkeypatch.setattr(tasks_mod, "decode", real)
    calls = _count_tasks(monkeypatch)
    assert main(["run", str(_project(tmp_path, "o"))]) == 0  # a rerun completes...
    # ...without redoing the map pass or the partition that was committed
    assert calls == {"map": 0, "partition": 1}
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["written"] == report["read"] > 800 and report["inputs_skipped"] == 2
    assert _files(tmp_path / "o") == _files_of_clean_run(tmp_path)


def _count_tasks(monkeypatch) -> dict[str, int]:
    calls = {"map": 0, "partition": 0}
    real_map, real_partition = run_mod.map_task, run_mod.partition_task

    def counted_map(payload):
        calls["map"] += 1
        return real_map(payload)

    def counted_partition(payload):
        calls["partition"] += 1
        return real_partition(payload)

    monkeypatch.setattr(run_mod, "map_task", counted_map)
    monkeypatch.setattr(run_mod, "partition_task", counted_partition)
    return calls


def _files_of_clean_run(tmp_path: Path) -> dict[str, bytes]:
    clean = tmp_path / "clean"
    clean.mkdir()
    assert main(["run", str(_project(clean, "o"))]) == 0
    return _files(clean / "o")


def test_a_finished_run_is_not_redone(tmp_path, monkeypatch, capsys) -> None:
    config = _project(tmp_path, "o")
    assert main(["run", str(config)]) == 0
    first = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    files = _files(tmp_path / "o")
    calls = _count_tasks(monkeypatch)
    assert main(["run", str(config)]) == 0
    assert calls == {"map": 0, "partition": 0}
    again = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert (again["read"], again["written"], again["outputs"]) == (
        first["read"],
        first["written"],
        first["outputs"],
    )
    assert "2 already complete" in capsys.readouterr().err
    assert _files(tmp_path / "o") == files


def test_no_resume_redoes_the_map_and_partition_tasks(tmp_path, monkeypatch) -> None:
    """docs/config.md, ``resume``: ``--no-resume`` redoes every input; a sorted shuffle's map
    tasks and partitions are not kept from the run before (same bytes written again)."""
    config = _project(tmp_path, "o", big=False)
    assert main(["run", str(config)]) == 0
    files = _files(tmp_path / "o")
    calls = _count_tasks(monkeypatch)
    assert main(["run", str(config)]) == 0
    assert calls == {"map": 0, "partition": 0}  # resumed
    assert main(["run", "--no-resume", str(config)]) == 0
    assert calls == {"map": 1, "partition": 2}
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["inputs_skipped"] == 0 and report["written"] == report["read"] == 20
    assert _files(tmp_path / "o") == files


def test_a_changed_input_redoes_the_shuffle(tmp_path, monkeypatch) -> None:
    config = _project(tmp_path, "o")
    assert main(["run", str(config)]) == 0
    small = tmp_path / "data" / "small.warc"
    small.write_bytes(small.read_bytes() + warc_record(999))
    calls = _count_tasks(monkeypatch)
    assert main(["run", str(config)]) == 0
    assert calls == {"map": 2, "partition": 2}
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    assert report["written"] == report["read"]
    assert len(list((tmp_path / "o/.crawlmill/passes").iterdir())) == 1  # the old pass is gone
    done = sorted(p.name for p in (tmp_path / "o/.crawlmill/done").iterdir())
    assert len(done) == 2  # the older partitions' markers were superseded


def test_on_error_fail_stops_before_any_partition(tmp_path, capsys) -> None:
    config = _project(tmp_path, "o", damage=True, extra='{"on_error": "fail"}')
    assert main(["run", str(config)]) == 1
    assert "small.warc" in capsys.readouterr().err  # the damage that stopped the run
    assert not any(p.name.startswith("part-") for p in (tmp_path / "o").iterdir())


@pytest.mark.parametrize("memory", [1000, "lots"])
def test_bad_shuffle_memory_is_a_config_error(tmp_path, capsys, memory) -> None:
    config = _project(tmp_path, "o", extra=json.dumps({"shuffle_memory": memory}))
    assert main(["run", str(config)]) == 2
    assert "shuffle_memory" in capsys.readouterr().err
    assert not os.path.exists(tmp_path / "o")


def test_a_damaged_run_file_fails_its_partition_naming_file_and_offset(
    tmp_path, monkeypatch
) -> None:
    real = tasks_mod.partition_runs

    def damaging(folder, partition):
        runs = real(folder, partition)
        data = bytearray(Path(runs[0]).read_bytes())
        data[40] ^= 0xFF  # inside the first entry
        Path(runs[0]).write_bytes(data)
        return runs

    monkeypatch.setattr(tasks_mod, "partition_runs", damaging)
    assert main(["run", str(_project(tmp_path, "o"))]) == 1
    report = json.loads((tmp_path / "o/.crawlmill/report.json").read_text())
    errors = " ".join(f["error"] for f in report["failures"])
    assert "shuffle run file" in errors and ".run: at byte 8: damaged entry" in errors
    assert report["written"] == 0


def test_a_writer_declaring_a_shuffle_without_a_sort_key_fails_clearly(
    tmp_path, monkeypatch, capsys
) -> None:
    from crawlmill.plugins.writers.warc import WarcWriter

    monkeypatch.setattr(WarcWriter, "sort_key", None)
    assert main(["run", str(_project(tmp_path, "o"))]) == 1
    assert "writer warc declares a shuffle but has no sort_key" in capsys.readouterr().err
    assert not any(p.name.startswith("part-") for p in (tmp_path / "o").iterdir())


def test_a_shuffled_writer_with_a_collect_step_is_refused():
    """Records reach a shuffled writer merged from every input, so no per-input ordinal
    (``ctx.seq``) could name them: declaring both is a clear error, not wrong rows."""
    import pyarrow as pa
    from crawlmill.core import ShuffleSpec

    class Both:
        name = "both"
        collect_schema = pa.schema([("k", pa.binary())])

        def collect(self, record):
            return [(b"k",)]

        @classmethod
        def reduce(cls, rows, options, ctx):
            return rows

        def sort_key(self, record):
            return b""

        def partition_of(self, record, n):
            return 0

    with pytest.raises(ValueError, match="both a shuffle and a collect step"):
        run_mod._check_writer(Both(), ShuffleSpec(2, "hash"))
    del Both.collect_schema
    run_mod._check_writer(Both(), ShuffleSpec(2, "hash"))  # a shuffle alone is fine
