"""Split reduces at the mechanism: a component fixing its partitions and their keys
(``reduce_partitions``, ``reduce_partition``), and the files a partition writes with
``ctx.output`` (checked when asked, listed in its marker, a partition redone when its files
went missing, two partitions never committing one path). Through the CLI:
tests/plugins/test_nutch_db_split.py."""

from __future__ import annotations

import json
import zlib

import pytest
from crawlmill.core.run.outputs import OutputConflict, UnsafeOutputPath
from crawlmill.core.run.pass_tasks import PassDir
from crawlmill.core.run.reduce_outputs import PartOutputs, ReduceOutputs, part_outputs_present
from crawlmill.core.run.reduce_tasks import (
    MAX_FIXED_PARTITIONS,
    ReduceDir,
    fixed_partitions,
    key_bytes,
    key_partitions,
    reduce_done,
    reduce_part_name,
)


class Plain:
    """No partitioning of its own."""


class Fixed:
    @classmethod
    def reduce_partitions(cls, options):
        return options

    @classmethod
    def reduce_partition(cls, values, partitions):
        return [len(v) % partitions for v in values]


class Wrong(Fixed):
    @classmethod
    def reduce_partition(cls, values, partitions):
        return [partitions] * len(values)


def test_a_component_fixes_its_partition_count():
    assert fixed_partitions(Plain, 7) is None
    assert fixed_partitions(Fixed, 7) == 7
    assert fixed_partitions(Fixed, None) is None
    for bad in (0, MAX_FIXED_PARTITIONS + 1, "3"):
        with pytest.raises(ValueError, match="reduce_partitions gave"):
            fixed_partitions(Fixed, bad)


def test_keys_go_to_the_components_partitions_or_by_crc32():
    values = ["a", "bb", "ccc", "dddd"]
    assert key_partitions(Fixed, values, 3) == [1, 2, 0, 1]
    assert key_partitions(Plain, values, 3) == [zlib.crc32(key_bytes(v)) % 3 for v in values]
    assert key_partitions(None, values, 3) == key_partitions(Plain, values, 3)
    with pytest.raises(ValueError, match="one partition in 0..2"):
        key_partitions(Wrong, values, 3)


def test_a_partition_asks_for_safe_paths_only(tmp_path):
    root = tmp_path / "out"
    (root / "in.warc").parent.mkdir(parents=True)
    (root / "in.warc").write_bytes(b"x")
    outs = PartOutputs(str(root), str(tmp_path / "scratch"), inputs=[str(root / "in.warc")])
    for bad in ("../x", "/abs", ".crawlmill/x", ""):
        with pytest.raises(UnsafeOutputPath):
            outs.request(bad)
    with pytest.raises(OutputConflict):
        outs.request("in.warc")
    first = outs.request("current/part-r-00001/data")
    assert outs.request("current/part-r-00001/data") == first  # one file per path
    with open(first, "wb") as fh:
        fh.write(b"abc")
    outs.request("current/part-r-00001/index")
    with pytest.raises(RuntimeError, match="did not write it"):
        outs.entries()
    with open(outs.files["current/part-r-00001/index"], "wb") as fh:
        fh.write(b"")
    entries = outs.entries()
    assert entries == [["current/part-r-00001/data", "0.out", 3],
                       ["current/part-r-00001/index", "1.out", 0]]  # fmt: skip
    assert part_outputs_present(str(tmp_path / "scratch"), entries)
    (tmp_path / "scratch" / "0.out").unlink()
    assert not part_outputs_present(str(tmp_path / "scratch"), entries)


def test_two_partitions_never_commit_one_path(tmp_path):
    outs = ReduceOutputs(str(tmp_path), str(tmp_path), str(tmp_path), overwrite=False, inputs=[])
    outs.adopt("a/b", str(tmp_path / "x"), "0")
    with pytest.raises(RuntimeError, match="partitions 0 and 3 of the reduce both wrote 'a/b'"):
        outs.adopt("a/b", str(tmp_path / "y"), "3")


def test_a_partition_whose_output_went_missing_is_not_done(tmp_path):
    pdir = PassDir(str(tmp_path / "pass"))
    rdir = ReduceDir(pdir)
    (tmp_path / "pass" / "work" / "reduce").mkdir(parents=True)
    (tmp_path / "pass" / reduce_part_name(2)).write_bytes(b"table")
    scratch = tmp_path / "pass" / "work" / "outputs" / "00002"
    scratch.mkdir(parents=True)
    (scratch / "0.out").write_bytes(b"data")
    marker = {"size": 5, "rows_in": 1, "rows": 0, "outputs": [["x/data", "0.out", 4]]}
    with open(rdir.reduce_marker(2), "w") as fh:
        json.dump(marker, fh)
    assert reduce_done(rdir, 2) == marker
    (scratch / "0.out").unlink()  # moved by a commit that was killed
    assert reduce_done(rdir, 2) is None
