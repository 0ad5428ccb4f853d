"""``simhash-dedup`` through the CLI: near-duplicate pages planted across three inputs, the
kept documents worked out independently (the ``simhash`` package's codes, all pairs by brute
force, components by search, the representative rule), identical outputs and counts at 1
and 2 workers, the accounting, and the cluster table in Parquet; the reduce at the
mechanism."""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from crawlmill import open_reader
from crawlmill.core import ReduceContext
from crawlmill.core.commands.cli import main
from crawlmill.plugins.filters.simhash_dedup import SimhashDedupFilter

from tests import helpers
from tests.conftest import need

RID = "<urn:uuid:00000000-0000-0000-0000-{:012d}>"
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"


def warc(n: int, kind: str, url: str, date: str, block: bytes, trec_id: str | None) -> bytes:
    """A WARC/1.0 record numbered ``n`` (its record id)."""
    ctype = {
        "response": "application/http; msgtype=response",
        "request": "application/http; msgtype=request",
    }.get(kind, "text/plain")
    trec = f"WARC-TREC-ID: {trec_id}\r\n" if trec_id else ""
    header = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: {RID.format(n)}\r\n{trec}Content-Type: {ctype}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return header + block + b"\r\n\r\n"


def page(words: list[str]) -> bytes:
    """An HTML page whose body text is ``words``."""
    body = " ".join(words)
    return (
        "<html><head><title>t</title><style>p { color: red }</style></head><body><p>"
        f"{body}</p><script>var x = 1;</script></body></html>"
    ).encode()


def make_records(seed: int = 5) -> list[dict]:
    """Pages in three inputs: originals, exact copies, copies with 1, 2, 4 and 40 words
    changed (near and not near), plus a request and a metadata record that never take part;
    doc ids, dates and lengths varied for the representative rules."""
    rnd = random.Random(seed)
    vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(3, 9)))
             for _ in range(400)]  # fmt: skip
    records = []
    n = 0
    for base in range(6):
        words = [rnd.choice(vocab) for _ in range(120)]
        for edits in [0, 0, 1, 2, 4, 40][: 3 + base % 4]:
            variant = list(words)
            for _ in range(edits):
                variant[rnd.randrange(len(variant))] = rnd.choice(vocab)
            if rnd.random() < 0.3:
                variant += [rnd.choice(vocab)]  # a longer page
            n += 1
            records.append(
                {
                    "n": n,
                    "kind": "response",
                    "url": f"http://site{base}.example/p{n}",
                    "date": f"20{10 + rnd.randrange(10)}-0{1 + rnd.randrange(9)}-01T00:00:00Z",
                    "block": HEAD + page(variant),
                    "trec": None if rnd.random() < 0.2 else f"doc-{rnd.randrange(1000):04d}",
                }
            )
    for extra_kind in ("request", "metadata"):
        n += 1
        records.append(
            {"n": n, "kind": extra_kind, "url": "http://site0.example/p1",
             "date": "2015-01-01T00:00:00Z", "block": b"GET / HTTP/1.1\r\n\r\n", "trec": None}
        )  # fmt: skip
    rnd.shuffle(records)
    for i, record in enumerate(records):
        record["input"] = i % 3
    return records


def expected_kept(records: list[dict], tau: int, rule: str) -> set[int]:
    """The record numbers a run keeps, from the package's codes and brute force."""
    simhash_pkg = need("simhash")
    order = sorted(records, key=lambda r: r["input"])  # pipeline order: input, then record
    docs = [r for r in order if r["kind"] == "response"]
    codes = [simhash_pkg.Simhash(r["block"].decode("utf-8")).value for r in docs]
    adj: list[list[int]] = [[] for _ in docs]
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            if bin(codes[i] ^ codes[j]).count("1") <= tau:
                adj[i].append(j)
                adj[j].append(i)
    seen = [False] * len(docs)
    kept = {r["n"] for r in records if r["kind"] != "response"}
    for s in range(len(docs)):
        if seen[s]:
            continue
        members, queue = [], deque([s])
        seen[s] = True
        while queue:
            v = queue.popleft()
            members.append(v)
            for w in adj[v]:
                if not seen[w]:
                    seen[w] = True
                    queue.append(w)

        def key(i: int) -> tuple:
            r = docs[i]
            if rule == "smallest-id":  # the table's id: TREC id, else the record id's UUID
                return (r["trec"] or RID.format(r["n"])[len("<urn:uuid:") : -1], i)
            if rule == "earliest":
                return (r["date"], i)
            if rule == "longest":
                return (-len(r["block"]), i)
            return (i,)

        kept.add(docs[min(members, key=key)]["n"])
    return kept


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return make_records()


@pytest.fixture
def inputs(tmp_path: Path, records: list[dict]) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):
        data = b"".join(
            warc(r["n"], r["kind"], r["url"], r["date"], r["block"], r["trec"])
            for r in records
            if r["input"] == i
        )
        (folder / f"part-{i}.warc").write_bytes(data)
    return folder


def convert(src: Path, out: Path, workers: int, *filter_opts: str) -> dict:
    result = helpers.convert(src, "warc", out, "--filter", "simhash-dedup", *filter_opts,
                             option=["gzip_backend=zlib"], workers=workers)  # fmt: skip
    assert result.exit_code == 0
    return result.report


def record_numbers(out: Path) -> list[int]:
    numbers = []
    for path in sorted(out.glob("*.warc.gz")):
        with open_reader(str(path)) as recs:
            for record in recs:
                headers = dict(record.extras["warc"]["headers"])
                if b"WARC-Record-ID" in headers and record.kind.value != "warcinfo":
                    numbers.append(int(headers[b"WARC-Record-ID"][-13:-1]))
    return numbers


def outputs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.warc.gz"))}


def clusters_parquet(out: Path) -> pa.Table:
    assert not list(out.glob(".crawlmill/passes/*/clusters.parquet"))  # one copy: the user's
    return pq.read_table(out / "clusters.parquet")


def test_simhash_dedup_cli_same_at_1_and_2_workers(tmp_path, inputs, records):
    one = convert(inputs, tmp_path / "w1", 1, "tau=3")
    two = convert(inputs, tmp_path / "w2", 2, "tau=3")
    kept = expected_kept(records, 3, "first")
    assert len(kept) < len(records) - 4, "the planted near-duplicates did not cluster"
    assert sorted(record_numbers(tmp_path / "w1")) == sorted(kept)
    assert outputs(tmp_path / "w1") == outputs(tmp_path / "w2")
    for report in (one, two):
        assert report["read"] == len(records)
        assert report["written"] == len(kept)
        assert report["dropped"]["simhash-dedup"] == {"near-duplicate": len(records) - len(kept)}
        dropped = sum(n for step in report["dropped"].values() for n in step.values())
        assert report["read"] == report["written"] + dropped + report["quarantined"]
    assert {k: one[k] for k in ("read", "written", "dropped", "counts")} == {
        k: two[k] for k in ("read", "written", "dropped", "counts")
    }
    table = clusters_parquet(tmp_path / "w1")
    assert table.equals(clusters_parquet(tmp_path / "w2"))
    responses = [r for r in records if r["kind"] == "response"]
    assert table.num_rows == len(responses)
    assert sum(table["kept"].to_pylist()) == len(kept) - 2  # the request and metadata
    assert max(table["distance"].to_pylist()) <= 3 * 6  # chained members may be further
    for row in table.to_pylist():
        assert row["file"] == f"part-{row['input']}.warc"
        if row["kept"]:
            assert row["representative_url"] == row["url"] and row["distance"] == 0


@pytest.mark.parametrize("rule", ["smallest-id", "earliest", "longest"])
def test_representative_rules(tmp_path, inputs, records, rule):
    convert(inputs, tmp_path / "out", 1, "tau=3", f"representative={rule}")
    assert sorted(record_numbers(tmp_path / "out")) == sorted(expected_kept(records, 3, rule))


@pytest.mark.parametrize("tau", [0, 2, 6])
def test_thresholds_and_bucketing(tmp_path, inputs, records, tau):
    convert(inputs, tmp_path / "exact", 1, f"tau={tau}")
    assert sorted(record_numbers(tmp_path / "exact")) == sorted(
        expected_kept(records, tau, "first")
    )
    # 400 rounds of 16 bits: recall 1 - 1e-5 at distance 6, so the same clusters here
    convert(inputs, tmp_path / "bucket", 1, f"tau={tau}", "method=bucketing", "rounds=400")
    assert record_numbers(tmp_path / "bucket") == record_numbers(tmp_path / "exact")


def test_hash_modes_and_128_bit_check(tmp_path, inputs, records):
    """``hash=text`` and ``hash=html`` hash other inputs (the distances change), and a
    128-bit check of 0 keeps only pairs identical on 128 bits."""
    for mode in ("html", "text"):
        convert(inputs, tmp_path / mode, 1, "tau=3", f"hash={mode}")
        table = clusters_parquet(tmp_path / mode)
        simhash_pkg = need("simhash")
        by_url = {r["url"]: r for r in records if r["kind"] == "response"}
        for row in table.to_pylist()[:5]:
            html = by_url[row["url"]]["block"][len(HEAD) :].decode()
            if mode == "html":
                assert row["simhash64"] == simhash_pkg.Simhash(html).value
            else:
                text = html.split("<p>")[1].split("</p>")[0]
                assert row["simhash64"] == simhash_pkg.Simhash(text).value
                assert row["simhash128_high"] == simhash_pkg.Simhash(text, f=128).value >> 64
    convert(inputs, tmp_path / "c128", 1, "tau=3", "tau128=0")
    table = clusters_parquet(tmp_path / "c128")
    for row in table.to_pylist():
        assert row["distance128"] == 0  # only 128-bit-identical pages share a cluster


def test_options_are_checked(tmp_path, inputs):
    code = main(
        ["convert", str(inputs), "-o", str(tmp_path / "o"), "--to", "warc",
         "--filter", "simhash-dedup", "tau=3", "blocks=3", "--progress", "never"]
    )  # fmt: skip
    assert code != 0
    assert not (tmp_path / "o" / "part-0.warc.gz").exists()


def _rows(codes: list[int], *, doc_ids=None, dates=None, lengths=None) -> pa.Table:
    n = len(codes)
    return pa.table(
        {
            "doc_id": pa.array(doc_ids or [None] * n, pa.string()),
            "url": pa.array([f"http://x/{i}" for i in range(n)], pa.string()),
            "date": pa.array(dates or [None] * n, pa.int64()),
            "length": pa.array(lengths or [0] * n, pa.int64()),
            "simhash64": pa.array(codes, pa.uint64()),
            "simhash128_high": pa.array([0] * n, pa.uint64()),
            "input": pa.array([0] * n, pa.int32()),
            "seq": pa.array(range(n), pa.int64()),
        }
    )


def test_reduce_rules_and_ties(tmp_path):
    from crawlmill.core.plugin import InputFile

    codes = [0b0, 0b1, 0b11, 0xFFFF << 40, 0xFFF << 10]
    rows = _rows(
        codes,
        doc_ids=["b", None, "a", "c", "z"],
        dates=[30, 10, None, 5, 1],
        lengths=[5, 9, 9, 1, 1],
    )

    def kept(rule: str) -> list[bool]:
        options = SimhashDedupFilter.Options(tau=2, representative=rule)
        work = tmp_path / rule / "work"
        work.mkdir(parents=True)
        target = str(tmp_path / rule / "clusters.parquet")
        ctx = ReduceContext(
            [InputFile("in.warc", "in.warc", 0)], str(work), output_path=lambda rel: target
        )
        table = SimhashDedupFilter.reduce(rows, options, ctx)
        assert pq.read_table(target).equals(table)
        return table["kept"].to_pylist()

    # rows 0, 1, 2 are one cluster (0-1 at 1, 1-2 at 1, 0-2 at 2); rows 3 and 4 alone
    assert kept("first") == [True, False, False, True, True]
    assert kept("smallest-id") == [False, False, True, True, True]
    assert kept("earliest") == [False, True, False, True, True]  # undated row 2 loses
    assert kept("longest") == [False, True, False, True, True]  # 9 twice: row 1 first


def test_reduce_of_no_rows(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    table = SimhashDedupFilter.reduce(
        _rows([]), SimhashDedupFilter.Options(clusters=None), ReduceContext([], str(work))
    )
    assert table.num_rows == 0


def test_a_record_other_than_the_collected_one_is_never_dropped(tmp_path):
    from crawlmill.core import FilterContext, InputFile, Record, RecordKind
    from crawlmill.core.run.tables import table_loader, write_table

    table = pa.table(
        {
            "input": pa.array([0, 0, 1], pa.int32()),
            "seq": pa.array([0, 1, 0], pa.int64()),
            "url": pa.array(["http://a/", "http://a2/", "http://b/"], pa.string()),
            "kept": pa.array([True, False, False]),
        }
    )
    path = str(tmp_path / "table.arrow")
    write_table(path, table)
    seq = [0]
    dedup = SimhashDedupFilter(SimhashDedupFilter.Options())

    def open_input(index: int) -> None:
        ctx = FilterContext(
            InputFile("x", "x", index), table_loader=table_loader(path), position=lambda: seq[0]
        )
        dedup.open(ctx)

    open_input(1)
    with pytest.raises(RuntimeError, match="not the document the collect pass saw"):
        dedup.apply(Record(kind=RecordKind.RESPONSE, url="http://other/"))
    open_input(0)
    record = Record(kind=RecordKind.RESPONSE, url="http://a2/")
    seq[0] = 0
    assert dedup.apply(Record(kind=RecordKind.RESPONSE, url="http://a/")).url == "http://a/"
    seq[0] = 1
    assert dedup.apply(record) == ("near-duplicate",)
    open_input(2)  # an input without rows keeps everything
    assert dedup.apply(record) is record


def test_rerun_resumes_and_another_tau_replaces_the_cluster_table(tmp_path, inputs):
    """A rerun skips every input and keeps the table; another tau is another pass, whose
    folder (with its Parquet) replaces the old one."""
    first = convert(inputs, tmp_path / "out", 1, "tau=3")
    before = clusters_parquet(tmp_path / "out")
    files = outputs(tmp_path / "out")
    second = convert(inputs, tmp_path / "out", 1, "tau=3")
    assert second["inputs_skipped"] == 3 and second["written"] == first["written"]
    assert clusters_parquet(tmp_path / "out").equals(before)
    assert outputs(tmp_path / "out") == files
    code = main(
        ["convert", str(inputs), "-o", str(tmp_path / "out"), "--to", "warc", "--option",
         "gzip_backend=zlib", "--filter", "simhash-dedup", "tau=0", "--progress", "never",
         "--overwrite"]
    )  # fmt: skip
    assert code == 0
    after = clusters_parquet(tmp_path / "out")  # exactly one pass folder holds a table
    assert sum(after["kept"].to_pylist()) > sum(before["kept"].to_pylist())


def test_rows_of_input_across_chunks():
    """The final pass's binary search finds an input's rows when they span chunks."""
    from crawlmill.core.reduce_tables import rows_of_input

    inputs = [0, 0, 1, 1, 1, 1, 3, 3, 5]
    chunks = [inputs[:3], inputs[3:5], inputs[5:8], inputs[8:]]
    table = pa.Table.from_batches(
        [
            pa.record_batch({"input": pa.array(c, pa.int32()), "seq": pa.array(range(len(c)))})
            for c in chunks
        ]
    )
    assert table["input"].num_chunks == 4
    for index in range(7):
        rows = rows_of_input(table, index)
        assert rows["input"].to_pylist() == [i for i in inputs if i == index]
