"""A store with a rename but no atomic upload (HDFS; here fsspec's in-memory filesystem, which
takes the same code path in core/storage_root.py): each output is uploaded under a temporary
name and renamed when whole, and the outputs are the bytes a local run writes. CI runs no HDFS
(docs/storage.md); this is the path an ``hdfs://`` output takes."""

from __future__ import annotations

from crawlmill.core.commands.cli import main

from tests.conftest import need
from tests.helpers import warc_record


def test_a_store_with_rename_gets_whole_files_under_their_names(tmp_path, monkeypatch):
    fsspec = need("fsspec")
    memory = fsspec.filesystem("memory")
    renamed = []
    real_mv = type(memory).mv

    def mv(self, path1, path2, **kwargs):
        renamed.append((path1, path2))
        return real_mv(self, path1, path2, **kwargs)

    monkeypatch.setattr(type(memory), "mv", mv)
    src = tmp_path / "in.warc"
    src.write_bytes(b"".join(warc_record(i) for i in range(3)))
    local = tmp_path / "local"
    assert main(["convert", str(src), "-o", str(local), "--workers", "1"]) == 0
    url = "memory://crawlmill-rename-test/out"
    try:
        argv = ["convert", str(src), "-o", url, "--work-dir", str(tmp_path / "w"), "--workers", "1"]
        assert main(argv) == 0
        keys = memory.find("/crawlmill-rename-test/out")
        assert not [k for k in keys if k.endswith(".crawlmill-upload")]  # renamed, none left
        (written,) = [p for p in local.iterdir() if p.name != ".crawlmill"]
        remote = memory.cat(f"/crawlmill-rename-test/out/{written.name}")
        assert remote == written.read_bytes()
        final = f"/crawlmill-rename-test/out/{written.name}"
        assert (f"{final}.crawlmill-upload", final) in renamed  # uploaded whole, then renamed
        assert any("/.crawlmill/done/" in k for k in keys)
        assert main(argv) == 0  # resumed from the markers on the store
        report = memory.cat("/crawlmill-rename-test/out/.crawlmill/report.json")
        assert b'"inputs_skipped": 1' in report
    finally:
        memory.rm("/crawlmill-rename-test", recursive=True)
