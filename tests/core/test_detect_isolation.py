"""A third-party reader whose ``sniff`` raises, or a ``crawlmill_detect_format`` hook that
raises, neither stops a run nor hides the other readers: detection names each such plugin once
as a warning and ranks the others' answers (core/registry.py ``Registry.detect``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry

from tests.helpers import put_fake_plugins_on_path, warc_record

URLS = "http://a.example/\nhttps://b.example/page?q=1\n"


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def _inputs(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc_record(1) + warc_record(2))
    (src / "b.warc").write_bytes(warc_record(3))
    (src / "seeds.urls").write_text(URLS)
    return src


def test_a_raising_sniff_and_detect_hook_warn_once_and_the_run_converts_the_rest(tmp_path, capsys):
    src = _inputs(tmp_path)
    out = tmp_path / "out"
    code = main(
        [
            "convert",
            str(src),
            "-o",
            str(out),
            "--workers",
            "1",
            *("--plugin", "cm_badsniff", "--plugin", "cm_baddetect", "--plugin", "cm_urllist"),
        ]
    )
    err = capsys.readouterr().err
    # every file converted whole: a plugin's detection bug is a warning, not a failure
    assert code == 0, err
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.warc.gz"))
    assert produced == ["a.warc.gz", "b.warc.gz", "seeds.warc.gz"]
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    # once per plugin, although each raised on all three files: two under one code
    assert report["warnings"].get("detection-failed") == 2, report["warnings"]
    example = report["warning_examples"]["detection-failed"]
    assert "'badsniff'" in example or "crawlmill_detect_format" in example, example
    sniff = [line for line in err.splitlines() if "'badsniff'" in line]
    hook = [line for line in err.splitlines() if "crawlmill_detect_format" in line]
    assert len(sniff) == 1 and len(hook) == 1, err
    assert "plugin 'cm_badsniff'" in sniff[0] and "ZeroDivisionError: sniff bug" in sniff[0]
    assert "KeyError" in hook[0]
    assert err.count("ZeroDivisionError") == 1 and err.count("KeyError") == 1, err


def test_a_raising_sniff_is_left_out_of_the_ranking_and_recorded_once(tmp_path):
    reg = Registry.load(["cm_badsniff", "cm_baddetect", "cm_urllist"], entry_points=False)
    path = tmp_path / "seeds.urls"
    path.write_text(URLS)
    assert reg.detect(str(path), URLS.encode()) == [("urllist", 0.6)]
    assert reg.detect(str(tmp_path / "x.urls"), URLS.encode()) == [("urllist", 0.6)]
    failures = reg.detection_failures
    assert sorted(failures) == ["cm_baddetect", "cm_badsniff"]
    where, message = failures["cm_badsniff"]
    assert where == str(path)  # the first file it failed on
    assert message.startswith("reader 'badsniff' (plugin 'cm_badsniff')")
    assert message.endswith("ZeroDivisionError: sniff bug")
    assert "hook crawlmill_detect_format (plugin 'cm_baddetect')" in failures["cm_baddetect"][1]


def test_a_raising_hook_does_not_hide_another_plugins_hook(tmp_path):
    """pluggy calls every hookimpl in one go: one raising would lose the others' answers."""
    reg = Registry.load(["cm_baddetect", "cm_fake"], entry_points=False)
    assert reg.detect(str(tmp_path / "x"), b"R 1\n")[0] == ("fake-lines", 0.9)
    assert list(reg.detection_failures) == ["cm_baddetect"]


def test_inspect_names_a_raising_sniff_and_reads_with_the_reader_that_claims(tmp_path, capsys):
    path = tmp_path / "seeds.urls"
    path.write_text(URLS)
    code = main(["inspect", str(path), "--plugin", "cm_badsniff", "--plugin", "cm_urllist"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "urllist" in out and "reading with: urllist" in out
    assert "warning: reader 'badsniff' (plugin 'cm_badsniff'): sniff raised" in out


def test_nothing_to_convert_names_the_plugin_whose_sniff_raised(tmp_path, capsys):
    """When no reader is left to claim a file, the refusal says which plugin failed."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "seeds.urls").write_text(URLS)
    code = main(
        ["convert", str(src / "seeds.urls"), "-o", str(tmp_path / "out")]
        + ["--plugin", "cm_badsniff"]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert "nothing to convert" in err
    assert "reader 'badsniff' (plugin 'cm_badsniff'): sniff raised" in err
    assert not (tmp_path / "out").exists()
