"""One layout option form for the WARC writer (issue 21 item 2): the layout's options go in
``layout: {name: ..., ...}``; the flat form before it (``--option max_records=2``) still
converts the same, with a deprecation warning that says what to write instead."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

ARC = Path(__file__).resolve().parents[2] / "fixtures" / "legacy" / "example-2008.arc.gz"


def _convert(tmp_path: Path, out: str, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "x.arc.gz").write_bytes(ARC.read_bytes())
    args = ["crawlmill", "convert", "x.arc.gz", "--to", "warc", "-o", out]
    for option in options:
        args += ["--option", option]
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    return subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env, check=False)


def _documents(folder: Path) -> dict[str, int]:
    """Records other than warcinfo per output file, as warcio counts them."""
    out = {}
    for path in sorted(folder.glob("*.warc.gz")):
        with path.open("rb") as fh:
            out[path.name] = sum(1 for r in ArchiveIterator(fh) if r.rec_type != "warcinfo")
    return out


def test_the_mapping_form_rolls_over_without_a_warning(tmp_path):
    result = _convert(tmp_path, "m", 'layout={"name": "plain", "max_records": 2}')
    assert result.returncode == 0, result.stderr
    assert "deprecated" not in result.stderr
    # 6 ARC records (the filedesc and 5 captures), 2 per file
    assert _documents(tmp_path / "m") == {
        "x-00000.warc.gz": 2,
        "x-00001.warc.gz": 2,
        "x-00002.warc.gz": 2,
    }


def test_the_flat_form_still_works_and_says_what_to_write(tmp_path):
    result = _convert(tmp_path, "f", "max_records=2", "gzip_backend=zlib")
    assert result.returncode == 0, result.stderr
    assert "max_records beside layout is deprecated" in result.stderr
    assert """--option 'layout={"name": "plain", "max_records": 2}'""" in result.stderr
    assert _documents(tmp_path / "f") == _documents_of_mapping(tmp_path)
    for name in _documents(tmp_path / "f"):  # the same bytes as the mapping form writes
        assert (tmp_path / "f" / name).read_bytes() == (tmp_path / "m2" / name).read_bytes()


def _documents_of_mapping(tmp_path: Path) -> dict[str, int]:
    result = _convert(
        tmp_path, "m2", 'layout={"name": "plain", "max_records": 2}', "gzip_backend=zlib"
    )
    assert result.returncode == 0, result.stderr
    return _documents(tmp_path / "m2")


def test_an_option_of_another_layout_is_refused_naming_it(tmp_path):
    result = _convert(tmp_path, "r", "files_per_dir=5")  # a clueweb09 option, layout plain
    assert result.returncode == 2
    assert "files_per_dir is an option of the clueweb09 layout, not of plain" in result.stderr
    assert "layout: {name: clueweb09, files_per_dir: ...}" in result.stderr
