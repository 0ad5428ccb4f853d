"""Refuse URLs where crawlmill reads and writes local paths only (until remote storage lands).

``-o s3://bucket/out`` used to write a local folder ``./s3:/bucket/out`` with exit 0, and an
input ``hdfs://nn/x.warc.gz`` became a mangled local path. Any ``scheme://`` (a scheme of two
or more letters, so a Windows drive ``C:/`` is a path) in an input, the input list file, the
output or a pipeline config's own path is a usage error (exit 2) that names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .errors import ConfigError
from .spec import PipelineSpec

__all__ = ["refuse_paths", "refuse_urls", "url_scheme"]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")


def url_scheme(path: str) -> str | None:
    """The scheme of ``path`` when it is a URL (``s3``, ``hdfs``, ``gs``, ``http``...), else
    ``None``."""
    match = _URL.match(path)
    return match.group(1).lower() if match else None


def _problem(where: str, path: str) -> tuple[str, str]:
    return (
        where,
        f"{path!r} is a {url_scheme(path)}:// URL; crawlmill reads and writes local (or "
        "mounted) paths only: copy the data to a local path or mount the store",
    )


def refuse_paths(items: Iterable[tuple[str, str]], source: str | None = None) -> None:
    """Raise :class:`ConfigError` naming every ``(where, path)`` whose path is a URL."""
    problems = [_problem(where, path) for where, path in items if url_scheme(path)]
    if problems:
        raise ConfigError(problems, source)


def refuse_urls(spec: PipelineSpec, source: str | None = None) -> None:
    """Raise :class:`ConfigError` when the pipeline's inputs, list file or output is a URL."""
    items = [(f"inputs[{i}]", p) for i, p in enumerate(spec.inputs.paths)]
    if spec.inputs.list_file:
        items.append(("inputs.list_file", spec.inputs.list_file))
    items.append(("output", spec.output))
    refuse_paths(items, source)
