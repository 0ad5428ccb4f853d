"""The clueweb09 and chuweb21 output layouts (plugins/writers/layout_clueweb.py)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from crawlmill.core import open_reader
from crawlmill.core.errors import ConfigError
from crawlmill.core.plugin import InputFile, WriteContext
from crawlmill.core.record import Record, RecordKind
from crawlmill.formats.clueweb09 import collection as cw
from crawlmill.plugins.writers.layout_clueweb import (
    CHUWEB_MANIFEST,
    REPLACED_BY_OPTION,
    REPLACED_NOT_FITTING,
    Chuweb21Layout,
    ClueWeb09Layout,
    OneFilePerInput,
    chuweb_path,
)
from crawlmill.plugins.writers.layouts import LAYOUTS


def _options(**kw):
    base = {
        "layout": "clueweb09",
        "language": "English",
        "segment_dirs": None,
        "files_per_dir": 100,
        "max_records": None,
        "max_bytes": None,
        "name_pattern": None,
    }
    base.update(kw)
    # the writer's options; the layout reads its own options from their layout_settings
    return SimpleNamespace(**base, layout_settings=SimpleNamespace(**base))


def _ctx(index: int, relpath: str = "x.warc.gz", count: int = 1000) -> WriteContext:
    return WriteContext(
        input=InputFile(path="/in/" + relpath, relpath=relpath, index=index),
        input_count=count,
        create=lambda rel: io.BytesIO(),
        quarantine=lambda record, reason: None,
    )


def test_layouts_register_by_name():
    assert LAYOUTS["clueweb09"] is ClueWeb09Layout
    assert LAYOUTS["chuweb21"] is Chuweb21Layout


@pytest.mark.parametrize(
    ("index", "kw", "expected"),
    [
        (0, {}, "ClueWeb09_English_1/en0000/00.warc.gz"),
        (99, {}, "ClueWeb09_English_1/en0000/99.warc.gz"),
        (100, {}, "ClueWeb09_English_1/en0001/00.warc.gz"),
        (1234, {}, "ClueWeb09_English_1/en0012/34.warc.gz"),
        # 3 files per directory, 2 directories per segment: 6 files per segment
        (5, {"files_per_dir": 3, "segment_dirs": 2}, "ClueWeb09_English_1/en0001/02.warc.gz"),
        (6, {"files_per_dir": 3, "segment_dirs": 2}, "ClueWeb09_English_2/en0002/00.warc.gz"),
        (13, {"files_per_dir": 3, "segment_dirs": 2}, "ClueWeb09_English_3/en0004/01.warc.gz"),
        (7, {"language": "zh"}, "ClueWeb09_Chinese_1/zh0000/07.warc.gz"),
        (
            250,
            {"language": "Japanese", "segment_dirs": 2},
            "ClueWeb09_Japanese_2/ja0002/50.warc.gz",
        ),
    ],
)
def test_clueweb09_paths(index, kw, expected):
    layout = ClueWeb09Layout(_options(**kw), _ctx(index), ".warc.gz")
    assert layout.next_path() == expected
    assert layout.should_roll(10**9, 10**12) is False


def test_clueweb09_extension_comes_from_the_writer():
    assert (
        ClueWeb09Layout(_options(), _ctx(3), ".warc").next_path()
        == "ClueWeb09_English_1/en0000/03.warc"
    )


def test_clueweb09_one_file_per_input():
    layout = ClueWeb09Layout(_options(), _ctx(0), ".warc.gz")
    layout.next_path()
    with pytest.raises(OneFilePerInput, match="one file per input"):
        layout.next_path()


def test_clueweb09_trec_ids_count_non_warcinfo_records():
    layout = ClueWeb09Layout(_options(files_per_dir=10, language="de"), _ctx(123), ".warc.gz")
    assert layout.next_path() == "ClueWeb09_German_1/de0012/03.warc.gz"
    assert layout.doc_id(Record(kind=RecordKind.WARCINFO), 0) is None
    assert (
        layout.doc_id(Record(kind=RecordKind.RESPONSE, doc_id="old"), 0)
        == "clueweb09-de0012-03-00000"
    )
    assert layout.doc_id(Record(kind=RecordKind.RESPONSE), 41) == "clueweb09-de0012-03-00041"
    assert cw.parse_trec_id(
        layout.doc_id(
            Record(
                kind=RecordKind.RESPONSE,
            ),
            99999,
        )
    ) == ("de0012", 3, 99999)
    with pytest.raises(Exception, match="5 digits"):
        layout.doc_id(
            Record(
                kind=RecordKind.RESPONSE,
            ),
            100000,
        )


def test_clueweb09_options_are_checked():
    with pytest.raises(ConfigError, match="language"):
        ClueWeb09Layout(_options(language="Klingon"), _ctx(0), ".warc.gz")
    with pytest.raises(ConfigError, match="files_per_dir"):
        ClueWeb09Layout(_options(files_per_dir=101), _ctx(0), ".warc.gz")
    with pytest.raises(ConfigError, match="segment_dirs"):
        ClueWeb09Layout(_options(segment_dirs=0), _ctx(0), ".warc.gz")
    with pytest.raises(ConfigError, match="4 digits"):
        ClueWeb09Layout(_options(), _ctx(1_000_000), ".warc.gz")


class _Created(dict):
    """``create`` for finalize tests: keeps what each created file received."""

    def __call__(self, relpath):
        buf = io.BytesIO()
        buf.close = lambda: self.__setitem__(relpath, buf.getvalue())
        return buf


def test_clueweb09_finalize_writes_md5_and_counts_per_segment(tmp_path):
    # three inputs over two segments (files_per_dir=2, segment_dirs=1); outputs exist on disk
    opts = _options(files_per_dir=2, segment_dirs=1)
    tasks = []
    expected = {}
    for index, records in ((0, 5), (1, 0), (2, 7)):
        rel = ClueWeb09Layout(opts, _ctx(index), ".warc.gz").next_path()
        data = f"output {index}".encode()
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
        md5 = hashlib.md5(data).hexdigest()
        expected[rel] = (md5, records)
        output = {"path": rel, "size": len(data), "md5": md5 if index != 2 else None}
        cdxj = {"path": rel + ".cdxj", "size": 1, "md5": "0" * 32}
        # the WARC writer notes per-file counts in notes["files"] (documents = non-warcinfo)
        notes = {
            "files": [
                {"path": rel, "records": records + 3, "documents": records + 2, "warcinfo": True}
            ],
            # the responses the layout numbered (two requests are not counted)
            "trec_numbered": {rel: records},
        }
        tasks.append(
            {
                "input": f"in{index}.warc.gz",
                "index": index,
                "outputs": [output, cdxj],
                "notes": notes,
            }
        )
    created = _Created()
    ClueWeb09Layout.finalize(str(tmp_path), opts, list(reversed(tasks)), created)
    # the dataset page: 'The files with the name "ClueWeb_*.md5" are the md5 sums of the
    # individual WARC files' and 'The files with the name "ClueWeb09_*_counts.txt" are the
    # record counts by file'
    assert sorted(created) == [
        "ClueWeb_English_1.md5",
        "ClueWeb_English_2.md5",
        "record_counts/ClueWeb09_English_1_counts.txt",
        "record_counts/ClueWeb09_English_2_counts.txt",
    ]
    for seg in ("ClueWeb09_English_1", "ClueWeb09_English_2"):
        md5s, bad = cw.parse_md5_list(created[cw.md5_file_name(seg)])
        counts, bad2 = cw.parse_counts(created[f"record_counts/{seg}_counts.txt"])
        assert bad == bad2 == []
        for e in md5s:
            # md5 computed from the file when the task did not give it (input 2)
            assert hashlib.md5((tmp_path / seg / e.path).read_bytes()).hexdigest() == e.md5
            assert expected[f"{seg}/{e.path}"][0] == e.md5
        assert {f"{seg}/{e.path}": e.count for e in counts} == {
            k: v[1] for k, v in expected.items() if k.startswith(seg + "/")
        }


def test_chuweb_paths_follow_the_release_naming(samples):
    # every path of the real Chuweb21 manifest maps to itself (input named like the CC file)
    data = (samples / "chuzhumin98-Chuweb21D/materials/md5/md5_checksum-Chuweb21.txt").read_bytes()
    entries, _ = cw.parse_chuweb_manifest(data)
    for e in entries[:50] + entries[-50:]:
        name = e.path.split("/")[1]
        assert chuweb_path(f"crawl-data/segments/{name}", ".warc.gz") == e.path
    assert chuweb_path("a/b/page.arc.gz", ".warc.gz") == "a-b/page.warc.gz"
    assert chuweb_path("top.warc", ".warc.zst") == "warc/top.warc.zst"


def test_chuweb_layout_and_manifest(tmp_path):
    opts = _options(layout="chuweb21")
    names = [
        "CC-MAIN-2-3/CC-MAIN-2-3-00001.warc.gz",
        "CC-MAIN-2-3/CC-MAIN-2-3-00000.warc.gz",
        "CC-MAIN-1-2/CC-MAIN-1-2-00000.warc.gz",
    ]
    tasks = []
    for index, name in enumerate(names):
        layout = Chuweb21Layout(opts, _ctx(index, relpath="in/" + name.split("/")[1]), ".warc.gz")
        rel = layout.next_path()
        assert rel == name
        with pytest.raises(OneFilePerInput):
            layout.next_path()
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(name.encode())
        outputs = [{"path": rel, "size": 1}, {"path": rel + ".cdxj", "size": 1, "md5": "0" * 32}]
        tasks.append({"input": name, "index": index, "outputs": outputs, "notes": {}})
    created = _Created()
    Chuweb21Layout.finalize(str(tmp_path), opts, tasks, created)
    entries, bad = cw.parse_chuweb_manifest(created[CHUWEB_MANIFEST])
    assert bad == []
    assert [e.path for e in entries] == names  # input order, like the release's manifests
    assert all(e.md5 == hashlib.md5(e.path.encode()).hexdigest() for e in entries)
    # two inputs that map to the same output are refused
    with pytest.raises(Exception, match="both map"):
        Chuweb21Layout.finalize(
            str(tmp_path), opts, tasks + [dict(tasks[0], index=9, input="other")], _Created()
        )


# -- end to end: the WARC writer with the clueweb09 layout, read back the way ir_datasets does --


def write_with_crawlmill(
    out: Path, inputs: list[list[Record]], relpaths: list[str] | None = None, **options
) -> list[dict]:
    """Run the ``warc`` writer over ``inputs`` (one list of records per input file) as the
    engine does: one task per input, then ``finalize``. Returns the task entries."""
    from crawlmill.plugins.writers.warc import WarcWriter

    opts = WarcWriter.Options.model_validate(options)
    tasks = []

    def create(rel: str):
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        return open(path, "wb")  # noqa: SIM115 - the writer closes it

    relpaths = relpaths or [f"in/{index:03d}.warc" for index in range(len(inputs))]
    for index, records in enumerate(inputs):
        before = {p for p in out.rglob("*") if p.is_file()}
        ctx = WriteContext(
            input=InputFile(path=f"/in/{index:03d}", relpath=relpaths[index], index=index),
            input_count=len(inputs),
            create=create,
            quarantine=lambda record, reason: pytest.fail(f"quarantined: {reason}"),
        )
        writer = WarcWriter(opts)
        writer.open(ctx)
        for record in records:
            writer.write(record)
        writer.close()
        made = sorted(p for p in out.rglob("*") if p.is_file() and p not in before)
        outputs = [
            {
                "path": p.relative_to(out).as_posix(),
                "size": p.stat().st_size,
                "md5": hashlib.md5(p.read_bytes()).hexdigest(),
            }
            for p in made
        ]
        tasks.append(
            {"input": ctx.input.relpath, "index": index, "outputs": outputs, "notes": ctx.notes}
        )
    WarcWriter.finalize(str(out), opts, tasks, create)
    return tasks


def ir_datasets_docs(root: Path, warc_module) -> list[tuple[str, str, str, bytes, bytes]]:
    """Documents of a ClueWeb09 collection read as ir_datasets' ``ClueWeb09Docs`` does:
    segments, directories and ``*.gz`` files in sorted order, ``warc3-wet-clueweb09``'s
    ``WARCFile`` over ``gzip.open``, ``response`` records only, doc id from ``WARC-TREC-ID``,
    HTTP headers and body split at the first blank line. Returns (file, doc id, url, http
    headers, body)."""
    docs = []
    for segment in sorted(p for p in root.glob("ClueWeb09_*") if p.is_dir()):
        for directory in sorted(p for p in segment.glob("*") if p.is_dir()):
            for source in sorted(directory.glob("*.gz")):
                with gzip.open(source, "rb") as fh:
                    for doc in warc_module.WARCFile(fileobj=fh):
                        if doc.type != "response":
                            continue
                        payload = doc.payload.read()
                        parts = re.split(rb"\r?\n\r?\n", payload, maxsplit=1)
                        head, body = (parts[0], b"") if len(parts) == 1 else parts
                        rel = source.relative_to(root).as_posix()
                        docs.append((rel, doc["WARC-TREC-ID"], doc["WARC-Target-URI"], head, body))
    return docs


def ir_datasets_counts(root: Path) -> dict[str, int]:
    """``record_counts/<Segment>_counts.txt`` read as ir_datasets does (``file[3:]``)."""
    counts = {}
    for segment in sorted(p.name for p in root.glob("ClueWeb09_*")):
        with open(root / "record_counts" / f"{segment}_counts.txt") as fh:
            for line in fh:
                file, count = line.strip().split()
                counts[f"{segment}/{file[3:]}"] = int(count)
    return counts


def generated_inputs(n_inputs: int, docs_per_input: int) -> list[list[Record]]:
    """Responses with LF-only HTTP heads (as in ClueWeb09), CRLF and non-ASCII bytes in the
    bodies, one body containing a WARC version line."""
    inputs = []
    for i in range(n_inputs):
        records = []
        for n in range(docs_per_input):
            body = f"<html>\r\n<p>input {i} doc {n} caf\u00e9</p>\r\n</html>".encode()
            if n == 1:
                body += b"\n\nWARC/0.18\nWARC-Type: response\n"
            head = (
                b"HTTP/1.1 200 OK\nContent-Type: text/html; charset=utf-8\nContent-Length: "
                + str(len(body)).encode()
                + b"\n\n"
            )
            records.append(
                Record(
                    kind=RecordKind.RESPONSE,
                    url=f"http://example.org/{i}/{n}?q=x",
                    date_raw="2009-03-65T08:43:19-0800",
                    http_head=head,
                    payload=body,
                    content_type="text/html",
                )
            )
        inputs.append(records)
    return inputs


def test_ir_datasets_reads_a_generated_collection_we_wrote(tmp_path, need, need_command):
    warc3 = need("warc3_wet_clueweb09")
    inputs = generated_inputs(5, 3)
    out = tmp_path / "out"
    write_with_crawlmill(
        out, inputs, layout="clueweb09", version="0.18", files_per_dir=2, segment_dirs=2
    )
    docs = ir_datasets_docs(out, warc3)
    # what we meant: input i -> dir i // 2, file i % 2, segment dir // 2 + 1; ids 0-based
    want = []
    for i, records in enumerate(inputs):
        d, f = divmod(i, 2)
        rel = f"ClueWeb09_English_{d // 2 + 1}/en{d:04d}/{f:02d}.warc.gz"
        for n, r in enumerate(records):
            # ClueWeb09 bodies end with the "\n\n" the Content-Length counts
            want.append(
                (
                    rel,
                    f"clueweb09-en{d:04d}-{f:02d}-{n:05d}",
                    r.url,
                    r.http_head[:-2],
                    r.payload + b"\n\n",
                )
            )
    assert docs == want
    # record counts as ir_datasets reads them match the documents per file
    counts = ir_datasets_counts(out)
    per_file: dict[str, int] = {}
    for rel, *_ in docs:
        per_file[rel] = per_file.get(rel, 0) + 1
    assert counts == per_file
    assert sum(counts.values()) == len(docs)
    # every segment's md5 list checks out with md5sum -c in the segment directory
    md5sum = need_command("md5sum")
    segments = sorted(p for p in out.glob("ClueWeb09_*"))
    assert [s.name for s in segments] == ["ClueWeb09_English_1", "ClueWeb09_English_2"]
    for seg in segments:
        done = subprocess.run(
            [md5sum, "-c", f"../{cw.md5_file_name(seg.name)}"],
            cwd=seg,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.count(": OK") == len(list(seg.glob("*/*.warc.gz")))


def _warc3_docs_of(path: Path, warc_module) -> list[tuple[str, bytes, bytes]]:
    """(url, http headers, body) of the responses of one uncompressed WARC file, as
    ir_datasets' reader gives them."""
    docs = []
    with open(path, "rb") as fh:
        for doc in warc_module.WARCFile(fileobj=fh):
            if doc.type == "response":
                parts = re.split(rb"\r?\n\r?\n", doc.payload.read(), maxsplit=1)
                docs.append((doc["WARC-Target-URI"], parts[0], parts[1] if len(parts) > 1 else b""))
    return docs


def test_ir_datasets_reads_the_real_samples_converted_by_us(tmp_path, need, samples):
    # the Lemur sample files, read with crawlmill's warc reader, written as a ClueWeb09
    # collection (version 0.18), read back with warc3-wet-clueweb09 as ir_datasets does:
    # the doc ids are the ones the layout assigns, URLs and bodies those of the originals
    warc3 = need("warc3_wet_clueweb09")
    dumps = samples / "sqs-freequery/test/dumps"
    names = ["ClueWeb09_English_Sample", "ClueWeb09_Chinese_Sample"]
    inputs, damage = [], []
    for name in names:
        with open_reader(InputFile(path=str(dumps / name), relpath=name), "warc") as it:
            inputs.append(list(it))
        damage += it.damages
    assert damage == []
    assert [len(records) for records in inputs] == [101, 101]  # SOURCES.md: 1 warcinfo + 100

    out = tmp_path / "cw09"
    write_with_crawlmill(out, inputs, layout="clueweb09", version="0.18")
    docs = ir_datasets_docs(out, warc3)
    want = []
    for file_no, name in enumerate(names):
        for n, (url, head, body) in enumerate(_warc3_docs_of(dumps / name, warc3)):
            rel = f"ClueWeb09_English_1/en0000/{file_no:02d}.warc.gz"
            want.append((rel, f"clueweb09-en0000-{file_no:02d}-{n:05d}", url, head, body))
    assert len(want) == 200
    assert [d[:3] for d in docs] == [w[:3] for w in want]
    assert docs == want
    assert ir_datasets_counts(out) == {
        "ClueWeb09_English_1/en0000/00.warc.gz": 100,
        "ClueWeb09_English_1/en0000/01.warc.gz": 100,
    }


def test_chuweb21_collection_written_by_the_warc_writer(tmp_path, need):
    fastwarc = need("fastwarc")
    inputs = generated_inputs(3, 2)
    relpaths = [
        "cc/CC-MAIN-20210410105831-20210410135831-00639.warc.gz",
        "cc/CC-MAIN-20210410105831-20210410135831-00000.warc.gz",
        "cc/CC-MAIN-20210411085610-20210411115610-00007.warc.gz",
    ]
    out = tmp_path / "chuweb"
    write_with_crawlmill(out, inputs, relpaths, layout="chuweb21")
    entries, bad = cw.parse_chuweb_manifest((out / CHUWEB_MANIFEST).read_bytes())
    assert bad == []
    assert [e.path for e in entries] == [
        "CC-MAIN-20210410105831-20210410135831/CC-MAIN-20210410105831-20210410135831-00639.warc.gz",
        "CC-MAIN-20210410105831-20210410135831/CC-MAIN-20210410105831-20210410135831-00000.warc.gz",
        "CC-MAIN-20210411085610-20210411115610/CC-MAIN-20210411085610-20210411115610-00007.warc.gz",
    ]
    for e, records in zip(entries, inputs, strict=True):
        path = out / e.path
        assert hashlib.md5(path.read_bytes()).hexdigest() == e.md5
        # an independent reader finds every record (plus the writer's warcinfo)
        with open(path, "rb") as fh:
            got = [
                r.headers.get("WARC-Target-URI")
                for r in fastwarc.ArchiveIterator(fh, parse_http=False)
                if r.headers.get("WARC-Type") == "response"
            ]
        assert got == [r.url for r in records]


def test_our_collection_reader_checks_the_collection_we_wrote(tmp_path, samples):
    # real samples -> ClueWeb09 layout -> the clueweb09 reader: md5s and counts all agree,
    # and the records carry the ids the layout assigned
    from crawlmill.plugins.readers.clueweb09 import ClueWeb09Reader

    dumps = samples / "sqs-freequery/test/dumps"
    inputs, read_damage = [], []
    for name in ("ClueWeb09_English_Sample", "ClueWeb09_Chinese_Sample"):
        with open_reader(InputFile(path=str(dumps / name), relpath=name), "warc") as it:
            inputs.append(list(it))
        read_damage += it.damages
    assert read_damage == []
    out = tmp_path / "cw09"
    write_with_crawlmill(out, inputs, layout="clueweb09", version="0.18", files_per_dir=1)
    collection = ClueWeb09Reader(ClueWeb09Reader.Options())
    found = ClueWeb09Reader.discover(str(out), collection.options)
    assert [f.relpath for f in found] == [
        "ClueWeb09_English_1/en0000/00.warc.gz",
        "ClueWeb09_English_1/en0001/00.warc.gz",
    ]
    damage, notes = [], []
    ids = []
    for item in found:
        with open_reader(item, ClueWeb09Reader) as it:
            ids += [r.doc_id for r in it if r.kind == RecordKind.RESPONSE]
        damage += it.damages
        notes += [w.message for w in it.warnings]
    assert damage == []
    assert [n for n in notes if str(out) in n] == []
    assert ids == [f"clueweb09-en{d:04d}-00-{n:05d}" for d in range(2) for n in range(100)]


# -- TREC ids: kept when the input has them and they name the output file (item 22) -----------


def _trec_ids(path: Path) -> list[str]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as fh:
        return re.findall(rb"^WARC-TREC-ID: (\S+)\r?$", fh.read(), flags=re.M)


def _convert_to_clueweb09(src: Path, out: Path, *options: str) -> int:
    from crawlmill.core.commands.cli import main

    args = ["convert", str(src), "--to", "warc", "-o", str(out), "--progress", "never"]
    args += ["--option", "layout=clueweb09", "--option", "version=0.18"]
    for option in options:
        args += ["--option", option]
    return main(args)


def test_a_clueweb09_file_keeps_its_trec_ids_through_the_cli(tmp_path, samples):
    # the Lemur sample holds ids clueweb09-en0040-54-00000, -00001, -00065 ... (a subset of
    # the file): placed under its ClueWeb09 name, the converted file keeps them all
    original = samples / "sqs-freequery/test/dumps/ClueWeb09_English_Sample"
    src = tmp_path / "cw" / "ClueWeb09_English_3" / "en0040" / "54.warc"
    src.parent.mkdir(parents=True)
    src.write_bytes(original.read_bytes())
    out = tmp_path / "out"
    assert _convert_to_clueweb09(tmp_path / "cw", out) == 0
    written = out / "ClueWeb09_English_3" / "en0040" / "54.warc.gz"
    ids = _trec_ids(written)
    assert ids == _trec_ids(src) and len(ids) == 100
    assert ids[:3] == [
        b"clueweb09-en0040-54-00000",
        b"clueweb09-en0040-54-00001",
        b"clueweb09-en0040-54-00065",
    ]
    # unchanged records are copied byte for byte, and no id was replaced
    assert gzip.decompress(written.read_bytes()) == original.read_bytes()
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert [w for w in report["warnings"] if "trec" in w] == []
    counts, _ = cw.parse_counts((out / "record_counts/ClueWeb09_English_3_counts.txt").read_bytes())
    assert [(e.path, e.count) for e in counts] == [("en0040/54.warc.gz", 100)]


def test_ids_that_do_not_fit_are_assigned_anew_and_reported(tmp_path, samples):
    # the same file under a name that is not a ClueWeb09 file name: placed by its index, its
    # ids cannot name en0000/00, so they are replaced, and the run report says so
    original = samples / "sqs-freequery/test/dumps/ClueWeb09_English_Sample"
    src = tmp_path / "in" / "sample.warc"
    src.parent.mkdir()
    src.write_bytes(original.read_bytes())
    out = tmp_path / "out"
    assert _convert_to_clueweb09(src, out) == 0
    ids = _trec_ids(out / "ClueWeb09_English_1" / "en0000" / "00.warc.gz")
    assert ids == [f"clueweb09-en0000-00-{n:05d}".encode() for n in range(100)]
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert [(w, n) for w, n in report["warnings"].items() if "trec" in w] == [
        ("trec-ids-replaced", 1)
    ]
    assert report["warning_examples"]["trec-ids-replaced"] == REPLACED_NOT_FITTING
    (marker,) = [json.loads(p.read_text()) for p in (out / ".crawlmill" / "done").glob("*.json")]
    (note,) = marker["notes"]["trec_ids"]
    assert note["ids"] == "assigned" and "clueweb09-en0040-54-00000" in note["reason"]
    # the option trec_ids=assign numbers a ClueWeb09-named input anew too, also reported
    named = tmp_path / "cw" / "en0040" / "54.warc"
    named.parent.mkdir(parents=True)
    named.write_bytes(original.read_bytes())
    out2 = tmp_path / "out2"
    assert _convert_to_clueweb09(named, out2, "trec_ids=assign") == 0
    assert _trec_ids(out2 / "ClueWeb09_English_1" / "en0000" / "00.warc.gz") == ids
    report = json.loads((out2 / ".crawlmill" / "report.json").read_text())
    assert [(w, n) for w, n in report["warnings"].items() if "trec" in w] == [
        ("trec-ids-assigned", 1)
    ]
    assert report["warning_examples"]["trec-ids-assigned"] == REPLACED_BY_OPTION


def _named_ctx(path: str, index: int = 7, warnings: list | None = None) -> WriteContext:
    sink = warnings if warnings is not None else []
    return WriteContext(
        input=InputFile(path=path, relpath=path.rsplit("/", 1)[-1], index=index),
        input_count=1000,
        create=lambda rel: io.BytesIO(),
        quarantine=lambda record, reason: None,
        on_warning=lambda notice: sink.append(notice.message),
    )


@pytest.mark.parametrize(
    ("path", "kw", "expected"),
    [
        ("/c/ClueWeb09_English_7/en0512/03.warc.gz", {}, "ClueWeb09_English_7/en0512/03.warc.gz"),
        ("/c/en0512/03.warc.gz", {}, "ClueWeb09_English_1/en0512/03.warc.gz"),
        ("/c/en0512/03.warc.gz", {"segment_dirs": 100}, "ClueWeb09_English_6/en0512/03.warc.gz"),
        ("/c/ClueWeb09_English_1/enwp02/11.warc.gz", {}, "ClueWeb09_English_1/enwp02/11.warc.gz"),
        ("/c/enwp02/11.warc", {"segment_dirs": 3}, "ClueWeb09_English_1/enwp02/11.warc.gz"),
        # the input's own language, its segment when the folder above names it
        ("/c/zh0001/03.warc.gz", {}, "ClueWeb09_Chinese_1/zh0001/03.warc.gz"),
        ("/c/ClueWeb09_Chinese_4/zh0001/03.warc", {}, "ClueWeb09_Chinese_4/zh0001/03.warc.gz"),
        ("/c/ClueWeb09_English_4/zh0001/03.warc", {}, "ClueWeb09_Chinese_1/zh0001/03.warc.gz"),
        # not a ClueWeb09 name, or trec_ids=assign: placed by index (7)
        ("/c/en0512/03.warc.gz", {"trec_ids": "assign"}, "ClueWeb09_English_1/en0000/07.warc.gz"),
        ("/c/en0512/x03.warc.gz", {}, "ClueWeb09_English_1/en0000/07.warc.gz"),
    ],
)
def test_clueweb09_named_inputs_keep_their_place(path, kw, expected):
    assert ClueWeb09Layout(_options(**kw), _named_ctx(path), ".warc.gz").next_path() == expected


def _doc(doc_id: str | None) -> Record:
    return Record(kind=RecordKind.RESPONSE, url="http://x/", doc_id=doc_id)


def test_kept_ids_never_mix_with_new_ones():
    warnings: list[str] = []
    ctx = _named_ctx("/c/en0040/54.warc.gz", warnings=warnings)
    layout = ClueWeb09Layout(_options(), ctx, ".warc.gz")
    layout.next_path()
    assert layout.doc_id(Record(kind=RecordKind.WARCINFO), 0) is None
    assert layout.doc_id(_doc("clueweb09-en0040-54-00007"), 0) == "clueweb09-en0040-54-00007"
    assert layout.doc_id(_doc(" clueweb09-en0040-54-00009 "), 1) == "clueweb09-en0040-54-00009"
    assert layout.ids == "kept" and warnings == []
    assert ctx.notes["trec_ids"] == [
        {
            "path": layout.relpath,
            "ids": "kept",
            "reason": "the input's WARC-TREC-IDs name this file",
        }
    ]
    with pytest.raises(Exception, match="does not name this file"):
        layout.doc_id(_doc("clueweb09-en0040-55-00001"), 2)
    with pytest.raises(Exception, match="does not name this file"):
        layout.doc_id(_doc(None), 2)
    with pytest.raises(Exception, match="occurs twice"):
        layout.doc_id(_doc("clueweb09-en0040-54-00007"), 2)


def test_ids_are_assigned_for_a_whole_file_when_the_first_does_not_fit():
    warnings: list[str] = []
    ctx = _named_ctx("/c/en0040/54.warc.gz", warnings=warnings)
    layout = ClueWeb09Layout(_options(), ctx, ".warc.gz")
    assert layout.doc_id(_doc("clueweb09-en0040-53-00000"), 0) == "clueweb09-en0040-54-00000"
    # a later record whose id would fit is numbered too: one file never mixes the two
    assert layout.doc_id(_doc("clueweb09-en0040-54-00000"), 1) == "clueweb09-en0040-54-00001"
    assert warnings == [REPLACED_NOT_FITTING]
    # records without ids get new ones, noted but not warned about
    quiet: list[str] = []
    ctx = _named_ctx("/c/en0040/54.warc.gz", warnings=quiet)
    layout = ClueWeb09Layout(_options(), ctx, ".warc.gz")
    assert layout.doc_id(_doc(None), 0) == "clueweb09-en0040-54-00000"
    assert quiet == [] and ctx.notes["trec_ids"][0]["ids"] == "assigned"


def test_chuweb_paths_drop_the_readers_suffixes_whatever_the_compression():
    # one suffix list (the readers' file_suffixes, crawlmill.core.naming): .warc.lz4 and
    # Common Crawl's .warc.wet.gz are stored forms of one name, as .warc.gz is
    for name in ("CC-MAIN-1-2-00042.warc.lz4", "CC-MAIN-1-2-00042.warc.wet.gz"):
        assert chuweb_path(f"seg/{name}", ".warc.gz") == "CC-MAIN-1-2/CC-MAIN-1-2-00042.warc.gz"


def test_only_responses_get_trec_ids_and_are_counted(tmp_path):
    # the dataset page: 'One custom field is added to the WARC response header information
    # named "WARC-TREC-ID"' and '<record> is a 5-digit (padded) number that corresponds to this
    # record's sequence within the individual file'. A WARC with request/response pairs (and a
    # metadata record) written in the clueweb09 layout: the responses are numbered 0, 1, 2...,
    # nothing else gets an id, and the counts list counts the responses.
    from crawlmill.core.commands.cli import main

    src = tmp_path / "in"
    src.mkdir()
    records = []
    for n in range(3):
        url = f"http://example.org/{n}"
        for kind, block in (
            ("request", b"GET /%d HTTP/1.1\r\nHost: example.org\r\n\r\n" % n),
            ("response", b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>%d</p>" % n),
            ("metadata", b"via: http://example.org/\r\n"),
        ):
            msgtype = {"request": "request", "response": "response"}.get(kind)
            ctype = f"application/http;msgtype={msgtype}" if msgtype else "application/warc-fields"
            head = (
                f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\n"
                "WARC-Date: 2009-03-01T00:00:00Z\r\n"
                f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{len(records):012d}>\r\n"
                f"Content-Type: {ctype}\r\nContent-Length: {len(block)}\r\n\r\n"
            ).encode()
            records.append(head + block + b"\r\n\r\n")
    (src / "crawl.warc").write_bytes(b"".join(records))
    out = tmp_path / "out"
    argv = ["convert", str(src), "--to", "warc", "-o", str(out), "--workers", "1"]
    argv += ["--option", "layout=clueweb09", "--option", "version=0.18"]
    assert main(argv) == 0
    written = out / "ClueWeb09_English_1" / "en0000" / "00.warc.gz"
    with open_reader(str(written), "warc") as read:
        ids = [(r.kind.value, r.doc_id) for r in read if r.kind != RecordKind.WARCINFO]
    assert ids == [
        (kind, f"clueweb09-en0000-00-{n:05d}" if kind == "response" else None)
        for n in range(3)
        for kind in ("request", "response", "metadata")
    ]
    counts = (out / "record_counts" / "ClueWeb09_English_1_counts.txt").read_text()
    assert counts == "*./en0000/00.warc.gz 3\n"
    # read back as a collection, the counts list holds (the reader counts responses too)
    again = tmp_path / "again"
    assert main(["convert", str(out), "--to", "warc", "-o", str(again), "--workers", "1"]) == 0
    report = json.loads((again / ".crawlmill" / "report.json").read_text())
    assert report["checks_passed"] == 2 and not report["checks_failed"]
