"""The resolved, validated description of one run: what the config loader and ``convert``
produce and what the engine and every executor consume.

A :class:`PipelineSpec` is plain data (it pickles and serialises to JSON), so it can be shipped
to worker processes or Spark executors, which rebuild the plugin registry themselves.
Component options here are already validated by the component's ``Options`` model and stored
as plain dicts (``model_dump(mode="json")``).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ComponentSpec(_Strict):
    """One reader, filter or writer: its registered name and validated options."""

    name: str
    options: dict[str, Any] = Field(default_factory=dict)


class InputSpec(_Strict):
    """Where the inputs are: paths, glob patterns and/or a file listing one path per line."""

    paths: list[str] = Field(default_factory=list)
    list_file: str | None = None


class SparkSpec(_Strict):
    """Where the ``spark`` executor runs: the master URL (``None``: a running context's, else
    ``local[*]``) and Spark conf (``spark.*`` keys; see :mod:`crawlmill.core.run.spark_executor`)."""

    master: str | None = None
    conf: dict[str, str | int | float | bool] = Field(default_factory=dict)

    @field_validator("conf")
    @classmethod
    def _spark_conf(cls, conf: dict[str, Any]) -> dict[str, Any]:
        from .run.spark_conf import check_conf  # imports no pyspark

        check_conf(None, conf)
        return conf


class RunSpec(_Strict):
    """How to run: executor, parallelism, error policy, resume, overwrite, progress and
    bounds."""

    #: ``local`` (processes of this machine) or ``spark`` (``pip install '.[spark]'`` in the checkout).
    executor: Literal["local", "spark"] = "local"
    spark: SparkSpec = Field(default_factory=SparkSpec)
    workers: int = Field(default_factory=lambda: os.cpu_count() or 1, ge=1)
    on_error: Literal["quarantine", "fail"] = "quarantine"
    resume: bool = True
    #: replace files in the output root that crawlmill did not write, and the outputs of
    #: another pipeline there (without it both are refused before anything is written).
    overwrite: bool = False
    #: delete the outputs (and markers) of inputs no longer in the run, "orphans" (without
    #: it they are only listed: report.json, the terminal, ``crawlmill status``).
    remove_orphans: bool = False
    progress: Literal["auto", "always", "never"] = "auto"
    max_record_bytes: int = Field(default=256 * 1024 * 1024, ge=1024)
    max_decompressed_bytes: int = Field(default=64 * 1024**3, ge=1024)
    #: bytes a map task of a sorted shuffle buffers before it spills a sorted run (issue 8).
    shuffle_memory: int = Field(default=256 * 1024 * 1024, ge=64 * 1024)
    #: rows (bytes of Arrow files) a pass's reduce takes in the driver; a component declaring
    #: ``reduce_by`` with more rows is reduced in partitions by the executor's workers.
    reduce_memory: int = Field(default=1024**3, ge=1024)


class PipelineSpec(_Strict):
    """A whole run: inputs -> reader -> filters -> writer -> output root."""

    version: Literal[1] = 1
    inputs: InputSpec
    reader: ComponentSpec | None = None  # None: detect per input
    filters: list[ComponentSpec] = Field(default_factory=list)
    writer: ComponentSpec
    output: str
    run: RunSpec = Field(default_factory=RunSpec)
    #: extra plugin modules to load besides entry points (importable module names).
    plugins: list[str] = Field(default_factory=list)

    def fingerprint(self, versions: dict[str, str] | None = None) -> str:
        """A hash of everything that decides the outputs, used in completion markers and to
        tell whether an output root belongs to this pipeline: the components and their
        options, the run settings that change outputs (not workers, progress, resume,
        executor, spark or overwrite) and ``versions`` (distribution -> version of crawlmill and of
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
