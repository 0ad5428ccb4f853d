"""A URL given where crawlmill takes a local path (``-o s3://bucket/out``, an ``hdfs://`` input,
a pipeline config at ``gs://``) is refused with exit 2 and a message naming it, and nothing is
written (before: ``./s3:/bucket/out`` was created and the run exited 0)."""

from __future__ import annotations

import os

import pytest
from crawlmill.core.cli import main
from crawlmill.core.remote_paths import url_scheme

from tests.helpers import warc_record


@pytest.mark.parametrize("url", ["s3://bucket/out", "hdfs://nn:8020/out", "gs://b/o", "http://h/o"])
def test_an_output_url_is_refused(tmp_path, capsys, monkeypatch, url):
    monkeypatch.chdir(tmp_path)
    src = tmp_path / "in.warc"
    src.write_bytes(warc_record(1))
    assert main(["convert", str(src), "--to", "warc", "-o", url, "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert url in err and "URL" in err
    assert sorted(os.listdir(tmp_path)) == ["in.warc"]  # no ./s3:/bucket/out


def test_an_input_url_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["convert", "s3://bucket/in.warc.gz", "--to", "warc", "-o", str(out)])
    assert code == 2
    assert "s3://bucket/in.warc.gz" in capsys.readouterr().err
    assert not out.exists()


def test_a_config_url_and_urls_inside_a_config_are_refused(tmp_path, capsys):
    assert main(["run", "gs://bucket/pipeline.yaml"]) == 2
    assert "gs://bucket/pipeline.yaml" in capsys.readouterr().err
    cfg = tmp_path / "p.yaml"
    cfg.write_text("inputs: {paths: [in.warc]}\nwriter: {name: warc}\noutput: hdfs://nn/out\n")
    for command in ("run", "validate"):
        assert main([command, str(cfg)]) == 2
        assert "hdfs://nn/out" in capsys.readouterr().err


def test_what_is_a_url():
    assert [url_scheme(p) for p in ("S3://b", "file:///x", "C:/x", "c://x", "a/b://c", "x")] == [
        "s3",
        "file",
        None,
        None,
        None,
        None,
    ]
