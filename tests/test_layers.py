"""The import rules of docs/architecture.md ("Layers"), read off the source with ``ast``:
formats/ and algorithms/ import nothing of core or plugins at run time, core imports no
plugin, and core's top modules import the run machinery and the commands only where the
page says they do."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(["crawlmill", *(parts[:-1] if parts[-1] == "__init__" else parts)])


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, names: bool = True) -> set[str]:
    """The absolute crawlmill modules ``path`` imports at run time (at any level, not under
    ``if TYPE_CHECKING:``), with ``from m import x`` also as ``m.x`` unless ``names`` is
    false."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            if names:
                found.update(f"{target}.{a.name}" for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m == "crawlmill" or m.startswith("crawlmill.")}


def _sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


@pytest.mark.parametrize("layer", ["formats", "algorithms"])
def test_the_byte_and_algorithm_layers_import_no_core_and_no_plugin(layer):
    bad = {
        str(p.relative_to(ROOT)): sorted(
            m for m in _imports(p) if m.startswith(("crawlmill.core", "crawlmill.plugins"))
        )
        for p in _sources(layer)
    }
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_moved_text_component_is_in_the_algorithm_layer():
    """algorithms/text_extraction.py takes a Record without importing core at run time."""
    assert "crawlmill.core.record" not in _imports(ROOT / "algorithms" / "text_extraction.py")
    assert (ROOT / "algorithms" / "document_ids.py").is_file()


def test_core_imports_no_plugin():
    bad = {
        str(p.relative_to(ROOT)): sorted(
            m for m in _imports(p) if m.startswith("crawlmill.plugins")
        )
        for p in _sources("core")
    }
    assert {k: v for k, v in bad.items() if v} == {}


#: the imports from core's top modules into core/run/ and core/commands/ the page names
ALLOWED_DOWN = {
    "core/cli.py": {"crawlmill.core.commands.cli"},
    "core/config.py": {"crawlmill.core.run.spark_executor"},
    "core/spec.py": {"crawlmill.core.run.spark_conf"},
}


def test_core_top_reaches_into_the_run_machinery_only_where_the_page_says():
    found = {}
    for path in sorted((ROOT / "core").glob("*.py")):
        down = {
            m
            for m in _imports(path, names=False)
            if m.startswith(("crawlmill.core.run.", "crawlmill.core.commands."))
        }
        if down:
            found[str(path.relative_to(ROOT))] = down
    assert found == ALLOWED_DOWN


#: what plugins/ may import of core: the package itself (``crawlmill.core``, its exported
#: names) and the contract modules below; never the run machinery (core/run/), the commands
#: (core/commands/) or core's other modules (engine, registry, config, spec...). A third-party
#: plugin can do all ours do with these alone.
PLUGIN_CONTRACT = {
    "crawlmill.core",
    "crawlmill.core.contract",
    "crawlmill.core.errors",
    "crawlmill.core.extras",
    "crawlmill.core.file_writer",
    "crawlmill.core.file_writer_options",
    "crawlmill.core.input_file",
    "crawlmill.core.input_stream",
    "crawlmill.core.installed",
    "crawlmill.core.layouts",
    "crawlmill.core.markers",
    "crawlmill.core.naming",
    "crawlmill.core.options",
    "crawlmill.core.output_paths",
    "crawlmill.core.plugin",
    "crawlmill.core.plugin_options",
    "crawlmill.core.record",
    "crawlmill.core.reduce_tables",
    "crawlmill.core.shuffle_spec",
    "crawlmill.core.storage",
}


def test_plugins_import_only_the_contract_of_core():
    bad = {}
    for path in _sources("plugins"):
        outside = {
            m
            for m in _imports(path, names=False)
            if m.startswith("crawlmill.core") and m not in PLUGIN_CONTRACT
        }
        if outside:
            bad[str(path.relative_to(ROOT))] = sorted(outside)
    assert bad == {}


def test_the_contract_modules_exist_and_reach_no_run_machinery():
    """Each module of the contract is a top module of core that imports nothing of core/run/
    or core/commands/ (so a plugin importing it never loads the engine)."""
    for name in PLUGIN_CONTRACT - {"crawlmill.core"}:
        path = ROOT / "core" / f"{name.rsplit('.', 1)[1]}.py"
        assert path.is_file(), name
        down = {
            m
            for m in _imports(path, names=False)
            if m.startswith(("crawlmill.core.run", "crawlmill.core.commands"))
        }
        assert down == set(), name
