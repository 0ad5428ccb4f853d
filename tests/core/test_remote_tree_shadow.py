"""Where a URL prefix's shadow is made and what it holds (core/remote_tree.py): in the memory
file system when discovery fetches little, else in the temp folder; each object a file of
its size, holes only unless a reader declares a discovery read of it."""

from __future__ import annotations

import os
import re
import tempfile

from crawlmill.core import remote_tree


class _Reads:
    """The registry's one method the shadow uses: the readers' discovery reads."""

    def __init__(self, reads):
        self.reads = reads

    def discovery_reads(self):
        return self.reads


def _objects(tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "a" / "b" / "data").write_bytes(b"SEQ" + bytes(range(200)) * 50)  # 10,003 bytes
    (src / "a" / "x.warc.gz").write_bytes(b"\x1f\x8b" + b"z" * 5000)
    (src / "c.warc.gz").write_bytes(b"")
    root = str(src)
    return root, [(os.path.join(root, *r.split("/")), os.path.getsize(src / r))
                  for r in ("a/b/data", "a/x.warc.gz", "c.warc.gz")]  # fmt: skip


def test_the_shadow_holds_sizes_declared_bytes_and_holes(tmp_path):
    root, found = _objects(tmp_path)
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    remote_tree.build(root, found, str(shadow), _Reads([(re.compile("data"), 4)]))
    data, warc, empty = (
        shadow / "a" / "b" / "data",
        shadow / "a" / "x.warc.gz",
        shadow / "c.warc.gz",
    )
    assert [os.path.getsize(p) for p in (data, warc, empty)] == [10_003, 5002, 0]
    assert data.read_bytes()[:4] == b"SEQ\x00" and data.read_bytes()[4:] == bytes(9999)
    assert warc.read_bytes() == bytes(5002)  # nothing fetched: zeros
    assert os.stat(warc).st_blocks == 0  # a hole: no bytes on disk


def _two_places(tmp_path, monkeypatch):
    """The listing of ``_objects``, and a memory and a temp folder the shadow may go to."""
    _, found = _objects(tmp_path)
    shm, temp = tmp_path / "shm", tmp_path / "temp"
    shm.mkdir()
    temp.mkdir()
    monkeypatch.setattr(remote_tree, "SHM", str(shm))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return found, shm, temp


def test_the_shadow_goes_to_memory_unless_discovery_fetches_much(tmp_path, monkeypatch):
    found, shm, temp = _two_places(tmp_path, monkeypatch)
    whole = _Reads([(re.compile("data"), None)])  # the whole 10,003 bytes
    made = remote_tree.shadow_folder(found, whole, "t-")
    assert os.path.dirname(made) == str(shm) and os.listdir(made) == []
    monkeypatch.setattr(remote_tree, "SHM_BYTES", 10_002)
    assert os.path.dirname(remote_tree.shadow_folder(found, whole, "t-")) == str(temp)
    assert os.path.dirname(remote_tree.shadow_folder(found, _Reads([]), "t-")) == str(shm)
    monkeypatch.setattr(remote_tree, "SHM", str(tmp_path / "none"))  # no memory file system
    assert os.path.dirname(remote_tree.shadow_folder(found, _Reads([]), "t-")) == str(temp)


def test_a_full_memory_file_system_is_not_used(tmp_path, monkeypatch):
    """A container's ``/dev/shm`` may be 64 MB in all: without room to spare (bytes or
    inodes), the shadow goes to the temp folder."""
    found, shm, temp = _two_places(tmp_path, monkeypatch)
    real = os.statvfs(shm)
    for full in ({"f_bavail": 10}, {"f_favail": 5}):
        fields = {k: getattr(real, k) for k in ("f_bavail", "f_frsize", "f_files", "f_favail")}
        fake = type("St", (), {**fields, **full, "f_files": 1000})
        monkeypatch.setattr(os, "statvfs", lambda _path, fake=fake: fake)
        assert os.path.dirname(remote_tree.shadow_folder(found, _Reads([]), "t-")) == str(temp)
    fake = type("St", (), {"f_bavail": 1 << 30, "f_frsize": 4096, "f_files": 1000, "f_favail": 900})
    monkeypatch.setattr(os, "statvfs", lambda _path: fake)
    assert os.path.dirname(remote_tree.shadow_folder(found, _Reads([]), "t-")) == str(shm)
