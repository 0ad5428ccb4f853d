"""Inputs and outputs on S3 (core/storage.py, core/storage_root.py), against moto's S3 server
bound to 127.0.0.1 (as s3fs tests itself): a WARC -> WARC conversion from S3 to S3 writes
exactly the bytes the same conversion writes on local paths, resumes from the markers stored
beside the outputs, keeps today's ownership rule, and never shows a credential.

Issue 22: "Outputs: object stores have no atomic rename, so commit by write-then-publish ...
and resume from markers stored beside the outputs; the ownership and overwrite rules of today
hold on every store."
"""

from __future__ import annotations

import gzip
import json
import os
import uuid

import pytest
from crawlmill.core.commands.cli import main

from tests.conftest import need

SECRET = "SeCrEtKeyNeverShown0123456789"
#: one worker runs this module's tests: one S3 server (its start costs seconds) serves them all.
pytestmark = pytest.mark.xdist_group("storage-s3")


def warc_gz(first: int, n: int) -> bytes:
    """``n`` gzip-per-record WARC response records, numbered from ``first``."""
    out = []
    for i in range(first, first + n):
        body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>page %d</html>" % i
        head = (
            f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uuid.UUID(int=i)}>\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/{i}\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        out.append(gzip.compress(head + body + b"\r\n\r\n", mtime=0))
    return b"".join(out)


ACCESS_DENIED = (
    b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>AccessDenied</Code>"
    b"<Message>Access Denied</Message></Error>"
)


def _refusing(app):
    """moto's WSGI app, except that a ``GET`` or ``HEAD`` of a key with ``forbidden`` in its
    name (``HeadObject`` needs ``s3:GetObject`` too), a listing of the ``unlisted`` prefix and
    any write below a ``refused-out`` prefix, answer ``403 AccessDenied`` as S3 does when a policy refuses them (listings
    answer: the object is listed, its bytes are not for us)."""

    def refuse(environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD")
        listing = "prefix=unlisted" in environ.get("QUERY_STRING", "")
        if (
            ("forbidden" in path and method in ("GET", "HEAD"))
            or ("refused-out" in path and method != "HEAD")
            or listing
        ):
            start_response("403 Forbidden", [("Content-Type", "application/xml")])
            return [ACCESS_DENIED]
        return app(environ, start_response)

    return refuse


@pytest.fixture(scope="module")
def s3():
    """An S3 server (moto) on 127.0.0.1 and an s3fs filesystem on it; the environment names
    its endpoint and credentials the usual way (``AWS_*``), as a user's shell would."""
    need("moto.server")
    s3fs = need("s3fs")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    server._server.app = _refusing(server._server.app)
    port = server._server.server_address[1]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{port}")
        mp.setenv("AWS_ACCESS_KEY_ID", "testing")
        mp.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
        mp.setenv("AWS_DEFAULT_REGION", "us-east-1")
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3"):
            mp.delenv(name, raising=False)
        s3fs.S3FileSystem.clear_instance_cache()
        fs = s3fs.S3FileSystem()
        fs.mkdir("crawl-in")
        fs.mkdir("crawl-out")
        fs.pipe("crawl-in/c/en/00.warc.gz", warc_gz(0, 4))
        fs.pipe("crawl-in/c/en/01.warc.gz", warc_gz(10, 3))
        fs.pipe("crawl-in/c/en/_SUCCESS", b"")  # a Hadoop side file: skipped
        yield fs
        s3fs.S3FileSystem.clear_instance_cache()
    server.stop()


@pytest.fixture(scope="module")
def local_copy(tmp_path_factory, s3):
    """The same inputs on a local disk, converted to a local folder: the reference bytes."""
    base = tmp_path_factory.mktemp("local")
    src = base / "c" / "en"
    src.mkdir(parents=True)
    (src / "00.warc.gz").write_bytes(warc_gz(0, 4))
    (src / "01.warc.gz").write_bytes(warc_gz(10, 3))
    out = base / "out"
    assert main(["convert", str(base / "c"), "-o", str(out), "--workers", "1"]) == 0
    return _files(out)


def _files(root) -> dict[str, bytes]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".crawlmill"]
        for name in filenames:
            full = os.path.join(dirpath, name)
            with open(full, "rb") as fh:
                found[os.path.relpath(full, root)] = fh.read()
    return found


def _report(fs, root_and_tail: str) -> dict:
    fs.invalidate_cache()
    return json.loads(fs.cat(root_and_tail))


def _remote_files(fs, root: str) -> dict[str, bytes]:
    fs.invalidate_cache()  # crawlmill wrote through its own s3fs instance
    return {
        key[len(root) + 1 :]: fs.cat(key)
        for key in fs.find(root)
        if not key[len(root) + 1 :].startswith(".crawlmill/")
    }


def test_s3_to_s3_is_byte_identical_to_local_and_resumes(s3, local_copy, tmp_path, capfd):
    argv = ["convert", "s3://crawl-in/c/", "-o", "s3://crawl-out/run1", "--work-dir", str(tmp_path)]
    assert main([*argv, "--workers", "1"]) == 0
    assert _remote_files(s3, "crawl-out/run1") == local_copy  # the same names, the same bytes
    assert sorted(local_copy) == ["en/00.warc.gz", "en/01.warc.gz"]
    s3.invalidate_cache()
    keys = s3.find("crawl-out/run1/.crawlmill")
    assert sum("/done/" in k for k in keys) == 2  # the markers, beside the outputs
    report = _report(s3, "crawl-out/run1/.crawlmill/report.json")
    assert report["inputs"] == 2 and report["inputs_skipped"] == 0
    # a published output leaves the work folder: a placeholder of its size stays (its bytes
    # are on the store), so the work folder holds the running tasks' outputs, not the run's
    (stage,) = [p for p in tmp_path.glob("stage-*") if p.is_dir()]
    for rel, data in local_copy.items():
        st = (stage / rel).stat()
        assert st.st_size == len(data) and st.st_blocks == 0, rel

    # a rerun (a fresh work folder: nothing local survives) resumes from the store's markers
    assert main([*argv[:-1], str(tmp_path / "other"), "--workers", "1"]) == 0
    report = _report(s3, "crawl-out/run1/.crawlmill/report.json")
    assert report["inputs_skipped"] == 2
    # resuming downloaded no output: the stage holds sparse placeholders of the store's files
    (stage,) = [p for p in (tmp_path / "other").iterdir() if p.is_dir()]
    placeholder = stage / "en" / "00.warc.gz"
    assert placeholder.stat().st_size == len(local_copy["en/00.warc.gz"])
    assert placeholder.stat().st_blocks == 0

    # an output lost on the store: its input alone is redone, and its bytes come back
    s3.rm("crawl-out/run1/en/01.warc.gz")
    assert main([*argv, "--workers", "1"]) == 0
    report = _report(s3, "crawl-out/run1/.crawlmill/report.json")
    assert report["inputs_skipped"] == 1
    assert _remote_files(s3, "crawl-out/run1") == local_copy

    out, err = capfd.readouterr()
    assert SECRET not in out + err
    assert SECRET not in json.dumps(report)


def test_a_glob_of_objects_to_a_local_folder(s3, local_copy, tmp_path):
    out = tmp_path / "out"
    assert main(["convert", "s3://crawl-in/c/en/*.warc.gz", "-o", str(out), "--workers", "1"]) == 0
    assert _files(out) == {k.split("/", 1)[1]: v for k, v in local_copy.items()}
    marker = json.loads(next((out / ".crawlmill" / "done").iterdir()).read_text())
    assert marker["input_path"].startswith("s3://crawl-in/c/en/")  # the URL, no local mangle


def test_an_object_crawlmill_did_not_write_is_not_replaced(s3, tmp_path, capsys):
    s3.pipe("crawl-out/run2/en/00.warc.gz", b"someone else's file")
    argv = ["convert", "s3://crawl-in/c/", "-o", "s3://crawl-out/run2", "--workers", "1"]
    assert main([*argv, "--work-dir", str(tmp_path)]) == 2
    assert "crawlmill did not write it" in capsys.readouterr().err
    assert s3.cat("crawl-out/run2/en/00.warc.gz") == b"someone else's file"
    assert main([*argv, "--work-dir", str(tmp_path), "--overwrite"]) == 0
    s3.invalidate_cache()
    assert s3.cat("crawl-out/run2/en/00.warc.gz").startswith(b"\x1f\x8b")


def test_an_object_key_that_climbs_is_never_an_output_path(s3, tmp_path, capsys):
    s3.pipe("crawl-in/k/ok.warc.gz", warc_gz(0, 1))
    s3.pipe("crawl-in/k/../evil.warc.gz", warc_gz(1, 1))  # key "crawl-in/k/../evil..."
    out = tmp_path / "out"
    assert main(["convert", "s3://crawl-in/k/", "-o", str(out), "--workers", "1"]) == 3
    assert "its object key has an empty, '.' or '..' part" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir() if p.name != ".crawlmill") == ["ok.warc.gz"]
    assert not (tmp_path / "evil.warc.gz").exists()


def test_each_task_is_published_when_done_so_a_killed_run_resumes(
    s3, local_copy, tmp_path, monkeypatch
):
    """A run killed before its end (the end-of-run publish never happens) leaves on the store
    each finished task's files and, after them, its marker: the rerun resumes both inputs."""
    from crawlmill.core import storage_root

    monkeypatch.setattr(storage_root.RemoteRoot, "publish", lambda self: [])  # "killed"
    argv = ["convert", "s3://crawl-in/c/", "-o", "s3://crawl-out/run3", "--workers", "1"]
    assert main([*argv, "--work-dir", str(tmp_path / "a")]) == 0
    s3.invalidate_cache()
    keys = s3.find("crawl-out/run3")
    assert not any(k.endswith("report.json") for k in keys)  # the end never came
    assert sum("/.crawlmill/done/" in k for k in keys) == 2
    assert _remote_files(s3, "crawl-out/run3") == local_copy
    monkeypatch.undo()
    assert main([*argv, "--work-dir", str(tmp_path / "b")]) == 0
    report = _report(s3, "crawl-out/run3/.crawlmill/report.json")
    assert report["inputs_skipped"] == 2
    assert _remote_files(s3, "crawl-out/run3") == local_copy


def test_the_output_root_inside_an_input_prefix_is_never_read(s3, tmp_path):
    s3.mkdir("crawl-self")
    s3.pipe("crawl-self/in/a.warc.gz", warc_gz(0, 2))
    argv = ["convert", "s3://crawl-self/", "-o", "s3://crawl-self/out", "--workers", "1"]
    for _ in range(2):  # the second run lists the first one's outputs under the prefix
        assert main([*argv, "--work-dir", str(tmp_path), "--no-resume"]) == 0
        report = _report(s3, "crawl-self/out/.crawlmill/report.json")
        assert report["inputs"] == 1
    assert sorted(_remote_files(s3, "crawl-self/out")) == ["in/a.warc.gz"]


def test_a_placeholder_is_never_uploaded(s3, local_copy, tmp_path):
    """A stage file that is a placeholder (holes only: the object's bytes are on the store) is
    never uploaded, whatever its stat says: its zeros would replace the object."""
    from crawlmill.core import storage_root

    argv = ["convert", "s3://crawl-in/c/", "-o", "s3://crawl-out/run5", "--workers", "1"]
    assert main([*argv, "--work-dir", str(tmp_path)]) == 0
    remote = storage_root.RemoteRoot("s3://crawl-out/run5", str(tmp_path))
    placeholder = os.path.join(remote.stage, "en", "00.warc.gz")
    assert storage_root.is_placeholder(placeholder)
    os.utime(placeholder, ns=(10**9, 10**9))  # its stat no longer what was published
    assert "en/00.warc.gz" not in remote.publish()
    s3.invalidate_cache()
    assert _remote_files(s3, "crawl-out/run5") == local_copy


def test_an_upload_holds_one_bounded_part_at_a_time(s3, tmp_path, monkeypatch):
    """An output goes to S3 as a multipart upload of ``storage.UPLOAD_PART``-byte parts sent
    one at a time (s3fs's default reads up to ten 50 MiB parts at once: a task's whole 125 MB
    output in memory), completed only when whole; a download for a decoder's scratch copy is
    one sequential stream."""
    from crawlmill.core import storage

    data = os.urandom(2 * storage.UPLOAD_PART + 4096)
    local = tmp_path / "big.bin"
    local.write_bytes(data)
    fs, key = storage.filesystem("s3://crawl-out/upload/big.bin")
    parts, calls, flight = [], [], [0, 0]
    call = fs._call_s3

    async def counting(method, *args, **kwargs):
        calls.append(method)
        if method == "upload_part":
            parts.append(len(kwargs["Body"]))
        flight[0] += 1
        flight[1] = max(flight)
        try:
            return await call(method, *args, **kwargs)
        finally:
            flight[0] -= 1

    monkeypatch.setattr(fs, "_call_s3", counting)
    storage.put_file(fs, str(local), key)
    assert parts == [storage.UPLOAD_PART, storage.UPLOAD_PART, 4096]
    assert flight[1] == 1  # one request at a time
    assert calls[-1] == "complete_multipart_upload"
    s3.invalidate_cache()
    assert s3.cat("crawl-out/upload/big.bin") == data
    calls.clear()
    storage.download("s3://crawl-out/upload/big.bin", str(tmp_path / "back.bin"))
    assert calls == ["get_object"]  # one streamed request
    assert (tmp_path / "back.bin").read_bytes() == data


def test_a_forbidden_object_of_a_prefix_is_named_not_converted(s3, tmp_path, capsys):
    """An object of a prefix whose bytes S3 refuses (403 AccessDenied) is not converted and
    named with the reason (exit 3), as a local file without read permission in a folder is;
    the others are converted; of a glob the same. An upload S3 refuses fails the run naming
    the object."""
    s3.pipe("crawl-in/p/a.warc.gz", warc_gz(0, 2))
    s3.pipe("crawl-in/p/b.warc.gz", warc_gz(5, 2))
    s3.pipe("crawl-in/p/forbidden.warc.gz", warc_gz(9, 2))
    out = tmp_path / "out"
    assert main(["convert", "s3://crawl-in/p/", "-o", str(out), "--workers", "1"]) == 3
    err = capsys.readouterr().err
    why = "cannot read it: Permission denied (HTTP 403 Forbidden: AccessDenied)"
    assert f"s3://crawl-in/p/forbidden.warc.gz: {why}" in err
    assert sorted(p.name for p in out.iterdir() if p.name != ".crawlmill") == [
        "a.warc.gz",
        "b.warc.gz",
    ]
    out = tmp_path / "glob"  # the objects a glob matches: the same
    assert main(["convert", "s3://crawl-in/p/*.warc.gz", "-o", str(out), "--workers", "1"]) == 3
    assert f"s3://crawl-in/p/forbidden.warc.gz: {why}" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir() if p.name != ".crawlmill") == [
        "a.warc.gz",
        "b.warc.gz",
    ]
    s3.pipe("crawl-in/unlisted/a.warc.gz", warc_gz(0, 1))
    listed = "s3://crawl-in/unlisted/"  # a prefix the store refuses to list (exit 2)
    assert main(["convert", listed, "-o", str(tmp_path / "u"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert f"cannot read {listed}: Permission denied (HTTP 403 Forbidden: AccessDenied)" in err
    one = "s3://crawl-in/p/forbidden.warc.gz"  # named on its own: nothing to convert (exit 2)
    assert main(["convert", one, "-o", str(tmp_path / "one"), "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert one in err and "Permission denied (HTTP 403 Forbidden: AccessDenied)" in err
    assert "no such file" not in err
    argv = ["convert", "s3://crawl-in/p/a.warc.gz", "-o", "s3://crawl-out/refused-out"]
    assert main([*argv, "--work-dir", str(tmp_path / "w"), "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert "s3://crawl-out/refused-out/" in err
    assert "Permission denied (HTTP 403 Forbidden: AccessDenied)" in err
    assert SECRET not in err
