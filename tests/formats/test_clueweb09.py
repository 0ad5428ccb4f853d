"""ClueWeb09 naming, TREC ids and side-file codecs (formats/clueweb09/collection.py)."""

from __future__ import annotations

import hashlib
import subprocess

import pytest
from crawlmill.formats.clueweb09 import collection as cw


def test_languages_cover_the_ten_clueweb09_languages():
    # the ten languages of the Lemur page, and the segment names ir_datasets lists
    assert len(cw.LANGUAGES) == 10
    assert cw.language_code("English") == "en"
    assert cw.language_code("chinese") == "zh"
    assert cw.language_code("PT") == "pt"
    assert cw.language_name("ja") == "Japanese"
    with pytest.raises(ValueError, match="not a ClueWeb09 language"):
        cw.language_code("Klingon")
    for segment in cw.SEGMENTS:
        parsed = cw.parse_segment_name(segment)
        assert parsed is not None and cw.segment_name(parsed.language, parsed.number) == segment
    assert len(cw.SEGMENTS) == 24


def test_segment_dir_and_file_names():
    assert cw.segment_name("en", 10) == "ClueWeb09_English_10"
    assert cw.parse_segment_name("ClueWeb09_English_10") == ("English", 10)
    assert cw.parse_segment_name("ClueWeb12_00") is None
    assert cw.parse_segment_name("ClueWeb09_Klingon_1") is None
    assert cw.dir_name("English", 42) == "en0042"
    assert cw.dir_name("en", 3, wikipedia=True) == "enwp03"
    assert cw.parse_dir_name("en0042") == ("en", 42, False)
    assert cw.parse_dir_name("enwp03") == ("en", 3, True)
    assert cw.parse_dir_name("en042") is None
    assert cw.parse_dir_name("xx0000") is None
    assert cw.file_name(7) == "07.warc.gz"
    assert cw.file_name(99, ".warc") == "99.warc"
    assert cw.parse_file_name("07.warc.gz") == 7
    assert cw.parse_file_name("7.warc.gz") is None
    with pytest.raises(ValueError):
        cw.file_name(100)
    with pytest.raises(ValueError):
        cw.dir_name("en", 10000)


def test_trec_ids_build_and_parse():
    assert cw.trec_id("en0000", 0, 0) == "clueweb09-en0000-00-00000"
    assert cw.trec_id("zh0020", 29, 4344) == "clueweb09-zh0020-29-04344"
    assert cw.trec_id("enwp01", 5, 99999) == "clueweb09-enwp01-05-99999"
    assert cw.parse_trec_id("clueweb09-en0040-54-00401") == ("en0040", 54, 401)
    assert str(cw.parse_trec_id("clueweb09-enwp01-05-00017")) == "clueweb09-enwp01-05-00017"
    for bad in (
        "clueweb12-0000tw-00-00013",
        "clueweb09-en0000-0-00000",
        "clueweb09-en0000-00-0000",
    ):
        assert cw.parse_trec_id(bad) is None
    with pytest.raises(ValueError, match="5 digits"):
        cw.trec_id("en0000", 0, 100000)
    with pytest.raises(ValueError, match="directory name"):
        cw.trec_id("en00", 0, 0)


def test_ids_of_the_real_samples_parse(samples):
    # every WARC-TREC-ID in the Lemur sample files is a valid id naming its directory and file
    for name, prefix in (
        ("ClueWeb09_English_Sample", ("en0040", 54)),
        ("ClueWeb09_Chinese_Sample", ("zh0020", 29)),
    ):
        data = (samples / "sqs-freequery/test/dumps" / name).read_bytes()
        ids = [
            line.split(b": ", 1)[1].decode()
            for line in data.split(b"\n")
            if line.startswith(b"WARC-TREC-ID: ")
        ]
        assert len(ids) == 100
        parsed = [cw.parse_trec_id(i) for i in ids]
        assert all(p is not None and (p.directory, p.file) == prefix for p in parsed)
        assert [p.record for p in parsed] == sorted(p.record for p in parsed)


def test_md5_list_matches_the_dataset_page_example_and_roundtrips():
    # the example line of the Lemur "Dataset Information" page
    entries, bad = cw.parse_md5_list(b"98f91370de2dbc9c6d358f6251e591d6 *./en0000/22.warc.gz\n")
    assert bad == []
    assert entries == [("en0000/22.warc.gz", "98f91370de2dbc9c6d358f6251e591d6", 1)]
    # text-mode md5sum output (two spaces, no star) and upper-case digests are accepted
    entries, bad = cw.parse_md5_list(
        "D41D8CD98F00B204E9800998ECF8427E  ./en0001/00.warc.gz\nnot a line\n\n"
    )
    assert (
        entries[0].path == "en0001/00.warc.gz"
        and entries[0].md5 == "d41d8cd98f00b204e9800998ecf8427e"
    )
    assert bad == [(2, "not a line")]
    rows = [("en0000/00.warc.gz", "0" * 32), ("en0000/01.warc.gz", "f" * 32)]
    data = cw.format_md5_list(rows)
    assert data.splitlines()[0] == b"0" * 32 + b" *./en0000/00.warc.gz"
    assert [(e.path, e.md5) for e in cw.parse_md5_list(data)[0]] == rows
    with pytest.raises(ValueError):
        cw.format_md5_list([("en0000/00.warc.gz", "xyz")])


def test_md5_list_is_checked_by_md5sum(tmp_path, need_command):
    md5sum = need_command("md5sum")
    seg = tmp_path / "ClueWeb09_English_1"
    (seg / "en0000").mkdir(parents=True)
    rows = []
    for n in range(3):
        data = f"file {n}".encode() * (n + 1)
        (seg / "en0000" / cw.file_name(n)).write_bytes(data)
        rows.append((f"en0000/{cw.file_name(n)}", hashlib.md5(data).hexdigest()))
    (seg / cw.md5_file_name(seg.name)).write_bytes(cw.format_md5_list(rows))
    done = subprocess.run(
        [md5sum, "-c", cw.md5_file_name(seg.name)], cwd=seg, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count(": OK") == 3


def test_counts_file_matches_the_dataset_page_example_and_roundtrips():
    entries, bad = cw.parse_counts(b"*./en0042/15.warc.gz 34618\n")
    assert bad == [] and entries == [("en0042/15.warc.gz", 34618, 1)]
    # ir_datasets' reading: split on whitespace, strip 3 characters from the path
    data = cw.format_counts([("en0042/15.warc.gz", 34618), ("enwp00/00.warc.gz", 7)])
    for line, (path, count) in zip(
        data.decode().splitlines(),
        [("en0042/15.warc.gz", 34618), ("enwp00/00.warc.gz", 7)],
        strict=True,
    ):
        file, n = line.strip().split()
        assert file[3:] == path and int(n) == count
    assert cw.parse_counts(b"*./en0000/00.warc.gz many\n")[1] == [(1, "*./en0000/00.warc.gz many")]
    assert (
        cw.counts_file_name("ClueWeb09_English_1") == "record_counts/ClueWeb09_English_1_counts.txt"
    )


def test_real_chuweb21_manifests_parse(samples):
    folder = samples / "chuzhumin98-Chuweb21D/materials/md5"
    names = None
    for manifest in (
        "md5_checksum-Chuweb21.txt",
        "md5_checksum-Chuweb21D-60.txt",
        "md5_checksum-Chuweb21D-70.txt",
    ):
        data = (folder / manifest).read_bytes()
        entries, bad = cw.parse_chuweb_manifest(data)
        assert bad == []
        assert len(entries) == 5118  # SOURCES.md: 5118 lines each
        assert len({e.path for e in entries}) == 5118
        folders = {e.path.split("/")[0] for e in entries}
        assert len(folders) == 8
        for e in entries:
            folder_name, file = e.path.split("/")
            assert file.startswith(folder_name + "-") and file.endswith(".warc.gz")
        # same file name set in all three releases (dedup keeps the file layout)
        names = names or {e.path for e in entries}
        assert names == {e.path for e in entries}
        # our writer reproduces the manifest byte for byte from its entries
        assert cw.format_chuweb_manifest((e.path, e.md5) for e in entries) == data


def test_chuweb_manifest_rejects_bad_lines():
    entries, bad = cw.parse_chuweb_manifest("a/b.warc.gz\t" + "a" * 32 + "\nno tab here\n")
    assert len(entries) == 1 and bad == [(2, "no tab here")]
    with pytest.raises(ValueError):
        cw.format_chuweb_manifest([("a\tb", "a" * 32)])


def test_md5_list_names_follow_the_dataset_page():
    # 'The files with the name "ClueWeb_*.md5" are the md5 sums of the individual WARC files'
    assert cw.md5_file_name("ClueWeb09_English_1") == "ClueWeb_English_1.md5"
    assert cw.md5_file_name("ClueWeb09_Chinese_4") == "ClueWeb_Chinese_4.md5"
    assert cw.md5_list_names("ClueWeb09_English_10") == (
        "ClueWeb_English_10.md5",
        "ClueWeb09_English_10.md5",
    )
    assert cw.md5_list_names("cw09b") == ("cw09b.md5",)
    with pytest.raises(ValueError):
        cw.md5_file_name("cw09b")
