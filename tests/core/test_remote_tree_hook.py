"""A collection below a URL is planned on a local mirror of its listing where only the bytes
the readers declare their discovery reads are fetched (``Reader.discovery_reads``, collected by
the registry; core/remote_tree.py knows no format). A third-party reader defined here, whose
``discover`` reads a catalog whole and the first 4 bytes of each unit file, finds its units
below a URL (fsspec's in-memory store, in-process) only because it declares them.

Issue 22: "One storage layer for every path ... behind the context readers and writers already
use, so no plugin opens a path itself"; core imports no plugin by name.
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
import types
import uuid

import pytest
from crawlmill.core import InputFile, Reader, hookimpl
from crawlmill.core.errors import ConfigError, PluginError
from crawlmill.core.inputs import expand_inputs
from crawlmill.core.registry import Registry
from crawlmill.core.remote_tree import build, fetched_bytes
from crawlmill.core.spec import PipelineSpec

from tests.conftest import need

CATALOG = "CATALOG"


class CatalogReader(Reader):
    """Units listed in a CATALOG file, each a ``.unit`` file starting ``UNIT``."""

    name = "test-catalog"
    discovery_reads = ((CATALOG, None), (r".+\.unit", 4))

    @classmethod
    def sniff(cls, path, head):
        return 0.9 if cls._listed(path) is not None else None

    @classmethod
    def _listed(cls, path: str) -> list[str] | None:
        try:
            with open(os.path.join(path, CATALOG), "rb") as fh:
                lines = fh.read().split(b"\n")
        except OSError:
            return None
        return [n.decode() for n in lines[1:] if n] if lines[0] == b"catalog v1" else None

    @classmethod
    def discover(cls, path, options):
        listed = cls._listed(path)
        if listed is None:
            return None
        units = []
        for name in listed:
            with open(os.path.join(path, name), "rb") as fh:
                if fh.read(4) == b"UNIT":
                    units.append(InputFile(os.path.join(path, name), name))
        return units

    @classmethod
    def side_files(cls, path, units):
        return [os.path.join(path, CATALOG)]

    def read(self, ctx):
        return iter(())


class Undeclared(CatalogReader):
    """The same reader without its declaration."""

    name = "test-catalog-undeclared"
    discovery_reads = ()


def _registry(monkeypatch, reader: type[Reader]) -> Registry:
    """A registry of ``reader`` alone, its plugin a module loaded by name (as ``--plugin``)."""
    module = types.ModuleType(f"crawlmill_test_catalog_{uuid.uuid4().hex}")
    module.crawlmill_register_readers = hookimpl(lambda register: register(reader))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    # the plugin's package, looked up in every installed distribution's files: it has none
    monkeypatch.setattr(importlib.metadata, "packages_distributions", dict)
    return Registry.load([module.__name__], entry_points=False)


@pytest.fixture
def store():
    """A collection on fsspec's in-memory store: its catalog, two listed files (one not a
    unit), a 1 MiB unit, a file no declaration names."""
    memory = need("fsspec").filesystem("memory")
    base = f"/crawlmill-hook-{uuid.uuid4().hex}/col"
    objects = {
        CATALOG: b"catalog v1\na.unit\nsub/b.unit\nc.unit\n",
        "a.unit": b"UNIT" + b"a" * (1 << 20),
        "sub/b.unit": b"UNIT\nbb",
        "c.unit": b"JUNK and more",
        "notes.bin": b"\x01" * 1000,
    }
    for rel, data in objects.items():
        memory.pipe(f"{base}/{rel}", data)
    yield f"memory://{base}", objects
    memory.rm(base.rsplit("/", 1)[0], recursive=True)


def test_the_mirror_holds_the_declared_bytes_only(store, tmp_path, monkeypatch):
    from crawlmill.core import storage

    root, objects = store
    registry = _registry(monkeypatch, CatalogReader)
    shadow = tmp_path / "shadow"
    build(root, storage.find(root), str(shadow), registry)
    mirrored = {
        p.relative_to(shadow).as_posix(): p.read_bytes() for p in shadow.rglob("*") if p.is_file()
    }
    assert mirrored.keys() == objects.keys()
    assert all(len(mirrored[k]) == len(objects[k]) for k in objects)  # every size kept
    assert mirrored[CATALOG] == objects[CATALOG]  # declared whole
    # declared: the first 4 bytes; the rest a hole
    assert mirrored["a.unit"] == b"UNIT" + bytes(1 << 20)
    assert mirrored["c.unit"] == b"JUNK" + bytes(len(objects["c.unit"]) - 4)
    assert mirrored["notes.bin"] == bytes(1000)  # no declaration names it: nothing fetched


def test_the_most_bytes_any_matching_declaration_reads_are_fetched():
    import re

    reads = [(re.compile(r"data"), 4), (re.compile(r"data|index"), 4096), (re.compile("x"), None)]
    assert fetched_bytes("data", 10_000, reads) == 4096
    assert fetched_bytes("data", 100, reads) == 100
    assert fetched_bytes("x", 10_000, reads) == 10_000
    assert fetched_bytes("xdata", 10_000, reads) == 0  # the whole name must match


def test_a_declared_collection_below_a_url_is_planned_and_an_undeclared_one_is_not(
    store, tmp_path, monkeypatch
):
    root, _ = store
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": [root + "/"]}, "writer": {"name": "warc"},
         "output": str(tmp_path / "out")}
    )  # fmt: skip
    plan = expand_inputs(spec, _registry(monkeypatch, CatalogReader))
    assert [(p.input.path, p.reader) for p in plan] == [
        (f"{root}/a.unit", "test-catalog"),
        (f"{root}/sub/b.unit", "test-catalog"),
    ]
    assert (f"{root}/{CATALOG}", "test-catalog") in plan.claimed  # mapped back to its URL
    # the same reader without the declaration sees zeros where the catalog is: no collection
    with pytest.raises(ConfigError, match="nothing to convert"):
        expand_inputs(spec, _registry(monkeypatch, Undeclared))


def test_a_declaration_that_is_not_a_pattern_and_a_size_names_its_reader(monkeypatch):
    bad = type("Bad", (CatalogReader,), {"name": "test-bad", "discovery_reads": (("[", 4),)})
    with pytest.raises(PluginError, match="reader 'test-bad'.*discovery_reads"):
        _registry(monkeypatch, bad).discovery_reads()
    negative = type("Neg", (CatalogReader,), {"name": "test-neg", "discovery_reads": (("x", -1),)})
    with pytest.raises(PluginError, match="no byte count"):
        _registry(monkeypatch, negative).discovery_reads()
