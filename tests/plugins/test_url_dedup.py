"""``url-dedup``: one capture per URL (or URL + payload digest) across all inputs, by rule,
with the same output bytes and report counts at 1 and 2 workers, through the CLI; and its
reduce (the rule and the tie-break) at the mechanism."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from crawlmill import open_reader
from crawlmill.core import ReduceContext
from crawlmill.core.commands.cli import main
from crawlmill.plugins.filters.url_dedup import UrlDedupFilter

from tests import helpers

RID = "<urn:uuid:00000000-0000-0000-0000-{:012d}>"


def warc(n: int, kind: str, url: str, date: str, body: bytes = b"") -> bytes:
    """A WARC/1.0 record numbered ``n`` (its record id) of ``kind`` for ``url``."""
    if kind in ("response", "request"):
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"
        if kind == "request":
            head = f"GET / HTTP/1.1\r\nHost: {url.split('/')[2]}\r\n\r\n".encode()
        block = head + body
        ctype = f"application/http; msgtype={kind}"
    else:
        block, ctype = body, "text/plain"
    extra = ""
    if kind == "revisit":
        extra = "WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest\r\n"
    header = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: {RID.format(n)}\r\n{extra}Content-Type: {ctype}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return header + block + b"\r\n\r\n"


#: (input, record number, kind, url, date, body): three inputs with duplicate URLs within
#: and across inputs, a request and a revisit of a duplicated URL, and an undated-looking
#: tie (same date) to exercise the tie-break.
RECORDS = [
    (0, 1, "response", "http://a.example/", "2020-01-01T00:00:00Z", b"a-old"),
    (0, 2, "request", "http://a.example/", "2020-01-01T00:00:00Z", b""),
    (0, 3, "response", "http://b.example/", "2020-06-01T00:00:00Z", b"b-1"),
    (0, 4, "response", "http://a.example/", "2020-03-01T00:00:00Z", b"a-mid-longer"),
    (1, 5, "response", "http://b.example/", "2020-06-01T00:00:00Z", b"b-2-same-date"),
    (1, 6, "resource", "http://c.example/x", "2019-01-01T00:00:00Z", b"c"),
    (1, 7, "revisit", "http://a.example/", "2021-01-01T00:00:00Z", b""),
    (2, 8, "response", "http://a.example/", "2020-02-01T00:00:00Z", b"a-old"),
    (2, 9, "response", "http://c.example/x", "2018-01-01T00:00:00Z", b"c-older"),
    (2, 10, "response", "http://d.example/", "2020-01-01T00:00:00Z", b"d"),
]


def expected_kept(rule: str, key: str = "url") -> set[int]:
    """The record numbers a run keeps, worked out here independently of the filter."""
    import hashlib

    groups: dict[object, list[tuple]] = {}
    kept = set()
    for pos, (_inp, n, kind, url, date, body) in enumerate(RECORDS):
        if kind not in ("response", "resource"):
            kept.add(n)
            continue
        k = url if key == "url" else (url, hashlib.sha1(body).digest())
        groups.setdefault(k, []).append((pos, n, date, len(body)))
    for caps in groups.values():
        if rule == "first":
            best = min(caps)
        elif rule == "latest":
            best = min(caps, key=lambda c: (-int(c[2][:4] + c[2][5:7] + c[2][8:10]), c[0]))
        elif rule == "earliest":
            best = min(caps, key=lambda c: (c[2], c[0]))
        else:
            best = min(caps, key=lambda c: (-c[3], c[0]))
        kept.add(best[1])
    return kept


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):
        data = b"".join(warc(n, k, u, d, b) for inp, n, k, u, d, b in RECORDS if inp == i)
        (folder / f"part-{i}.warc").write_bytes(data)
    return folder


def convert(src: Path, out: Path, workers: int, *filter_opts: str) -> dict:
    result = helpers.convert(src, "warc", out, "--filter", "url-dedup", *filter_opts,
                             option=["gzip_backend=zlib"], workers=workers)  # fmt: skip
    assert result.exit_code == 0
    return result.report


def record_numbers(out: Path) -> list[int]:
    numbers = []
    for path in sorted(out.glob("*.warc.gz")):
        with open_reader(str(path)) as records:
            for record in records:
                headers = dict(record.extras["warc"]["headers"])
                numbers.append(int(headers[b"WARC-Record-ID"][-13:-1]))
    return numbers


def outputs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.warc.gz"))}


@pytest.mark.parametrize("rule", ["first", "latest", "earliest", "largest"])
def test_url_dedup_keeps_one_capture_per_url_same_at_1_and_2_workers(tmp_path, inputs, rule):
    one = convert(inputs, tmp_path / "w1", 1, f"rule={rule}")
    two = convert(inputs, tmp_path / "w2", 2, f"rule={rule}")
    kept = expected_kept(rule)
    assert sorted(record_numbers(tmp_path / "w1")) == sorted(kept)
    assert outputs(tmp_path / "w1") == outputs(tmp_path / "w2")
    for report in (one, two):
        assert report["read"] == len(RECORDS)
        assert report["written"] == len(kept)
        assert report["dropped"]["url-dedup"] == {"duplicate": len(RECORDS) - len(kept)}
        dropped = sum(n for step in report["dropped"].values() for n in step.values())
        assert report["read"] == report["written"] + dropped + report["quarantined"]
    assert {k: one[k] for k in ("read", "written", "dropped", "counts")} == {
        k: two[k] for k in ("read", "written", "dropped", "counts")
    }


def test_url_plus_digest_keeps_captures_with_other_content(tmp_path, inputs):
    report = convert(inputs, tmp_path / "out", 1, "key=url+digest")
    kept = expected_kept("first", "url+digest")
    assert sorted(record_numbers(tmp_path / "out")) == sorted(kept)
    assert 8 not in kept and 4 in kept  # same URL and payload as record 1; other payload
    assert report["dropped"]["url-dedup"] == {"duplicate": len(RECORDS) - len(kept)}


def test_kinds_option_lets_revisits_take_part(tmp_path, inputs):
    convert(inputs, tmp_path / "out", 1, "rule=latest", "kinds=response,resource,revisit")
    numbers = record_numbers(tmp_path / "out")
    assert 7 in numbers  # the revisit is the latest capture of http://a.example/
    assert not {1, 4, 8} & set(numbers) and 2 in numbers  # the request is kept


def _rows(*rows: tuple) -> pa.Table:
    """Rows ``(key, date, size, input, seq)`` as the collect pass writes them."""
    cols = list(zip(*rows, strict=True)) if rows else [[]] * 5
    return pa.table(
        {
            "key": pa.array(cols[0], pa.binary()),
            "date": pa.array(cols[1], pa.int64()),
            "size": pa.array(cols[2], pa.int64()),
            "input": pa.array(cols[3], pa.int32()),
            "seq": pa.array(cols[4], pa.int64()),
        }
    )


def _dropped(rule: str, rows: pa.Table) -> list[tuple[int, int]]:
    options = UrlDedupFilter.Options(rule=rule)
    table = UrlDedupFilter.reduce(rows, options, ReduceContext([], "."))
    return list(zip(table["input"].to_pylist(), table["seq"].to_pylist(), strict=True))


@pytest.mark.parametrize(
    ("rule", "kept"),
    [
        ("first", (0, 5)),
        ("latest", (1, 0)),  # date 30 twice: the first in input order wins the tie
        ("earliest", (2, 1)),  # the undated capture loses although the rule is "earliest"
        ("largest", (0, 7)),  # size 9 twice: input 0 before input 2
    ],
)
def test_reduce_rule_and_tie_break(rule, kept):
    rows = _rows(
        (b"u", 20, 8, 0, 5),
        (b"u", 30, 1, 2, 0),
        (b"u", None, 3, 0, 6),
        (b"u", 30, 4, 1, 0),
        (b"u", 10, 9, 2, 1),
        (b"u", 25, 9, 0, 7),
        (b"v", None, 1, 2, 9),
    )
    dropped = _dropped(rule, rows)
    every = [(0, 5), (2, 0), (0, 6), (1, 0), (2, 1), (0, 7)]
    assert dropped == sorted(set(every) - {kept})  # sorted by input, seq; v is alone: kept


def test_reduce_of_no_rows_is_empty():
    assert _dropped("first", _rows()) == []


def test_a_record_other_than_the_collected_one_is_never_dropped(tmp_path):
    from crawlmill.core import FilterContext, InputFile, Record, RecordKind
    from crawlmill.core.run.tables import table_loader, write_table

    table = pa.table(
        {
            "input": pa.array([0, 1], pa.int32()),
            "seq": pa.array([1, 0], pa.int64()),
            "key": pa.array([b"http://a/", b"http://b/"], pa.binary()),
        }
    )
    path = str(tmp_path / "table.arrow")
    write_table(path, table)
    seq = [0]
    dedup = UrlDedupFilter(UrlDedupFilter.Options())
    dedup.open(
        FilterContext(
            InputFile("x", "x", 1), table_loader=table_loader(path), position=lambda: seq[0]
        )
    )
    with pytest.raises(RuntimeError, match="not the capture the collect pass saw"):
        dedup.apply(Record(kind=RecordKind.RESPONSE, url="http://other/"))
    dedup.open(
        FilterContext(
            InputFile("x", "x", 0), table_loader=table_loader(path), position=lambda: seq[0]
        )
    )
    record = Record(kind=RecordKind.RESPONSE, url="http://a/")
    assert dedup.apply(record) is record  # seq 0: not a duplicate
    seq[0] = 1
    assert dedup.apply(record) == ("duplicate",)


@pytest.mark.parametrize("workers", [1, 2])
def test_url_dedup_before_a_sorted_writer(tmp_path, inputs, workers):
    """The collect pass runs before the shuffle's map pass, whose filters read its table:
    the sorted collection holds what a plain url-dedup run keeps, in SURT order."""
    from crawlmill.formats.warc.cdxj import surt

    out = tmp_path / f"sorted{workers}"
    sorted_ = '{"partitions": 2, "partitioning": "hash"}'
    code = main(
        [
            "convert", str(inputs), "-o", str(out), "--to", "warc", "--option", "gzip_backend=zlib",
            "--option", f"sorted={sorted_}", "--filter", "url-dedup", "rule=latest",
            "--workers", str(workers), "--progress", "never",
        ]
    )  # fmt: skip
    assert code == 0
    kept = expected_kept("latest")
    assert sorted(record_numbers(out)) == sorted(kept)
    for part in sorted(out.glob("*.warc.gz")):
        with open_reader(str(part)) as records:
            keys = [surt(r.url) for r in records if r.url and r.kind != "warcinfo"]
        assert keys == sorted(keys)
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["dropped"]["url-dedup"] == {"duplicate": len(RECORDS) - len(kept)}
    dropped = sum(n for step in report["dropped"].values() for n in step.values())
    assert report["read"] + report.get("added", 0) == (
        report["written"] + dropped + report["quarantined"]
    )
    # a rerun does nothing again: the passes and the shuffle are finished
    assert main(["convert", str(inputs), "-o", str(out), "--to", "warc", "--option",
                 "gzip_backend=zlib", "--option", f"sorted={sorted_}", "--filter", "url-dedup",
                 "rule=latest", "--progress", "never"]) == 0  # fmt: skip
    again = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert again["inputs_skipped"] == 3


def test_the_pass_line_says_what_was_decided(tmp_path, inputs, capsys):
    # issue 24: "reduced 8 row(s) to a table of 4" said nothing to a user
    report = convert(inputs, tmp_path / "out", 1)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "url-dedup [" in line and "seen" in line]
    # 8 responses and resources of 4 URLs (RECORDS): 4 kept, 4 duplicates
    assert len(lines) == 1, err
    assert lines[0].startswith("crawlmill: pass 1/1 url-dedup [")
    assert lines[0].endswith("]: 8 capture(s) seen, 4 duplicate(s) to drop")
    assert sum(report["dropped"]["url-dedup"].values()) == 4
