"""The check of a run's Spark conf (``run.spark.conf``), apart from the Spark executor so
that the spec validates it without importing the executor (and no pyspark)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["check_conf"]


def check_conf(master: str | None, conf: Mapping[str, Any]) -> dict[str, str]:
    """The Spark conf of ``run.spark.conf`` as strings (booleans as ``true``/``false``), or a
    :class:`ValueError` naming what is wrong: keys are ``spark.*``, the master is given as
    ``run.spark.master``, and speculation stays off (two attempts of one task would write the
    same files at once)."""
    out: dict[str, str] = {}
    for key, value in conf.items():
        if not key.startswith("spark."):
            raise ValueError(f"conf key {key!r} is not a Spark setting (they start with 'spark.')")
        if isinstance(value, bool):
            value = "true" if value else "false"
        out[key] = str(value)
    if "spark.master" in out:
        raise ValueError("give the master as run.spark.master (--spark-master), not in conf")
    if out.get("spark.speculation", "false").strip().lower() != "false":
        raise ValueError(
            "spark.speculation must stay false: a speculative copy of a task would write the "
            "same output files as the task at the same time"
        )
    return out
