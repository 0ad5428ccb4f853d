"""Layouts are a registered component kind: the ``crawlmill_register_layouts`` hook, a typed
``Options`` model per layout, ``layout: {name: ..., <option>: ...}`` in a writer's config, and
``crawlmill plugins`` listing them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main
from crawlmill.core.errors import ConfigError
from crawlmill.core.registry import Registry

from tests.helpers import put_fake_plugins_on_path

FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
URLS = "http://a.example/\nhttps://b.example/page\nhttp://c.example/x\n"


@pytest.fixture(autouse=True)
def fake_on_path(monkeypatch):
    put_fake_plugins_on_path(monkeypatch)


def _project(tmp_path: Path, writer: str) -> Path:
    (tmp_path / "data").mkdir(parents=True)
    (tmp_path / "data" / "seeds.urls").write_text(URLS)
    path = tmp_path / "pipeline.yaml"
    path.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            plugins: [cm_urllist, cm_layout]
            inputs: [data/]
            writer: {writer}
            output: out
            run: {{workers: 1}}
            """
        )
    )
    return path


def _outputs(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.warc.gz"))


def _records(path: Path) -> list[tuple[str, str | None]]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return [
            (r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(fh)
        ]


def test_a_plugin_layout_is_registered_through_the_hook_and_used_by_the_warc_writer(
    tmp_path, capsys
):
    pytest.importorskip("warcio")
    path = _project(
        tmp_path, "{name: warc, warcinfo: never, layout: {name: flat, prefix: crawl-, per_file: 2}}"
    )
    code = main(["run", str(path)])
    assert code == 0, capsys.readouterr().err
    out = tmp_path / "out"
    assert _outputs(out) == ["crawl-000-0.warc.gz", "crawl-000-1.warc.gz"]
    urls = [u for f in _outputs(out) for _, u in _records(out / f)]
    assert urls == URLS.split()


def test_a_layout_option_it_does_not_have_is_a_config_error_naming_it(tmp_path, capsys):
    path = _project(tmp_path, "{name: warc, layout: {name: flat, language: German}}")
    code = main(["validate", str(path)])
    err = capsys.readouterr()
    assert code != 0
    text = err.out + err.err
    assert "layout 'flat'" in text and "language" in text and "unknown option" in text


def test_the_mapping_form_and_the_flat_form_of_clueweb09_agree(tmp_path, capsys):
    flat = _project(tmp_path / "a", "{name: warc, layout: clueweb09, language: German}")
    nested = _project(tmp_path / "b", "{name: warc, layout: {name: clueweb09, language: German}}")
    assert main(["run", str(flat)]) == 0, capsys.readouterr().err
    assert main(["run", str(nested)]) == 0, capsys.readouterr().err
    names = _outputs(tmp_path / "a" / "out")
    assert names and names[0].startswith("ClueWeb09_German_1/")
    assert _outputs(tmp_path / "b" / "out") == names


def test_plugins_lists_the_built_in_layouts_with_their_options(capsys):
    code = main(["plugins", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    layouts = {
        c["name"]: (p["name"], c)
        for p in json.loads(out)
        for c in p["components"]
        if c["kind"] == "layout"
    }
    assert {"plain", "clueweb09", "chuweb21"} <= set(layouts)
    plugin, clueweb = layouts["clueweb09"]
    assert plugin == "clueweb-layouts" and clueweb["summary"]
    language = next(o for o in clueweb["options"] if o["name"] == "language")
    assert (language["type"], language["default"]) == ("str", "English")
    assert {o["name"] for o in layouts["plain"][1]["options"]} == {
        "name_pattern",
        "max_records",
        "max_bytes",
    }
    code = main(["plugins"])
    text = capsys.readouterr().out
    assert "layout clueweb09: " in text and "layout plain: " in text
    assert 'language (str, default "English"): Collection language' in text


def test_registry_keeps_layouts_as_a_kind():
    from crawlmill.core.plugin import Layout

    reg = Registry.load(["cm_layout"])
    flat = reg.layout("flat")
    assert issubclass(flat, Layout) and reg.components["layout"]["flat"].plugin == "cm_layout"
    assert reg.layout("plain").name == "plain"
    with pytest.raises(Exception, match="unknown layout 'flatt'.*did you mean 'flat'"):
        reg.layout("flatt")


def test_writer_options_resolve_the_layout_and_its_settings_from_the_run_registry():
    from crawlmill.plugins.writers.warc import WarcWriter

    reg = Registry.load(["cm_layout"])
    ctx = {"registry": reg}
    opts = WarcWriter.Options.model_validate(
        {"layout": {"name": "flat", "prefix": "x-"}}, context=ctx
    )
    assert opts.layout == "flat" and opts.layout_options == {"prefix": "x-"}
    assert opts.layout_class is reg.layout("flat") and opts.layout_settings.prefix == "x-"
    # the dumped form (what a config stores and workers re-validate) means the same
    again = WarcWriter.Options.model_validate(opts.model_dump(mode="json"), context=ctx)
    assert again.layout_settings == opts.layout_settings
    # built-in layout: its options are the layout's, in one form (issue 21 item 2)
    cw = WarcWriter.Options.model_validate(
        {"layout": {"name": "clueweb09", "language": "de", "files_per_dir": 5}}
    )
    assert (cw.layout, cw.layout_options) == ("clueweb09", {"language": "de", "files_per_dir": 5})
    assert not hasattr(cw, "language") and "files_per_dir" not in WarcWriter.Options.model_fields
    assert cw.layout_settings.files_per_dir == 5 and cw.layout_settings.language == "de"
    # the flat form before it still means the same, with a warning naming the mapping
    with pytest.warns(
        FutureWarning, match=r"language, files_per_dir beside layout are deprecated.*layout: \{"
    ):
        flat = WarcWriter.Options.model_validate(
            {"layout": "clueweb09", "language": "de", "files_per_dir": 5}
        )
    assert flat.layout_options == cw.layout_options and flat.layout_settings == cw.layout_settings
    with pytest.raises(ValueError, match="given twice"):
        WarcWriter.Options.model_validate(
            {"layout": {"name": "clueweb09", "language": "de"}, "language": "fr"}
        )
    with pytest.raises(ValueError, match="unknown layout 'nope'"):
        WarcWriter.Options.model_validate({"layout": {"name": "nope"}})
    assert ConfigError  # imported for the open-time error path tested in test_warc_writer
