"""``exact-dedup``: one record per payload digest across all inputs, through the CLI at 1 and 2
workers, with a split reduce and on resume; its key (computed or verified declared digest) and
its reduce rules at the mechanism."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pytest
from crawlmill import open_reader
from crawlmill.core import Record, RecordKind, ReduceContext
from crawlmill.core.commands.cli import main
from crawlmill.plugins.filters.exact_dedup import ExactDedupFilter, payload_key

from tests import helpers

RID = "<urn:uuid:00000000-0000-0000-0000-{:012d}>"


def warc(n: int, kind: str, body: bytes, date: str, digest: str | None = None) -> bytes:
    """WARC record ``n`` (its record id and URL) of ``kind`` with payload ``body``."""
    url = f"http://site{n}.example.com/"
    if kind == "response":
        block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
        ctype = "application/http; msgtype=response"
    else:
        block, ctype = body, "text/html"
    extra = f"WARC-Payload-Digest: {digest}\r\n" if digest else ""
    header = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n"
        f"WARC-Record-ID: {RID.format(n)}\r\n{extra}Content-Type: {ctype}\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode()
    return header + block + b"\r\n\r\n"


#: (input, record number, kind, body, date): duplicates within one input (1, 3) and across
#: inputs (1, 5, 8; 4, 9), an empty payload twice (kept: below min_bytes), a resource with the
#: payload of a response (6 = 2), and a metadata record with a duplicate payload (kept).
RECORDS = [
    (0, 1, "response", b"<p>same</p>", "2020-05-01T00:00:00Z"),
    (0, 2, "response", b"<p>two</p>", "2020-01-01T00:00:00Z"),
    (0, 3, "response", b"<p>same</p>", "2020-01-01T00:00:00Z"),
    (0, 4, "response", b"", "2020-01-01T00:00:00Z"),
    (1, 5, "response", b"<p>same</p>", "2019-01-01T00:00:00Z"),
    (1, 6, "resource", b"<p>two</p>", "2021-01-01T00:00:00Z"),
    (1, 7, "metadata", b"<p>same</p>", "2021-01-01T00:00:00Z"),
    (2, 8, "response", b"<p>same</p>", "2022-01-01T00:00:00Z"),
    (2, 9, "response", b"", "2022-01-01T00:00:00Z"),
    (2, 10, "response", "<p>ünïcode</p>".encode(), "2022-01-01T00:00:00Z"),
]


def expected_kept(rule: str) -> set[int]:
    """Record numbers a run keeps, worked out here independently of the filter."""
    groups: dict[bytes, list[tuple]] = {}
    kept = set()
    for pos, (_i, n, kind, body, date) in enumerate(RECORDS):
        if kind not in ("response", "resource") or not body:
            kept.add(n)
            continue
        groups.setdefault(hashlib.sha1(body).digest(), []).append((pos, n, date))
    for members in groups.values():
        if rule == "first":
            best = min(members)
        elif rule == "earliest":
            best = min(members, key=lambda m: (m[2], m[0]))
        else:  # latest
            best = min(members, key=lambda m: (-int(m[2][:4]), m[0]))
        kept.add(best[1])
    return kept


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(3):
        data = b"".join(warc(n, k, b, d) for inp, n, k, b, d in RECORDS if inp == i)
        (folder / f"part-{i}.warc").write_bytes(data)
    return folder


def convert(src: Path, out: Path, workers: int, *filter_opts: str) -> dict:
    result = helpers.convert(src, "warc", out, "--filter", "exact-dedup", *filter_opts,
                             option=["gzip_backend=zlib"], workers=workers)  # fmt: skip
    assert result.exit_code == 0
    return result.report


def record_numbers(out: Path) -> list[int]:
    numbers = []
    for path in sorted(out.glob("*.warc.gz")):
        with open_reader(str(path)) as records:
            for record in records:
                headers = dict(record.extras["warc"]["headers"])
                if record.kind != "warcinfo":
                    numbers.append(int(headers[b"WARC-Record-ID"][-13:-1]))
    return numbers


def outputs(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.warc.gz"))}


def check_accounting(report: dict, dropped: int) -> None:
    assert report["dropped"]["exact-dedup"] == {"duplicate": dropped}
    total = sum(n for step in report["dropped"].values() for n in step.values())
    assert report["read"] + report.get("added", 0) == (
        report["written"] + total + report["quarantined"]
    )


@pytest.mark.parametrize("rule", ["first", "earliest", "latest"])
def test_exact_dedup_across_and_within_inputs_same_at_1_and_2_workers(tmp_path, inputs, rule):
    one = convert(inputs, tmp_path / "w1", 1, f"rule={rule}")
    two = convert(inputs, tmp_path / "w2", 2, f"rule={rule}")
    kept = expected_kept(rule)
    assert sorted(record_numbers(tmp_path / "w1")) == sorted(kept)
    assert outputs(tmp_path / "w1") == outputs(tmp_path / "w2")
    for report in (one, two):
        assert report["read"] == len(RECORDS)
        check_accounting(report, len(RECORDS) - len(kept))
    assert {k: one[k] for k in ("read", "written", "dropped")} == {
        k: two[k] for k in ("read", "written", "dropped")
    }


def test_first_keeps_the_first_seen_and_empty_payloads_stay(tmp_path, inputs):
    convert(inputs, tmp_path / "out", 1)
    numbers = record_numbers(tmp_path / "out")
    assert numbers == [1, 2, 4, 7, 9, 10]  # 3, 5, 8 repeat 1; 6 repeats 2; 4 and 9 are empty
    convert(inputs, tmp_path / "all", 1, "min_bytes=0", "kinds=response,resource,metadata")
    assert record_numbers(tmp_path / "all") == [1, 2, 4, 10]


def test_split_reduce_and_resume_give_the_same_collection(tmp_path, inputs):
    ref = tmp_path / "ref"
    convert(inputs, ref, 1)
    # a reduce larger than run.reduce_memory is reduced in partitions by the workers
    config = tmp_path / "split.yaml"
    config.write_text(
        f"version: 1\ninputs: [{inputs}]\nfilters: [exact-dedup]\n"
        f"writer: {{name: warc, gzip_backend: zlib}}\noutput: {tmp_path / 'split'}\n"
        "run: {workers: 2, reduce_memory: 1024, progress: never}\n"
    )
    assert main(["run", str(config)]) == 0
    assert outputs(tmp_path / "split") == outputs(ref)
    passes = list((tmp_path / "split" / ".crawlmill" / "passes").iterdir())
    marker = json.loads((passes[0] / "done.json").read_text())
    assert len(marker["tables"]) > 1  # really split
    # resume: an input whose output and marker are gone is redone from the kept pass
    done = ref / ".crawlmill" / "done"
    markers = sorted(done.glob("*.json"))
    lost = next(m for m in markers if "part-2" in m.read_text())
    lost.unlink()
    (ref / "part-2.warc.gz").unlink()
    report = convert(inputs, ref, 2)
    assert report["inputs_skipped"] == 2
    assert outputs(ref) == outputs(tmp_path / "split")
    assert sorted(record_numbers(ref)) == sorted(expected_kept("first"))


# -- the key -------------------------------------------------------------------------------------


def _record(payload: bytes, digest: bytes | None = None, **changes) -> Record:
    headers = [(b"WARC-Type", b"response")]
    if digest is not None:
        headers.append((b"WARC-Payload-Digest", digest))
    record = Record(
        kind=RecordKind.RESPONSE, http_head=b"HTTP/1.1 200 OK\r\n\r\n", payload=payload,
        extras={"warc": {"headers": headers}},
    )  # fmt: skip
    return record.evolve(**changes) if changes else record


def test_payload_key_computed_and_declared():
    body = b"<p>hello</p>"
    sha1 = hashlib.sha1(body).digest()
    b32 = b"sha1:" + base64.b32encode(sha1)
    assert payload_key(_record(body)) == (b"sha1:" + sha1, None)
    # declared and verified: the same key as computed (base32 or base16 alike)
    assert payload_key(_record(body, b32), "declared") == (b"sha1:" + sha1, None)
    assert payload_key(_record(body, b"SHA1:" + sha1.hex().encode()), "declared") == (
        b"sha1:" + sha1,
        None,
    )
    sha256 = hashlib.sha256(body).digest()
    declared = b"sha256:" + sha256.hex().encode()
    assert payload_key(_record(body, declared), "declared") == (b"sha256:" + sha256, None)
    # wrong or missing: the computed SHA-1 stands in, and the problem is named
    wrong = b"sha1:" + base64.b32encode(hashlib.sha1(b"other").digest())
    assert payload_key(_record(body, wrong), "declared") == (b"sha1:" + sha1, "digest-mismatch")
    assert payload_key(_record(body), "declared") == (b"sha1:" + sha1, "digest-missing")
    assert payload_key(_record(body, b"bogus"), "declared") == (b"sha1:" + sha1, "digest-missing")
    # a filter changed the payload: the declared digest is stale, the SHA-1 is computed
    changed = _record(b"old", b32).evolve(payload=body)
    assert payload_key(changed, "declared") == (b"sha1:" + sha1, None)


def test_declared_digest_through_the_cli_counts_mismatches(tmp_path):
    good = "sha1:" + base64.b32encode(hashlib.sha1(b"<p>a</p>").digest()).decode()
    bad = "sha1:" + base64.b32encode(hashlib.sha1(b"nope").digest()).decode()
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(
        warc(1, "response", b"<p>a</p>", "2020-01-01T00:00:00Z", good)
        + warc(2, "response", b"<p>a</p>", "2020-01-01T00:00:00Z", bad)
        + warc(3, "response", b"<p>a</p>", "2020-01-01T00:00:00Z")
    )
    report = convert(src, tmp_path / "out", 1, "digest=declared")
    assert record_numbers(tmp_path / "out") == [1]  # all three payloads are equal
    check_accounting(report, 2)
    assert report["counts"]["exact-dedup"] == {"digest-mismatch": 1, "digest-missing": 1}


def _rows(*rows: tuple) -> pa.Table:
    cols = list(zip(*rows, strict=True)) if rows else [[]] * 5
    return pa.table(
        {
            "key": pa.array(cols[0], pa.binary()),
            "date": pa.array(cols[1], pa.int64()),
            "doc_id": pa.array(cols[2], pa.string()),
            "input": pa.array(cols[3], pa.int32()),
            "seq": pa.array(cols[4], pa.int64()),
        }
    )


@pytest.mark.parametrize(
    ("rule", "kept"),
    [
        ("first", (0, 5)),
        ("earliest", (2, 1)),  # date 10; the undated one loses
        ("latest", (1, 0)),  # date 30 twice: input 1 before input 2
        ("smallest-id", (1, 0)),  # "a" is the smallest; the one without an id loses
    ],
)
def test_reduce_rules_and_tie_break(rule, kept):
    rows = _rows(
        (b"k", 20, "c", 0, 5),
        (b"k", 30, "b", 2, 0),
        (b"k", None, None, 0, 6),
        (b"k", 30, "a", 1, 0),
        (b"k", 10, "d", 2, 1),
        (b"z", None, None, 2, 9),
    )
    rows = rows.sort_by([("input", "ascending"), ("seq", "ascending")])  # as collected
    table = ExactDedupFilter.reduce(
        rows, ExactDedupFilter.Options(rule=rule), ReduceContext([], ".")
    )
    dropped = list(zip(table["input"].to_pylist(), table["seq"].to_pylist(), strict=True))
    every = [(0, 5), (0, 6), (1, 0), (2, 0), (2, 1)]
    assert dropped == sorted(set(every) - {kept})


def test_reduce_of_no_rows_is_empty():
    table = ExactDedupFilter.reduce(_rows(), ExactDedupFilter.Options(), ReduceContext([], "."))
    assert table.num_rows == 0
