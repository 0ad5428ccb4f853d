"""One detection path: the registry ranks every reader's ``sniff`` together with the
``crawlmill_detect_format`` hook, so a reader plugin needs no hook to be detected."""

from __future__ import annotations

from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry

from tests.conftest import need
from tests.helpers import put_fake_plugins_on_path

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
URLS = "http://a.example/\nhttps://b.example/page?q=1\nhttp://c.example/x\n"


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def test_a_reader_plugin_without_a_detect_hook_is_detected_and_converts_to_warc(tmp_path, capsys):
    warcio = need("warcio")
    from warcio.archiveiterator import ArchiveIterator

    src = tmp_path / "in"
    src.mkdir()
    (src / "seeds.urls").write_text(URLS)
    out = tmp_path / "out"
    code = main(
        [
            "convert",
            str(src / "seeds.urls"),
            "--to",
            "warc",
            "-o",
            str(out),
            "--plugin",
            "cm_urllist",
        ]
    )
    assert code == 0, capsys.readouterr()
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.warc.gz"))
    # the reader's file_suffixes name the stem: seeds.urls -> seeds.warc.gz
    assert produced == ["seeds.warc.gz"]
    with open(out / "seeds.warc.gz", "rb") as fh:
        records = [
            (r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(fh)
        ]
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


def test_sniff_and_hook_feed_one_ranking_highest_wins(tmp_path):
    from crawlmill.core import Reader, hookimpl

    class Quiet(Reader):
        """A reader that never sniffs (no opinion)."""

        name = "quiet"

        def read(self, ctx):  # pragma: no cover - never read
            return iter(())

    class Loud(Quiet):
        """A reader that sniffs too high."""

        name = "loud"

        @classmethod
        def sniff(cls, path, head):
            return 7.0 if head else 0.2

    class Plugin:
        @hookimpl
        def crawlmill_register_readers(self, register):
            register(Quiet)
            register(Loud)

        @hookimpl
        def crawlmill_detect_format(self, path, head):
            return [("quiet", 0.5), ("loud", 0.4), ("not-registered", 1.0)]

    reg = Registry.load(entry_points=False)
    reg._register(
        __import__("crawlmill.core.registry").core.registry.PluginInfo("p", "p"), Plugin()
    )
    # Quiet's sniff says None: the hook's 0.5 stands; Loud's sniff is clamped to 1.0
    assert reg.detect("x", b"data") == [("loud", 1.0), ("quiet", 0.5)]
    # the hook's 0.4 beats Loud's sniff 0.2: the highest of both sources
    assert reg.detect("x", b"") == [("quiet", 0.5), ("loud", 0.4)]


def test_a_sniff_that_raises_names_the_reader_and_its_plugin(tmp_path):
    """The reader claims nothing and the failure is kept (once) for planning to report;
    tests/core/test_detect_isolation.py runs it through the CLI."""
    reg = Registry.load(["cm_urllist"], entry_points=False)
    broken = reg.components["reader"]["urllist"]

    def boom(path, head):
        raise ValueError("bad byte")

    broken.cls = type("Broken", (broken.cls,), {"sniff": staticmethod(boom)})
    assert reg.detect(str(tmp_path / "x"), b"http://a/\n") == []
    where, message = reg.detection_failures["cm_urllist"]
    assert where == str(tmp_path / "x")
    assert message.startswith("reader 'urllist' (plugin 'cm_urllist'): sniff raised")
    assert message.endswith("ValueError: bad byte")


def test_file_suffixes_name_stems_and_damaged_starts(tmp_path, capsys):
    """A damaged ``.urls.gz`` is named like the plugin's format (reported, not skipped), and
    the plan's stems drop every registered reader's ``file_suffixes``."""
    from crawlmill.core.naming import FORMAT_SUFFIXES

    reg = Registry.load(["cm_urllist"])
    assert set(reg.file_suffixes()) == {".urls", *FORMAT_SUFFIXES}
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.urls").write_text(URLS)
    (src / "b.urls.gz").write_bytes(b"\x00" * 40)
    code = main(
        ["convert", str(src), "--to", "warc", "-o", str(tmp_path / "out"), "--plugin", "cm_urllist"]
    )
    err = capsys.readouterr().err
    assert code == 3, err
    assert "b.urls.gz: format not detected: named like a file of the 'urllist' reader" in err
    assert (tmp_path / "out" / "a.warc.gz").is_file()
