"""A layout whose plugin CRAWLMILL_DISABLE_PLUGINS blocks is missing for the run, even when its
module was imported earlier in the process (the run's registry decides, not the import)."""

from __future__ import annotations

from pathlib import Path

import crawlmill.plugins.writers.layout_clueweb  # noqa: F401  (imported: its layouts are known)
from crawlmill.core.commands.cli import main

ARC = Path(__file__).resolve().parents[2] / "fixtures" / "legacy" / "example-2008.arc.gz"


def test_a_disabled_layout_plugin_is_refused_although_its_module_is_imported(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "out"
    argv = ["convert", str(ARC), "-o", str(out), "--option", "layout=clueweb09"]
    monkeypatch.setenv("CRAWLMILL_DISABLE_PLUGINS", "clueweb-layouts")
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "clueweb09" in err
    assert not list(out.rglob("*.warc.gz"))
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS")
    assert main(argv) == 0, capsys.readouterr().err
    assert list(out.rglob("*.warc.gz"))
