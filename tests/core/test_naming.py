"""Output stems (core/naming.py): which suffixes are stripped and how colliding siblings are
told apart."""

from __future__ import annotations

import itertools

import pytest
from crawlmill.core.naming import (
    FORMAT_SUFFIXES,
    named_with,
    output_stems,
    stem_of,
    strip_suffixes,
)
from crawlmill.core.plugin import InputFile


@pytest.mark.parametrize(
    ("relpath", "stem"),
    [
        ("x.warc.gz", "x"),
        ("a/b/x.arc.gz", "a/b/x"),
        ("x.warc.lz4", "x"),
        ("x.WARC.GZ", "x"),
        ("x.warc.wet.gz", "x"),
        ("x.warc.zst", "x"),
        ("x.arc", "x"),
        ("example.txt.warc.gz", "example.txt"),  # .txt is content, not storage
        ("x.json.gz", "x.json"),
        ("x.data", "x.data"),
        ("x.gz.gz", "x.gz"),  # one compression suffix
        (".gz", ".gz"),  # never an empty name
        ("x.warc", "x"),
        ("warc", "warc"),
        ("ClueWeb09_English_Sample", "ClueWeb09_English_Sample"),
    ],
)
def test_only_compression_and_format_suffixes_are_stripped(relpath, stem):
    assert strip_suffixes(relpath) == stem


def test_levels_strip_less():
    assert strip_suffixes("d/x.warc.gz", 1) == "d/x.warc"
    assert strip_suffixes("d/x.warc.gz", 0) == "d/x.warc.gz"


def test_stems_without_collision_are_the_short_ones():
    assert output_stems(["a.warc.gz", "b.arc.gz", "d/a.warc.gz"]) == ["a", "b", "d/a"]


def test_siblings_keep_what_tells_them_apart():
    rel = ["x.arc.gz", "x.warc.gz", "y.warc.gz", "y.warc.lz4", "e.txt.warc.gz", "e.warc.gz"]
    assert output_stems(rel) == [
        "x.arc",
        "x.warc",
        "y.warc.gz",
        "y.warc.lz4",
        "e.txt",
        "e",
    ]


def test_a_longer_stem_that_meets_another_input_moves_on():
    # x.warc.gz and x.warc.lz4 both keep "x.warc" at level 1, where x.warc (no compression)
    # already is: all three end distinct
    stems = output_stems(["x.warc", "x.warc.gz", "x.warc.lz4"])
    assert len(set(stems)) == 3


def test_distinct_relpaths_always_give_distinct_stems():
    names = [
        "x",
        "x.warc",
        "x.arc",
        "x.gz",
        "x.warc.gz",
        "x.arc.gz",
        "x.warc.lz4",
        "x.warc.gz.warc",
    ]
    for k in (2, 3, 4):
        for combo in itertools.combinations(names, k):
            stems = output_stems(list(combo))
            assert len(set(stems)) == k, (combo, stems)
            # deterministic and independent of the order of the inputs
            again = output_stems(list(reversed(combo)))
            assert dict(zip(combo, stems, strict=True)) == dict(
                zip(reversed(combo), again, strict=True)
            )


def test_stem_of_prefers_the_planned_stem():
    assert stem_of(InputFile("p", "x.warc.gz", 0, {}, "x.warc")) == "x.warc"
    assert stem_of(InputFile("p", "x.warc.gz")) == "x"


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("x.warc", True),
        ("d/x.warc.gz", True),
        ("x.WARC.LZ4", True),
        ("x.warc.zstd", True),
        ("x.warc.wet.gz", False),  # .wet is not in the list given below
        ("x.warc.gz.gz", False),  # one compression suffix
        ("x.warcx", False),
        ("warc", False),
        ("x.gz", False),
    ],
)
def test_named_with_a_format_suffix_after_one_compression_suffix(path, named):
    assert named_with(path, (".warc",)) is named
    assert named_with(path, ()) is False


def test_named_with_limited_compressions():
    assert named_with("x.arc.gz", (".arc",), (".gz",))
    assert not named_with("x.arc.lz4", (".arc",), (".gz",))


def test_the_default_format_suffixes_are_the_built_in_readers_file_suffixes():
    from crawlmill.core.registry import Registry

    builtins = Registry.load(
        [
            "crawlmill.plugins.readers.warc",
            "crawlmill.plugins.readers.arc",
            "crawlmill.plugins.readers.cc_metadata",
            "crawlmill.plugins.readers.cc2012",
            "crawlmill.plugins.readers.ntcir",
            "crawlmill.plugins.readers.sequencefile",
            "crawlmill.plugins.readers.nutch_legacy",
            "crawlmill.plugins.readers.nutch_segment",
            "crawlmill.plugins.readers.nutch_db",
            "crawlmill.plugins.readers.mapfile",
        ],
        entry_points=False,
    )
    assert set(builtins.file_suffixes()) == set(FORMAT_SUFFIXES)


def test_a_plugin_format_suffix_is_stripped_when_the_registry_passes_it():
    assert output_stems(["a.urls", "b.warc.gz"]) == ["a.urls", "b"]
    assert output_stems(["a.urls.gz", "b.warc.gz"], (".urls", ".warc")) == ["a", "b"]
    assert strip_suffixes("a.urls.zst", 2, (".urls",)) == "a"
