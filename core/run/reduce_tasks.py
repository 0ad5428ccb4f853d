"""Keyed reduces split over tasks: for a component whose rows do not fit the driver.

A component that declares ``reduce_by`` (a column of its ``collect_schema``) promises that its
``reduce`` gives the right answer for any set of rows that holds *every* row of each key value
it holds: rows of different key values never need each other (``url-dedup`` groups by URL).
When the rows of such a pass are larger than ``run.reduce_memory``, the engine does not load
them in the driver (:mod:`crawlmill.core.run.passes`); it runs two kinds of tasks through the
executor instead (the process pool, or Spark's executors), so no process holds more than one
partition of the rows:

1. **split** (one task per input): the input's rows file, its rows ordered by partition
   (``crc32`` of the key value, modulo the partition count; the order within a partition is
   kept), written to ``work/split/<i>.arrow`` with the partition boundaries in its marker;
2. **reduce** (one task per partition ``p``): partition ``p`` of every split file, concatenated
   in input order, then the component's ``reduce`` on it; its table is written to
   ``table-<p>.arrow`` in the pass folder.

A component may also fix its partitions (:func:`fixed_partitions`): a classmethod
``reduce_partitions(options)`` returning a count makes the reduce always split into exactly
that many partitions, whatever the rows' size (its output has that many parts, as a Nutch
CrawlDB's ``part-r-NNNNN``), and a classmethod ``reduce_partition(values, partitions)`` gives
the partition of each key value (:func:`key_partitions`; the default is ``crc32``). A
partition's reduce may write files for the user with ``ctx.output`` (in its own scratch
folder, listed in its marker, committed by the driver when every partition is done:
:mod:`crawlmill.core.run.reduce_outputs`).

The pass's table is then the concatenation of the partition tables (``ctx.table()``), and
``ctx.table_parts()`` gives them one by one (each in the order its ``reduce`` made it).
Each task writes its marker after its file, so a killed reduce resumes with the tasks that
finished (``work/plan.json`` names the partition count they belong to).

The payloads are plain JSON-able dicts; the workers rebuild the component class from the spec
through the registry, as every task does.
"""

from __future__ import annotations

import contextlib
import os
import time
import traceback
import zlib
from typing import Any

from ..contract import FixedReducePartitions, ReducePartitioner
from ..plugin import ReduceContext
from ..spec import PipelineSpec
from .outputs import write_json_atomic
from .pass_tasks import PassDir, read_json
from .reduce_outputs import PartOutputs, part_outputs_present
from .tables import load_table, write_table

__all__ = [
    "MAX_PARTITIONS",
    "fixed_partitions",
    "key_partitions",
    "ReduceDir",
    "key_bytes",
    "partition_count",
    "reduce_done",
    "reduce_part_name",
    "reduce_payload",
    "reduce_task",
    "split_done",
    "split_payload",
    "split_task",
]

#: the most partitions a reduce is split into by its rows' size.
MAX_PARTITIONS = 4096
#: the most partitions a component may fix for its reduce (``reduce_partitions``).
MAX_FIXED_PARTITIONS = 100_000
#: how many times its rows' size a reduce is assumed to hold (rows, a sorted copy, its output).
REDUCE_OVERHEAD = 4


def partition_count(rows_bytes: int, memory: int) -> int:
    """How many partitions rows of ``rows_bytes`` bytes are split into so that one
    partition's reduce holds about ``memory`` bytes (at least 2)."""
    want = -(-rows_bytes * REDUCE_OVERHEAD // max(1, memory))
    return max(2, min(MAX_PARTITIONS, want))


def fixed_partitions(cls: type, options: Any) -> int | None:
    """The partition count a component fixes for its reduce (its classmethod
    ``reduce_partitions(options)``), or ``None`` (split by size, :func:`partition_count`)."""
    if not isinstance(cls, FixedReducePartitions):
        return None
    n = cls.reduce_partitions(options)
    if n is not None and (not isinstance(n, int) or not 1 <= n <= MAX_FIXED_PARTITIONS):
        raise ValueError(
            f"{cls.__name__}.reduce_partitions gave {n!r}; expected 1..{MAX_FIXED_PARTITIONS}"
        )
    return n


def key_partitions(cls: type | None, values: list[Any], partitions: int) -> list[int]:
    """The partition of each key value: the component's classmethod
    ``reduce_partition(values, partitions)`` when it has one (checked to give one partition
    in range per value), else ``crc32`` of :func:`key_bytes` modulo ``partitions``."""
    if not isinstance(cls, ReducePartitioner):
        return [zlib.crc32(key_bytes(v)) % partitions for v in values]
    parts = list(cls.reduce_partition(values, partitions))
    if len(parts) != len(values) or any(
        not isinstance(p, int) or not 0 <= p < partitions for p in parts
    ):
        raise ValueError(
            f"{cls.__name__}.reduce_partition must give one partition in 0..{partitions - 1} "
            "per key value"
        )
    return parts


def key_bytes(value: Any) -> bytes:
    """The bytes of a key value that its partition is computed from (the same in every
    process: no salted ``hash``)."""
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, bool):
        return b"\1" if value else b"\0"
    if isinstance(value, int):
        return value.to_bytes(16, "little", signed=True)
    return repr(value).encode("utf-8", "surrogatepass")


def reduce_part_name(part: int) -> str:
    """``table-<part>.arrow``: the table of one partition's reduce, in the pass folder."""
    return f"table-{part:05d}.arrow"


class ReduceDir:
    """The scratch files of a split reduce below the pass's ``work/``."""

    def __init__(self, pdir: PassDir) -> None:
        self.pdir = pdir
        self.plan = os.path.join(pdir.workdir, "plan.json")
        self.split = os.path.join(pdir.workdir, "split")
        self.reduce = os.path.join(pdir.workdir, "reduce")

    def split_file(self, index: int, suffix: str) -> str:
        """``work/split/<index>.<suffix>`` (``arrow``, ``json``)."""
        return os.path.join(self.split, f"{index:06d}.{suffix}")

    def reduce_marker(self, part: int) -> str:
        """``work/reduce/<part>.json``: partition ``part`` reduced (after its table)."""
        return os.path.join(self.reduce, f"{part:05d}.json")

    def scratch(self, part: int) -> str:
        """``work/scratch/<part>/``: the ``ReduceContext.workdir`` of one partition."""
        return os.path.join(self.pdir.workdir, "scratch", f"{part:05d}")

    def outputs(self, part: int) -> str:
        """``work/outputs/<part>/``: the files one partition wrote with ``ctx.output``, until
        the driver commits them."""
        return os.path.join(self.pdir.workdir, "outputs", f"{part:05d}")


def _file_done(marker_path: str, data_path: str) -> dict[str, Any] | None:
    marker = read_json(marker_path)
    if marker is None:
        return None
    try:
        if os.path.getsize(data_path) != marker.get("size"):
            return None
    except OSError:
        return None
    return marker


def split_done(rdir: ReduceDir, index: int) -> dict[str, Any] | None:
    """The split marker of input ``index`` when its file is complete, else ``None``."""
    return _file_done(rdir.split_file(index, "json"), rdir.split_file(index, "arrow"))


def reduce_done(rdir: ReduceDir, part: int) -> dict[str, Any] | None:
    """The reduce marker of partition ``part`` when its table and the output files it lists
    are complete, else ``None``."""
    path = os.path.join(rdir.pdir.path, reduce_part_name(part))
    marker = _file_done(rdir.reduce_marker(part), path)
    if marker is None or not part_outputs_present(rdir.outputs(part), marker.get("outputs") or []):
        return None
    return marker


def split_payload(
    pass_dir: str,
    index: int,
    key: str,
    partitions: int,
    component: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The plain-data payload of the split task of input ``index``; ``component`` (the spec
    as JSON, the pass's info) when the component partitions its keys itself
    (:func:`key_partitions`)."""
    payload = {"dir": pass_dir, "index": index, "key": key, "partitions": partitions}
    if component is not None:
        payload["spec"], payload["pass"] = component
    return payload


def _failed(exc: BaseException) -> dict[str, Any]:
    return {
        "status": "failed",
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": "".join(traceback.format_exception(exc, limit=-10)),
    }


def split_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Order one input's rows by partition (see the module docstring); never raises."""
    try:
        _split(payload)
    except Exception as exc:
        return _failed(exc)
    return {"status": "ok"}


def _split(payload: dict[str, Any]) -> None:
    import pyarrow as pa

    pdir = PassDir(payload["dir"])
    rdir = ReduceDir(pdir)
    index, n = payload["index"], payload["partitions"]
    rows = load_table(pdir.task_file(index, "arrow"))
    cls = None
    if "spec" in payload:
        spec = PipelineSpec.model_validate(payload["spec"])
        cls = _component(spec, payload["pass"]["component"])[0]
    parts = key_partitions(cls, rows[payload["key"]].to_pylist(), n)
    buckets: list[list[int]] = [[] for _ in range(n)]
    for i, part in enumerate(parts):
        buckets[part].append(i)
    offsets = [0]
    order: list[int] = []
    for bucket in buckets:
        order.extend(bucket)
        offsets.append(len(order))
    ordered = rows.take(pa.array(order, pa.int64())) if rows.num_rows else rows
    os.makedirs(rdir.split, exist_ok=True)
    size = write_table(rdir.split_file(index, "arrow"), ordered)
    write_json_atomic(
        rdir.split_file(index, "json"), {"size": size, "rows": rows.num_rows, "offsets": offsets}
    )


def reduce_payload(
    spec_data: dict[str, Any],
    pass_info: dict[str, Any],
    inputs: list[dict[str, Any]],
    part: int,
    partitions: int,
) -> dict[str, Any]:
    """The plain-data payload of the reduce task of partition ``part``."""
    return {
        "spec": spec_data,
        "pass": dict(pass_info),
        "inputs": list(inputs),
        "part": part,
        "partitions": partitions,
    }


def reduce_task(payload: dict[str, Any]) -> dict[str, Any]:
    """Reduce one partition (see the module docstring); never raises. Returns ``{"status",
    "rows_in", "rows", "counts"}`` or the error."""
    try:
        return {"status": "ok", **_reduce(payload)}
    except Exception as exc:
        return _failed(exc)


def _component(spec: PipelineSpec, loc: str) -> tuple[type, Any]:
    from ..components import resolve_pipeline
    from .registries import registry_for

    pipeline = resolve_pipeline(spec, registry_for(spec.plugins))
    resolved = pipeline.writer if loc == "writer" else pipeline.filters[int(loc[8:-1])]
    return resolved.cls, resolved.options


def _reduce(payload: dict[str, Any]) -> dict[str, Any]:
    import pyarrow as pa

    from ..plugin import InputFile

    started = time.monotonic()
    spec = PipelineSpec.model_validate(payload["spec"])
    cls, options = _component(spec, payload["pass"]["component"])
    pdir = PassDir(payload["pass"]["dir"])
    rdir = ReduceDir(pdir)
    part = payload["part"]
    inputs = [InputFile.from_dict(d) for d in payload["inputs"]]
    slices = []
    for inp in inputs:
        marker = split_done(rdir, inp.index)
        if marker is None or len(marker["offsets"]) != payload["partitions"] + 1:
            raise RuntimeError(f"the split rows of input {inp.index} are missing")
        lo, hi = marker["offsets"][part], marker["offsets"][part + 1]
        slices.append(load_table(rdir.split_file(inp.index, "arrow")).slice(lo, hi - lo))
    rows = pa.concat_tables(slices) if slices else _empty_rows(cls)
    counts: dict[str, int] = {}

    def count(label: str, k: int) -> None:
        counts[label] = counts.get(label, 0) + k

    scratch = rdir.scratch(part)
    shutil_rmtree(scratch)
    os.makedirs(scratch)
    shutil_rmtree(rdir.outputs(part))
    outputs = PartOutputs(spec.output, rdir.outputs(part), inputs=[i.path for i in inputs])
    ctx = ReduceContext(
        inputs, scratch, count, part, payload["partitions"], output_path=outputs.request
    )  # fmt: skip
    table = cls.reduce(rows, options, ctx)
    if not isinstance(table, pa.Table):
        raise TypeError(f"reduce returned {type(table).__name__}; expected a pyarrow.Table")
    size = write_table(os.path.join(pdir.path, reduce_part_name(part)), table)
    result = {
        "rows_in": rows.num_rows,
        "rows": table.num_rows,
        "size": size,
        "counts": counts,
        "seconds": round(time.monotonic() - started, 3),
    }
    files = outputs.entries()
    if files:
        result["outputs"] = files
    os.makedirs(rdir.reduce, exist_ok=True)
    write_json_atomic(rdir.reduce_marker(part), result)
    shutil_rmtree(scratch)
    return result


def _empty_rows(cls: type) -> Any:
    import pyarrow as pa

    return pa.schema(
        [*cls.collect_schema, ("input", pa.int32()), ("seq", pa.int64())]
    ).empty_table()


def shutil_rmtree(path: str) -> None:
    """Remove ``path`` and what is below it, if it is there."""
    import shutil

    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(path)
