"""Packaging: the import package is `crawlmill`, mapped from the root folders; nothing installs a
top-level `core`, `formats` or `plugins` module; every source package is listed in the build."""

from __future__ import annotations

import importlib.metadata as md
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _installed() -> md.Distribution:
    """The installed crawlmill distribution (not an egg-info a build left in the checkout)."""
    for dist in md.distributions(name="crawlmill"):
        if dist.read_text("RECORD") is not None:  # pip's dist-info; a build's egg-info has none
            return dist
    raise AssertionError("crawlmill is not pip-installed")


def test_installed_files_live_under_crawlmill() -> None:
    files = _installed().files or []
    top = {f.parts[0] for f in files if f.suffix == ".py"}
    assert not top & {"core", "formats", "plugins"}, top
    # a regular install puts modules under crawlmill/; an editable one installs a finder only
    assert top <= {"crawlmill"} or any("__editable__" in p for p in top), top


def test_every_source_package_is_in_the_build() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found == listed


def test_builtin_plugins_are_entry_points_that_load() -> None:
    eps = {
        ep.name: ep
        for ep in md.entry_points(group="crawlmill")
        if ep.value.startswith("crawlmill.")
    }
    assert {"warc-reader", "warc-writer", "arc-reader", "arc-writer", "basic-filters"} <= set(eps)
    for ep in eps.values():
        ep.load()
