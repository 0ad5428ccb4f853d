"""The optional capabilities of a component are protocols of ``crawlmill.core``, checked with
``isinstance``, and listed by ``crawlmill plugins`` (issue 21 item 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from crawlmill.core import (
    Collecting,
    Filter,
    FixedReducePartitions,
    HashPartitioned,
    LazySchema,
    ReducedByKey,
    ReducePartitioner,
    ShuffleSpec,
    Shuffling,
    SortKeyed,
    Writer,
    capabilities,
    declares_collect,
    reduce_key,
)
from crawlmill.core.contract import reduce_summary_of, shuffle_methods_missing
from crawlmill.core.run.reduce_tasks import fixed_partitions, key_partitions
from crawlmill.core.run.shuffle.run import shuffle_of


class Plain(Filter):
    name = "plain-f"

    def apply(self, record):
        return record


class Counting(Plain):
    name = "counting"
    collect_schema = LazySchema(lambda: __import__("pyarrow").schema([("host", "string")]))

    def collect(self, record):
        return None

    @classmethod
    def reduce(cls, rows, options, ctx):
        return rows


class Keyed(Counting):
    reduce_by = "host"
    reduce_summary = ("host(s) seen", "host(s) kept")

    @classmethod
    def reduce_partitions(cls, options):
        return 3

    @classmethod
    def reduce_partition(cls, values, partitions):
        return [len(v) % partitions for v in values]


class WrongKey(Counting):
    reduce_by = "nope"


class Sorted(Writer):
    name = "sorted-w"

    def open(self, ctx): ...
    def write(self, record): ...
    def close(self): ...

    def shuffle(self):
        return ShuffleSpec(2)

    def sort_key(self, record):
        return b""

    def partition_of(self, record, partitions):
        return 0


class ShuffleWithoutKey(Writer):
    name = "half"

    def open(self, ctx): ...
    def write(self, record): ...
    def close(self): ...

    def shuffle(self):
        return ShuffleSpec(2)


def test_a_plain_component_has_no_capability():
    assert not isinstance(Plain, Collecting)
    assert not declares_collect(Plain)
    assert reduce_key(Plain) is None
    assert capabilities(Plain) == []
    assert fixed_partitions(Plain, None) is None
    assert key_partitions(Plain, ["a"], 4) == key_partitions(None, ["a"], 4)


def test_collect_and_keyed_reduce_are_protocols():
    assert isinstance(Counting, Collecting) and declares_collect(Counting)
    assert not isinstance(Counting, ReducedByKey)
    assert isinstance(Keyed, ReducedByKey) and reduce_key(Keyed) == "host"
    assert isinstance(Keyed, FixedReducePartitions) and fixed_partitions(Keyed, None) == 3
    assert isinstance(Keyed, ReducePartitioner)
    assert key_partitions(Keyed, ["ab", "abc"], 3) == [2, 0]
    assert reduce_summary_of(Keyed, ("a", "b")) == ("host(s) seen", "host(s) kept")
    assert reduce_summary_of(Counting, ("a", "b")) == ("a", "b")
    assert capabilities(Keyed) == [
        "collect",
        "reduce_by",
        "reduce_partitions",
        "reduce_partition",
        "reduce_summary",
    ]
    with pytest.raises(TypeError, match="reduce_by is 'nope'"):
        reduce_key(WrongKey)


def test_a_method_set_to_none_is_no_capability():
    class Off(Counting):
        collect = None

    assert not isinstance(Off, Collecting)
    assert not declares_collect(Off)


def test_shuffle_is_checked_on_the_instance():
    writer = Sorted()
    assert isinstance(writer, Shuffling) and isinstance(writer, SortKeyed)
    assert isinstance(writer, HashPartitioned)
    assert shuffle_of(writer) == ShuffleSpec(2)
    assert shuffle_methods_missing(writer, "hash") == []
    assert shuffle_of(Plain()) is None
    half = ShuffleWithoutKey()
    assert shuffle_methods_missing(half, "hash") == ["sort_key", "partition_of"]
    assert shuffle_methods_missing(half, "range") == ["sort_key"]
    assert capabilities(Sorted) == ["shuffle", "sort_key", "partition_of"]


def test_crawlmill_plugins_lists_capabilities():
    out = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "plugins", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    comps = {(c["kind"], c["name"]): c for p in json.loads(out.stdout) for c in p["components"]}
    assert comps[("filter", "url-dedup")]["capabilities"][:2] == ["collect", "reduce_by"]
    assert comps[("writer", "warc")]["capabilities"] == ["shuffle", "sort_key", "partition_of"]
    assert comps[("reader", "warc")]["capabilities"] == []
    text = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "plugins"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "    capabilities: collect, reduce_by" in text
