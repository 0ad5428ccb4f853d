"""``crawlmill inspect`` on what a new user points it at (issue 24): an NTCIR tree shows its
pages (its first unit only checks the lists), one ``.data`` page of a tree is shown as the
tree's reader reads it, and a Spark/Hadoop output folder of part files is named as one, each
part file with why no reader reads it."""

from __future__ import annotations

import gzip
import shutil

from crawlmill.core.commands.cli import main

from tests.plugins.ntcir_tree import build_tree


def inspect(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["inspect", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_inspect_an_ntcir_tree_shows_its_pages(tmp_path, samples, capsys):
    pages = build_tree(tmp_path / "NW100G-01", sites=2, per=2)
    code, out, err = inspect(capsys, str(tmp_path / "NW100G-01"), "--records", "2")
    assert code == 0, out + err
    assert "CHECK" in out and "lists check passed" in out  # the lists unit, first
    assert f"doc_id:       {pages[0].doc_id}" in out and f"doc_id:       {pages[1].doc_id}" in out
    assert out.rstrip().endswith("2 record(s) shown, 0 damaged range(s) seen")


def test_inspect_one_data_file_of_an_ntcir_tree_shows_that_page(tmp_path, samples, capsys):
    root = tmp_path / "NW100G-01"
    pages = build_tree(root, sites=2, per=2)
    page = pages[2]  # site 000002, its first page
    data = root / "raw" / "00" / "0000" / page.site / f"{page.number:04d}.data"
    assert data.read_bytes().endswith(page.payload)
    code, out, err = inspect(capsys, str(data), "--records", "5")
    assert code == 0, out + err
    assert f"part of the 'ntcir' collection {root}" in out
    assert f"url:          {page.url}" in out and f"doc_id:       {page.doc_id}" in out
    assert "1 record(s) shown" in out  # the page of that file only, not its site's others
    assert "no reader recognises" in out  # detection is still shown as it is


def test_inspect_a_spark_output_folder_whose_parts_no_reader_reads(tmp_path, capsys):
    out_dir = tmp_path / "job-output"
    out_dir.mkdir()
    (out_dir / "_SUCCESS").write_bytes(b"")
    (out_dir / "part-00000.gz").write_bytes(gzip.compress(b"a line of text\n"))
    (out_dir / "part-00001").write_bytes(b"")  # an empty partition
    code, out, err = inspect(capsys, str(out_dir))
    assert code == 2
    assert f"{out_dir} is a Spark/Hadoop output folder of 2 part file(s), and no reader" in err
    assert f"{out_dir / 'part-00001'}: an empty file (0 bytes): no records to read" in err
    assert f"{out_dir / 'part-00000.gz'}: format not detected: text" in err
    assert "--from" in err and "not a collection" not in err and "_SUCCESS" not in err


def test_inspect_a_spark_output_folder_of_sequencefiles_shows_records(tmp_path, samples, capsys):
    folder = tmp_path / "seq"
    shutil.copytree(samples / "pyspark-generated" / "seq_text_text_none", folder)
    (folder / "part-00001").write_bytes(b"")
    code, out, err = inspect(capsys, str(folder), "--records", "1")
    assert code == 3, out + err  # the empty part is named as not converted
    assert "part-00000  [sequencefile]" in out
    assert "an empty file (0 bytes)" in out
    assert "url:          http://example.com/0000" in out
