"""URLs crawlmill cannot use are refused with exit 2 and a message naming them, before anything
is written: an ``http(s)://`` output (nothing to write to), a pipeline config or list file at a
URL, a URL with credentials in it (shown without them). Other URLs go through the storage
layer (tests/core/test_storage_*.py)."""

from __future__ import annotations

import os

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.remote_paths import url_scheme

from tests.helpers import warc_record


@pytest.mark.parametrize("url", ["http://h/o", "https://h/o"])
def test_an_http_output_is_refused(tmp_path, capsys, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in.warc"
    src.write_bytes(warc_record(1))
    assert main(["convert", str(src), "--to", "warc", "-o", url, "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert url in err and "can be read, not written" in err
    assert sorted(os.listdir(tmp_path)) == ["in.warc"]  # no ./http:/h/o


def test_credentials_in_a_url_are_refused_and_never_shown(tmp_path, capsys):
    out = tmp_path / "out"
    url = "https://user:Secr3tPass@example.invalid/in.warc.gz"
    assert main(["convert", url, "--to", "warc", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "https://example.invalid/in.warc.gz" in err and "credentials" in err
    assert "Secr3tPass" not in err
    assert not out.exists()


def test_a_config_url_and_a_list_file_url_are_refused(tmp_path, capsys):
    assert main(["run", "gs://bucket/pipeline.yaml"]) == 2
    assert "gs://bucket/pipeline.yaml" in capsys.readouterr().err
    cfg = tmp_path / "p.yaml"
    cfg.write_text("inputs: {list_file: 'hdfs://nn/list.txt'}\nwriter: {name: warc}\noutput: out\n")
    for command in ("run", "validate"):
        assert main([command, str(cfg)]) == 2
        assert "hdfs://nn/list.txt" in capsys.readouterr().err


def test_what_is_a_url():
    assert [url_scheme(p) for p in ("S3://b", "file:///x", "C:/x", "c://x", "a/b://c", "x")] == [
        "s3",
        "file",
        None,
        None,
        None,
        None,
    ]
