"""Whole crawls as the unit of work (issue 18): a tree of nested folders built from the shared
samples converts in one ``crawlmill convert TREE -o OUT``, and every file of it is accounted
for: read by a collection (a unit's part or a side file its reader names), planned with its
own reader, or named as not converted (the run then exits 3).

The tree::

    TREE/crawl/                      a Nutch crawl folder (apache-nutch/testcrawl):
        crawldb/ linkdb/ segments/<ts>/
    TREE/mixed/segments/<ts>/        a folder of Nutch segments (apache-nutch/test-segments,
                                     with Hadoop's .crc side files)
    TREE/mixed/*                     loose ARC, WARC, ClueWeb09 WARC, SequenceFile, PDF, text
    TREE/cc2012/parse-output/segment/<id1>/, <id2>/   two Common Crawl 2012 segments
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.inputs import expand_inputs, is_side_file
from crawlmill.core.registry import Registry
from crawlmill.core.spec import PipelineSpec

from tests.conftest import SAMPLES, need
from tests.helpers import cli

ARC = "webrecorder-warcio/test/data/example.arc.gz"
WARC = "iipc-jwarc/test-resources/org/netpreserve/jwarc/cc.warc.gz"
CLUEWEB09 = "castorini-anserini/sample_docs/cw09/collection1/segment1.warc.gz"
SEQUENCEFILE = "hadoop-oracle-generated/text_text_NONE.seq"
CC2012 = {"1346823845675": "cc2012-synthetic/text-gzip",
          "1346823846039": "cc2012-synthetic/textbytes-snappy"}  # fmt: skip
#: a PDF's first bytes (binary: "%PDF-1.4" then the comment of high bytes PDF writers add).
PDF = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
#: what each planted file's fate must be: the reader planning it.
LOOSE = {
    "mixed/example.arc.gz": "arc",
    "mixed/cc.warc.gz": "warc",
    "mixed/ClueWeb09-en0000-00.warc.gz": "warc",
    "mixed/text_text_NONE.seq": "sequencefile",
}
NOT_CONVERTED = ("mixed/paper.pdf", "mixed/NOTES.txt")


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst)
    else:
        shutil.copyfile(src, dst)


def build_tree(root: Path, with_strays: bool = True) -> Path:
    """The tree of the module docstring under ``root``; ``with_strays``: plant the PDF and
    the text file no reader reads."""
    if not (SAMPLES / "apache-nutch/testcrawl").is_dir():
        pytest.skip("../shared/samples is absent")
    tree = root / "TREE"
    _copy(SAMPLES / "apache-nutch/testcrawl", tree / "crawl")
    _copy(SAMPLES / "apache-nutch/test-segments", tree / "mixed/segments")
    _copy(SAMPLES / ARC, tree / "mixed/example.arc.gz")
    _copy(SAMPLES / WARC, tree / "mixed/cc.warc.gz")
    _copy(SAMPLES / CLUEWEB09, tree / "mixed/ClueWeb09-en0000-00.warc.gz")
    _copy(SAMPLES / SEQUENCEFILE, tree / "mixed/text_text_NONE.seq")
    for segment, sample in CC2012.items():
        _copy(SAMPLES / sample, tree / "cc2012/parse-output/segment" / segment)
    if with_strays:
        (tree / "mixed/paper.pdf").write_bytes(PDF)
        (tree / "mixed/NOTES.txt").write_text("how this crawl was made\n")
    for path in tree.rglob("*"):  # the samples are read-only; a test's copy need not be
        path.chmod(0o755 if path.is_dir() else 0o644)
    return tree


def planted(tree: Path) -> tuple[set[str], set[str]]:
    """``(files, side)``: every file of the tree relative to it, and those that are Hadoop's
    and hidden side files (``.crc``, dotfiles), never records."""
    files, side = set(), set()
    for dirpath, _, names in os.walk(tree):
        for name in names:
            rel = os.path.relpath(os.path.join(dirpath, name), tree)
            hidden = any(is_side_file(p) for p in rel.split(os.sep))
            (side if hidden else files).add(rel)
    return files, side


def fates(tree: Path, out: Path) -> dict[str, tuple[str, str]]:
    """Every file of the plan -> ``(fate, detail)``: ``("unit", reader)`` for a unit's part or
    a loose file, ``("side", reader)`` for a side file a collection reads,
    ``("not converted", reason)``."""
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": [str(tree)]}, "writer": {"name": "warc"}, "output": str(out)}
    )
    plan = expand_inputs(spec, Registry.load())
    found: dict[str, tuple[str, str]] = {}

    def put(path: str, fate: tuple[str, str]) -> None:
        rel = os.path.relpath(path, tree)
        assert rel not in found, f"{rel} planned twice: {found[rel]} and {fate}"
        found[rel] = fate

    for p in plan:
        for part in (p.input.parts or {"": p.input.path}).values():
            put(part, ("unit", p.reader))
    for path, reader in plan.claimed:
        put(path, ("side", reader))
    for path, reason in plan.not_converted:
        put(path, ("not converted", reason))
    assert plan.skipped == []
    return found


def convert(*argv: object) -> int:
    """``crawlmill convert ARGV`` in this process; the exit code."""
    return cli("convert", *argv, "--workers", "1", "--progress", "never").exit_code


def warc_records(path: Path, warcinfo: bool = False) -> list[tuple[str, str | None, bytes]]:
    """``(WARC-Type, WARC-Target-URI, block)`` of every record (but the warcinfo records
    unless ``warcinfo``), read by warcio."""
    warcio = need("warcio.archiveiterator")
    out = []
    with open(path, "rb") as fh:
        for rec in warcio.ArchiveIterator(fh):
            if rec.rec_type == "warcinfo" and not warcinfo:
                continue
            block = rec.raw_stream.read()
            out.append((rec.rec_type, rec.rec_headers.get_header("WARC-Target-URI"), block))
    return out


def test_every_file_of_a_tree_has_one_fate(tmp_path):
    tree = build_tree(tmp_path)
    files, side = planted(tree)
    found = fates(tree, tmp_path / "out")
    # no planted file is skipped without a name: every file but .crc/dotfiles has a fate
    assert set(found) == files
    assert side and all(p.endswith(".crc") or "/." in "/" + p for p in side)
    for rel, reader in LOOSE.items():
        assert found[rel] == ("unit", reader), rel
    for rel in NOT_CONVERTED:
        assert found[rel][0] == "not converted", rel
    assert found["mixed/paper.pdf"][1].startswith("format not detected: binary data")
    assert found["mixed/NOTES.txt"][1].startswith("format not detected: text,")
    by_area = {}
    for rel, (fate, reader) in found.items():
        if rel.startswith(("crawl/", "mixed/segments/", "cc2012/")):
            by_area.setdefault(rel.split(os.sep)[0 if rel.startswith("c") else 1], set()).add(
                (fate, reader)
            )
    # the Nutch crawl: segments joined, CrawlDB and LinkDB as their own collections, their
    # MapFile indexes side files; never a raw SequenceFile read of a part or an index
    assert by_area["crawl"] == {
        ("unit", "nutch-segment"), ("side", "nutch-segment"),
        ("unit", "nutch-crawldb"), ("side", "nutch-crawldb"),
        ("unit", "nutch-linkdb"), ("side", "nutch-linkdb"),
    }  # fmt: skip
    assert by_area["segments"] == {("unit", "nutch-segment"), ("side", "nutch-segment")}
    assert by_area["cc2012"] == {("unit", "cc2012")}
    assert all(found[r] == ("side", "nutch-crawldb") for r in found if r.startswith("crawl/crawldb") and r.endswith("index"))  # fmt: skip


def test_the_whole_tree_converts_in_one_command(tmp_path, capsys):
    tree = build_tree(tmp_path)
    out = tmp_path / "out"
    code = convert(tree, "-o", out)
    err = capsys.readouterr().err
    assert code == 3, err  # the PDF and the text file are not converted: named, exit 3
    for rel in NOT_CONVERTED:
        assert f"crawlmill: not converted: {tree / rel}: format not detected" in err
    report = json.loads((out / ".crawlmill/report.json").read_text())
    assert sorted(n["path"] for n in report["not_converted"]) == sorted(
        str(tree / r) for r in NOT_CONVERTED
    )
    written = {i["input"]: i["outputs"] for i in report["input_outputs"]}
    assert written == {
        "cc2012/parse-output/segment/1346823845675/partition-00000": [
            "cc2012/parse-output/segment/1346823845675/partition-00000.warc.gz"
        ],
        "cc2012/parse-output/segment/1346823846039/partition-00000": [
            "cc2012/parse-output/segment/1346823846039/partition-00000.warc.gz"
        ],
        "crawl/crawldb/current/part-00000": ["crawl/crawldb/current/part-00000.warc.gz"],
        "crawl/linkdb/current/part-00000": ["crawl/linkdb/current/part-00000.warc.gz"],
        "crawl/segments/20060919213635": ["crawl/segments/20060919213635.warc.gz"],
        "crawl/segments/20060919213643": ["crawl/segments/20060919213643.warc.gz"],
        "mixed/ClueWeb09-en0000-00.warc.gz": ["mixed/ClueWeb09-en0000-00.warc.gz"],
        "mixed/cc.warc.gz": ["mixed/cc.warc.gz"],
        "mixed/example.arc.gz": ["mixed/example.warc.gz"],
        "mixed/segments/20150309101625": ["mixed/segments/20150309101625.warc.gz"],
        "mixed/segments/20150309101656": ["mixed/segments/20150309101656.warc.gz"],
        "mixed/text_text_NONE.seq": ["mixed/text_text_NONE.warc.gz"],
    }
    # where the records went: each output holds its input's records (warcio reads them)
    total = 0
    for outputs in written.values():
        (name,) = outputs
        assert warc_records(out / name), name
        total += len(warc_records(out / name, warcinfo=True))
    assert total == report["written"] and report["quarantined"] == 0
    # a loose WARC's records are its own, as warcio reads the input
    assert warc_records(out / "mixed/cc.warc.gz") == warc_records(tree / "mixed/cc.warc.gz")


def test_exit_0_means_every_file_is_in_the_output(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    out = tmp_path / "out"
    code = convert(tree, "-o", out)
    err = capsys.readouterr().err
    assert code == 0, err
    report = json.loads((out / ".crawlmill/report.json").read_text())
    assert report["not_converted"] == [] and report["unclaimed"] == []
    files, _ = planted(tree)
    found = fates(tree, tmp_path / "plan")
    assert set(found) == files and all(f in ("unit", "side") for f, _ in found.values())
    done = {i["path"] for i in report["input_outputs"]}
    units = {os.path.relpath(p, tree) for p in done}
    assert len(units) == 12


def test_a_nutch_crawl_folder_gives_the_records_of_its_segments_folder(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    crawl, whole, segs = tree / "crawl", tmp_path / "whole", tmp_path / "segs"
    assert convert(crawl, "-o", whole) == 0, capsys.readouterr().err
    assert convert(crawl / "segments", "-o", segs) == 0, capsys.readouterr().err
    for ts in ("20060919213635", "20060919213643"):
        joined = warc_records(whole / "segments" / f"{ts}.warc.gz")
        assert joined == warc_records(segs / f"{ts}.warc.gz")
        # one record per fetch, joined: responses carry the page, never a MapFile index entry
        assert any(t == "response" for t, _, _ in joined)
        assert all(u and u.startswith("http") for _, u, _ in joined)
    # the CrawlDB and LinkDB are their own collections: one metadata record per URL
    crawldb = warc_records(whole / "crawldb/current/part-00000.warc.gz")
    assert crawldb and {t for t, _, _ in crawldb} == {"metadata"}
    assert all(b'"crawl_datum"' in block for _, _, block in crawldb)
    linkdb = warc_records(whole / "linkdb/current/part-00000.warc.gz")
    assert linkdb and all(b'"inlinks"' in block for _, _, block in linkdb)


def test_many_cc2012_segments_in_one_run_do_not_collide(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    parent = tree / "cc2012/parse-output/segment"
    out = tmp_path / "out"
    assert convert(parent, "-o", out) == 0, capsys.readouterr().err
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*.warc.gz"))
    assert names == [f"{s}/partition-00000.warc.gz" for s in sorted(CC2012)]
    # each joined as converting its segment alone joins it
    for segment in CC2012:
        alone = tmp_path / f"alone-{segment}"
        assert convert(parent / segment, "-o", alone) == 0, capsys.readouterr().err
        assert warc_records(out / segment / "partition-00000.warc.gz") == warc_records(
            alone / "partition-00000.warc.gz"
        )


def test_a_stray_file_inside_a_collection_is_named_not_swallowed(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    segment = tree / "crawl/segments/20060919213635"
    (segment / "README").write_text("fetched with nutch 0.8\n")
    _copy(SAMPLES / WARC, segment / "extra.warc.gz")
    found = fates(tree, tmp_path / "out")
    assert found["crawl/segments/20060919213635/README"][0] == "not converted"
    assert found["crawl/segments/20060919213635/extra.warc.gz"] == ("unit", "warc")


def test_url_dedup_first_follows_the_order_the_inputs_were_given(tmp_path, capsys):
    a, b = tmp_path / "in/a.warc.gz", tmp_path / "in/b.warc.gz"
    _copy(SAMPLES / WARC, a)
    _copy(SAMPLES / WARC, b)  # the same captures: rule=first keeps those of the input given first
    out = tmp_path / "out"
    code = convert(b, a, "-o", out, "--filter", "url-dedup", "rule=first")
    assert code == 0, capsys.readouterr().err
    report = json.loads((out / ".crawlmill/report.json").read_text())
    # b, given first, is input 0 and keeps the capture; a's duplicate is dropped
    assert [i["input"] for i in report["input_outputs"]] == ["b.warc.gz", "a.warc.gz"]
    assert report["dropped"] == {"url-dedup": {"duplicate": 1}}
    assert [t for t, _, _ in warc_records(out / "b.warc.gz")] == ["response"]
    assert not (out / "a.warc.gz").exists()


def test_two_cc2012_segments_given_one_by_one_are_kept_apart(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    parent = tree / "cc2012/parse-output/segment"
    out = tmp_path / "out"
    segments = [parent / s for s in CC2012]
    assert convert(*segments, "-o", out) == 0, capsys.readouterr().err
    names = sorted(str(p.relative_to(out)) for p in out.rglob("*.warc.gz"))
    assert names == [f"{s}/partition-00000.warc.gz" for s in sorted(CC2012)]
    # one segment alone keeps its plain names
    alone = tmp_path / "alone"
    assert convert(segments[0], "-o", alone) == 0, capsys.readouterr().err
    assert [p.name for p in alone.glob("*.warc.gz")] == ["partition-00000.warc.gz"]


def test_get_and_inspect_accept_the_folders_convert_accepts(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    crawl = tree / "crawl"
    url = "http://ant.apache.org/"
    # a CrawlDB folder answers as its current/ MapFile parts do
    assert main(["get", str(crawl / "crawldb"), url]) == 0
    via_db = capsys.readouterr().out
    assert main(["get", str(crawl / "crawldb/current"), url]) == 0
    assert capsys.readouterr().out == via_db and '"@": "CrawlDatum"' in via_db
    # a whole crawl folder: each MapFile collection holding the key answers, one line each
    assert main(["get", str(crawl), url, "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [os.path.relpath(x["mapfile"], crawl) for x in lines] == [
        "crawldb/current/part-00000",
        "linkdb/current/part-00000",
    ]
    # a segment: its content, crawl_fetch, parse_data and parse_text, each after its folder
    segment = crawl / "segments/20060919213635"
    assert main(["get", str(segment), "http://www.apache.org/"]) == 0
    headers = [x for x in capsys.readouterr().out.splitlines() if x.startswith("# ")]
    assert headers == [f"# {segment / s}" for s in ("content", "crawl_fetch", "parse_data", "parse_text")]  # fmt: skip
    # --raw prints one value: refused for several collections
    assert main(["get", str(crawl), url, "--raw"]) == 2
    assert "holds 10 MapFile collections" in capsys.readouterr().err
    # inspect plans a crawl folder as convert does and shows the first input's records
    assert main(["inspect", str(crawl), "--records", "1"]) == 0
    out = capsys.readouterr().out
    assert "a folder of 4 input(s)" in out and "segments/20060919213635  [nutch-segment]" in out


def test_dry_run_and_validate_list_each_files_fate(tmp_path, capsys):
    tree = build_tree(tmp_path)
    out = tmp_path / "out"
    assert convert(tree, "-o", out, "--dry-run") == 3  # the run would leave files out
    printed = capsys.readouterr().out
    assert not out.exists()  # nothing written
    segment = tree / "crawl/segments/20060919213635"
    assert f"  {segment}  [nutch-segment] -> crawl/segments/20060919213635.warc.gz" in printed
    assert f"      reads {segment / 'content/part-00000/data'}  (content/part-00000)" in printed
    assert f"  {segment / 'content/part-00000/index'}  [nutch-segment]" in printed
    assert f"  {tree / 'mixed/paper.pdf'}  (format not detected: binary data" in printed
    # validate --json: the same plan as data
    config = tmp_path / "pipeline.json"
    config.write_text(json.dumps({"inputs": {"paths": [str(tree)]}, "writer": {"name": "warc"},
                                  "output": str(out)}))  # fmt: skip
    assert main(["validate", str(config), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    fate = {p: "unit" for i in data["inputs"] for p in (i["parts"] or {"": i["path"]}).values()}
    fate |= {c["path"]: "side" for c in data["claimed"]}
    fate |= {n["path"]: "not converted" for n in data["not_converted"]}
    assert {os.path.relpath(p, tree) for p in fate} == planted(tree)[0]


def test_a_crawldb_old_beside_current_is_read_as_the_crawldb(tmp_path):
    tree = build_tree(tmp_path, with_strays=False)
    crawldb = tree / "crawl/crawldb"
    shutil.copytree(crawldb / "current", crawldb / "old")  # as updatedb leaves the one before
    found = fates(tree, tmp_path / "out")
    old = {r: f for r, f in found.items() if r.startswith("crawl/crawldb/old/")}
    # the previous version is the CrawlDB's too (not a raw MapFile of the mapfile reader)
    assert old == {
        "crawl/crawldb/old/part-00000/data": ("unit", "nutch-crawldb"),
        "crawl/crawldb/old/part-00000/index": ("side", "nutch-crawldb"),
    }


def _clueweb09_root(tree: Path) -> Path:
    """A ClueWeb09 collection root beside the crawl: ``ClueWeb09_English_1/en0000/00.warc.gz``
    with its lists under the names the dataset page gives ("The files with the name
    ``ClueWeb_*.md5``" at the root, ``record_counts/ClueWeb09_English_1_counts.txt``)."""
    import hashlib

    from crawlmill.formats.clueweb09 import collection as cw

    root = tree / "clueweb09"
    warc = root / "ClueWeb09_English_1/en0000/00.warc.gz"
    _copy(SAMPLES / CLUEWEB09, warc)
    with open_reader(str(warc)) as records:  # warcio stops at ClueWeb09's 0.18 framing
        responses = sum(1 for r in records if r.kind == "response")
    md5 = hashlib.md5(warc.read_bytes()).hexdigest()
    (root / "ClueWeb_English_1.md5").write_bytes(cw.format_md5_list([("en0000/00.warc.gz", md5)]))
    counts = root / "record_counts/ClueWeb09_English_1_counts.txt"
    counts.parent.mkdir(parents=True)
    counts.write_text(f"*./en0000/00.warc.gz {responses}\n")
    return root


def test_a_clueweb09_root_in_a_tree_checks_the_lists_named_as_the_page_names_them(tmp_path, capsys):
    tree = build_tree(tmp_path, with_strays=False)
    root = _clueweb09_root(tree)
    found = fates(tree, tmp_path / "plan")
    # the lists are the collection's side files, read by its checks, never "not converted"
    assert found["clueweb09/ClueWeb_English_1.md5"] == ("side", "clueweb09")
    assert found["clueweb09/record_counts/ClueWeb09_English_1_counts.txt"] == (
        "side",
        "clueweb09",
    )
    assert found["clueweb09/ClueWeb09_English_1/en0000/00.warc.gz"] == ("unit", "clueweb09")
    out = tmp_path / "out"
    assert convert(tree, "-o", out) == 0, capsys.readouterr().err
    report = json.loads((out / ".crawlmill/report.json").read_text())
    assert report["checks_failed"] == [] and report["checks_passed"] >= 2  # md5 and count
    # a wrong md5 in the page-named list fails the run (exit 3), naming the file
    md5_list = root / "ClueWeb_English_1.md5"
    md5_list.write_bytes(cw_md5_zeroed(md5_list.read_bytes()))
    out2 = tmp_path / "out2"
    assert convert(tree, "-o", out2) == 3
    report = json.loads((out2 / ".crawlmill/report.json").read_text())
    assert any(
        "en0000/00.warc.gz" in (c.get("path", "") + c["reason"]) and "md5" in c["reason"]
        for c in report["checks_failed"]
    ), report["checks_failed"]


def cw_md5_zeroed(data: bytes) -> bytes:
    """An md5 list with its digest replaced by zeros."""
    digest, rest = data.split(b" ", 1)
    return b"0" * len(digest) + b" " + rest


def test_an_ntcir_root_with_contradicting_lists_in_a_tree_exits_3_naming_file_and_line(
    tmp_path, capsys
):
    from tests.plugins.ntcir_tree import build_tree as build_ntcir

    tree = build_tree(tmp_path, with_strays=False)
    nw = tree / "ntcir/NW100G-01"
    build_ntcir(nw, sites=1, per=2)
    with open(nw / "aliaslist", "ab") as fh:  # README: aliaslist names a sitelist site id
        fh.write(b"http://alias9.example.jp\t000009\n")
    found = fates(tree, tmp_path / "plan")
    ntcir = {rel: fate for rel, fate in found.items() if rel.startswith("ntcir/")}
    # every list and every page file is read by the NTCIR collection (the lists by its unit)
    assert len(ntcir) == 6 + 3 * 2 * 2 and {r for _, r in ntcir.values()} == {"ntcir"}
    out = tmp_path / "out"
    assert convert(tree, "-o", out) == 3
    report = json.loads((out / ".crawlmill/report.json").read_text())
    assert ("aliaslist", "line 2: site id 000009 is not in sitelist") in [
        (c["check"], c["reason"]) for c in report["checks_failed"]
    ]
    assert report["not_converted"] == []
