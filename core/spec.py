"""The resolved, validated description of one run: what the config loader and ``convert``
produce and what the engine and every executor consume.

A :class:`PipelineSpec` is plain data (it pickles and serialises to JSON), so it can be shipped
to worker processes or Spark executors, which rebuild the plugin registry themselves.
Component options here are already validated by the component's ``Options`` model and stored
as plain dicts (``model_dump(mode="json")``).

The classes are stdlib dataclasses (:class:`~crawlmill.core.options.LightOptions`): a config or
any mapping is validated by pydantic (``PipelineSpec.model_validate``, its messages), while the
command line builds them from values argparse already typed, and a task rebuilds its spec from
the driver's dump (:meth:`PipelineSpec.from_dump`), both without importing pydantic; a direct
build checks every constraint pydantic checks (``__post_init__``).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from .options import FieldCheck, Ge, LightOptions


def _cpus() -> int:
    return os.cpu_count() or 1


def _spark_conf(conf: dict[str, Any], info: Any = None) -> dict[str, Any]:
    from .run.spark_conf import check_conf  # imports no pyspark

    check_conf(None, conf)
    return conf


@dataclass(kw_only=True)
class ComponentSpec(LightOptions):
    """One reader, filter or writer: its registered name and validated options."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(kw_only=True)
class InputSpec(LightOptions):
    """Where the inputs are: paths, glob patterns and/or a file listing one path per line."""

    paths: list[str] = field(default_factory=list)
    list_file: str | None = None


@dataclass(kw_only=True)
class SparkSpec(LightOptions):
    """Where the ``spark`` executor runs: the master URL (``None``: a running context's, else
    ``local[*]``) and Spark conf (``spark.*`` keys; see :mod:`crawlmill.core.run.spark_executor`)."""

    master: str | None = None
    conf: Annotated[dict[str, str | int | float | bool], FieldCheck(_spark_conf)] = field(
        default_factory=dict
    )


@dataclass(kw_only=True)
class RunSpec(LightOptions):
    """How to run: executor, parallelism, error policy, resume, overwrite, progress and
    bounds."""

    #: ``local`` (processes of this machine) or ``spark`` (``pip install '.[spark]'`` in the checkout).
    executor: Literal["local", "spark"] = "local"
    spark: SparkSpec = field(default_factory=SparkSpec)
    workers: Annotated[int, Ge(1)] = field(default_factory=_cpus)
    on_error: Literal["quarantine", "fail"] = "quarantine"
    resume: bool = True
    #: replace files in the output root that crawlmill did not write, and the outputs of
    #: another pipeline there (without it both are refused before anything is written).
    overwrite: bool = False
    #: delete the outputs (and markers) of inputs no longer in the run, "orphans" (without
    #: it they are only listed: report.json, the terminal, ``crawlmill status``).
    remove_orphans: bool = False
    #: an MD5 of every output in its completion marker (without it, only outputs a writer or
    #: layout reads the MD5 of get one, the others a CRC-32: docs/architecture.md,
    #: "Completion markers: which checksum"). Not part of the fingerprint: a rerun with it redoes the inputs
    #: whose markers list no MD5.
    md5: bool = False
    progress: Literal["auto", "always", "never"] = "auto"
    max_record_bytes: Annotated[int, Ge(1024)] = 256 * 1024 * 1024
    max_decompressed_bytes: Annotated[int, Ge(1024)] = 64 * 1024**3
    #: bytes a map task of a sorted shuffle buffers before it spills a sorted run (issue 8).
    shuffle_memory: Annotated[int, Ge(64 * 1024)] = 256 * 1024 * 1024
    #: rows (bytes of Arrow files) a pass's reduce takes in the driver; a component declaring
    #: ``reduce_by`` with more rows is reduced in partitions by the executor's workers.
    reduce_memory: Annotated[int, Ge(1024)] = 1024**3


@dataclass(kw_only=True)
class PipelineSpec(LightOptions):
    """A whole run: inputs -> reader -> filters -> writer -> output root."""

    version: Literal[1] = 1
    inputs: InputSpec
    reader: ComponentSpec | None = None  # None: detect per input
    filters: list[ComponentSpec] = field(default_factory=list)
    writer: ComponentSpec
    output: str
    run: RunSpec = field(default_factory=RunSpec)
    #: extra plugin modules to load besides entry points (importable module names).
    plugins: list[str] = field(default_factory=list)

    @classmethod
    def from_dump(cls, data: dict[str, Any]) -> PipelineSpec:
        """The spec of its own ``model_dump(mode="json")`` (a task's payload, made by the
        driver from a validated spec), built directly: every constraint is checked again
        (:func:`~crawlmill.core.options.check_fields`), without pydantic; data that does not
        build so is validated by pydantic (:meth:`model_validate`: its coercions, its error)."""
        try:
            return cls._built(data)
        except (TypeError, ValueError, KeyError, AttributeError):
            return cls.model_validate(data)

    @classmethod
    def _built(cls, data: dict[str, Any]) -> PipelineSpec:
        data = dict(data)
        data["inputs"] = InputSpec(**data["inputs"])
        if data.get("reader") is not None:
            data["reader"] = ComponentSpec(**data["reader"])
        data["filters"] = [ComponentSpec(**f) for f in data.get("filters", [])]
        data["writer"] = ComponentSpec(**data["writer"])
        if "run" in data:
            run = dict(data["run"])
            if "spark" in run:
                run["spark"] = SparkSpec(**run["spark"])
            data["run"] = RunSpec(**run)
        return cls(**data)

    def fingerprint(self, versions: dict[str, str] | None = None) -> str:
        """A hash of everything that decides the outputs, used in completion markers and to
        tell whether an output root belongs to this pipeline: the components and their
        options, the run settings that change outputs (not workers, progress, resume,
        executor, spark, overwrite or md5) and ``versions`` (distribution -> version of crawlmill and of
        the plugins providing the components; see :func:`fingerprint_data`)."""
        blob = json.dumps(
            self.fingerprint_data(versions), sort_keys=True, separators=(",", ":")
        ).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def fingerprint_data(self, versions: dict[str, str] | None = None) -> dict[str, Any]:
        """The plain data :meth:`fingerprint` hashes (kept in the root's ``pipeline.json`` so
        that a refused run can say what differs)."""
        data = self.model_dump(
            mode="json",
            exclude={
                "run": {
                    "workers",
                    "progress",
                    "resume",
                    "executor",
                    "spark",
                    "overwrite",
                    "remove_orphans",
                    "md5",
                    "shuffle_memory",
                    "reduce_memory",
                }
            },
        )
        data.pop("inputs", None)
        data.pop("output", None)
        if versions:
            data["versions"] = dict(sorted(versions.items()))
        return data
