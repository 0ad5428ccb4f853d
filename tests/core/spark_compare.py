"""What the Spark tests run and compare between a Spark run and a local run of one pipeline:
the inputs they convert (:func:`build_inputs`), every file the run left (outputs, quarantine,
the passes' Arrow tables: bytes), report.json and the completion and pass-task markers
(without timings)."""

from __future__ import annotations

import json
import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path

from tests.conftest import SAMPLES, need
from tests.helpers import warc_record

__all__ = [
    "assert_alike",
    "bookkeeping_of",
    "build_inputs",
    "files_of",
    "spark_pipeline",
    "without_times",
]


def build_inputs(folder: Path, samples: Sequence[str], *, overlapping: bool = True) -> Path:
    """``folder`` made and filled with copies of ``samples`` (paths below the shared sample
    folder; a missing one skips, or fails under ``CRAWLMILL_REQUIRE_ORACLES=1``); with
    ``overlapping``, the first sample again (``copy-<name>``) and three constructed WARCs
    whose URLs overlap (``a``: records 0-11, ``b``: 6-17, ``c``: 15-23), for the dedup and
    shuffle pipelines."""
    folder.mkdir(parents=True)
    for rel in samples:
        src = SAMPLES / rel
        if not src.is_file():
            need(f"sample {rel}")  # pragma: no cover - the sample folder is required in CI
        shutil.copy(src, folder / src.name)
    if overlapping:
        first = SAMPLES / samples[0]
        shutil.copy(first, folder / f"copy-{first.name}")
        for name, numbers in (("a", range(0, 12)), ("b", range(6, 18)), ("c", range(15, 24))):
            (folder / f"{name}.warc").write_bytes(b"".join(warc_record(i) for i in numbers))
    return folder


def spark_pipeline(
    inputs: Path,
    body: str,
    master: str,
    *,
    conf: str = "{spark.ui.enabled: false}",
    progress: str = "never",
    run: str = "",
) -> str:
    """A pipeline file's text: ``inputs``, the YAML ``body`` (writer, filters...), the output
    ``${OUT}`` and a run on Spark at ``master`` with the ``conf`` mapping; ``run``: more
    settings of ``run``, one YAML line each."""
    return (
        f"inputs: {inputs}\n"
        + textwrap.dedent(body)
        + textwrap.dedent(
            f"""\
            output: ${{OUT}}
            run:
              executor: spark
              progress: {progress}
              spark: {{master: "{master}", conf: {conf}}}
            """
        )
        + textwrap.indent(textwrap.dedent(run), "  ")
    )


def files_of(out: Path) -> dict[str, bytes]:
    """Every file the run left (outputs, quarantine, pass tables) but bookkeeping JSON."""
    found = {}
    for path in sorted(out.rglob("*")):
        rel = path.relative_to(out).as_posix()
        if path.is_file() and not rel.endswith(".json") and not rel.endswith("lock"):
            found[rel] = path.read_bytes()
    return found


def without_times(data):
    """``data`` (JSON) without its ``elapsed`` and ``seconds`` keys, at any depth."""
    if isinstance(data, dict):
        return {k: without_times(v) for k, v in data.items() if k not in ("elapsed", "seconds")}
    if isinstance(data, list):
        return [without_times(v) for v in data]
    return data


def bookkeeping_of(out: Path) -> dict[str, object]:
    """report.json, the completion markers, the collect tasks' and reduces' markers and the
    shuffle's map markers, without their timings; paths below ``out`` start with ``OUT``."""
    meta = out / ".crawlmill"

    def load(path: Path) -> object:
        return without_times(json.loads(path.read_text().replace(str(out), "OUT")))

    found = {"report": load(meta / "report.json")}
    patterns = ["done/*.json", "passes/*/done.json", "passes/*/tasks/*.json", "passes/*/map/*"]
    for pattern in patterns:
        for marker in sorted(meta.glob(pattern)):
            if not marker.name.endswith(".start.json"):  # pid, host, heartbeat
                rel = marker.relative_to(meta).as_posix()
                found[rel] = load(marker)
    return found


def assert_alike(seen: dict[str, tuple], spark: str = "spark") -> None:
    """Every run of ``seen`` (``{name: (files, bookkeeping, ...)}``) left what the run named
    ``spark`` left: the same files, byte for byte, and the same bookkeeping; the shuffle's
    run files and disk use are the local executor's own (Spark's shuffle keeps its disk)."""
    spark_files, spark_books = seen[spark][:2]
    for name, (files, books, *_) in seen.items():
        if name == spark:
            continue
        assert sorted(files) == sorted(spark_files), name
        for rel, data in files.items():
            assert data == spark_files[rel], f"{rel} differs between {name} and {spark}"
        assert sorted(books) == sorted(spark_books), name
        for rel, data in books.items():
            if "/map/" in rel:  # run files locally; Spark's own shuffle on Spark (runs null)
                assert isinstance(data["notes"].pop("runs"), list), rel
                data = {**data, "notes": dict(data["notes"])}
                other = dict(spark_books[rel])
                other["notes"] = {k: v for k, v in other["notes"].items() if k != "runs"}
                assert data == other, f"{rel} differs between {name} and {spark}"
                continue
            if rel == "report" and "shuffle" in data:
                # the local shuffle's disk use; Spark's own shuffle keeps its disk to itself
                local, remote = data.get("shuffle") or {}, spark_books[rel].get("shuffle")
                assert remote == {} and (not local or local["run_bytes"] > 0), (rel, local, remote)
                data = {k: v for k, v in data.items() if k != "shuffle"}
                other = {k: v for k, v in spark_books[rel].items() if k != "shuffle"}
                assert data == other, f"{rel} differs between {name} and {spark}"
                continue
            assert data == spark_books[rel], f"{rel} differs between {name} and {spark}"
