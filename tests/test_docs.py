"""The docs stay true: docs/plugin_hooks.md covers every hookspec (datasette's doc test), the
hook and module tables of docs/architecture.md name every hook and module that exists and no
other, .ci/run runs the test command README.md shows, the how-to pages share one naming scheme
and an index, every path, link and ``crawlmill.*`` name a page gives exists, documented call
signatures match the code, and the examples of the how-to pages, plugin_hooks.md and
config.md run (the writer and layout pages: tests/plugins/test_file_writers.py)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import re
import sys
import typing
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
        for layer in ("core", "formats", "algorithms", "plugins")
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


# -- the pages users read: names, links, signatures, and examples that run ----------------------

DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
HOW_TO = {
    kind: DOCS / f"adding-a-{kind}.md"
    for kind in ("reader", "writer", "codec", "layout", "writable")
}


def _python_blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def test_the_how_to_pages_have_one_naming_scheme_and_one_page_each():
    how_to = sorted(p.name for p in DOCS.glob("*.md") if re.match(r"(how|add)", p.name))
    assert how_to == sorted(p.name for p in HOW_TO.values())
    for page in HOW_TO.values():
        lines = page.read_text(encoding="utf-8").count("\n")
        assert lines <= 160, f"{page.name} is {lines} lines: a how-to is one page"


def test_architecture_indexes_how_to_add_each_kind_of_format():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    index = text.split("### Adding a format", 1)[1].split("\n## ", 1)[0]
    for kind, page in HOW_TO.items():
        assert f"]({page.name})" in index, f"the index does not link {page.name}"
        assert f"**{kind}**" in index
    # Writables (Hadoop SequenceFile keys and values) are a kind with its own hook
    assert "crawlmill_register_writables" in HOOKS


def _resolves(dotted: str) -> bool:
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def _repo_paths(text: str) -> set[str]:
    """Repository paths a page names in backticks or links to, ``{a,b}`` expanded."""
    named = set(
        re.findall(r"`((?:core|formats|plugins|tests|benchmarks|docs|fixtures)/[\w/.{},-]+)`", text)
    )
    paths = set()
    for path in named:
        brace = re.fullmatch(r"(.*)\{([^}]*)\}(.*)", path)
        parts = brace.group(2).split(",") if brace else [None]
        paths |= {f"{brace.group(1)}{p}{brace.group(3)}" if brace else path for p in parts}
    return paths


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_name_link_and_path_a_page_gives_exists(page):
    text = page.read_text(encoding="utf-8")
    missing = [p for p in sorted(_repo_paths(text)) if not (ROOT / p).exists()]
    for link in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in link and not (page.parent / link).exists():
            missing.append(link)
    missing += [
        d
        for d in sorted(set(re.findall(r"\bcrawlmill(?:\.[A-Za-z_]\w*)+", text)))
        if not _resolves(d)
    ]
    assert not missing, f"{page.name} names what does not exist: {missing}"


def test_the_check_catches_a_stale_path_and_name():
    assert _repo_paths("`core/{plugin,nothere}.py`") == {"core/plugin.py", "core/nothere.py"}
    assert _resolves("crawlmill.core.problems.Notice")
    assert not _resolves("crawlmill.core.plugin.ReadIssue")


def _callables() -> dict[str, object]:
    """What the pages show called with its parameters, by the name they call it."""
    from crawlmill.core import Check, Damage, InputFile, Notice, Provenance, open_reader
    from crawlmill.core.collection import Expectation
    from crawlmill.core.plugin import Layout, ReadContext, Reader, WriteContext, Writer

    fields = typing.get_type_hints(WriteContext)  # callbacks: Callable[[args], result]
    return {
        "Damage": Damage,
        "Notice": Notice,
        "Check": Check,
        "Provenance": Provenance,
        "InputFile": InputFile,
        "Expectation.md5": Expectation.md5,
        "Expectation.records": Expectation.records,
        "Expectation.present": Expectation.present,
        "open_reader": open_reader,
        "ctx.count": ReadContext.count,
        "ctx.reader": ReadContext.reader,
        "ctx.create": fields["create"],
        "ctx.quarantine": fields["quarantine"],
        "sniff": Reader.sniff,
        "discover": Reader.discover,
        "finalize": Writer.finalize,
        "planned_outputs": Writer.planned_outputs,
        "next_path": Layout.next_path,
        "should_roll": Layout.should_roll,
        "doc_id": Layout.doc_id,
    }


def _parameters(obj: object) -> list[str]:
    if dataclasses.is_dataclass(obj):
        return [f.name for f in dataclasses.fields(obj) if f.init]
    if typing.get_origin(obj) is not None:  # a callback typed Callable[[args], result]
        return [f"arg{i}" for i in range(len(typing.get_args(obj)[0]))]
    return [p for p in inspect.signature(obj).parameters if p not in ("self", "cls")]


def _documented_calls(text: str, names: dict[str, object]):
    """``(name, [argument names])`` of every call in backticks of a known callable whose
    arguments are plain names (``Damage(path, offset, reason)``, ``x=default`` too)."""
    for code in re.findall(r"`([^`\n]+)`", text):
        for m in re.finditer(r"(?<![\w.])((?:ctx\.|Expectation\.)?\w+)\(([^()]*)\)", code):
            name, args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
            if name in names and args and all(re.fullmatch(r"\w+(=.*)?", a) for a in args):
                yield name, [a.split("=")[0] for a in args]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_signatures_name_the_real_parameters_in_order(page):
    names = _callables()
    wrong = []
    for name, args in _documented_calls(page.read_text(encoding="utf-8"), names):
        params = _parameters(names[name])
        if params and params[0].startswith("arg"):  # a callback: only the count is known
            ok = len(args) <= len(params)
        else:
            ok = args == [p for p in params if p in args] and set(args) <= set(params)
        if not ok:
            wrong.append(f"{name}({', '.join(args)}) but the code has ({', '.join(params)})")
    assert not wrong, f"{page.name}: {wrong}"


def test_the_signature_check_catches_a_renamed_or_reordered_parameter():
    names = _callables()
    calls = list(_documented_calls("`Provenance(path, offset, length, reader)`", names))
    assert calls == [("Provenance", ["path", "offset", "length", "reader"])]
    assert "reader" not in _parameters(names["Provenance"])
    assert _parameters(names["Damage"])[:3] == ["path", "offset", "reason"]


@pytest.mark.parametrize("page", [*HOW_TO.values(), DOCS / "plugin_hooks.md"], ids=lambda p: p.name)
def test_every_python_block_of_a_how_to_page_compiles(page):
    blocks = _python_blocks(page)
    assert blocks
    for i, block in enumerate(blocks):
        compile(block, f"{page.name} block {i}", "exec")


def _module_from(page: Path, block: int, mods: Path, name: str, monkeypatch) -> str:
    """Block ``block`` of ``page`` written as the importable module ``name``."""
    mods.mkdir(exist_ok=True)
    (mods / f"{name}.py").write_text(_python_blocks(page)[block], encoding="utf-8")
    monkeypatch.syspath_prepend(str(mods))
    return name


def _convert(*args: str) -> int:
    from crawlmill.core.commands.cli import main

    return main(["convert", *args, "--workers", "1"])


def test_the_reader_page_example_is_detected_by_sniff_and_converts(tmp_path, monkeypatch, capsys):
    from crawlmill.core import RecordKind, open_reader

    mod = _module_from(HOW_TO["reader"], 0, tmp_path / "mods", "cm_doc_reader", monkeypatch)
    (tmp_path / "seeds.urls").write_bytes(b"http://a.example/\nhttps://b.example/x\n")
    out = tmp_path / "out"
    code = _convert(str(tmp_path / "seeds.urls"), "--to", "warc", "-o", str(out), "--plugin", mod)
    assert code == 0, capsys.readouterr().err
    with open_reader(out / "seeds.warc.gz") as records:
        urls = [r.url for r in records if r.kind == RecordKind.RESOURCE]
    assert urls == ["http://a.example/", "https://b.example/x"]


def _xz_warc(urls: list[str]) -> list[bytes]:
    import lzma

    streams = []
    for url in urls:
        block = b"hello " * 40
        head = (
            f"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: {url}\r\n"
            "WARC-Date: 2020-01-01T00:00:00Z\r\n"
            f"WARC-Record-ID: <urn:uuid:12345678-1234-5678-1234-{len(streams):012d}>\r\n"
            f"Content-Type: text/plain\r\nContent-Length: {len(block)}\r\n\r\n"
        )
        streams.append(lzma.compress(head.encode() + block + b"\r\n\r\n", lzma.FORMAT_XZ))
    return streams


def test_the_codec_page_example_reads_resyncs_and_converts(tmp_path, monkeypatch, capsys):
    from crawlmill.core import open_reader
    from crawlmill.formats.codecs import table as codecs

    monkeypatch.setattr(codecs, "CODECS", dict(codecs.CODECS))  # the table as it was, after
    mod = _module_from(HOW_TO["codec"], 0, tmp_path / "mods", "cm_doc_codec", monkeypatch)
    __import__(mod)
    assert "xz" in codecs.CODECS
    urls = [f"http://example.com/{i}" for i in range(4)]
    streams = _xz_warc(urls)
    good = tmp_path / "in" / "crawl.warc.xz"
    good.parent.mkdir()
    good.write_bytes(b"".join(streams))
    with open_reader(good) as records:
        assert [r.url for r in records] == urls
    # garbage between two streams: damage at its compressed offset, then resync
    bad = tmp_path / "bad.warc.xz"
    bad.write_bytes(streams[0] + b"garbage!" * 8 + b"".join(streams[1:]))
    with open_reader(bad) as records:
        assert [r.url for r in records] == urls
    assert [(d.offset, d.code) for d in records.damages] == [
        (len(streams[0]), "not-compressed-data")
    ]
    out = tmp_path / "out"
    assert _convert(str(good.parent), "--to", "warc", "-o", str(out), "--plugin", mod) == 0, (
        capsys.readouterr().err
    )
    with open_reader(out / "crawl.warc.gz") as records:
        assert [r.url for r in records if r.url] == urls


def test_the_light_options_example_runs(monkeypatch):
    """plugin_hooks.md's "Options: two forms" example (its asserts are the test)."""
    import types

    (block,) = [b for b in _python_blocks(DOCS / "plugin_hooks.md") if "LightOptions" in b]
    module = types.ModuleType("cm_light_example")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(block, "plugin_hooks.md", "exec"), module.__dict__)
    assert module.Options.model_fields["threads"].description == "inflating threads"


@pytest.mark.own_codes
def test_the_plugin_hooks_examples_run(tmp_path, monkeypatch, capsys):
    from crawlmill.core import open_reader
    from crawlmill.core.registry import Registry

    page = DOCS / "plugin_hooks.md"
    blocks = _python_blocks(page)
    hooks = [
        i
        for i, b in enumerate(blocks)
        if "collect_schema" not in b and "ShuffleSpec" not in b and "LightOptions" not in b
    ]
    # the collect/reduce, shuffle and light options examples run in the tests below
    assert len(hooks) == 5
    mods = tmp_path / "mods"
    reader, writer, filt, layout, detect = (
        _module_from(page, i, mods, f"cm_hooks_{i}", monkeypatch) for i in hooks
    )
    lines = tmp_path / "in" / "a.lines"
    lines.parent.mkdir()
    lines.write_bytes(
        b"http://a.example/\t20200101\t" + b"long text " * 20 + b"\n"
        b"no separator here\n"
        b"http://b.example/\t20200101\tshort\n"
    )
    plugins = [arg for mod in (reader, writer, filt) for arg in ("--plugin", mod)]
    out = tmp_path / "out"
    args = [str(lines), "--to", "jsonl", "-o", str(out), "--filter", "min-size", "min_bytes=50"]
    assert _convert(*args, *plugins) == 3  # the line without a separator is damage
    err = capsys.readouterr().err
    assert "no separator" in err and "min-size:too-small 1" in err
    written = [json.loads(x) for x in (out / "a.jsonl").read_text().splitlines()]
    assert [x["url"] for x in written] == ["http://a.example/"]
    # the layout, with the WARC writer
    out2 = tmp_path / "out2"
    args = [str(lines), "--to", "warc", "-o", str(out2), "--option", "layout=flat"]
    assert _convert(*args, "--plugin", reader, "--plugin", layout) == 3
    with open_reader(out2 / "part-00000.warc.gz") as records:
        assert {r.url for r in records if r.url} == {"http://a.example/", "http://b.example/"}
    # the detection hook
    registry = Registry.load([detect], entry_points=False)
    assert registry.detect("x.warc", b"not a WARC") == []  # no warc reader registered here
    registry = Registry.load([detect])
    assert ("warc", 1.0) in registry.detect("x.txt", b"WARC/1.1\r\n")
    assert ("warc", 0.5) in registry.detect("x.warc", b"no WARC bytes")


def test_the_collect_reduce_example_of_plugin_hooks_runs(tmp_path, monkeypatch, capsys):
    from crawlmill.core import open_reader

    from tests.helpers import warc_record

    page = DOCS / "plugin_hooks.md"
    [block] = [i for i, b in enumerate(_python_blocks(page)) if "collect_schema" in b]
    mod = _module_from(page, block, tmp_path / "mods", "cm_hooks_collect", monkeypatch)
    src = tmp_path / "in"
    src.mkdir()
    lonely = warc_record(3).replace(b"http://example.com/3", b"http://lonely.example/3")
    (src / "a.warc").write_bytes(warc_record(1) + lonely)
    (src / "b.warc").write_bytes(warc_record(2))  # example.com: 2 records over 2 inputs
    out = tmp_path / "out"
    assert _convert(str(src), "-o", str(out), "--filter", "host-min", "--plugin", mod) == 0
    assert "host-min:rare-host 1" in capsys.readouterr().err
    urls = []
    for name in ("a.warc.gz", "b.warc.gz"):
        with open_reader(out / name) as records:
            urls += [r.url for r in records]
    assert urls == ["http://example.com/1", "http://example.com/2"]


def test_the_shuffle_example_of_plugin_hooks_runs(tmp_path, monkeypatch, capsys):
    """The sorted-urls writer of the page: every input's URLs, hash-partitioned by CRC-32 and
    sorted by bytes in each part file, as computed here without crawlmill; an empty partition
    still gets its (empty) file."""
    import zlib

    from tests.helpers import warc_record

    page = DOCS / "plugin_hooks.md"
    [block] = [i for i, b in enumerate(_python_blocks(page)) if "ShuffleSpec" in b]
    mod = _module_from(page, block, tmp_path / "mods", "cm_hooks_shuffle", monkeypatch)
    src = tmp_path / "in"
    src.mkdir()
    numbers = {"a.warc": [12, 3, 7, 30], "b.warc": [5, 21, 3], "c.warc": [100, 1]}
    for name, ids in numbers.items():
        (src / name).write_bytes(b"".join(warc_record(i) for i in ids))
    urls = [f"http://example.com/{i}".encode() for ids in numbers.values() for i in ids]
    for partitions in (3, 12):  # 12: more partitions than distinct URLs, some stay empty
        out = tmp_path / f"out{partitions}"
        args = [str(src), "--to", "sorted-urls", "-o", str(out), "--plugin", mod]
        assert _convert(*args, "--option", f"partitions={partitions}") == 0, capsys.readouterr().err
        expected = {
            f"part-{p:05d}.tsv": b"".join(
                u + b"\t2020-01-01T00:00:00Z\n"
                for u in sorted(u for u in urls if zlib.crc32(u) % partitions == p)
            )
            for p in range(partitions)
        }
        assert {f.name: f.read_bytes() for f in out.iterdir() if f.is_file()} == expected
    assert b"" in expected.values()


def test_the_yaml_toml_and_json_examples_of_config_md_are_one_pipeline(tmp_path):
    import tomllib

    import yaml
    from crawlmill.core.config import build_pipeline
    from crawlmill.core.interpolate import interpolate

    text = (DOCS / "config.md").read_text(encoding="utf-8")
    raw = {
        "yaml": yaml.safe_load(re.search(r"```yaml\n(version: 1\n.*?)```", text, re.S).group(1)),
        "toml": tomllib.loads(re.search(r"```toml\n(.*?)```", text, re.S).group(1)),
        "json": json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1)),
    }
    assert raw["yaml"].pop("plugins") == ["my_module"]  # the one line the others leave out
    env = {"OUT": str(tmp_path / "out")}
    specs = {
        syntax: build_pipeline(interpolate(data, env), base_dir=tmp_path).model_dump()
        for syntax, data in raw.items()
    }
    assert specs["yaml"] == specs["toml"] == specs["json"]
    assert specs["yaml"]["inputs"]["list_file"].endswith("paths.txt")


def test_the_hook_table_of_architecture_md_lists_every_hook_with_its_signature():
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    table = text.split("## The plugin contract", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(crawlmill_\w+\([^)]*\))` \|", table, re.M)
    assert sorted(rows) == sorted(f"{hook}({', '.join(args)})" for hook, args in HOOKS.items())


# -- docs/collections.md ------------------------------------------------------------------------

COLLECTIONS = DOCS / "collections.md"


def _collection_commands() -> list[tuple[str, int]]:
    """``(command, exit code)`` of every ``crawlmill`` line of collections.md's sh blocks (the
    code from its ``# exits N`` comment)."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", COLLECTIONS.read_text(encoding="utf-8"), re.S):
        for line in block.splitlines():
            if line.startswith("crawlmill "):
                command, _, comment = line.partition("#")
                code = re.fullmatch(r"\s*exits (\d)\s*", comment)
                assert code, f"collections.md: {line!r} says not how it exits"
                found.append((command.strip(), int(code.group(1))))
    return found


def test_collections_md_names_every_collection_reader():
    """Every registered reader has a row in the table (those that expand a folder with
    ``discover`` among them)."""
    from crawlmill.core.plugin import Reader
    from crawlmill.core.registry import Registry

    text = COLLECTIONS.read_text(encoding="utf-8")
    readers = Registry.load().components["reader"]
    collection = [n for n, c in readers.items() if c.cls.discover is not Reader.discover]
    assert {"nutch-segment", "nutch-crawldb", "cc2012", "clueweb09", "ntcir"} <= set(collection)
    rows = [line.split("|")[2] for line in text.splitlines() if line.startswith("| ")]
    assert [n for n in sorted(collection) if not any(f"`{n}`" in r for r in rows)] == []
    assert [n for n in sorted(readers) if not any(f"`{n}`" in r for r in rows)] == []
    assert len(_collection_commands()) >= 15


def _workspace(root: Path) -> Path:
    """A folder holding the collections collections.md's commands name, from the samples."""
    import shutil

    from tests.conftest import SAMPLES
    from tests.plugins.ntcir_tree import build_tree

    if not (SAMPLES / "apache-nutch/testcrawl").is_dir():
        pytest.skip("../shared/samples is absent")
    ws = root / "ws"

    def put(src: Path, dst: str) -> None:
        target = ws / dst
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copyfile)(src, target)

    put(SAMPLES / "apache-nutch/testcrawl", "crawl")
    for seg in ("testcrawl/segments/20060919213635", "test-segments/20150309101625"):
        put(SAMPLES / "apache-nutch" / seg, f"all-segments/{seg.rsplit('/', 1)[1]}")
    put(ROOT / "fixtures/nutch-legacy/20050301120000", "old-segments/20050301120000")
    put(SAMPLES / "cc2012-synthetic/text-gzip", "parse-output/segment/1346823845675")
    put(SAMPLES / "cc2012-synthetic/textbytes-snappy", "parse-output/segment/1346823846039")
    cw09 = SAMPLES / "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz"
    put(cw09, "ClueWeb09_English_1/en0000/00.warc.gz")
    build_tree(ws / "NW100G-01", sites=2, per=2)
    put(SAMPLES / "pyspark-generated/mapfile_text_text_block_deflate", "spark-mapfiles")
    put(SAMPLES / "pyspark-generated/seq_text_text_none", "spark-seqfiles")
    put(SAMPLES / "iipc-jwarc/test-resources/org/netpreserve/jwarc/cc.warc.gz", "mixed/cc.warc.gz")
    put(SAMPLES / "webrecorder-warcio/test/data/example.arc.gz", "mixed/example.arc.gz")
    (ws / "mixed/NOTES.txt").write_text("how these files were collected\n")
    for path in ws.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return ws


def test_the_commands_of_collections_md_exit_as_it_says(tmp_path, monkeypatch, capsys):
    import shlex

    from crawlmill.core.commands.cli import main

    ws = _workspace(tmp_path)
    monkeypatch.chdir(ws)
    for command, code in _collection_commands():
        argv = shlex.split(command)[1:]
        if argv[0] in ("convert", "run"):
            argv += ["--workers", "1", "--progress", "never"]
        got = main(argv)
        out, err = capsys.readouterr()
        assert got == code, f"{command}: exit {got}, collections.md says {code}\n{out}{err}"
        if argv[0] == "convert" and code == 3 and "--dry-run" not in argv:
            # exit 3 here only because the text file is not converted, and it is named
            out_dir = Path(argv[argv.index("-o") + 1])
            report = json.loads((out_dir / ".crawlmill/report.json").read_text())
            left = [os.path.relpath(n["path"], ws) for n in report["not_converted"]]
            assert left == ["mixed/NOTES.txt"] and "NOTES.txt: format not detected" in err
    everything = json.loads((tmp_path / "everything/.crawlmill/report.json").read_text())
    assert everything["quarantined"] == 0 and everything["checks_failed"] == []


# -- docs/recipes.md ----------------------------------------------------------------------------

RECIPES = DOCS / "recipes.md"
#: recipes that start from the outputs of others (run first, in the same folder).
RECIPE_NEEDS = {
    "A Nutch CrawlDB and LinkDB": ["A whole crawl folder"],
    "Common Crawl 2012 to WARC, and back": ["ARC to WARC, and back"],
    "Deduplicate runs and qrels": ["The Chuweb21D pipeline"],
}


def _recipes() -> dict[str, list[tuple[str, str]]]:
    """Each section of recipes.md: its ``(sh block, text block after it)`` pairs (the text
    block is what the commands print, ``""`` when the page shows none)."""
    found = {}
    for section in RECIPES.read_text(encoding="utf-8").split("\n## ")[1:]:
        title = section.split("\n", 1)[0].strip()
        blocks = re.findall(r"```(sh|text)\n(.*?)```", section, re.S)
        pairs = []
        for i, (kind, body) in enumerate(blocks):
            if kind == "sh":
                after = blocks[i + 1] if i + 1 < len(blocks) else ("", "")
                pairs.append((body, after[1] if after[0] == "text" else ""))
        if pairs:
            found[title] = pairs
    return found


def _script(block: str) -> str:
    """The sh block as a bash script that stops at the first command that does not exit as
    its ``# exits N`` comment says (other commands must succeed)."""
    lines = ["set -eu"]
    for line in block.splitlines():
        m = re.fullmatch(r"(.*?)\s+#\s*exits (\d+)\s*", line)
        if m:
            command, code = m.group(1), m.group(2)
            lines += [
                f"__c=0; {command} || __c=$?",
                f'[ "$__c" = {code} ] || {{ echo "EXIT $__c, the page says {code}: '
                f'{command.replace(chr(34), "")}" >&2; exit 99; }}',
            ]
        else:
            assert not line.startswith("crawlmill "), f"recipes.md: {line!r} says not how it exits"
            lines.append(line)
    return "\n".join(lines) + "\n"


def _shown_lines_missing(shown: str, printed: str) -> list[str]:
    """Lines of a text block that no printed line matches (``...`` matches anything; runs of
    blanks count as one)."""
    have = [" ".join(line.split()) for line in printed.splitlines()]
    missing = []
    for line in shown.splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        pattern = ".*".join(re.escape(part) for part in line.split("..."))
        if not any(re.fullmatch(pattern, h) for h in have):
            missing.append(line)
    return missing


def _recipe_workspace(root: Path) -> Path:
    """The folder recipes.md's commands run in, with the inputs its first table names."""
    import shutil

    from tests.conftest import SAMPLES
    from tests.plugins.ntcir_tree import build_tree
    from tests.plugins.test_simhash_dedup_pipeline import chuweb21

    if not (SAMPLES / "apache-nutch/testcrawl").is_dir():
        pytest.skip("../shared/samples is absent")
    ws = root / "ws"
    ws.mkdir()
    shutil.copytree(ROOT / "fixtures/legacy", ws / "legacy")
    shutil.copytree(SAMPLES / "apache-nutch/testcrawl", ws / "crawl")
    cw09 = ws / "ClueWeb09_English_1/en0000/00.warc.gz"
    cw09.parent.mkdir(parents=True)
    shutil.copyfile(
        SAMPLES / "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz", cw09
    )
    build_tree(ws / "NW100G-01", sites=2, per=2)
    chuweb21(ws)
    (ws / "docs/examples").mkdir(parents=True)
    shutil.copyfile(DOCS / "examples/chuweb21d.yaml", ws / "docs/examples/chuweb21d.yaml")
    for path in ws.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return ws


def _run_recipe(title: str, ws: Path) -> None:
    """Run the recipe ``title`` in ``ws`` (after the recipes it needs) and check what it prints."""
    for need in RECIPE_NEEDS.get(title, []):
        _run_recipe(need, ws)
    _run_recipe_alone(title, ws)


def _run_recipe_alone(title: str, ws: Path, *, in_process: bool = True) -> None:
    """Run the recipe ``title`` in ``ws``, whose recipes it needs have run already: each
    ``crawlmill`` line in this process (the suite's CLI harness, :func:`_crawlmill_line`;
    ``in_process=False``: the installed script, in bash), the other lines in bash."""
    for block, shown in _recipes()[title]:
        printed = ""
        shell: list[str] = []
        for line in [*block.splitlines(), None]:
            run = None if line is None or not in_process else _crawlmill_line(line, ws)
            if run is None and line is not None:
                shell.append(line)
                continue
            if shell:  # the lines before it, in bash
                ok, text = _bash(_script("\n".join(shell)), ws)
                printed += text
                assert ok, f"{title}: {block}\n{printed}"
                shell = []
            if run is not None:
                ok, text = run()
                printed += text
                assert ok, f"{title}: {block}\n{printed}"
        missing = _shown_lines_missing(shown, printed)
        assert not missing, f"{title}: the page shows {missing}, the commands printed:\n{printed}"


def _bash(script: str, ws: Path) -> tuple[bool, str]:
    """``script`` run by bash in ``ws`` with this Python's scripts first on ``PATH``: whether
    it exited 0, and what it printed."""
    import subprocess
    import sys

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    # a Spark recipe's driver JVM: the client compiler only and the serial collector, as the
    # suite's other JVMs (spark-submit reads SPARK_SUBMIT_OPTS; a third less CPU to start)
    env["SPARK_SUBMIT_OPTS"] = (
        "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC "
        "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"
    )
    done = subprocess.run(
        ["bash", "-c", script], cwd=ws, env=env, capture_output=True, text=True, timeout=600
    )
    return done.returncode == 0, done.stdout + done.stderr


def _crawlmill_line(line: str, ws: Path):
    """For a line ``[NAME=VALUE ...] crawlmill ARGS  # exits N``: a function that runs it in
    this process, in ``ws`` with those variables set (``$PWD``: ``ws``), and returns whether
    it exited N and what it printed (the check :func:`_script` makes in bash); ``None`` for
    any other line."""
    import shlex

    from tests.helpers import cli

    m = re.fullmatch(r"(.*?)\s+#\s*exits (\d+)\s*", line)
    if not m:
        return None
    command, code = m.group(1), int(m.group(2))
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value.replace("$PWD", str(ws))
    if not words or words[0] != "crawlmill" or any("$" in w for w in words):
        return None

    def run() -> tuple[bool, str]:
        before = {name: os.environ.get(name) for name in env}
        os.environ.update(env)
        try:
            done = cli(*words[1:], cwd=ws)
        finally:
            for name, value in before.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        printed = done.stdout + done.stderr
        if done.exit_code != code:
            printed += f"EXIT {done.exit_code}, the page says {code}: {command}\n"
        return done.exit_code == code, printed

    return run


def test_recipes_md_has_a_section_for_every_job():
    titles = set(_recipes())
    for job in (
        "ARC",
        "ClueWeb09",
        "NTCIR",
        "Nutch segment",
        "CrawlDB",
        "whole crawl",
        "Common Crawl 2012",
        "Chuweb21D",
        "runs and qrels",
        "`get`",
        "Spark",
    ):
        assert any(job in t for t in titles), f"recipes.md has no recipe for {job}"
    assert set(RECIPE_NEEDS) <= titles
    assert {n for needs in RECIPE_NEEDS.values() for n in needs} <= titles


def test_the_recipe_check_catches_a_wrong_line_and_exit_code(tmp_path):
    assert _shown_lines_missing("read 6 = written ...\nnot printed", "read  6 = written 7\n") == [
        "not printed"
    ]
    script = _script("crawlmill nothing-such   # exits 0\n")
    done = __import__("subprocess").run(["bash", "-c", script], capture_output=True, text=True)
    assert done.returncode == 99 and "the page says 0" in done.stderr
    ok, printed = _crawlmill_line("crawlmill nothing-such   # exits 0", tmp_path)()
    assert not ok and "EXIT 2, the page says 0" in printed
    assert _crawlmill_line("ls   # exits 0", tmp_path) is None


#: recipes others need: run once per test process, in a workspace of the session (see
#: :func:`recipe_done`), which the recipe's own test checks and the recipes after it copy.
NEEDED = {n for needs in RECIPE_NEEDS.values() for n in needs}


@pytest.fixture(scope="session")
def recipe_done(tmp_path_factory):
    """``recipe_done(title)``: a workspace in which the recipe ``title`` (one of
    :data:`NEEDED`, which need none) ran and printed what the page shows; made once per test
    process (a recipe then costs its commands once, not again in each recipe after it)."""
    done: dict[str, Path] = {}

    def run(title: str) -> Path:
        assert not RECIPE_NEEDS.get(title), title
        if title not in done:
            ws = _recipe_workspace(tmp_path_factory.mktemp("recipe"))
            _run_recipe_alone(title, ws)
            done[title] = ws
        return done[title]

    return run


def _recipe_group(title: str) -> str:
    """The ``xdist_group`` of a recipe's test: a needed recipe's and those after it share one
    worker, so its :func:`recipe_done` workspace is made once."""
    for after, needs in RECIPE_NEEDS.items():
        if title == after or title in needs:
            return f"recipe-{min([after, *needs])}"
    return f"recipe-{title}"


@pytest.mark.parametrize(
    "title",
    [
        pytest.param(t, marks=pytest.mark.xdist_group(_recipe_group(t)))
        for t in _recipes()
        if t != "Spark"
    ],
)
def test_every_recipe_runs_and_prints_what_the_page_shows(title, tmp_path, recipe_done):
    import shutil

    if title in NEEDED:
        recipe_done(title)
        return
    needs = RECIPE_NEEDS.get(title, [])
    if len(needs) == 1:  # a copy of the workspace the recipe before it left
        ws = tmp_path / "ws"
        shutil.copytree(recipe_done(needs[0]), ws, symlinks=True)
        _run_recipe_alone(title, ws)
        return
    _run_recipe(title, _recipe_workspace(tmp_path))


@pytest.mark.slow
def test_the_spark_recipe_runs_and_prints_what_the_page_shows(tmp_path, need, need_command):
    need("pyspark")
    need_command("java")
    ws = _recipe_workspace(tmp_path)
    _run_recipe_alone("Spark", ws, in_process=False)  # the script: no SparkContext here
