"""crawlmill.core.entry_scan against its oracle, importlib.metadata: the same entry points in
the same order, the same distribution names and versions, and no answer where it would guess."""

from __future__ import annotations

import email.parser
import importlib.metadata as md
import sys
from pathlib import Path

import pytest
from crawlmill.core import entry_scan

GROUPS = ("crawlmill", "crawlmill_manifests", "console_scripts")


def _oracle(groups: tuple[str, ...]) -> dict[str, list[tuple[str, str, str]]]:
    found = md.entry_points()
    return {g: [(e.name, e.value, e.group) for e in found.select(group=g)] for g in groups}


def _light(groups: tuple[str, ...]) -> dict[str, list[tuple[str, str, str]]]:
    got = entry_scan.scan(groups)
    assert got is not None
    return {g: [(e.name, e.value, e.group) for e in eps] for g, eps in got.items()}


def test_the_installed_environment_reads_as_importlib_metadata_reads_it():
    assert _light(GROUPS) == _oracle(GROUPS)
    assert _light(GROUPS)["crawlmill"]  # crawlmill's own plugins are there


def _dist(folder: Path, name: str, text: str, metadata: str | None = None) -> None:
    folder.mkdir(parents=True)
    (folder / "entry_points.txt").write_text(text, encoding="utf-8")
    (folder / "METADATA").write_text(metadata or f"Name: {name}\nVersion: 1\n", encoding="utf-8")


def test_duplicates_comments_and_order_as_importlib_metadata(tmp_path, monkeypatch):
    """ "The first distribution of a name on sys.path wins; within a folder, distributions are
    grouped by normalized name (Foo_Bar and foo.bar are one name)."""
    a, b = tmp_path / "a", tmp_path / "b"
    _dist(a / "zeta-1.0.dist-info", "zeta", "[crawlmill]\n z = zeta.plugin\n")
    _dist(a / "Foo_Bar-1.0.dist-info", "Foo_Bar", "# c\n[crawlmill]\nfb = fb.one:x [extra]\n")
    _dist(a / "other-2.egg-info", "other", "[other]\nq=1\n\n[crawlmill]\n  dup  =  o.p:y.z\n")
    _dist(a / "foo.bar-2.0.dist-info", "foo.bar", "[crawlmill]\nfb2 = fb.two\n")
    _dist(b / "zeta-2.0.dist-info", "zeta", "[crawlmill]\nshadowed = never\n")
    _dist(
        b / "late-1.dist-info",
        "late",
        "[crawlmill]\ndup = late.p\n[crawlmill_manifests]\nm = a:b\n",
    )
    (b / "nothing-1.dist-info").mkdir()  # no entry_points.txt
    monkeypatch.setattr(sys, "path", [str(a), str(tmp_path / "missing"), str(b)])
    groups = ("crawlmill", "crawlmill_manifests")
    assert _light(groups) == _oracle(groups)
    assert ("shadowed", "never", "crawlmill") not in _light(groups)["crawlmill"]
    ep = entry_scan.scan(groups)["crawlmill_manifests"][0]
    assert (ep.name, ep.value, ep.dist.read_text("METADATA")) == (
        "m",
        "a:b",
        "Name: late\nVersion: 1\n",
    )


def test_it_does_not_guess(tmp_path, monkeypatch):
    """A zip on sys.path, an ``.egg``, a line importlib.metadata refuses, a finder of its own:
    no answer (the registry asks importlib.metadata)."""
    (tmp_path / "z.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    monkeypatch.setattr(sys, "path", [str(tmp_path / "z.zip")])
    assert entry_scan.scan(GROUPS) is None
    (tmp_path / "x.egg").mkdir()
    monkeypatch.setattr(sys, "path", [str(tmp_path / "x.egg")])
    assert entry_scan.scan(GROUPS) is None
    _dist(tmp_path / "bad" / "bad-1.dist-info", "bad", "[crawlmill]\nno equals sign\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "bad")])
    assert entry_scan.scan(GROUPS) is None
    with pytest.raises((TypeError, ValueError)):  # the oracle refuses it too
        md.entry_points()
    monkeypatch.setattr(sys, "path", [str(tmp_path).encode()])  # bytes: not read here
    assert entry_scan.scan(GROUPS) is None
    monkeypatch.setattr(sys, "path", [])

    class Finder:
        @staticmethod
        def find_distributions(*args, **kwargs):
            return iter(())

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    assert entry_scan.scan(GROUPS) is None


def test_entry_points_load_what_importlib_metadata_loads():
    for ep in entry_scan.scan(("crawlmill",))["crawlmill"][:1]:
        oracle = next(e for e in md.entry_points(group="crawlmill") if e.name == ep.name)
        assert ep.load() is oracle.load()


@pytest.mark.parametrize(
    "text",
    [
        "Metadata-Version: 2.1\nName: a-b\nVersion: 1.0 \nSummary: x\n\nName: body\n",
        "name: lower\nVERSION: 2\n",
        "Name: first\nName: second\nVersion: 3\n",
        "Summary: folded\n  continued\nName: n\nVersion: 4\n",
        "Name:\tx\r\nVersion: 5\r\n\r\n",
        "Version: 6\n",
        "From nobody\nName: y\n",
    ],
)
def test_name_and_version_as_emails_header_parser_reads_them(text):
    headers = email.parser.HeaderParser().parsestr(text)
    assert entry_scan.headers_identity(text) == (headers.get("Name"), headers.get("Version"))


def test_every_installed_distributions_name_and_version_as_email_reads_them():
    for dist in md.distributions():
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
        if text:
            headers = email.parser.HeaderParser().parsestr(text)
            assert entry_scan.headers_identity(text) == (
                headers.get("Name"),
                headers.get("Version"),
            )


def test_versions_as_importlib_metadata_reads_them(tmp_path, monkeypatch):
    for name in ("crawlmill", "pluggy", "PyYAML", "pydantic_core"):
        assert entry_scan.version_of(name) == md.version(name)
    _dist(tmp_path / "a" / "Foo_Bar-1.0.dist-info", "x", "", "Name: foo.bar\nVersion: 7\n")
    _dist(tmp_path / "a" / "foo.bar-2.0.dist-info", "x", "", "Name: foo.bar\nVersion: 8\n")
    _dist(tmp_path / "b" / "foo_bar-3.dist-info", "x", "", "Name: foo-bar\nVersion: 9\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "a"), str(tmp_path / "b")])
    assert entry_scan.version_of("FOO-bar") == md.version("FOO-bar")
    assert entry_scan.version_of("nothing") is None
