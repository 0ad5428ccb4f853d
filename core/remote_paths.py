"""Check the URLs of a pipeline before anything runs (:mod:`crawlmill.core.storage` reads and
writes them).

Inputs and the output may be URLs (``s3://``, ``gs://``, ``hdfs://``, ``file://``; inputs also
``http(s)://``). Refused with a usage error (exit 2) that names them: a URL with credentials in
it (``user:secret@host``: they would reach markers, the report and the terminal; the message
shows it without them), an ``http(s)://`` output (no store to write), a list file or pipeline
config given as a URL (read from local paths only).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import storage
from .errors import ConfigError
from .spec import PipelineSpec

__all__ = ["refuse_paths", "refuse_urls", "url_scheme"]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+)://")
_READ_ONLY = ("http", "https")


def url_scheme(path: str) -> str | None:
    """The scheme of ``path`` when it is a URL (``s3``, ``hdfs``, ``gs``, ``http``...), else
    ``None``."""
    match = _URL.match(path)
    return match.group(1).lower() if match else None


def _problem(where: str, path: str) -> tuple[str, str]:
    return (
        where,
        f"{storage.redact(path)!r} is a {url_scheme(path)}:// URL; crawlmill reads pipeline "
        "configs and list files from local (or mounted) paths only: copy it to a local path",
    )


def refuse_paths(items: Iterable[tuple[str, str]], source: str | None = None) -> None:
    """Raise :class:`ConfigError` naming every ``(where, path)`` whose path is a URL."""
    problems = [_problem(where, path) for where, path in items if url_scheme(path)]
    if problems:
        raise ConfigError(problems, source)


def _credentials(where: str, path: str) -> list[tuple[str, str]]:
    try:
        storage.check_url(path)
    except storage.StorageError as exc:
        return [(where, str(exc))]
    return []


def refuse_urls(spec: PipelineSpec, source: str | None = None) -> None:
    """Raise :class:`ConfigError` for a URL the run cannot use: credentials in a URL, an
    ``http(s)://`` output, a list file given as a URL."""
    problems = []
    for i, p in enumerate(spec.inputs.paths):
        problems += _credentials(f"inputs[{i}]", p)
    if spec.inputs.list_file and url_scheme(spec.inputs.list_file):
        problems.append(_problem("inputs.list_file", spec.inputs.list_file))
    problems += _credentials("output", spec.output)
    if url_scheme(spec.output) in _READ_ONLY:
        problems.append(
            (
                "output",
                f"{storage.redact(spec.output)!r}: an {url_scheme(spec.output)}:// URL can be "
                "read, not written; write to a folder, s3://, gs://, hdfs://... (docs/storage.md)",
            )
        )
    if problems:
        raise ConfigError(problems, source)
