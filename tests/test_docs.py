"""The docs stay true: docs/plugin_hooks.md covers every hookspec (datasette's doc test), and
the module table of docs/architecture.md names every module that exists and no other, and
.ci/run runs the test command README.md shows."""

from __future__ import annotations

import re
from pathlib import Path

import pluggy
import pytest
from crawlmill.core import hookspecs
from crawlmill.core.markers import PROJECT, hookspec

DOC = Path(__file__).resolve().parent.parent / "docs" / "plugin_hooks.md"


def _hook_specs(module=hookspecs) -> dict[str, tuple[str, ...]]:
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(module)
    specs = {}
    for name in dir(pm.hook):
        caller = getattr(pm.hook, name)
        if name.startswith("crawlmill_") and getattr(caller, "spec", None) is not None:
            specs[name] = tuple(caller.spec.argnames)
    return specs


def _headings(text: str | None = None) -> list[str]:
    text = DOC.read_text() if text is None else text
    return [m.group(1).strip() for m in re.finditer(r"^##\s+(.+)$", text, re.M)]


def undocumented(specs: dict[str, tuple[str, ...]], headings: list[str]) -> list[str]:
    """Signatures of hooks without a heading ``## name(arg1, arg2)``."""
    wanted = [f"{hook}({', '.join(args)})" for hook, args in sorted(specs.items())]
    return [sig for sig in wanted if sig not in headings]


HOOKS = _hook_specs()


def test_there_are_hooks_to_document():
    assert {"crawlmill_register_readers", "crawlmill_detect_format"} <= set(HOOKS)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_plugin_hook_is_documented_with_its_signature(hook):
    missing = undocumented({hook: HOOKS[hook]}, _headings())
    assert not missing, f"docs/plugin_hooks.md needs a heading '## {missing[0]}'"


def test_the_check_catches_a_new_hook_and_a_changed_signature():
    class NewSpecs:
        @hookspec
        def crawlmill_new_hook(self, record, ctx):
            """New."""

    specs = {**HOOKS, **_hook_specs(NewSpecs)}
    assert undocumented(specs, _headings()) == ["crawlmill_new_hook(record, ctx)"]
    changed = _headings("## crawlmill_detect_format(path)\n")
    assert "crawlmill_detect_format(path, head)" in undocumented(HOOKS, changed)


@pytest.mark.parametrize("hook", sorted(HOOKS))
def test_plugin_hook_has_a_docstring(hook):
    doc = (getattr(hookspecs, hook).__doc__ or "").strip()
    assert doc, f"hookspec {hook} has no docstring"
    for arg in HOOKS[hook]:
        assert f":param {arg}:" in doc, f"hookspec {hook} does not describe its argument {arg!r}"


def test_no_heading_documents_a_hook_that_does_not_exist():
    documented = {h.split("(")[0] for h in _headings() if h.startswith("crawlmill_")}
    assert documented == set(HOOKS)


ROOT = DOC.parent.parent


def _module_table() -> set[str]:
    """The module paths the "Where things live" table of docs/architecture.md names, with
    ``{a,b}.py`` expanded and a bare ``x.py`` taken in the folder of the cell's first path."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## Where things live", 1)[1]
    named: set[str] = set()
    for line in table.splitlines():
        if not line.startswith("| `"):
            continue
        folder = ""
        for item in re.findall(r"`([^`]+\.py)`", line.split(" | ", 1)[0]):
            if "/" in item:
                folder = item.rsplit("/", 1)[0]
            else:
                item = f"{folder}/{item}"
            brace = re.fullmatch(r"(.*)\{([^}]*)\}(.*)", item)
            parts = brace.group(2).split(",") if brace else [None]
            for part in parts:
                named.add(f"{brace.group(1)}{part}{brace.group(3)}" if brace else item)
    return named


def test_the_module_table_names_every_module_and_only_existing_ones():
    named = _module_table()
    modules = {
        p.relative_to(ROOT).as_posix()
        for layer in ("core", "formats", "plugins")
        for p in (ROOT / layer).rglob("*.py")
        if p.name != "__init__.py"
    }
    assert sorted(modules - named) == []
    assert sorted(named - modules) == []


def _readme_commands() -> list[str]:
    """The commands of the ```sh blocks README.md starts with."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, flags=re.S)[:2]]


def test_ci_runs_the_test_command_readme_shows():
    """README's second command (install the test extras, run the tests) is what .ci/run runs,
    and its first one installs crawlmill and converts the fixtures' legacy collection."""
    install_and_convert, install_and_test = _readme_commands()
    assert "fixtures/" in install_and_convert and "crawlmill convert" in install_and_convert
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert install_and_test in [line.strip() for line in ci.splitlines()]
