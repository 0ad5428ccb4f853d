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
    "annotated_types",
    "typing_extensions",
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

#: modules (and their sub-modules) a convert of a one-record WARC to WARC must not load: the
#: libraries of other formats and steps, the engine's Spark side, and pydantic (no option is
#: given: the light options build their defaults, the spec is built from the arguments)
NOT_IN_A_WARC_CONVERT = (
    "pydantic",
    "pydantic_core",
    "numpy",
    "pyarrow",
    "lxml",
    "yaml",
    "tomllib",
    "fsspec",
    "warcio",
    "pyspark",
    "chardet",
    "cramjam",
    "lz4",
    "simhash",
    "crawlmill.algorithms.simhash",
    "crawlmill.algorithms.text_extraction",
    "crawlmill.algorithms.language_detect",
    "crawlmill.formats.hadoop",
    "crawlmill.formats.ntcir",
    "crawlmill.formats.cc2012",
    "crawlmill.formats.clueweb09",
    "crawlmill.core.run.spark_executor",
    "crawlmill.core.run.status",
    "crawlmill.plugins.readers.arc",
    "crawlmill.formats.arc",
    # the installed distributions' entry points and versions are read by core/entry_scan.py
    "importlib.metadata",
    "email",
    "csv",
    # the sorted shuffle (imported when the writer declares one), a process pool's modules
    # (the in-process executor runs one input), and what a name or a suggestion needs
    "crawlmill.core.run.shuffle",
    "crawlmill.algorithms.sorted_runs",
    "zstandard",
    "concurrent.futures",
    "multiprocessing",
    "socket",
    "secrets",
    "difflib",
    # uuid (and platform with it) is imported where a record id is minted: a verbatim copy
    # mints none
    "uuid",
    "platform",
)
#: the plugin modules such a convert may load: the WARC reader and writer (and what the
#: writer is made of) and the plain layout (not the ARC reader: its declared
#: ``declines_magic`` answers for a file starting with ``WARC/``)
WARC_CONVERT_PLUGINS = (
    "crawlmill.plugins",
    "crawlmill.plugins.manifest",
    "crawlmill.plugins.readers",
    "crawlmill.plugins.readers.warc",
    "crawlmill.plugins.writers",
    "crawlmill.plugins.writers.warc",
    "crawlmill.plugins.writers.cdxj_index",
    "crawlmill.plugins.writers.layout_plain",
    "crawlmill.plugins.writers.original_date",
)

#: one WARC/1.1 record, gzipped alone with a plain header (the writer copies its member)
ONE_RECORD = (
    b"WARC/1.1\r\nWARC-Type: resource\r\n"
    b"WARC-Record-ID: <urn:uuid:8d5e8b3c-0b1e-4c36-9a1e-2f1f3f6c1a01>\r\n"
    b"WARC-Date: 2024-01-02T03:04:05Z\r\nWARC-Target-URI: http://example.com/\r\n"
    b"Content-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello\r\n\r\n"
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
    config = loaded()

    src, out = sys.argv[1], sys.argv[2]  # a one-record .warc.gz, converted to WARC
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(["convert", src, "--to", "warc", "-o", out, "--progress", "never"])
        except SystemExit as exc:
            code = exc.code
    convert = [code, loaded()]

    # options given: validated by pydantic, a bad one refused by name (exit 2)
    def call(argv):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                code = main([*argv, "--progress", "never"])
            except SystemExit as exc:
                code = exc.code
        return [code, err.getvalue(), "pydantic" in sys.modules]

    warc = ["convert", src, "--to", "warc", "-o"]
    options = [call([*warc, out + "-bad", "--option", "level=10"]),
               call([*warc, out + "-zstd", "--option", "compression=zstd"]),
               call(["run", sys.argv[3]])]  # a config: its reader option is out of range
    print(json.dumps({"import": after_import, "commands": seen, "config": config,
                      "convert": convert, "options": options}))
    """
)


def _heavy(modules: list[str], tops: tuple[str, ...] = NOT_AT_START) -> list[str]:
    """The modules of ``tops`` (or below one) among ``modules``."""
    return sorted(m for m in modules if any(m == top or m.startswith(top + ".") for top in tops))


def test_the_cli_and_its_help_import_no_heavy_module(tmp_path: Path) -> None:
    import gzip

    src = tmp_path / "one.warc.gz"
    src.write_bytes(gzip.compress(ONE_RECORD, mtime=0))
    out = tmp_path / "out"
    config = tmp_path / "bad.json"
    config.write_text(
        json.dumps(
            {
                "inputs": [str(src)],
                "reader": {"name": "warc", "inflate_threads": 65},
                "writer": "warc",
                "output": str(tmp_path / "out-config"),
            }
        )
    )
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(src), str(out), str(config)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
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
    # a convert of one WARC record to WARC (the same process, after the above): it ran, copied
    # the record's gzip member as it is, and loaded the plugins it used, not the others
    code, modules = found["convert"]
    assert code == 0
    assert (out / "one.warc.gz").read_bytes() == src.read_bytes()
    assert _heavy(modules, NOT_IN_A_WARC_CONVERT) == []
    plugins = {m for m in modules if m.startswith("crawlmill.plugins")}
    assert "crawlmill.plugins.writers.warc" in plugins
    assert sorted(p for p in plugins if p not in WARC_CONVERT_PLUGINS) == [
        p for p in sorted(plugins) if p.startswith("crawlmill.plugins.writers.warc_")
    ]
    # options given (the command line's, a config's) are validated by pydantic, imported then:
    # a bad value is refused naming the option, a good one converts
    (bad, good, config_run) = found["options"]
    assert bad[0] == 2 and "writer.level: gzip level must be between 1 and 9 (got 10)" in bad[1]
    assert bad[2] is True  # pydantic validated it
    assert good[0] == 0 and (tmp_path / "out-zstd" / "one.warc.zst").is_file()
    assert config_run[0] == 2
    assert (
        "reader.inflate_threads: Input should be less than or equal to 64 (got 65)"
        in (config_run[1])
    )


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
