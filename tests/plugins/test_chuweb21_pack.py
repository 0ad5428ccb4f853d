"""The ``chuweb21`` layout's ``pack: tar``: each folder packed as the Chuweb21 paper ships the
collection, checked with GNU tar and warcio (issue 19).

The paper (section 3): "The complete Chuweb21 collection is split into 5, 118 sub-files with
"warc.tar" format to facilitate the user in downloading and using." The release's md5 list
(shared/samples/chuzhumin98-Chuweb21D/materials/md5) names the sub-files
``<folder>/<file>.warc.gz``: the tars hold them under those names.
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
from pathlib import Path

from crawlmill.core.commands.cli import main
from crawlmill.formats.clueweb09 import collection as cw

from tests.helpers import cli, warc_record

INPUTS = {
    "crawl/CC-MAIN-20210410181215-20210410211215-00000.warc": [0, 1],
    "crawl/CC-MAIN-20210410181215-20210410211215-00001.warc": [2],
    "crawl/CC-MAIN-20210411000000-20210411030000-00007.warc": [3, 4, 5],
}


def convert(tmp_path: Path, *options: str) -> Path:
    src = tmp_path / "in"
    for rel, numbers in INPUTS.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(b"".join(warc_record(i) for i in numbers))
    out = tmp_path / "out"
    option_args = [a for o in ("layout=chuweb21", *options) for a in ("--option", o)]
    assert cli("convert", src, "-o", out, "--workers", "1", *option_args).exit_code == 0
    return out


def test_each_folder_becomes_a_warc_tar_of_the_manifest_s_files(tmp_path, need_command):
    tar_cmd = need_command("tar")
    out = convert(tmp_path, 'layout_options={"pack": "tar"}', "compression=gzip")
    manifest, bad = cw.parse_chuweb_manifest((out / "md5_checksum.txt").read_bytes())
    assert bad == [] and len(manifest) == 3
    tars = sorted(p.name for p in out.glob("*.warc.tar"))
    assert tars == [
        "CC-MAIN-20210410181215-20210410211215.warc.tar",
        "CC-MAIN-20210411000000-20210411030000.warc.tar",
    ]
    for name in tars:
        folder = name[: -len(".warc.tar")]
        listed = sorted(e.path for e in manifest if e.path.startswith(folder + "/"))
        # GNU tar lists exactly the folder's files, under the manifest's names
        done = subprocess.run([tar_cmd, "-tf", str(out / name)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == listed
        # and extracts them with the bytes the manifest's md5 names
        dest = tmp_path / "x" / folder
        dest.mkdir(parents=True)
        done = subprocess.run([tar_cmd, "-xf", str(out / name), "-C", str(dest)])
        assert done.returncode == 0
        for entry in manifest:
            if entry.path.startswith(folder + "/"):
                data = (dest / entry.path).read_bytes()
                assert hashlib.md5(data).hexdigest() == entry.md5
                assert data == (out / entry.path).read_bytes()


def test_the_packed_warcs_read_back_in_warcio(tmp_path, need):
    need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    out = convert(tmp_path, 'layout_options={"pack": "tar"}')
    with tarfile.open(out / "CC-MAIN-20210411000000-20210411030000.warc.tar") as tar:
        (member,) = tar.getmembers()
        assert member.mode == 0o644 and member.uid == 0
        data = tar.extractfile(member).read()
    uris = [
        r.rec_headers.get_header("WARC-Target-URI")
        for r in ArchiveIterator(io.BytesIO(data))
        if r.rec_type == "resource"
    ]
    assert uris == [f"http://example.com/{i}" for i in (3, 4, 5)]


def test_no_pack_by_default_and_a_rerun_packs_the_same_bytes(tmp_path):
    plain = convert(tmp_path / "a")
    assert not list(plain.glob("*.warc.tar"))
    first = convert(tmp_path / "b", 'layout_options={"pack": "tar"}', "gzip_backend=zlib")
    second = convert(tmp_path / "c", 'layout_options={"pack": "tar"}', "gzip_backend=zlib")
    for tar in first.glob("*.warc.tar"):
        assert tar.read_bytes() == (second / tar.name).read_bytes()


def test_pack_is_checked(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc_record(1))
    argv = ["convert", str(src), "-o", str(tmp_path / "o"), "--option", "layout=chuweb21"]
    assert main([*argv, "--option", 'layout_options={"pack": "zip"}']) == 2
