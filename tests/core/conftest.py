"""Fixtures of the engine tests: the fake plugins (``tests/core/fake_plugins/cm_fake.py``) and
spec/input builders.

Fake plugins reach worker processes by module name (``spec.plugins == ["cm_fake"]``): the
fixture puts their folder on ``sys.path`` and the local executor hands the parent's
``sys.path`` to every worker.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"


@pytest.fixture
def fake(monkeypatch):
    """Makes ``cm_fake`` importable (here and in workers); returns a spec factory."""
    monkeypatch.syspath_prepend(str(FAKE_DIR))

    from crawlmill.core.spec import PipelineSpec

    def make_spec(
        inputs,
        output,
        *,
        reader="fake-lines",
        reader_options=None,
        filters=(),
        writer_options=None,
        **run,
    ):
        return PipelineSpec.model_validate(
            {
                "inputs": {"paths": [str(i) for i in inputs]},
                "reader": {"name": reader, "options": reader_options or {}} if reader else None,
                "filters": [{"name": n, "options": o} for n, o in filters],
                "writer": {"name": "fake-jsonl", "options": writer_options or {}},
                "output": str(output),
                "run": {"workers": 1, "progress": "never", **run},
                "plugins": ["cm_fake"],
            }
        )

    return make_spec


def write_lines(path: Path, lines: list[str]) -> Path:
    """Write a fake-format input file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.fixture
def lines():
    """The :func:`write_lines` helper."""
    return write_lines
