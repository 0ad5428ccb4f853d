"""expand_inputs: files, directories, globs, list files, de-dup, relpaths, detection, errors."""

from __future__ import annotations

import gzip
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
    # in the order the user gave them (url-dedup rule=first keeps the first input's capture)
    assert _rel(planned) == ["en0001/00.txt", "en0000/00.txt"]
    assert [p.input.path for p in planned] == [str(b), str(a)]
    assert [p.input.index for p in planned] == [0, 1]


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
    loose = lines(tmp_path / "other" / "x.txt", ["R u response p"])
    with pytest.raises(ConfigError, match="would collide"):
        expand_inputs(fake([tmp_path / "d1", loose], tmp_path / "o"), registry)


def test_folder_inputs_that_would_collide_are_kept_apart(tmp_path, fake, lines, registry):
    lines(tmp_path / "d1" / "x.txt", ["R u response p"])
    lines(tmp_path / "d2" / "x.txt", ["R u response p"])
    lines(tmp_path / "d2" / "y.txt", ["R u response p"])
    planned = expand_inputs(fake([tmp_path / "d2", tmp_path / "d1"], tmp_path / "o"), registry)
    assert _rel(planned) == ["d2/x.txt", "d2/y.txt", "d1/x.txt"]
    # without a clash, a folder's files keep their names relative to it
    planned = expand_inputs(fake([tmp_path / "d2"], tmp_path / "o"), registry)
    assert _rel(planned) == ["x.txt", "y.txt"]


def test_reader_is_detected_per_file_and_undetectable_names_the_file(
    tmp_path, fake, lines, registry
):
    good = lines(tmp_path / "a.txt", ["R u response p"])
    planned = expand_inputs(fake([good], tmp_path / "o", reader=None), registry)
    assert planned[0].reader == "fake-lines"
    bad = tmp_path / "b.bin"
    bad.write_bytes(b"\x00\x01 not a record")
    # an undetected file named on its own never blocks the others: it is not converted
    planned = expand_inputs(fake([good, bad], tmp_path / "o", reader=None), registry)
    assert [p.input.path for p in planned] == [str(good)] and planned.skipped == []
    ((path, why),) = planned.not_converted
    assert path == str(bad) and why.startswith("format not detected: binary data")


def test_unclaimed_files_in_a_listed_folder_are_not_converted_and_named(
    tmp_path, fake, lines, registry
):
    folder = tmp_path / "crawl"
    lines(folder / "a.txt", ["R u response p"])
    readme = folder / "README.bin"
    readme.write_bytes(b"notes about this crawl\n")
    for source in ([folder], [str(folder / "*")]):
        planned = expand_inputs(fake(source, tmp_path / "o", reader=None), registry)
        assert _rel(planned) == ["a.txt"] and planned[0].input.index == 0
        # no file is skipped in silence: a text file next to data is named (the run exits 3)
        assert planned.skipped == []
        assert planned.not_converted == [
            (
                str(readme),
                "format not detected: text, neither records a reader reads nor a list a "
                "collection beside it checks; move it out of the inputs or name a reader with "
                "--from / reader:",
            )
        ]
    # named on its own, the same file is an input not converted; alone, nothing is left
    with pytest.raises(ConfigError) as err:
        expand_inputs(fake([readme], tmp_path / "o", reader=None), registry)
    assert err.value.problems == [
        ("inputs", f"nothing to convert: no reader claims any of the 1 file(s) found in {readme}"),
        (
            "inputs",
            f"{readme}: format not detected: no reader claims it (readers: fake-collection, "
            "fake-lines); name one with --from / reader:",
        ),
    ]


def test_undetected_files_in_a_folder_are_not_converted_each_with_its_reason(tmp_path, fake, lines):
    registry = Registry.load(["cm_fake"])  # with the built-in readers' file suffixes
    folder = tmp_path / "crawl"
    good = lines(folder / "a.txt", ["R u response p"])
    (folder / "b.warc.gz").write_bytes(b"\x00" * 50)  # named like a format a reader reads
    (folder / "c.arc.lz4").write_bytes(b"\x00" * 50)  # compression suffix aside, too
    (folder / "part-00000").write_bytes(b"Obj\x01" + b"\x00" * 50)  # a known foreign format
    (folder / "d.bz2").write_bytes(b"BZh91AY&SY" + b"\x00" * 50)
    (folder / "crawl-001.dat").write_bytes(b"\x1e\x8b\x08" + bytes(range(256)))  # binary
    (folder / "SEQUENCE.txt").write_text("SEQUENCE of notes\n")  # text, not a SequenceFile
    (folder / "warc.notes").write_text("notes\n")
    (folder / "notes.txt.gz").write_bytes(gzip.compress("résumé of the crawl\n".encode()))
    planned = expand_inputs(fake([folder], tmp_path / "o", reader=None), registry)
    assert [p.input.path for p in planned] == [str(good)]
    assert {k: v for k, v in planned.not_converted if "text," not in v} == {
        str(folder / "b.warc.gz"): (
            "format not detected: named like a file of the 'warc' reader, but no reader "
            "recognises its first bytes (a damaged start?); name a reader with --from / "
            "reader: to read it"
        ),
        str(folder / "c.arc.lz4"): (
            "format not detected: named like a file of the 'arc' reader, but no reader "
            "recognises its first bytes (a damaged start?); name a reader with --from / "
            "reader: to read it"
        ),
        str(folder / "part-00000"): "Avro object container file: no reader installed for it yet",
        str(folder / "d.bz2"): "bzip2-compressed file: no reader installed for it yet",
        str(folder / "crawl-001.dat"): (
            "format not detected: binary data no reader recognises (a damaged start?); name a "
            "reader with --from / reader: to read it"
        ),
    }
    text = sorted(
        p for p, why in planned.not_converted if why.startswith("format not detected: text,")
    )
    assert text == [
        str(folder / "SEQUENCE.txt"),
        str(folder / "notes.txt.gz"),
        str(folder / "warc.notes"),
    ]
    assert planned.skipped == []


@pytest.mark.parametrize("what", ["empty folder", "hidden files only", "glob of folders"])
def test_nothing_to_convert_is_an_error(tmp_path, fake, registry, what):
    folder = tmp_path / "crawl"
    folder.mkdir()
    source = str(folder)
    if what == "hidden files only":
        (folder / ".x.warc").write_text("WARC/1.0\n")
    elif what == "glob of folders":
        (folder / "sub").mkdir()
        source = str(folder / "*")
    with pytest.raises(ConfigError) as err:
        expand_inputs(fake([source], tmp_path / "o", reader=None), registry)
    assert err.value.problems == [("inputs", f"nothing to convert: no file found in {source}")]


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
        assert _rel(planned)[:2] == ["coll/two.txt", "coll/one.txt"]
        assert [p.input.index for p in planned][:2] == [0, 1]
        assert all(
            p.reader == "fake-collection" and p.input.meta == {"listed": True} for p in planned[:2]
        )
    # forced, the collection reads its units; the file it does not read is named
    forced = expand_inputs(fake([coll], tmp_path / "o", reader="fake-collection"), registry)
    assert len(forced) == 2 and forced.claimed == [(str(coll / "MANIFEST"), "fake-collection")]
    ((path, why),) = forced.not_converted
    assert path == str(coll / "ignored.txt")
    assert why.startswith(f"not read: not part of the 'fake-collection' collection in {coll}")
    # detected, the file the collection does not read is planned on its own (never skipped
    # in silence), and the MANIFEST the collection reads is its side file
    assert [(p.input.relpath, p.reader) for p in planned[2:]] == [("ignored.txt", "fake-lines")]
    assert planned.claimed == [(str(coll / "MANIFEST"), "fake-collection")]


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
    assert [(os.path.basename(p), m.split(" is forced")[0]) for p, m, _ in planned.warnings] == [
        ("example.arc.gz", "reader 'warc'")
    ]
    assert "looks like 'arc'" in planned.warnings[0][1]
    spec = spec.model_copy(update={"reader": spec.reader.model_copy(update={"name": "arc"})})
    assert [os.path.basename(p) for p, _, _ in expand_inputs(spec, registry).warnings] == [
        "example.warc.gz"
    ]
