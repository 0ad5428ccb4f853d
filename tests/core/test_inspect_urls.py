"""``crawlmill inspect`` of a collection or a file at a URL goes through the storage layer as
``convert`` does: a folder (prefix) on S3 (moto's server, in-process) is mirrored for its readers'
discovery (core/remote_tree.py) and inspected as the same local folder is, its records read from
the URLs; a file at a URL is read with ranged and streamed reads (a large object is not fetched
whole to show its first record); a ``file://`` URL is the local path.

Issue 22: "An ``https://`` input ... and a ``file://`` URL work like local paths"; "Ranged reads:
converting one member range of a large object fetches only that range (counted)".
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.core import test_storage_readers as storage_tests
from tests.helpers import warc_record

BUCKET = storage_tests.BUCKET
#: moto's S3 server on 127.0.0.1 and an s3fs filesystem on it (a module's fixture, shared)
moto_s3 = storage_tests.s3

#: one worker runs this module's tests: one S3 server serves them all.
pytestmark = pytest.mark.xdist_group("inspect-urls")


def _inspect(capsys, target: str, *more: str) -> tuple[int, str, str]:
    code = main(["inspect", target, *more])
    out, err = capsys.readouterr()
    return code, out, err


def _upload(fs, local: Path, prefix: str) -> str:
    for path in sorted(local.rglob("*")):
        if path.is_file():
            fs.pipe(f"{BUCKET}/{prefix}/{path.relative_to(local).as_posix()}", path.read_bytes())
    return f"s3://{BUCKET}/{prefix}"


def _clueweb09(root: Path, samples: Path) -> None:
    """A ClueWeb09 root: segments, md5 lists, record counts (one collection reader claims it)."""
    from tests.plugins.test_clueweb09_reader import build_collection

    build_collection(root)


def _nutch_crawl(root: Path, samples: Path) -> None:
    """A Nutch crawl folder and a loose file: no reader claims the top folder, so inspect
    plans it as ``convert`` does."""
    shutil.copytree(samples / "apache-nutch" / "testcrawl", root / "testcrawl")
    (root / "notes.txt").write_text("not records\n")


@pytest.mark.parametrize(
    ("name", "build", "expect"),
    [
        ("clueweb09", _clueweb09, "first of 6 file(s)"),
        ("tree", _nutch_crawl, "planned as `convert` plans it"),
    ],
)
def test_a_folder_at_a_url_is_inspected_as_the_local_folder(
    moto_s3,
    samples,
    tmp_path,
    capsys,
    name,
    build,
    expect,
):
    local = tmp_path / name
    local.mkdir()
    build(local, samples)
    url = _upload(moto_s3, local, f"inspect-{name}")
    want = _inspect(capsys, str(local), "--records", "40")
    got = _inspect(capsys, url + "/" * (name == "clueweb09"), "--records", "40")  # with, without
    assert expect in want[1]
    assert "CHECK FAILED" not in want[1] and want[0] in (0, 3)
    # the same lines, the local folder's paths shown as their URLs: the same units, records,
    # collection checks (the md5 lists and record counts read on S3) and files left out
    assert got == (want[0], want[1].replace(str(local), url), want[2].replace(str(local), url))
    if name == "clueweb09":
        assert got[1].count(": md5 check passed") == 6 and f"first of 6 file(s): {url}/" in got[1]


def test_a_folder_at_a_url_no_reader_reads_names_one_of_its_files(moto_s3, capsys):
    moto_s3.pipe(f"{BUCKET}/inspect-none/a/readme.txt", b"just text\n")
    moto_s3.pipe(f"{BUCKET}/inspect-none/b.warc.gz", gzip.compress(warc_record(0)))
    code, out, err = _inspect(capsys, f"s3://{BUCKET}/inspect-none")
    assert code == 3  # the loose text file would not be converted
    assert f"not converted: s3://{BUCKET}/inspect-none/a/readme.txt" in out
    moto_s3.rm(f"{BUCKET}/inspect-none/b.warc.gz")
    code, out, err = _inspect(capsys, f"s3://{BUCKET}/inspect-none/")
    assert code == 2
    assert f"s3://{BUCKET}/inspect-none is a folder, not a collection any reader" in err
    assert f"e.g. crawlmill inspect s3://{BUCKET}/inspect-none/a/readme.txt" in err
    assert "crawlmill-inspect-" not in err  # no mirror path shown


def test_a_large_object_is_not_fetched_whole_to_show_its_first_record(
    moto_s3, tmp_path, capsys, monkeypatch
):
    """Two small records, then one of 32 MiB (a stored gzip member): showing the first record
    fetches the detection's first bytes (ranged reads) and the reader's read-ahead, not the
    object."""
    from crawlmill.core import storage

    payload = b"x" * (32 << 20)
    head = warc_record(2).split(b"Content-Length: ")[0]
    big = head + b"Content-Length: %d\r\n\r\n" % len(payload) + payload + b"\r\n\r\n"
    data = gzip.compress(warc_record(0)) + gzip.compress(warc_record(1))
    data += gzip.compress(big, compresslevel=0)
    moto_s3.pipe(f"{BUCKET}/inspect-big/x.warc.gz", data)
    local = tmp_path / "x.warc.gz"
    local.write_bytes(data)
    import s3fs.core

    fetched = []
    real = s3fs.core.S3File._fetch_range

    def counted(self, start, end):
        fetched.append(end - start)
        return real(self, start, end)

    monkeypatch.setattr(s3fs.core.S3File, "_fetch_range", counted)
    url = f"s3://{BUCKET}/inspect-big/x.warc.gz"
    got = _inspect(capsys, url, "--records", "1")
    want = _inspect(capsys, str(local), "--records", "1")
    assert got == (want[0], want[1].replace(str(local), url), want[2])
    assert "1 record(s) shown" in got[1]
    # detection: at most 1 MiB; the stream: a few read-ahead blocks (the reader inflates
    # ahead), not the object
    assert fetched and sum(fetched) <= (1 << 20) + 3 * storage.STREAM_BLOCK < len(data), fetched


def test_a_file_url_is_the_local_path(samples, tmp_path, capsys):
    folder = tmp_path / "m"
    shutil.copytree(samples / "hadoop-oracle-generated" / "mapfile_block_deflate", folder)
    warc = tmp_path / "x.warc.gz"
    warc.write_bytes(gzip.compress(warc_record(0)) + gzip.compress(warc_record(1)))
    for path in (folder, warc):
        want = _inspect(capsys, str(path), "--records", "2")
        assert want[0] == 0 and "record(s) shown" in want[1]
        assert _inspect(capsys, path.as_uri(), "--records", "2") == want
