"""Output files: path safety, temp names, md5/size tracking, commit, discard, markers, lock."""

from __future__ import annotations

import gzip
import hashlib
import os

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.run.outputs import (
    OutputRoot,
    TaskOutputs,
    UnsafeOutputPath,
    marker_key,
    safe_relpath,
)


@pytest.mark.parametrize(
    "bad",
    [
        "../../etc/x",
        "/etc/x",
        "a/../../x",
        "a/..",
        "",
        ".",
        "C:/x",
        "a\\..\\x",
        "x\0y",
        ".crawlmill/done/k.json",
    ],
)
def test_hostile_relpaths_are_refused(tmp_path, bad):
    root = tmp_path / "root"
    outputs = TaskOutputs(str(root), "k")
    outputs.start()
    with pytest.raises(UnsafeOutputPath):
        outputs.create(bad)
    outputs.discard()
    assert not (tmp_path / "etc").exists()
    assert [p for p in root.rglob("*") if p.is_file()] == []


def test_an_attempt_given_up_on_never_commits_a_later_attempts_files(tmp_path):
    """Two attempts of one task (a Spark executor lost while its process still runs, and the
    retry): the retry's start removes the first attempt's files, whose commit then fails
    instead of renaming the retry's half-written file into place."""
    root = tmp_path / "out"
    first = TaskOutputs(str(root), "k")
    first.start()
    first.create("a.txt").write(memoryview(b"first attempt"))
    retry = TaskOutputs(str(root), "k")
    retry.start()
    retry_file = retry.create("a.txt")
    retry_file.write(memoryview(b"half"))
    with pytest.raises(FileNotFoundError):
        first.commit()
    assert not (root / "a.txt").exists()
    retry_file.write(memoryview(b" and the rest"))
    assert [f["path"] for f in retry.commit()] == ["a.txt"]
    assert (root / "a.txt").read_bytes() == b"half and the rest"
    assert not (root / ".crawlmill" / "tmp" / "k").exists()


def test_normal_relpaths_are_normalised():
    assert safe_relpath("a/./b//c.warc.gz") == "a/b/c.warc.gz"
    assert (
        safe_relpath(".crawlmill/quarantine/x.bin", internal=True) == ".crawlmill/quarantine/x.bin"
    )


def test_symlink_out_of_the_root_is_refused(tmp_path):
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "link")
    outputs = TaskOutputs(str(root), "k")
    outputs.start()
    with pytest.raises(UnsafeOutputPath, match="outside the output root"):
        outputs.create("link/x.warc")
    assert list(outside.iterdir()) == []


def test_files_are_temporary_until_commit_with_md5_and_size(tmp_path):
    root = tmp_path / "root"
    outputs = TaskOutputs(str(root), "key1")
    outputs.start()
    fh = outputs.create("sub/a.warc.gz")
    with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as gz:
        gz.write(b"hello " * 1000)
    other = outputs.create("b.txt")
    other.write(memoryview(b"xyz"))
    assert other.tell() == 3
    with pytest.raises(UnsafeOutputPath, match="already created"):
        outputs.create("b.txt")
    assert not (root / "sub" / "a.warc.gz").exists()
    (attempt,) = (root / ".crawlmill" / "tmp" / "key1").iterdir()
    assert (attempt / "sub" / "a.warc.gz").exists()
    listed = outputs.commit()
    data = (root / "sub" / "a.warc.gz").read_bytes()
    assert gzip.decompress(data) == b"hello " * 1000
    assert listed[0] == {
        "path": "sub/a.warc.gz",
        "size": len(data),
        "md5": hashlib.md5(data).hexdigest(),
        "internal": False,
    }
    assert listed[1]["md5"] == hashlib.md5(b"xyz").hexdigest()
    assert not (root / ".crawlmill" / "tmp" / "key1").exists()
    assert gzip.GzipFile(root / "sub" / "a.warc.gz").name.endswith(
        "a.warc.gz"
    )  # stable name inside


def test_discard_removes_everything(tmp_path):
    root = tmp_path / "root"
    outputs = TaskOutputs(str(root), "k")
    outputs.start()
    outputs.create("a.txt").write(b"x")
    outputs.discard()
    assert [p for p in root.rglob("*") if p.is_file()] == []


def test_start_removes_stale_temp_files(tmp_path):
    stale = tmp_path / "root" / ".crawlmill" / "tmp" / "k" / "half.warc"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"partial")
    TaskOutputs(str(tmp_path / "root"), "k").start()
    assert not stale.exists()


def test_open_removes_marker_and_report_temps_of_a_killed_run(tmp_path):
    done = tmp_path / "root" / ".crawlmill" / "done"
    done.mkdir(parents=True)
    stale = [done / "abc.json.tmp-4242", tmp_path / "root" / ".crawlmill" / "report.json.tmp-17"]
    for p in stale:
        p.write_text("{")
    kept = [done / "abc.json", tmp_path / "root" / "page.tmp-1"]  # a marker; a user's output
    for p in kept:
        p.write_text("{}")
    root = OutputRoot(str(tmp_path / "root"))
    root.open()
    root.close()
    assert [p.exists() for p in stale] == [False, False]
    assert [p.exists() for p in kept] == [True, True]


def test_marker_completeness(tmp_path):
    root = OutputRoot(str(tmp_path / "root"))
    root.open()
    try:
        (tmp_path / "root" / "a.out").write_bytes(b"12345")
        marker = {
            "fingerprint": "fp1",
            "input_size": 10,
            "outputs": [{"path": "a.out", "size": 5, "md5": "-"}],
        }
        root.write_marker("k", marker)
        assert root.complete_marker("k", "fp1", 10) == marker
        assert root.complete_marker("k", "fp2", 10) is None  # other pipeline settings
        assert root.complete_marker("k", "fp1", 11) is None  # the input changed
        (tmp_path / "root" / "a.out").write_bytes(b"1234")
        assert root.complete_marker("k", "fp1", 10) is None  # truncated output
        (tmp_path / "root" / "a.out").unlink()
        assert root.complete_marker("k", "fp1", 10) is None  # missing output
        assert root.complete_marker("absent", "fp1", 10) is None
    finally:
        root.close()
    assert (
        marker_key("a/x.warc", "fp")
        != marker_key("a/x.warc", "fp2")
        != marker_key("b/x.warc", "fp")
    )


def test_one_run_at_a_time_per_output_root(tmp_path):
    first = OutputRoot(str(tmp_path / "root"))
    first.open()
    try:
        with pytest.raises(ConfigError, match="in use by another crawlmill run"):
            OutputRoot(str(tmp_path / "root")).open()
    finally:
        first.close()
    again = OutputRoot(str(tmp_path / "root"))
    again.open()
    again.close()


def test_output_root_that_is_a_file_is_a_config_error(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="not a folder"):
        OutputRoot(str(tmp_path / "f")).open()


def _spy_syncs(monkeypatch) -> list[tuple[str, str]]:
    """Record fsync / syncfs / rename calls of core.outputs in order."""
    from crawlmill.core.run import outputs as mod

    calls: list[tuple[str, str]] = []
    real_fsync, real_replace, real_syncfs = os.fsync, os.replace, mod._syncfs

    def fsync(fd):
        calls.append(("fsync", ""))
        return real_fsync(fd)

    def syncfs(path):
        calls.append(("syncfs", path))
        return real_syncfs(path)

    def replace(a, b):
        calls.append(("rename", str(b)))
        return real_replace(a, b)

    monkeypatch.setattr(mod.os, "fsync", fsync)
    monkeypatch.setattr(mod.os, "replace", replace)
    monkeypatch.setattr(mod, "_syncfs", syncfs)
    return calls


@pytest.mark.parametrize("count", [3, 40])
def test_files_are_durable_before_any_is_renamed(tmp_path, monkeypatch, count):
    """A few files: an fsync each; many (an NTCIR tree's pages): one syncfs of the
    filesystem. Either way before the first rename."""
    import sys

    calls = _spy_syncs(monkeypatch)
    outputs = TaskOutputs(str(tmp_path / "out"), "k")
    outputs.start()
    for i in range(count):
        outputs.create(f"d{i % 2}/f{i}.txt").write(b"x" * i)
    listed = outputs.commit()
    assert len(listed) == count
    first_rename = next(i for i, (kind, _) in enumerate(calls) if kind == "rename")
    before = [kind for kind, _ in calls[:first_rename]]
    # (plus one fsync: the pending marker, written after the files are durable)
    if count > 32 and sys.platform == "linux":
        assert before == ["syncfs", "fsync"]
    else:
        assert before == ["fsync"] * (count + 1)
    assert sorted(p.name for p in (tmp_path / "out").rglob("f*.txt")) == sorted(
        f"f{i}.txt" for i in range(count)
    )
