"""``crawlmill dedup-runs``: runs and qrels rewritten through the cluster table a
``simhash-dedup`` run wrote, on the Chuweb21D paper's examples (section 5.2), several topics,
documents in no cluster and malformed lines; the rules at the mechanism."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from crawlmill.algorithms.trec_runs import (
    Cluster,
    TrecFormatError,
    dedup_qrels,
    dedup_run,
    parse_qrels,
    parse_run,
)
from crawlmill.core.commands.cli import main

from tests.helpers import cli
from tests.plugins.test_simhash_dedup import HEAD, page, warc

WORDS = {
    g: [f"{g}word{i}x{j}" for i, j in zip(range(80), range(80, 160), strict=True)] for g in "abcd"
}
#: pipeline order: each cluster's member 1 comes first, so ``first`` makes it the
#: representative; b3 differs from b1 in one word (a near, not exact, duplicate).
ORDER = ["a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3"]


def collection(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    data = b""
    for n, doc in enumerate(ORDER, 1):
        words = list(WORDS[doc[0]])
        if doc == "b3":
            words[40] = "changed"
        data += warc(n, "response", f"http://x/{doc}", "2021-01-01T00:00:00Z",
                     HEAD + page(words), doc)  # fmt: skip
    (folder / "part.warc").write_bytes(data)
    return folder


@pytest.fixture
def dedup_out(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    code = main(
        ["convert", str(collection(tmp_path)), "-o", str(out), "--to", "warc",
         "--filter", "simhash-dedup", "tau=3", "--progress", "never"]
    )  # fmt: skip
    assert code == 0
    return out


RUN = """\
1 Q0 a1 1 9.5 sys
1 Q0 b2 2 9.0 sys
1 Q0 c2 3 8.5 sys
1 Q0 c1 4 8.0 sys
1 Q0 d1 5 7.5 sys
1 Q0 b1 6 7.0 sys
2 Q0 zz9 1 3.0 sys
2 Q0 b3 2 2.5 sys
2 Q0 a2 3 2.0 sys
2 Q0 a3 4 1.5 sys
2 Q0 b1 5 1.0 sys
"""
QRELS = """\
1 a1 L2
1 a2 L3
1 a3 L1
1 zz9 L1
1 zz9 L2
2 b2 L1
2 b3 L0
2 d1 L4
"""


def test_paper_examples_through_the_cli(tmp_path, dedup_out, capsys):
    (tmp_path / "a.run").write_text(RUN)
    (tmp_path / "q.txt").write_text(QRELS)
    code, out, err = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "a.run"),
        "--qrels", str(tmp_path / "q.txt"), "-o", str(tmp_path / "d"), "--json",
    )  # fmt: skip
    assert code == 0, err
    run = (tmp_path / "d" / "a.run").read_text().splitlines()
    # a1 b2 c2 c1 d1 b1 -> a1 b1 c1 d1, scores of the member each line replaces
    assert run == [
        "1 Q0 a1 1 9.5 sys",
        "1 Q0 b1 2 9.0 sys",
        "1 Q0 c1 3 8.5 sys",
        "1 Q0 d1 4 7.5 sys",
        "2 Q0 zz9 1 3.0 sys",  # in no cluster: as it was
        "2 Q0 b1 2 2.5 sys",  # b3 is a near-duplicate of b1
        "2 Q0 a1 3 2.0 sys",
    ]
    qrels = (tmp_path / "d" / "q.txt").read_text().splitlines()
    # a1 L2, a2 L3, a3 L1 -> a1 L3; zz9's lines stay as they are
    assert qrels == ["1 a1 L3", "1 zz9 L1", "1 zz9 L2", "2 b1 L1", "2 d1 L4"]
    counts = {r["kind"]: r["counts"] for r in json.loads(out)}
    assert counts["run"] == {
        "lines_in": 11, "lines_out": 7, "removed": 4, "replaced": 4, "raised": 0,
        "unknown": 1, "unnamed": 0, "topics": 2, "matched": 10,
    }  # fmt: skip
    assert counts["qrels"] == {
        "lines_in": 8, "lines_out": 5, "removed": 3, "replaced": 2, "raised": 1,
        "unknown": 2, "unnamed": 0, "topics": 2, "matched": 6,
    }  # fmt: skip
    # the plain report says the same in words
    code, out, _ = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "a.run"), "-o", str(tmp_path / "e")
    )
    assert code == 0
    assert "11 line(s) in 2 topic(s), 7 out; 4 removed, 4 replaced" in out


def test_the_table_file_itself_and_by_score(tmp_path, dedup_out, capsys):
    table = dedup_out / "clusters.parquet"
    # ranks disagree with scores: trec_eval's order (score) puts c2 first
    (tmp_path / "r.run").write_text("7 Q0 c1 1 1.0 t\n7 Q0 c2 2 5.0 t\n7 Q0 a2 3 0.5 t\n")
    code, _, err = cli(
        "dedup-runs", str(table), "--run", str(tmp_path / "r.run"), "-o", str(tmp_path / "d"),
        "--by", "score",
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "d" / "r.run").read_text() == "7 Q0 c1 1 5.0 t\n7 Q0 a1 2 0.5 t\n"


def test_a_root_whose_table_is_elsewhere(tmp_path, capsys):
    """``clusters: tables/c.parquet``: the root's pass marker names it."""
    out = tmp_path / "out"
    code = main(
        ["convert", str(collection(tmp_path)), "-o", str(out), "--to", "warc",
         "--filter", "simhash-dedup", "tau=3", "clusters=tables/c.parquet", "--progress", "never"]
    )  # fmt: skip
    assert code == 0
    (tmp_path / "a.run").write_text("1 Q0 a3 1 1 r\n")
    code, _, err = cli(
        "dedup-runs", str(out), "--run", str(tmp_path / "a.run"), "-o", str(tmp_path / "d")
    )
    assert code == 0, err
    assert (tmp_path / "d" / "a.run").read_text() == "1 Q0 a1 1 1 r\n"


@pytest.mark.parametrize(
    "kind, text, bad",
    [
        ("--run", "1 Q0 a1 1 9.5 sys\n1 Q0 b1 2 9.0\n", "line 2: a run line has 6 fields"),
        ("--run", "1 Q0 a1 1 9.5 sys\n\n1 Q0 b1 x 9.0 s\n", "line 3: rank 'x' is not"),
        ("--run", "1 Q0 a1 1 high sys\n", "line 1: score 'high' is not a number"),
        ("--qrels", "1 a1 L2\n1 0 a2 L3 extra\n", "line 2: a qrels line has 4 fields"),
        ("--qrels", "1 0 a1 2\n1 0 a2 high\n", "line 2: relevance 'high' is not a grade"),
    ],
)
def test_malformed_lines_name_file_and_line(tmp_path, dedup_out, capsys, kind, text, bad):
    bad_file = tmp_path / "bad.txt"
    bad_file.write_text(text)
    (tmp_path / "good.run").write_text(RUN)
    code, _, err = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "good.run"), kind, str(bad_file),
        "-o", str(tmp_path / "d"),
    )  # fmt: skip
    assert code == 2
    assert f"{bad_file}: {bad}" in err
    assert not (tmp_path / "d" / "good.run").exists()  # nothing written


def test_refusals(tmp_path, dedup_out, capsys):
    (tmp_path / "a.run").write_text(RUN)
    code, _, err = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "a.run"), "-o", str(tmp_path)
    )
    assert code == 2 and "would replace an input" in err
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.run").write_text("mine")
    code, _, err = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "a.run"), "-o", str(tmp_path / "d")
    )
    assert code == 2 and "--overwrite" in err
    assert (tmp_path / "d" / "a.run").read_text() == "mine"
    code, _, err = cli(
        "dedup-runs",
        str(tmp_path / "nothing"),
        "--run",
        str(tmp_path / "a.run"),
        "-o",
        str(tmp_path / "e"),
    )
    assert code == 2 and "no such cluster table" in err
    pq.write_table(pa.table({"doc_id": ["a"]}), tmp_path / "t.parquet")
    code, _, err = cli(
        "dedup-runs",
        str(tmp_path / "t.parquet"),
        "--run",
        str(tmp_path / "a.run"),
        "-o",
        str(tmp_path / "e"),
    )
    assert code == 2 and "no column cluster, representative_doc_id" in err


# -- the rules at the mechanism --------------------------------------------------------------

TABLE = {
    "a1": Cluster(0, "a1"), "a2": Cluster(0, "a1"), "a3": Cluster(0, "a1"),
    "b1": Cluster(1, "b1"), "b2": Cluster(1, "b1"),
    "n1": Cluster(5, None), "n2": Cluster(5, None),
}  # fmt: skip


def run_lines(*docs: str, topic: str = "1") -> list[str]:
    return [f"{topic} Q0 {d} {i} {10 - i} r" for i, d in enumerate(docs, 1)]


def test_run_rule_orders_by_rank_field_not_file_order():
    lines = ["1 Q0 b2 2 9 r", "1 Q0 a2 1 10 r", "1 Q0 b1 3 8 r"]
    out, counts = dedup_run(parse_run(lines, "x"), TABLE.get)
    assert out == ["1 Q0 a1 1 10 r", "1 Q0 b1 2 9 r"]
    assert counts.removed == 1 and counts.replaced == 2


def test_run_cluster_without_a_named_representative_keeps_its_best_member():
    out, counts = dedup_run(parse_run(run_lines("n2", "n1", "x"), "x"), TABLE.get)
    assert [line.split()[2] for line in out] == ["n2", "x"]
    assert counts.unnamed == 2 and counts.unknown == 1 and counts.removed == 1


def test_qrels_rule_tie_and_trec_format():
    lines = ["3 0 a2 1", "3 0 a1 1", "3 0 a3 -1", "3 0 b2 2", "3 0 b1 0"]
    out, counts = dedup_qrels(parse_qrels(lines, "q"), TABLE.get)
    assert out == ["3 0 a1 1", "3 0 b1 2"]
    assert counts.raised == 1  # b1 had 0, gets 2
    assert counts.replaced == 2  # the a2 and b2 lines were the ones kept


def test_parse_errors_carry_file_and_line():
    with pytest.raises(TrecFormatError) as info:
        parse_qrels(["1 a L1", "", "1 b"], "q.txt")
    assert (info.value.name, info.value.lineno) == ("q.txt", 3)


# -- Chuweb21D: documents named by their WARC-Record-ID (issue 19) ------------------------------

#: Chuweb21D's case files are named by the UUID of their WARC-Record-ID
#: (shared/samples/chuzhumin98-Chuweb21D: materials/cases/#1/17c1f32d-....html); the paper:
#: "For each duplicate cluster under the ranking list of a topic, only retain the
#: highest-ranked document in the run and replace it with the representative document in this
#: cluster."
UUIDS = {doc: f"00000000-0000-4000-8000-{n:012d}" for n, doc in enumerate(ORDER, 1)}


def chuweb_collection(tmp_path: Path) -> Path:
    """The paper's example collection as Chuweb21D holds it: no WARC-TREC-ID, record ids."""
    folder = tmp_path / "chuweb"
    folder.mkdir()
    data = b""
    for doc in ORDER:
        block = HEAD + page(list(WORDS[doc[0]]))
        data += (
            (
                f"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://x/{doc}\r\n"
                f"WARC-Date: 2021-04-10T11:00:00Z\r\nWARC-Record-ID: <urn:uuid:{UUIDS[doc]}>\r\n"
                f"Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(block)}\r\n\r\n"
            ).encode()
            + block
            + b"\r\n\r\n"
        )
    (folder / "CC-MAIN-1-2-00000.warc").write_bytes(data)
    return folder


def test_chuweb21d_documents_get_their_record_ids_and_runs_match(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        ["convert", str(chuweb_collection(tmp_path)), "-o", str(out), "--to", "warc",
         "--filter", "simhash-dedup", "tau=3", "--progress", "never"]
    )  # fmt: skip
    assert code == 0
    table = pq.read_table(out / "clusters.parquet").to_pydict()
    assert table["doc_id"] == [UUIDS[d] for d in ORDER]  # never null
    assert table["representative_doc_id"][ORDER.index("b3")] == UUIDS["b1"]
    capsys.readouterr()
    # a run keyed by record ids: every line matches, exit 0
    run = "".join(f"1 Q0 {UUIDS[d]} {r} {10 - r} sys\n" for r, d in enumerate(ORDER[:6], 1))
    (tmp_path / "uuid.run").write_text(run)
    code, stdout, err = cli(
        "dedup-runs", str(out), "--run", str(tmp_path / "uuid.run"), "-o", str(tmp_path / "d")
    )
    assert code == 0, err
    assert "6 of 6 line(s) matched the cluster table" in stdout
    lines = (tmp_path / "d" / "uuid.run").read_text().splitlines()
    assert [line.split()[2] for line in lines] == [UUIDS[d] for d in ("a1", "b1", "c1", "d1")]
    # the same ids written as the WARC header writes them match too
    urn = "".join(f"1 Q0 <urn:uuid:{UUIDS[d]}> {r} 1.0 sys\n" for r, d in enumerate(ORDER[:6], 1))
    (tmp_path / "urn.run").write_text(urn)
    code, stdout, err = cli(
        "dedup-runs", str(out), "--run", str(tmp_path / "urn.run"), "-o", str(tmp_path / "u")
    )
    assert code == 0 and "6 of 6 line(s) matched" in stdout, err
    # a run keyed otherwise (TREC-style ids): nothing matches, exit 3, named on stderr
    (tmp_path / "trec.run").write_text(RUN)
    code, stdout, err = cli(
        "dedup-runs", str(out), "--run", str(tmp_path / "trec.run"), "-o", str(tmp_path / "t")
    )
    assert code == 3
    assert "0 of 11 line(s) matched the cluster table" in stdout
    assert f"{tmp_path / 'trec.run'}: 0 of 11 run line(s) matched" in err


def test_few_is_fewer_than_half_of_a_run_s_lines(tmp_path, dedup_out, capsys):
    # 2 of 5 lines name documents of the table: few (exit 3); 3 of 5: enough (exit 0)
    few = "1 Q0 a1 1 5 s\n1 Q0 b1 2 4 s\n1 Q0 x1 3 3 s\n1 Q0 x2 4 2 s\n1 Q0 x3 5 1 s\n"
    (tmp_path / "few.run").write_text(few)
    code, _, err = cli(
        "dedup-runs", str(dedup_out), "--run", str(tmp_path / "few.run"), "-o", str(tmp_path / "f")
    )
    assert code == 3 and "2 of 5 run line(s) matched" in err
    (tmp_path / "enough.run").write_text(few.replace("x1", "c1"))
    code, _, err = cli(
        "dedup-runs",
        str(dedup_out),
        "--run",
        str(tmp_path / "enough.run"),
        "-o",
        str(tmp_path / "e"),
    )
    assert code == 0, err


def test_the_id_a_document_gets_is_configurable_and_never_null(tmp_path):
    from crawlmill.algorithms.document_ids import document_id
    from crawlmill.core.record import Record, RecordKind

    headers = [(b"WARC-Record-ID", b"<urn:uuid:" + UUIDS["a1"].encode() + b">"), (b"X-Doc", b"d7")]
    rec = Record(kind=RecordKind.RESPONSE, url="http://x/a1", extras={"warc": {"headers": headers}})
    assert document_id(rec, "auto") == document_id(rec, "record-id") == UUIDS["a1"]
    assert document_id(rec.evolve(doc_id="clueweb09-en0000-00-00000"), "auto") == (
        "clueweb09-en0000-00-00000"
    )
    assert document_id(rec, "url") == "http://x/a1"
    assert document_id(rec, "X-Doc") == "d7"
    assert document_id(rec, "trec") is None
    # a document without the chosen id is named by its place: <file>#<seq>, counted
    out = tmp_path / "out"
    code = main(
        ["convert", str(chuweb_collection(tmp_path)), "-o", str(out), "--to", "warc",
         "--filter", "simhash-dedup", "tau=3", "doc_id=trec", "--progress", "never"]
    )  # fmt: skip
    assert code == 0
    table = pq.read_table(out / "clusters.parquet").to_pydict()
    assert table["doc_id"] == [f"CC-MAIN-1-2-00000.warc#{seq}" for seq in table["seq"]]
    (marker,) = (out / ".crawlmill" / "passes").glob("*/done.json")
    assert json.loads(marker.read_text())["counts"]["ids-by-position"] == len(ORDER)
