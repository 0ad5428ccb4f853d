"""The two how-to pages followed literally (issue 21 item 2, "Must show"): the reader of
docs/adding-a-reader.md and the writer of docs/adding-a-writer.md, copied from the pages into
a fresh package, installed as an entry point of the ``crawlmill`` group (as the pages say),
and run with the ``crawlmill`` command; each imports nothing but ``crawlmill.core``.

The package is pip-installed once per session (tests/shared_build.py: by the first xdist worker
that needs it) into a folder of its own (``pip install --target``) that only the
``crawlmill`` processes of this module have on their ``PYTHONPATH`` (as
tests/test_third_party_plugin.py does), so other tests never see it. The outputs are checked
against independent readers: warcio for the WARC the reader's records became and for the ARC
the writer's lines came from, Python's ``gzip`` for the ``.urls.gz`` input.
"""

from __future__ import annotations

import ast
import gzip
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.shared_build import built, shared_root

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ARC = ROOT / "fixtures" / "legacy" / "example-2008.arc.gz"
SITE: list[Path] = []


def _blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.S)


def reader_code() -> str:
    """The how-to's reader: the first Python block of adding-a-reader.md ("1. The class")."""
    return _blocks("adding-a-reader.md")[0]


def writer_code() -> str:
    """The how-to's writer: the Python block of adding-a-writer.md that defines a FileWriter."""
    return next(b for b in _blocks("adding-a-writer.md") if "(FileWriter)" in b)


def _crawlmill_imports(code: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return {n for n in names if n.split(".")[0] == "crawlmill"}


def test_each_example_imports_only_crawlmill_core():
    assert _crawlmill_imports(reader_code()) == {"crawlmill.core"}
    assert _crawlmill_imports(writer_code()) == {"crawlmill.core"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh package ``my_package`` with the pages' code as ``my_package.reader`` and
    ``my_package.writer``, declared as entry points of the ``crawlmill`` group
    (adding-a-reader.md, "6. Test and ship it": ``my-reader = "my_package.reader"``)."""
    src = tmp_path_factory.mktemp("howto") / "my-package"
    (src / "my_package").mkdir(parents=True)
    (src / "my_package" / "__init__.py").write_text("")
    (src / "my_package" / "reader.py").write_text(reader_code())
    (src / "my_package" / "writer.py").write_text(writer_code())
    (src / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [build-system]
            requires = ["setuptools>=69"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "my-package"
            version = "0.1"
            dependencies = ["crawlmill"]

            [project.entry-points.crawlmill]
            my-reader = "my_package.reader"
            my-writer = "my_package.writer"

            [tool.setuptools]
            packages = ["my_package"]
            """
        )
    )

    def install(into: Path) -> None:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-deps",
             "--disable-pip-version-check", "--no-input", "--target", str(into), str(src)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr

    site = built(shared_root(tmp_path_factory), "howto-site", install)
    SITE[:] = [site]
    yield site
    SITE.clear()


def crawlmill(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    for var in ("CRAWLMILL_LOAD_PLUGINS", "CRAWLMILL_DISABLE_PLUGINS"):
        env.pop(var, None)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, SITE), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run(
        ["crawlmill", *args], capture_output=True, text=True, env=env, cwd=cwd, check=False
    )


def test_the_plugins_are_listed(installed, tmp_path):
    result = crawlmill("plugins", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    listing = {p["name"]: p for p in json.loads(result.stdout)}
    assert listing["my-reader"]["status"] == "ok", listing["my-reader"]["error"]
    assert listing["my-writer"]["status"] == "ok", listing["my-writer"]["error"]
    assert [c["name"] for c in listing["my-reader"]["components"]] == ["urllist"]
    assert [c["name"] for c in listing["my-writer"]["components"]] == ["jsonl"]


def test_the_reader_converts_a_gzipped_url_list(installed, tmp_path):
    urls = [f"https://site{i}.example/page/{i * 37 % 101}" for i in range(300)]
    text = "".join(u + "\n" for u in urls).encode()
    crawl = tmp_path / "crawl"
    crawl.mkdir()
    (crawl / "seeds.urls.gz").write_bytes(gzip.compress(text))
    result = crawlmill("convert", "crawl", "--to", "warc", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    out = tmp_path / "out" / "seeds.warc.gz"  # the stem drops .urls and .gz
    from warcio.archiveiterator import ArchiveIterator

    got, payloads = [], []
    with out.open("rb") as fh:
        for record in ArchiveIterator(fh):
            if record.rec_type == "resource":
                got.append(record.rec_headers.get_header("WARC-Target-URI"))
                payloads.append(record.content_stream().read())
    assert got == urls  # every line, in order, from the decompressed input
    assert payloads == [u.encode() + b"\n" for u in urls]
    report = json.loads((tmp_path / "out" / ".crawlmill" / "report.json").read_text())
    assert report["damages"] == []


def test_the_writer_writes_the_arc_as_json_lines(installed, tmp_path):
    from warcio.archiveiterator import ArchiveIterator

    (tmp_path / "crawl.arc.gz").write_bytes(ARC.read_bytes())
    result = crawlmill("convert", "crawl.arc.gz", "--to", "jsonl", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [json.loads(x) for x in (tmp_path / "out" / "crawl.jsonl").read_text().splitlines()]
    expected = []
    with ARC.open("rb") as fh:
        for record in ArchiveIterator(fh, arc2warc=False):
            if record.rec_type == "arc_header":
                continue  # the filedesc: crawlmill's metadata record, checked below
            body = record.raw_stream.read()
            expected.append(
                {
                    "url": record.rec_headers.get_header("uri"),
                    "date": record.rec_headers.get_header("archive-date"),
                    "bytes": len(body),
                }
            )
    assert lines[0]["url"].startswith("filedesc://")
    assert lines[1:] == expected


def test_the_writer_with_a_layout_mapping(installed, tmp_path):
    """adding-a-writer.md: "``writer: {name: jsonl, layout: {name: plain, max_records:
    1000}}`` a numbered series (``crawl-00000.jsonl``, ...)"."""
    (tmp_path / "crawl.arc.gz").write_bytes(ARC.read_bytes())
    (tmp_path / "p.yaml").write_text(
        "inputs: [crawl.arc.gz]\noutput: out\n"
        "writer: {name: jsonl, layout: {name: plain, max_records: 4}}\n"
    )
    result = crawlmill("run", "p.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    files = sorted(p.name for p in (tmp_path / "out").glob("*.jsonl"))
    assert files == ["crawl-00000.jsonl", "crawl-00001.jsonl"]
    counts = [len((tmp_path / "out" / f).read_text().splitlines()) for f in files]
    assert counts == [4, 2]
