"""The WARC writer's ``sorted`` option through the CLI: a sorted shuffle of several inputs into
N part files, each in SURT-key order, hash- or range-partitioned, the same records with 1 and
2 workers, read back by warcio and FastWARC, with the accounting identity kept (drops and
damage included); and the sort key, partitioning and option checks at the mechanism."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from crawlmill.core import ShuffleSpec, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.record import Record, RecordKind
from crawlmill.formats.warc.cdxj import index_url, surt, timestamp14
from crawlmill.plugins.writers.warc import WarcWriter, WarcWriterOptions
from crawlmill.plugins.writers.warc_sorted import partition_of, sort_key

from tests.conftest import SAMPLES
from tests.helpers import convert, warc_record

WARC_A = SAMPLES / "webrecorder-warcio/test/data/example.warc.gz"
WARC_B = (
    SAMPLES
    / "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"
)
ARC_C = SAMPLES / "webrecorder-warcio/test/data/example.arc.gz"


def _damaged_warc(tmp_path: Path) -> Path:
    """A plain WARC whose URLs repeat those of another input, with junk between two records
    (one damaged range, quarantined)."""
    path = tmp_path / "inputs" / "d.warc"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"".join(warc_record(i) for i in range(5))
    body += b"GARBAGE that is not a record\r\n\r\n"
    body += b"".join(warc_record(i) for i in range(3, 8))  # URLs again: captures of one URL
    path.write_bytes(body)
    return path


def _convert(
    tmp_path: Path, out: str, *extra: str, workers: int = 1, sorted_: dict
) -> tuple[int, Path]:
    inputs = [WARC_A, WARC_B, ARC_C, _damaged_warc(tmp_path)]
    target = tmp_path / out
    option = ["sorted=" + json.dumps(sorted_), "gzip_backend=zlib"]
    result = convert(inputs, "warc", target, *extra, option=option, workers=workers, progress=None)
    return result.exit_code, target


def _parts(out: Path) -> list[Path]:
    return sorted(p for p in out.iterdir() if p.is_file())


def _read_warcio(path: Path) -> list[tuple]:
    from warcio.archiveiterator import ArchiveIterator

    rows = []
    with open(path, "rb") as f:
        for r in ArchiveIterator(f):
            h = r.rec_headers
            content = r.content_stream().read()
            rows.append(
                (
                    h.get_header("WARC-Type"),
                    h.get_header("WARC-Record-ID"),
                    h.get_header("WARC-Target-URI"),
                    h.get_header("WARC-Date"),
                    hashlib.sha1(content).hexdigest(),
                )
            )
    return rows


def _read_fastwarc(path: Path) -> list[tuple]:
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    rows = []
    with open(path, "rb") as f:
        for r in ArchiveIterator(f, record_types=WarcRecordType.any_type, parse_http=False):
            h = r.headers
            rows.append((h.get("WARC-Type"), h.get("WARC-Record-ID"), h.get("WARC-Target-URI")))
    return rows


def _key(row: tuple) -> tuple[bytes, str]:
    _type, _id, uri, date, _sha = row
    url_key = surt(index_url(uri)) if uri else "-"
    return url_key.encode("utf-8", "surrogateescape"), timestamp14(date or "")


def _report(out: Path) -> dict:
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def _identity(report: dict) -> int:
    dropped = sum(sum(r.values()) for r in report["dropped"].values())
    assert report["read"] + report["added"] == report["written"] + dropped + report["quarantined"]
    return dropped


@pytest.mark.parametrize("partitioning", ["hash", "range"])
def test_sorted_collection_through_the_cli(tmp_path, need, monkeypatch, partitioning) -> None:
    need("warcio")
    need("fastwarc")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the added warcinfo's date
    spec = {"key": "surt", "partitions": 3, "partitioning": partitioning}
    code1, out1 = _convert(tmp_path, "w1", workers=1, sorted_=spec)
    code2, out2 = _convert(tmp_path, "w2", workers=2, sorted_=spec)
    assert code1 == code2 == 3  # the damaged input's junk is quarantined
    names = [p.name for p in _parts(out1)]
    assert names == [f"part-{i:05d}.warc.gz" for i in range(3)]
    # the same files, byte for byte, whatever the worker count
    assert [p.read_bytes() for p in _parts(out1)] == [p.read_bytes() for p in _parts(out2)]

    per_file = [_read_warcio(p) for p in _parts(out1)]
    for path, rows in zip(_parts(out1), per_file, strict=True):
        assert [r[:3] for r in rows] == _read_fastwarc(path)  # both readers agree on the file
        keyed = [_key(r) for r in rows if r[0] != "warcinfo"]
        assert keyed == sorted(keyed), f"{path.name} is not in SURT order"
    if partitioning == "range":  # the partitions in order are one sorted collection
        every = [_key(r) for rows in per_file for r in rows if r[0] != "warcinfo"]
        assert every == sorted(every)
    else:  # every capture of a URL is in one partition
        homes: dict[bytes, set[int]] = {}
        for i, rows in enumerate(per_file):
            for r in rows:
                homes.setdefault(_key(r)[0], set()).add(i)
        assert all(len(h) == 1 for h in homes.values())

    # no record lost or changed: every WARC input record is in the output with its block
    written = [r for rows in per_file for r in rows]
    by_id = {r[1]: r for r in written}
    for src in (WARC_A, WARC_B):
        for r in _read_warcio(src):
            assert by_id[r[1]] == r
    report = _report(out1)
    assert _identity(report) == 0
    assert report["quarantined"] == 1 and report["damages"][0]["path"].endswith("d.warc")
    assert report["written"] == len(written)
    assert (
        report["read"] == sum(len(list(open_reader(p))) for p in (WARC_A, WARC_B, ARC_C)) + 10 + 1
    )  # d.warc: ten records and one damaged range
    assert sorted(report["outputs"]) == sorted(names)
    assert report["counts"]["shuffle"] == {
        "shuffled": report["read"] - 1,
        "merged": report["read"] - 1,
    }
    assert _report(out2)["written"] == report["written"]
    assert not list((out1 / ".crawlmill" / "passes").rglob("*.run"))  # runs removed


def test_sorted_keeps_the_accounting_with_a_filter(tmp_path) -> None:
    code, out = _convert(
        tmp_path, "f", "--filter", "kind", "drop=request,metadata",
        sorted_={"partitions": 2}, workers=1,
    )  # fmt: skip
    assert code == 3
    report = _report(out)
    dropped = _identity(report)
    assert dropped > 0
    assert report["counts"]["shuffle"]["merged"] == report["read"] - dropped - 1


def test_rerun_replaces_the_partitions(tmp_path) -> None:
    spec = {"partitions": 2, "partitioning": "range"}
    code, out = _convert(tmp_path, "r", sorted_=spec)
    first = [p.read_bytes() for p in _parts(out)]
    code2, out2 = _convert(tmp_path, "r", sorted_=spec)
    assert (code, code2) == (3, 3) and out2 == out
    assert [p.read_bytes() for p in _parts(out)] == first


@pytest.mark.parametrize(
    "value, fragment",
    [
        ({"partitions": 0}, "partitions"),
        ({"partitions": 2, "partitioning": "random"}, "partitioning"),
        ({"key": "url"}, "key"),
        ({"partitions": 2, "extra": 1}, "extra"),
    ],
)
def test_bad_sorted_options_exit_2(tmp_path, capsys, value, fragment) -> None:
    code = main(
        ["convert", str(WARC_A), "--to", "warc", "-o", str(tmp_path / "o"),
         "--option", "sorted=" + json.dumps(value)]
    )  # fmt: skip
    assert code == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_validate_says_where_a_sorted_collection_goes(tmp_path, capsys) -> None:
    """``crawlmill validate`` names the partitions every input feeds, not a file per input."""
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        f"inputs: [{WARC_A}]\nwriter: {{name: warc, sorted: {{partitions: 3, "
        f"partitioning: range}}}}\noutput: {tmp_path / 'o'}\n"
    )
    assert main(["validate", str(pipeline)]) == 0
    out = capsys.readouterr().out
    assert "into 3 range partition(s)" in out and "part-00002" in out
    assert f"{WARC_A}  [warc] -> (every partition)" in out
    assert main(["validate", str(pipeline), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["shuffle"] == {"partitions": 3, "partitioning": "range"}
    assert data["inputs"][0]["outputs"] is None


def test_sorted_needs_the_plain_layout() -> None:
    with pytest.raises(ValueError, match="plain layout"):
        WarcWriterOptions.model_validate({"sorted": {"partitions": 2}, "layout": "clueweb09"})


# -- the mechanism ---------------------------------------------------------------------------


def test_writer_declares_the_shuffle() -> None:
    writer = WarcWriter(WarcWriterOptions.model_validate({"sorted": {"partitions": 4}}))
    assert writer.shuffle() == ShuffleSpec(4, "hash")
    assert WarcWriter(WarcWriterOptions()).shuffle() is None
    ranged = {"sorted": {"partitions": 2, "partitioning": "range"}}
    assert WarcWriter(WarcWriterOptions.model_validate(ranged)).shuffle() == ShuffleSpec(2, "range")
    record = Record(kind=RecordKind.RESPONSE, url="http://www.Example.com/a?b=1&a=2")
    assert writer.sort_key(record) == sort_key(record)
    assert writer.partition_of(record, 4) == partition_of(record, 4)


def test_sort_key_is_the_cdxj_line_start(need) -> None:
    """The key's URL part is the reference SURT (the ``surt`` package) of the URL as pywb's
    indexers see it, then the record's 14-digit timestamp: the start of its CDXJ line."""
    reference = need("surt")
    n = 0
    for path in (WARC_B, ARC_C):
        with open_reader(path) as records:
            for r in records:
                if not r.url or r.url.startswith(("filedesc", "dns:")) or r.date is None:
                    continue
                url_key, _, stamp = sort_key(r).partition(b" ")
                assert url_key.decode() == reference.surt(index_url(r.url))
                assert stamp.decode() == r.date.strftime("%Y%m%d%H%M%S")
                n += 1
    assert n > 100


def test_sort_key_orders_captures_of_a_url_by_date() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    early = Record(
        kind=RecordKind.RESPONSE,
        url="http://example.com/x",
        date=datetime(2020, 1, 1, 12, tzinfo=timezone(timedelta(hours=5))),  # 07:00 UTC
    )
    late = early.evolve(url="http://WWW.example.com:80/x", date=datetime(2020, 1, 1, 8, tzinfo=UTC))
    raw_only = Record(
        kind=RecordKind.RESPONSE, url="http://example.com/x", date_raw="2009-03-65T08:43:19-0800"
    )
    assert sort_key(early) < sort_key(late)
    assert sort_key(early).split(b" ")[0] == sort_key(late).split(b" ")[0] == b"com,example)/x"
    assert sort_key(raw_only) == b"com,example)/x 20090365084319"
    assert sort_key(Record(kind=RecordKind.WARCINFO)) == b"- "
    raw = Record(kind=RecordKind.RESPONSE, url="http://example.com/caf\udce9")
    assert sort_key(raw).startswith(b"com,example)/caf%e9")


def test_hash_partition_is_stable_across_processes() -> None:
    urls = [f"http://host{i}.example.org/page/{i * 7}" for i in range(50)]
    here = [partition_of(Record(kind=RecordKind.RESPONSE, url=u), 7) for u in urls]
    assert len(set(here)) > 3  # spread over the partitions
    code = (
        "import json, sys; from crawlmill.core.record import Record, RecordKind; "
        "from crawlmill.plugins.writers.warc_sorted import partition_of; "
        "print(json.dumps([partition_of(Record(kind=RecordKind.RESPONSE, url=u), 7) "
        "for u in json.loads(sys.argv[1])]))"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code, json.dumps(urls)],
            env=env, check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        assert json.loads(out) == here
    # the captures of one URL, however spelt, share a partition
    same = ["http://www.example.com/a", "http://example.com/a", "HTTP://EXAMPLE.COM:80/a#frag"]
    assert len({partition_of(Record(kind=RecordKind.RESPONSE, url=u), 7) for u in same}) == 1


def test_shuffled_records_survive_gzip_member_copy(tmp_path) -> None:
    """Unchanged WARC records keep their exact bytes through the shuffle (the blob keeps the
    provenance the writer copies input members by)."""
    code, out = _convert(tmp_path, "m", sorted_={"partitions": 1})
    assert code == 3
    data = gzip.decompress((out / "part-00000.warc.gz").read_bytes())
    for record in open_reader(WARC_A):
        assert record.extras["warc"]["raw_header"] in data
