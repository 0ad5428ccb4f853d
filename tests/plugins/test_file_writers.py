"""Issue 7.1/7.4/7.5: every file writer shares layouts, naming and rollover; the WARC writer is
split into its jobs and knows no other format; one suffix list (the readers' file_suffixes)."""

from __future__ import annotations

import ast
import gzip
import json
import re
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from crawlmill.core import Record, RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import Registry
from crawlmill.formats.arc.header import build_filedesc, build_header_line
from crawlmill.plugins.readers.arc import ArcReader

from tests.helpers import cli

WRITERS = Path(__file__).resolve().parents[2] / "plugins" / "writers"

PAGES = [f"http://example.com/{n}" for n in range(5)]


def _arc_file(path: Path) -> bytes:
    """An ARC v1 file (one gzip member per record) with a filedesc and five pages; returns the
    filedesc record's bytes."""
    filedesc = build_filedesc(path.name.removesuffix(".gz").encode(), b"20080430204825")
    members = [gzip.compress(filedesc, mtime=0)]
    for url in PAGES:
        block = b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + url.encode()
        line = build_header_line(
            url.encode(), b"192.0.2.1", b"20080430204825", b"text/plain", len(block)
        )
        members.append(gzip.compress(line + b"\n" + block + b"\n", mtime=0))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(members))
    return filedesc


def _run(tmp_path: Path, writer: str, command: str = "run") -> tuple[int, str]:
    spec = tmp_path / "pipeline.yaml"
    spec.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            inputs: [data/]
            writer: {writer}
            output: out
            run: {{workers: 1}}
            """
        )
    )
    return cli(command, spec).exit_code, ""


def _arc_records(path: Path) -> list[Record]:
    with open_reader(path, ArcReader) as records:
        out = list(records)
    assert not records.damages
    return out


# -- 7.5: layouts for every file writer ----------------------------------------------------------


def test_the_arc_writer_rolls_over_with_the_plain_layout(tmp_path, capsys):
    """Failed before: the ARC writer had no layout option (one file per input only)."""
    filedesc = _arc_file(tmp_path / "data" / "crawl.arc.gz")
    code, _ = _run(tmp_path, "{name: arc, layout: {name: plain, max_records: 2}}")
    assert code == 0, capsys.readouterr().err
    out = tmp_path / "out"
    names = sorted(p.name for p in out.glob("*.arc.gz"))
    assert names == ["crawl-00000.arc.gz", "crawl-00001.arc.gz", "crawl-00002.arc.gz"]
    files = [_arc_records(out / name) for name in names]
    # every file starts with its filedesc; the first is the input's, byte for byte
    assert gzip.decompress((out / names[0]).read_bytes()).startswith(filedesc)
    for name, records in zip(names, files, strict=True):
        assert records[0].kind == RecordKind.METADATA
        if name != names[0]:  # a generated filedesc names its file
            assert records[0].url == f"filedesc://{name}"
    assert [[r.url for r in rs[1:]] for rs in files] == [PAGES[0:2], PAGES[2:4], PAGES[4:]]
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert '"added": 2' in json.dumps(report)  # the two generated filedescs are accounted for


def test_the_arc_writer_takes_a_name_pattern(tmp_path, capsys):
    _arc_file(tmp_path / "data" / "sub" / "crawl.arc.gz")
    code, _ = _run(
        tmp_path,
        "{name: arc, compression: none, layout: {name: plain, name_pattern: '{dir}{stem}-copy{ext}'}}",
    )
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "sub" / "crawl-copy.arc").is_file()


@pytest.mark.parametrize("layout", ["clueweb09", "chuweb21", "{name: clueweb09, language: German}"])
def test_warc_only_layouts_refuse_the_arc_writer_with_a_config_error(tmp_path, capsys, layout):
    _arc_file(tmp_path / "data" / "crawl.arc.gz")
    code, _ = _run(tmp_path, f"{{name: arc, layout: {layout}}}", "validate")
    err = capsys.readouterr()
    text = err.out + err.err
    assert code != 0
    assert "lays out warc files only" in text and "arc writer" in text
    assert not (tmp_path / "out").exists()


def test_plugins_lists_the_layouts_options_and_whole_summaries(capsys):
    """The ``plugins`` listing shows each layout with its options and a whole first sentence."""
    assert main(["plugins"]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines() if line.strip().startswith("layout ")]
    assert {line.split(":")[0].strip() for line in lines} >= {
        "layout plain",
        "layout clueweb09",
        "layout chuweb21",
    }
    for line in lines:
        assert line.rstrip().endswith("."), line  # not a summary cut mid-sentence
    assert "max_records (int | None, default null)" in text


# -- 7.1: the ARC filedesc as a neutral metadata record ------------------------------------------


def test_arc_to_warc_to_arc_gives_the_filedesc_back(tmp_path, capsys):
    """Failed before: the filedesc went through WARC as a metadata record that the ARC writer
    quarantined, and a new filedesc was generated. Now the neutral record (``application/arc``,
    the whole ARC header record) is the filedesc again, byte for byte."""
    src = tmp_path / "in" / "crawl.arc.gz"
    filedesc = _arc_file(src)
    warc_out, arc_out = tmp_path / "warc", tmp_path / "arc"
    argv = ["convert", str(src), "--to", "warc", "-o", str(warc_out)]
    assert main([*argv, "--option", "warcinfo=never"]) == 0
    warc = warc_out / "crawl.warc.gz"
    code = main(["convert", str(warc), "--to", "arc", "-o", str(arc_out)])
    assert code == 0, capsys.readouterr()
    data = gzip.decompress((arc_out / "crawl.arc.gz").read_bytes())
    assert data.startswith(filedesc)
    records = _arc_records(arc_out / "crawl.arc.gz")
    assert [r.url for r in records[1:]] == PAGES
    # with crawlmill's warcinfo in the WARC, dropping it gives the same ARC
    warc_out2, arc_out2 = tmp_path / "warc2", tmp_path / "arc2"
    assert main(argv[:-1] + [str(warc_out2)]) == 0
    drop = ["--filter", "kind", "drop=warcinfo"]
    code = main(
        ["convert", str(warc_out2 / "crawl.warc.gz"), "--to", "arc", "-o", str(arc_out2), *drop]
    )
    assert code == 0, capsys.readouterr()
    assert (arc_out2 / "crawl.arc.gz").read_bytes() == (arc_out / "crawl.arc.gz").read_bytes()


def test_the_arc_writer_writes_a_filedesc_record_once():
    """A metadata record holding an ARC header record that is not first is not a second
    filedesc: ARC has no place for it (quarantined with a reason)."""
    from crawlmill.core import InputFile, WriteContext
    from crawlmill.plugins.writers.arc import ArcWriter

    when = datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)
    page = Record(kind=RecordKind.RESOURCE, url="http://x/", date=when, payload=b"x")
    desc = Record(
        kind=RecordKind.METADATA,
        url="filedesc://x.arc",
        date=when,
        payload=build_filedesc(b"x.arc", b"20200102030405"),
        content_type="application/arc",
    )
    quarantined: list[str] = []
    files: dict[str, bytes] = {}

    class Sink:
        def __init__(self, name: str) -> None:
            self.name, self.parts = name, []

        def write(self, data: bytes) -> None:
            self.parts.append(data)

        def tell(self) -> int:
            return sum(map(len, self.parts))

        def close(self) -> None:
            files[self.name] = b"".join(self.parts)

    ctx = WriteContext(
        input=InputFile("x.warc", "x.warc"),
        input_count=1,
        create=Sink,
        quarantine=lambda record, reason: quarantined.append(reason),
    )
    writer = ArcWriter(ArcWriter.Options(compression="none"))
    writer.open(ctx)
    writer.write(page)
    writer.write(desc)
    writer.close()
    assert quarantined == ["unwritable-kind: ARC v1 cannot hold a metadata record"]
    assert list(files) == ["x.arc"] and files["x.arc"].startswith(b"filedesc://x.arc ")


# -- 7.1: the WARC writer split into its jobs ------------------------------------------------------

#: the WARC writer's modules: none may name another format.
WARC_WRITER_MODULES = ["warc.py", "warc_encode.py", "warc_ids.py", "cdxj_index.py", "files.py"]
OTHER_FORMATS = ("arc", "nutch", "ntcir", "cc", "filedesc", "hadoop", "sequencefile")


@pytest.mark.parametrize("module", WARC_WRITER_MODULES)
def test_no_module_of_the_warc_writer_names_another_format(module):
    source = (WRITERS / module).read_text(encoding="utf-8")
    words = {m.group(0) for m in re.finditer(r"[A-Za-z_]+", source)}
    assert sorted(w for w in words if w.lower() in OTHER_FORMATS) == []


def _classes(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    ]


def test_no_writer_class_is_over_250_lines():
    paths = sorted(WRITERS.glob("*.py")) + [WRITERS.parents[1] / "formats" / "warc" / "builder.py"]
    sizes = {f"{p.name}:{name}": n for p in paths for name, n in _classes(p)}
    assert "warc.py:WarcWriter" in sizes
    assert {k: n for k, n in sizes.items() if n > 250} == {}
    assert len((WRITERS / "warc.py").read_text().splitlines()) < 450


def test_both_file_writers_share_the_file_writer_base():
    from crawlmill.core.file_writer import LightFileWriterOptions
    from crawlmill.plugins.writers.arc import ArcWriter
    from crawlmill.plugins.writers.files import FileWriter, FileWriterOptions
    from crawlmill.plugins.writers.warc import WarcWriter

    # the ARC writer's options are pydantic's form, the WARC writer's the light one
    assert issubclass(ArcWriter.Options, FileWriterOptions)
    assert issubclass(WarcWriter.Options, LightFileWriterOptions)
    for cls in (ArcWriter, WarcWriter):
        assert issubclass(cls, FileWriter)
        assert "layout" in cls.Options.model_fields


# -- 7.4: one suffix list ---------------------------------------------------------------------


def test_the_naming_suffixes_are_the_installed_readers_file_suffixes():
    from crawlmill.core import naming

    assert Registry.load().file_suffixes() == naming.FORMAT_SUFFIXES
    assert naming.reader_suffixes("warc") == (".warc", ".wat", ".wet")
    assert naming.reader_suffixes("arc") == (".arc",)
    assert naming.strip_suffixes("a/x.warc.lz4") == "a/x"
    assert naming.strip_suffixes("a/x.wet.zstd") == "a/x"


def test_a_clueweb09_collection_of_warc_lz4_files_is_read(tmp_path, capsys):
    """Failed before: the clueweb09 reader knew ``.warc.gz``, ``.warc``, ``.warc.zst`` only and
    skipped ``00.warc.lz4`` as "not a WARC file"."""
    lz4 = pytest.importorskip("lz4.frame")
    from tests.plugins.test_clueweb09_reader import write_cw09_file

    root = tmp_path / "cw" / "ClueWeb09_English_1"
    plain = tmp_path / "plain.warc.gz"
    docs = write_cw09_file(plain, "en0000", 0, 3)
    target = root / "en0000" / "00.warc.lz4"
    target.parent.mkdir(parents=True)
    target.write_bytes(lz4.compress(gzip.decompress(plain.read_bytes())))
    out = tmp_path / "out"
    code = main(["convert", str(tmp_path / "cw"), "--to", "warc", "-o", str(out), "--workers", "1"])
    assert code in (0, 3), capsys.readouterr().err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert "not a WARC file" not in json.dumps(report)
    written = [p for p in out.rglob("*.warc.gz")]
    assert len(written) == 1
    with open_reader(written[0]) as records:
        ids = [r.doc_id for r in records if r.kind == RecordKind.RESPONSE]
    assert ids == [tid for tid, _, _ in docs]


# -- docs: the "How to add a writer / a layout" pages run as written --------------------------

DOCS = WRITERS.parents[1] / "docs"


def _doc_module(tmp_path: Path, monkeypatch, page: str, module: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, page
    (tmp_path / "mods").mkdir(exist_ok=True)
    (tmp_path / "mods" / f"{module}.py").write_text(blocks[0])
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "mods"))


def test_the_writer_and_layout_pages_work_as_written(tmp_path, monkeypatch, capsys):
    _doc_module(tmp_path, monkeypatch, "adding-a-writer.md", "cm_doc_writer")
    _doc_module(tmp_path, monkeypatch, "adding-a-layout.md", "cm_doc_layout")
    _arc_file(tmp_path / "data" / "crawl.arc.gz")
    spec = tmp_path / "pipeline.yaml"
    spec.write_text(
        textwrap.dedent(
            """\
            version: 1
            plugins: [cm_doc_writer, cm_doc_layout]
            inputs: [data/]
            writer: {name: jsonl, layout: {name: bucket, per_file: 4}}
            output: out
            run: {workers: 1}
            """
        )
    )
    assert main(["run", str(spec)]) == 0, capsys.readouterr().err
    out = tmp_path / "out"
    files = ["bucket-000/00000.jsonl", "bucket-000/00001.jsonl"]
    assert (out / "bucket-files.txt").read_text().split() == files
    lines = [json.loads(x) for f in files for x in (out / f).read_text().splitlines()]
    # the filedesc is a record too (metadata), then the five pages
    assert [x["url"] for x in lines] == ["filedesc://crawl.arc", *PAGES]
    # the same layout with the arc writer
    spec.write_text(
        spec.read_text().replace("name: jsonl", "name: arc").replace("output: out", "output: out2")
    )
    assert main(["run", str(spec)]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "out2" / "bucket-000").iterdir()) == [
        "00000.arc.gz",
        "00001.arc.gz",
    ]
