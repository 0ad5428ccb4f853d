"""Start-up (issue 20 item 2): the ``crawlmill`` command parses its arguments and prints its
help without importing pydantic, YAML, the registry, the engine, a codec or a plugin; each
command imports what it uses. ``crawlmill.core`` keeps its public names, imported on first use.

The import check runs in one fresh interpreter (``sys.modules`` of this one holds whatever
other tests imported). No timing is asserted (docs/performance.md, "Start-up", has figures).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import crawlmill.core

ROOT = Path(__file__).resolve().parents[2]

#: modules (and their sub-modules) importing the CLI and printing its help must not load
NOT_AT_START = (
    "pydantic",
    "pydantic_core",
    "yaml",
    "pyarrow",
    "numpy",
    "lxml",
    "fsspec",
    "warcio",
    "pluggy",
    "crawlmill.plugins",
    "crawlmill.formats",
    "crawlmill.algorithms",
    "crawlmill.core.run",
    "crawlmill.core.registry",
    "crawlmill.core.config",
    "crawlmill.core.spec",
    "crawlmill.core.plugin",
    "crawlmill.core.file_writer",
    "crawlmill.core.reading",
)

_PROBE = textwrap.dedent(
    """
    import contextlib, io, json, sys

    def loaded():
        return sorted(sys.modules)

    import crawlmill.core.commands.cli
    after_import = loaded()
    from crawlmill.core.cli import main  # the console script's entry point

    seen = {}
    for argv in (["--help"], ["convert", "--help"], ["run", "--help"], ["--version"]):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                main(argv)
            except SystemExit as exc:
                code = exc.code
        seen[" ".join(argv)] = [code, out.getvalue(), loaded()]
    import crawlmill.core.config, crawlmill.core.plugin  # what a convert's arguments use
    print(json.dumps({"import": after_import, "commands": seen, "config": loaded()}))
    """
)


def _heavy(modules: list[str]) -> list[str]:
    """The modules of :data:`NOT_AT_START` (or below one) among ``modules``."""
    return sorted(
        m for m in modules if any(m == top or m.startswith(top + ".") for top in NOT_AT_START)
    )


def test_the_cli_and_its_help_import_no_heavy_module() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, cwd=ROOT
    )
    found = json.loads(result.stdout)
    assert _heavy(found["import"]) == []
    assert "crawlmill.core.commands.cli" in found["import"]
    for argv, (code, _out, modules) in found["commands"].items():
        assert code == 0, argv
        assert _heavy(modules) == [], argv
    # the help and the version were printed (the probe saw the commands run)
    assert "usage: crawlmill" in found["commands"]["--help"][1]
    assert "--to FORMAT" in found["commands"]["convert --help"][1]
    assert found["commands"]["--version"][1] == f"crawlmill {crawlmill.core.__version__}\n"
    # the config module reads YAML and TOML files with parsers it imports then, and the
    # plugin contract imports the codecs when a reader opens its input
    later = ("yaml", "tomllib", "crawlmill.formats.codecs.compression", "crawlmill.core.run")
    assert [m for m in found["config"] if m.startswith(later)] == []


def test_every_public_core_name_resolves_to_its_defining_module() -> None:
    """``from crawlmill.core import X`` works for every X of ``__all__`` (lazy, PEP 562)."""
    import importlib

    lazy = crawlmill.core._LAZY
    assert set(crawlmill.core.__all__) == {*lazy, "__version__"}
    for name, module in lazy.items():
        defined = getattr(importlib.import_module(module, "crawlmill.core"), name)
        assert getattr(crawlmill.core, name) is defined, name
    namespace: dict = {}
    exec("from crawlmill.core import *", namespace)
    assert set(crawlmill.core.__all__) <= set(namespace)
    assert set(crawlmill.core.__all__) <= set(dir(crawlmill.core))
    try:
        crawlmill.core.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_the_type_checking_imports_list_the_lazy_names() -> None:
    """What type checkers read (the imports under ``if TYPE_CHECKING:``) names the same
    objects, from the same modules, as the lazy table."""
    tree = ast.parse((ROOT / "core" / "__init__.py").read_text(encoding="utf-8"))
    block = next(
        n
        for n in tree.body
        if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
    )
    declared = {
        alias.asname or alias.name: "." + (node.module or "")
        for node in block.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert declared == crawlmill.core._LAZY
