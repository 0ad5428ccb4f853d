"""expand_inputs: files, directories, globs, list files, de-dup, relpaths, detection, errors."""

from __future__ import annotations

import os

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.inputs import expand_inputs, is_side_file
from crawlmill.core.registry import Registry


@pytest.fixture
def registry(fake):
    return Registry.load(["cm_fake"], entry_points=False)


def _rel(planned):
    return [p.input.relpath for p in planned]


def test_directory_is_listed_recursively_sorted_without_side_files(tmp_path, fake, lines, registry):
    data = tmp_path / "data"
    for name in [
        "b/2.txt",
        "a/1.txt",
        "a/0.txt",
        "c.txt",
        ".hidden",
        "x.crc",
        "_SUCCESS",
        ".git/objects/o.txt",
    ]:
        lines(data / name, ["R http://x/ response p"])
    out = data / "out"  # an output folder inside the input folder must not be read back
    lines(out / "old.out", ["R http://x/ response p"])
    planned = expand_inputs(fake([data], out), registry)
    assert _rel(planned) == ["a/0.txt", "a/1.txt", "b/2.txt", "c.txt"]
    assert [p.input.index for p in planned] == [0, 1, 2, 3]
    assert all(p.reader == "fake-lines" for p in planned)
    assert planned[0].size == os.path.getsize(data / "a/0.txt")


def test_glob_relpaths_are_relative_to_the_fixed_prefix(tmp_path, fake, lines, registry):
    for name in ["d/x/1.txt", "d/y/2.txt", "d/y/skip.dat"]:
        lines(tmp_path / name, ["R http://x/ response p"])
    planned = expand_inputs(fake([str(tmp_path / "d" / "**" / "*.txt")], tmp_path / "o"), registry)
    assert _rel(planned) == ["x/1.txt", "y/2.txt"]


def test_loose_files_keep_apart_by_common_folder_and_dedup(tmp_path, fake, lines, registry):
    a = lines(tmp_path / "cw" / "en0000" / "00.txt", ["R u response p"])
    b = lines(tmp_path / "cw" / "en0001" / "00.txt", ["R u response p"])
    planned = expand_inputs(fake([b, a, a, tmp_path / "cw" / "en0000"], tmp_path / "o"), registry)
    assert _rel(planned) == ["en0000/00.txt", "en0001/00.txt"]
    assert [p.input.path for p in planned] == [str(a), str(b)]


def test_single_file_relpath_is_its_name(tmp_path, fake, lines, registry):
    a = lines(tmp_path / "deep" / "in.txt", ["R u response p"])
    assert _rel(expand_inputs(fake([a], tmp_path / "o"), registry)) == ["in.txt"]


def test_list_file_with_comments_and_relative_lines(tmp_path, fake, lines, registry):
    lines(tmp_path / "lists" / "s1" / "a.txt", ["R u response p"])
    lines(tmp_path / "lists" / "s2" / "a.txt", ["R u response p"])
    listing = tmp_path / "lists" / "paths.lst"
    listing.write_text("# the inputs\n\ns1/a.txt\n  s2/a.txt  \n")
    spec = fake([], tmp_path / "o")
    spec.inputs.list_file = str(listing)
    assert _rel(expand_inputs(spec, registry)) == ["s1/a.txt", "s2/a.txt"]


def test_missing_path_and_empty_glob_name_their_place(tmp_path, fake, lines, registry):
    good = lines(tmp_path / "a.txt", ["R u response p"])
    with pytest.raises(ConfigError) as err:
        expand_inputs(
            fake([good, tmp_path / "nope.txt", str(tmp_path / "*.warc")], tmp_path / "o"), registry
        )
    locs = dict(err.value.problems)
    assert "no such file" in locs["inputs.paths[1]"]
    assert "no file matches" in locs["inputs.paths[2]"]


def test_colliding_relpaths_are_refused(tmp_path, fake, lines, registry):
    lines(tmp_path / "d1" / "x.txt", ["R u response p"])
    lines(tmp_path / "d2" / "x.txt", ["R u response p"])
    with pytest.raises(ConfigError, match="would collide"):
        expand_inputs(fake([tmp_path / "d1", tmp_path / "d2"], tmp_path / "o"), registry)


def test_reader_is_detected_per_file_and_undetectable_names_the_file(
    tmp_path, fake, lines, registry
):
    good = lines(tmp_path / "a.txt", ["R u response p"])
    planned = expand_inputs(fake([good], tmp_path / "o", reader=None), registry)
    assert planned[0].reader == "fake-lines"
    bad = tmp_path / "b.bin"
    bad.write_bytes(b"\x00\x01 not a record")
    with pytest.raises(ConfigError) as err:
        expand_inputs(fake([good, bad], tmp_path / "o", reader=None), registry)
    assert str(bad) in str(err.value) and "cannot detect" in str(err.value)


def test_unclaimed_files_in_a_listed_folder_are_skipped_and_reported(
    tmp_path, fake, lines, registry
):
    folder = tmp_path / "crawl"
    lines(folder / "a.txt", ["R u response p"])
    readme = folder / "README.bin"
    readme.write_bytes(b"\x00 notes about this crawl")
    for source in ([folder], [str(folder / "*")]):
        planned = expand_inputs(fake(source, tmp_path / "o", reader=None), registry)
        assert _rel(planned) == ["a.txt"] and planned[0].input.index == 0
        assert planned.skipped == [(str(readme), "no reader claims this file")]
    # named on its own, the same file is an error, not a skip
    with pytest.raises(ConfigError, match="cannot detect"):
        expand_inputs(fake([readme], tmp_path / "o", reader=None), registry)


def test_detect_head_is_decompressed(tmp_path, fake, registry):
    import gzip

    path = tmp_path / "a.txt.gz"
    path.write_bytes(gzip.compress(b"R u response p\n"))
    assert (
        expand_inputs(fake([path], tmp_path / "o", reader=None), registry)[0].reader == "fake-lines"
    )


def test_reader_discover_expands_a_collection_directory(tmp_path, fake, lines, registry):
    coll = tmp_path / "coll"
    lines(coll / "one.txt", ["R u response p"])
    lines(coll / "two.txt", ["R u response p"])
    lines(coll / "ignored.txt", ["R u response p"])
    (coll / "MANIFEST").write_text("two.txt\none.txt\n")
    for spec in (
        fake([coll], tmp_path / "o", reader="fake-collection"),
        fake([coll], tmp_path / "o", reader=None),
    ):
        planned = expand_inputs(spec, registry)
        # a discovered collection keeps its reader's order (the MANIFEST's), not path order
        assert _rel(planned) == ["coll/two.txt", "coll/one.txt"]
        assert [p.input.index for p in planned] == [0, 1]
        assert all(
            p.reader == "fake-collection" and p.input.meta == {"listed": True} for p in planned
        )


def test_side_file_rule():
    assert is_side_file(".x") and is_side_file("part.crc") and is_side_file("_SUCCESS")
    assert not is_side_file("00.warc.gz") and not is_side_file("_logs.txt")


def test_planned_inputs_carry_distinct_stems_and_the_listed_folders(
    tmp_path, fake, lines, registry
):
    data = tmp_path / "data"
    for name in ["x.txt", "x.txt.gz", "sub/y.warc.txt"]:
        lines(data / name, ["R u response p"])
    planned = expand_inputs(fake([data], tmp_path / "o"), registry)
    # .txt is no format suffix; x.txt.gz would strip to x.txt, which x.txt is: both keep more
    assert {p.input.relpath: p.input.stem for p in planned} == {
        "sub/y.warc.txt": "sub/y.warc.txt",
        "x.txt": "x.txt",
        "x.txt.gz": "x.txt.gz",
    }
    assert planned.folders == [os.path.realpath(data)]


def test_glob_matches_inside_the_output_folder_are_not_inputs(tmp_path, fake, lines, registry):
    lines(tmp_path / "d" / "a.txt", ["R u response p"])
    lines(tmp_path / "d" / "out" / "a.txt", ["R u response p"])  # an earlier run's output
    pattern = str(tmp_path / "d" / "**" / "*.txt")
    planned = expand_inputs(fake([pattern], tmp_path / "d" / "out"), registry)
    assert _rel(planned) == ["a.txt"]


def test_a_forced_reader_that_detection_disagrees_with_is_named(tmp_path, fake):
    from ..conftest import SAMPLES

    data = SAMPLES / "webrecorder-warcio" / "test" / "data"
    registry = Registry.load()
    spec = fake([data / "example.arc.gz", data / "example.warc.gz"], tmp_path / "o", reader="warc")
    spec = spec.model_copy(update={"plugins": []})
    planned = expand_inputs(spec, registry)
    assert [(os.path.basename(p), m.split(" is forced")[0]) for p, m in planned.warnings] == [
        ("example.arc.gz", "reader 'warc'")
    ]
    assert "looks like 'arc'" in planned.warnings[0][1]
    spec = spec.model_copy(update={"reader": spec.reader.model_copy(update={"name": "arc"})})
    assert [os.path.basename(p) for p, _ in expand_inputs(spec, registry).warnings] == [
        "example.warc.gz"
    ]
