"""One detection path: the registry ranks every reader's ``sniff`` together with the
``crawlmill_detect_format`` hook, so a reader plugin needs no hook to be detected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from crawlmill.core.cli import main
from crawlmill.core.registry import Registry

from tests.conftest import need

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
URLS = "http://a.example/\nhttps://b.example/page?q=1\nhttp://c.example/x\n"


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(FAKE_DIR), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def test_a_reader_plugin_without_a_detect_hook_is_detected_and_converts_to_warc(tmp_path, capsys):
    warcio = need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    src = tmp_path / "in"
    src.mkdir()
    (src / "seeds.urls").write_text(URLS)
    out = tmp_path / "out"
    code = main(["convert", str(src / "seeds.urls"), "--to", "warc", "-o", str(out),
                 "--plugin", "cm_urllist"])
    assert code == 0, capsys.readouterr()
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.warc.gz"))
    # the reader's file_suffixes name the stem: seeds.urls -> seeds.warc.gz
    assert produced == ["seeds.warc.gz"]
    with open(out / "seeds.warc.gz", "rb") as fh:
        records = [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(fh)]
    assert [u for t, u in records if t == "resource"] == URLS.split()
    assert warcio is not None


def test_sniff_feeds_the_ranking_beside_the_hook(tmp_path):
    reg = Registry.load(["cm_urllist"])
    path = tmp_path / "seeds.urls"
    path.write_text(URLS)
    ranking = reg.detect(str(path), URLS.encode())
    assert ranking[0] == ("urllist", 0.6)
    # without the suffix the sniff is less sure; a WARC is still the WARC reader's
    assert reg.detect(str(tmp_path / "seeds.txt"), URLS.encode())[0] == ("urllist", 0.4)
    assert reg.detect("x.warc", b"WARC/1.0\r\nWARC-Type: warcinfo\r\n")[0][0] == "warc"
