"""Lazy plugin loading (issue 20 item 2): the registry knows every built-in plugin's components
from its manifest (``crawlmill/plugins/manifest.py``) and imports a plugin only when a run uses
it or detection needs its reader's ``sniff``.

Import checks run in fresh processes (``sys.modules`` of this one holds whatever other tests
imported)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from crawlmill.core.errors import PluginError
from crawlmill.core.registry import Registry
from crawlmill.formats.codecs.detect import read_head

REPO = Path(__file__).resolve().parents[2]
SAMPLES = Path("/work/shared/samples")

#: modules a start-up or a WARC -> WARC run must not import (heavy, or another format's)
HEAVY = (
    "numpy",
    "pyarrow",
    "lxml",
    "simhash",
    "crawlmill.algorithms.simhash",
    "crawlmill.plugins.filters.simhash_dedup",
    "crawlmill.plugins.readers.ntcir",
    "crawlmill.plugins.writers.ntcir",
    "crawlmill.plugins.readers.nutch_segment",
    "crawlmill.plugins.writers.nutch_segment",
    "crawlmill.plugins.readers.nutch_db",
    "crawlmill.plugins.writers.nutch_db",
    "crawlmill.plugins.readers.nutch_legacy",
    "crawlmill.plugins.writables.nutch",
    "crawlmill.plugins.readers.cc2012",
    "crawlmill.plugins.writers.cc2012",
    "crawlmill.plugins.writers.cc2012_json",
    "crawlmill.plugins.readers.clueweb09",
)


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def _imported_after(code: str) -> set[str]:
    """The modules of :data:`HEAVY` (and their sub-modules) a fresh interpreter holds after
    running ``code``."""
    probe = code + textwrap.dedent(
        f"""
        import json, sys
        heavy = {list(HEAVY)!r}
        print(json.dumps(sorted(m for m in sys.modules
                                if any(m == h or m.startswith(h + ".") for h in heavy))))
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRAWLMILL_")}
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    ).stdout
    return set(json.loads(out.strip().splitlines()[-1]))


def test_cli_import_and_help_import_no_heavy_module():
    assert _imported_after("import crawlmill.core.commands.cli\n") == set()
    helped = _imported_after(
        "import sys, contextlib, io\n"
        "sys.argv = ['crawlmill', '--help']\n"
        "import crawlmill.core.commands.cli as cli\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    cli.main()\n"
    )
    assert helped == set()


def test_registry_load_imports_no_plugin_module():
    code = (
        "import sys\n"
        "from crawlmill.core.registry import Registry\n"
        "r = Registry.load()\n"
        "assert 'warc' in r.components['reader'] and 'nutch-segment' in r.components['writer']\n"
        "plugins = [m for m in sys.modules if m.startswith('crawlmill.plugins.')]\n"
        "assert plugins == ['crawlmill.plugins.manifest'], plugins\n"
    )
    assert _imported_after(code) == set()


def test_warc_to_warc_convert_imports_only_what_it_uses(tmp_path):
    src = tmp_path / "one.warc"
    body = b"<html>hi</html>"
    src.write_bytes(
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://example.com/\r\n"
        b"Content-Type: text/html\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
    )
    code = (
        "import sys, contextlib\n"
        f"sys.argv = ['crawlmill', 'convert', {str(src)!r}, '--to', 'warc', '-o', "
        f"{str(tmp_path / 'out')!r}]\n"
        "import crawlmill.core.commands.cli as cli\n"
        "try:\n    cli.main()\nexcept SystemExit as e:\n    assert e.code in (0, None), e.code\n"
    )
    assert _imported_after(code) == set()
    assert list((tmp_path / "out").glob("*.warc*"))


def test_manifest_declares_what_importing_registers():
    """Every built-in entry point is declared, and importing it registers exactly the declared
    components with the declared suffixes and Java names (else the registry notes a problem)."""
    from crawlmill.plugins.manifest import PLUGINS

    registry = Registry.load()
    ours = {n: p for n, p in registry.plugins.items() if p.package == "crawlmill"}
    assert ours and set(ours) == set(PLUGINS)
    declared = {name: list(info.components) for name, info in ours.items()}
    assert all(info.lazy for info in ours.values())
    registry.load_all()
    assert registry.problems == []
    for name, info in ours.items():
        assert info.status == "ok", (name, info.error)
        assert not info.lazy
        assert sorted(info.components) == sorted(declared[name]), name
        assert sorted(info.components) == sorted(
            (c["kind"], c["name"]) for c in PLUGINS[name]["components"]
        )


def _sample_paths() -> list[str]:
    found: list[str] = []
    for root in (SAMPLES, REPO / "fixtures", REPO / "tests"):
        if not root.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith((".", "__"))]
            found.append(dirpath)
            found.extend(os.path.join(dirpath, f) for f in filenames[:40])
            if len(found) > 3000:
                return found
    return found


def test_detection_is_the_same_lazy_or_imported():
    """The manifest's sniff gates only skip readers whose ``sniff`` claims nothing: every
    sample file and folder gets the same ranking with every plugin imported first."""
    paths = _sample_paths()
    assert len(paths) > 50
    lazy, eager = Registry.load(), Registry.load()
    eager.load_all()
    for path in paths:
        head = b"" if os.path.isdir(path) else read_head(path)
        assert lazy.detect(path, head) == eager.detect(path, head), path
    # and on heads built here, for each gated reader
    heads = [b"", b"SEQ\x06", b"WARC/1.0\r\n", b"filedesc://x", b'{"url": 1}', b"\xef\xbb\xbf{}"]
    heads += ['{"url": "u", "metadata": {}}\n'.encode(enc) for enc in ("utf-16", "utf-32")]
    for head in heads:
        for name in ("x.jsonl", "data", "x.warc.gz", "x.seq"):
            path = str(REPO / name)
            assert lazy.detect(path, head) == eager.detect(path, head), (name, head)


def test_a_warc_detection_imports_no_folder_reader():
    registry = Registry.load()
    path = str(REPO / "x.warc.gz")
    ranking = registry.detect(path, b"WARC/1.0\r\nWARC-Type: warcinfo\r\n")
    assert ranking[0][0] == "warc"
    imported = {c.name for c in registry.components["reader"].values() if c.loaded}
    assert imported == {"warc"}, imported  # the ARC reader declines a WARC head
    assert registry.components["reader"]["nutch-segment"].file_suffixes == ()
    assert ".warc" in registry.file_suffixes()


def _third_party(
    tmp_path, monkeypatch, module_source: str, components: list[dict], **declared
) -> str:
    """A plugin package declared through ``crawlmill_manifests`` (as a third party would):
    an installed distribution's metadata, its module and its manifest module in ``tmp_path``."""
    tag = uuid.uuid4().hex[:8]
    module, manifest, ep = f"lazy_toy_{tag}", f"lazy_manifest_{tag}", f"lazy-toy-{tag}"
    (tmp_path / f"{module}.py").write_text(module_source)
    (tmp_path / f"{manifest}.py").write_text(
        f"PLUGINS = {{{ep!r}: {{'module': {module!r}, 'components': {components!r}, "
        f"**{declared!r}}}}}\n"
    )
    info = tmp_path / f"lazy_toy_{tag}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: lazy-toy-{tag}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        f"[crawlmill]\n{ep} = {module}\n\n[crawlmill_manifests]\n{ep} = {manifest}:PLUGINS\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CRAWLMILL_LOAD_PLUGINS", ep)
    monkeypatch.delitem(sys.modules, module, raising=False)
    return module


TOY = """
from crawlmill.core import Filter, hookimpl

class Toy(Filter):
    '''Keeps every record.'''
    name = "lazy-toy"

    def apply(self, record, ctx):
        return record

@hookimpl
def crawlmill_register_filters(register):
    register(Toy)
"""


def test_declared_third_party_plugin_is_imported_on_first_use(tmp_path, monkeypatch):
    module = _third_party(tmp_path, monkeypatch, TOY, [{"kind": "filter", "name": "lazy-toy"}])
    registry = Registry.load()
    assert "lazy-toy" in registry.components["filter"]
    assert module not in sys.modules
    cls = registry.filter("lazy-toy")
    assert module in sys.modules and cls.__module__ == module
    assert registry.problems == []


def test_declared_plugin_that_fails_to_import_is_a_plugin_error(tmp_path, monkeypatch):
    _third_party(
        tmp_path, monkeypatch, "raise ImportError('no such thing')\n",
        [{"kind": "filter", "name": "lazy-toy"}],
    )  # fmt: skip
    registry = Registry.load()
    with pytest.raises(PluginError, match="failed to load.*lazy-toy"):
        registry.filter("lazy-toy")
    (info,) = [p for p in registry.plugins.values() if p.status != "blocked"]
    assert info.status == "failed" and "no such thing" in info.error
    assert "lazy-toy" not in registry.components["filter"]


def test_a_declared_component_the_module_does_not_register(tmp_path, monkeypatch):
    _third_party(
        tmp_path, monkeypatch, TOY,
        [{"kind": "filter", "name": "lazy-toy"}, {"kind": "filter", "name": "lazy-ghost"}],
    )  # fmt: skip
    registry = Registry.load()
    with pytest.raises(PluginError, match="unknown filter 'lazy-ghost'"):
        registry.filter("lazy-ghost")
    assert any("declares filter 'lazy-ghost'" in p for p in registry.problems)
    assert registry.filter("lazy-toy").name == "lazy-toy"


DETECTING = """
from crawlmill.core import Reader, hookimpl

class Lines(Reader):
    '''Reads nothing; claimed by the detect hook only.'''
    name = "lazy-lines"

    @classmethod
    def sniff(cls, path, head):
        return 0.0

    def read(self, ctx):
        return iter(())

@hookimpl
def crawlmill_register_readers(register):
    register(Lines)

@hookimpl
def crawlmill_detect_format(path, head):
    return [("lazy-lines", 0.99)] if path.endswith(".lazylines") else None
"""


def test_a_declared_detect_hook_is_imported_for_detection(tmp_path, monkeypatch):
    module = _third_party(
        tmp_path, monkeypatch, DETECTING,
        [{"kind": "reader", "name": "lazy-lines", "sniffs": "folders"}], detect_format=True,
    )  # fmt: skip
    registry = Registry.load()
    assert module not in sys.modules
    assert registry.detect(str(tmp_path / "x.lazylines"), b"anything") == [("lazy-lines", 0.99)]
    assert module in sys.modules


def test_a_distribution_installed_after_a_first_load_is_found_by_the_next(tmp_path, monkeypatch):
    """The registry keeps one scan of the installed distributions' entry points while
    ``sys.path`` and its folders' modification times are unchanged; a distribution installed
    into a folder already on the path (as pip does) is seen by the next load."""
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    name = f"cm_late_{uuid.uuid4().hex[:8]}"
    first = Registry.load([])
    assert name not in first.plugins
    (site / f"{name}.py").write_text(
        "from crawlmill.core import Filter, hookimpl\n"
        "class Late(Filter):\n    name = 'late-filter'\n    def apply(self, record):\n        return record\n"
        "@hookimpl\ndef crawlmill_register_filters(register):\n    register(Late)\n"
    )
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[crawlmill]\n{name} = {name}\n")
    second = Registry.load([])
    assert name in second.plugins and second.plugins[name].version == "1.0"
    assert second.plugins[name].status != "failed", second.plugins[name].error
    assert "late-filter" in second.components["filter"]
    # and nothing changed since: the same entry points without a new scan
    assert name in Registry.load([]).plugins
