"""The ``nutch-segment`` reader keeps flat memory: ``crawl_generate`` and ``crawl_parse`` (not
sorted by Nutch; crawl_parse also holds a datum per outlink) are sorted within
``spill_memory`` (run files in a temporary folder, removed afterwards) and merged into the
join in Hadoop's raw key order; the records are the same as with everything in memory, and the
reader's peak memory does not grow with the size of those subdirectories."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from crawlmill.core import RecordKind, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.formats.hadoop.nutch import CONTENT, CRAWL_DATUM, encode_nutch
from crawlmill.formats.hadoop.nutch_crawldatum import CrawlDatum
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter
from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader
from crawlmill.plugins.readers.nutch_spill import SortedEntries

from tests.plugins.test_nutch_segment_join import _content

TEXT = "org.apache.hadoop.io.Text"
SIGNATURE = encode_nutch(CRAWL_DATUM, CrawlDatum(7, 0x41, 0, 0, 0, 0.0, 0, b"s" * 16, None))
LINKED = encode_nutch(CRAWL_DATUM, CrawlDatum(7, 0x43, 0, 0, 2_592_000, 0.0, 0, None, None))
GENERATED = encode_nutch(CRAWL_DATUM, CrawlDatum(7, 0x01, 1_700_000_000_000, 0, 2_592_000,
                                                 1.0, 0, None, None))  # fmt: skip


def _text_key(url: str) -> bytes:
    raw = url.encode("utf-8")
    assert len(raw) < 128
    return bytes([len(raw)]) + raw


def _seq(path: Path, value_class: str, items) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        w = SequenceFileWriter(fh, TEXT, value_class, compression="none")
        for url, value in items:
            w.append(_text_key(url), value)
        w.close()


def build(seg: Path, pages: int, links: int = 3, seed: int = 1) -> Path:
    """A segment whose content holds every 10th page (sorted, so streamed), while
    crawl_generate holds every page and crawl_parse a signature per page plus ``links``
    outlink datums each, both shuffled (Nutch does not sort them). URLs with bytes above
    0x7f check Hadoop's raw byte order."""
    rnd = random.Random(seed)
    urls = [
        f"http://h{i % 7}.example/{i:06d}" + ("\u00e9" if i % 5 == 0 else "") for i in range(pages)
    ]
    fetched = sorted(urls[::10], key=lambda u: u.encode("utf-8"))
    _seq(seg / "content/part-00000/data", CONTENT,
         [(u, encode_nutch(CONTENT, _content(u, b"<html>" + u.encode() + b"</html>")))
          for u in fetched])  # fmt: skip
    generate = [(u, GENERATED) for u in urls]
    rnd.shuffle(generate)
    _seq(seg / "crawl_generate/part-00000", CRAWL_DATUM, generate)
    parse = [(u, SIGNATURE) for u in urls]
    parse += [(f"http://out.example/{rnd.randrange(10**9)}", LINKED) for _ in range(pages * links)]
    rnd.shuffle(parse)
    _seq(seg / "crawl_parse/part-00000", CRAWL_DATUM, parse)
    return seg


def _records(seg: Path, **options):
    (unit,) = NutchSegmentReader.discover(str(seg), NutchSegmentReader.Options(**options))
    with open_reader(unit, "nutch-segment", **options) as records:
        out = [(r.kind, r.url, r.payload, r.http_head, r.extras, r.source) for r in records]
    return out, records


def test_a_tiny_spill_buffer_gives_the_records_of_everything_in_memory(tmp_path):
    seg = build(tmp_path / "20240101000000", 800)
    spill = tmp_path / "spill"
    spill.mkdir()
    held, it_held = _records(seg, spill_memory=1 << 30)
    tiny, it_tiny = _records(seg, spill_memory=1024, spill_dir=str(spill))
    assert tiny == held
    assert list(spill.iterdir()) == []  # the run files are removed
    urls = [u for _, u, *_ in held]
    assert len(urls) == 800 == len(set(urls))
    # fetched pages (content streamed) in key order first, then the generated-only URLs
    fetched = [u for k, u, *_ in held if k == RecordKind.RESOURCE]  # no crawl_fetch: no status
    rest = [u for k, u, *_ in held if k == RecordKind.METADATA]
    assert len(fetched) == 80 and urls == fetched + rest
    for part in (fetched, rest):
        assert [u.encode() for u in part] == sorted(u.encode() for u in part)  # raw byte order
    assert it_tiny.counts == it_held.counts == {"linked datums": 2400}
    for kind, _, _, _, extras, _ in held:
        assert [d["status_name"] for d in extras["nutch"]["crawl_generate"]] == ["db_unfetched"]
        assert [d["status_name"] for d in extras["nutch"]["crawl_parse"]] == ["signature"]
        assert (kind == RecordKind.RESOURCE) == ("content" in extras["nutch"])


def test_linked_datums_delivered_the_same_with_a_tiny_spill_buffer(tmp_path):
    seg = build(tmp_path / "20240101000000", 120, links=2)
    held, _ = _records(seg, linked=True)
    tiny, _ = _records(seg, linked=True, spill_memory=1024)
    assert tiny == held
    assert sum(1 for _, _, _, _, e, _ in held if e["nutch"].get("linked")) == 240


def test_convert_with_a_tiny_spill_buffer_writes_the_same_warc(tmp_path):
    seg = build(tmp_path / "20240101000000", 300)
    spill = tmp_path / "spill"
    spill.mkdir()
    outs = []
    for name, extra in (("held", []), ("tiny", ["--from", "nutch-segment", "--reader-option", "spill_memory=1024",
                                                "--reader-option", f"spill_dir={spill}"])):  # fmt: skip
        out = tmp_path / name
        assert main(["convert", str(seg), "--to", "warc", "-o", str(out), "--workers", "1",
                     *extra]) == 0  # fmt: skip
        report = json.loads((out / ".crawlmill" / "report.json").read_text())
        assert report["read"] == 300 and report["quarantined"] == 0
        (warc,) = out.rglob("*.warc.gz")
        with open_reader(str(warc)) as records:
            outs.append([(r.kind, r.url, r.http_head, r.payload) for r in records
                         if r.kind != RecordKind.WARCINFO])  # fmt: skip
    assert outs[0] == outs[1] and len(outs[0]) == 300
    assert list(spill.iterdir()) == []


PEAK = """
import sys, tracemalloc
from crawlmill.core import open_reader
from crawlmill.plugins.readers.nutch_segment import NutchSegmentReader

def read(path):
    (unit,) = NutchSegmentReader.discover(path, NutchSegmentReader.Options())
    with open_reader(unit, "nutch-segment", spill_memory=256 * 1024) as records:
        return sum(1 for _ in records)

read(sys.argv[2])  # every module and plugin loaded outside the measurement
tracemalloc.start()
n = read(sys.argv[1])
print(n, tracemalloc.get_traced_memory()[1])
"""


def _peak(seg: Path, warm: Path) -> tuple[int, int]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", PEAK, str(seg), str(warm)], capture_output=True,
                         text=True, check=True, env=env)  # fmt: skip
    n, peak = out.stdout.split()
    return int(n), int(peak)


def test_peak_memory_does_not_grow_with_crawl_generate_and_crawl_parse(tmp_path):
    """The inputs are no larger than the bounds need: held per part, the large segment's
    datums alone would cost about 4.6 MB, three times the bound."""
    warm = build(tmp_path / "warm" / "20240101000000", 20, links=1)
    small = build(tmp_path / "small" / "20240101000000", 250, links=2)
    large = build(tmp_path / "large" / "20240101000000", 2500, links=2)  # 10x the datums
    n_small, peak_small = _peak(small, warm)
    n_large, peak_large = _peak(large, warm)
    assert (n_small, n_large) == (250, 2500)
    # held per part, 10x more datums cost about 9x the memory (1.0 -> 9.3 MB measured at
    # 500 and 5000 pages, so about 4.6 MB here); spilled, the peak is two buffers of
    # spill_memory, the merge's read buffers (as many as spill_memory holds) and one URL's
    # records (0.31 -> 0.53 MB measured here)
    assert peak_large < 1.5 * 1024 * 1024, (peak_small, peak_large)
    assert peak_large < peak_small + 1024 * 1024, (peak_small, peak_large)


def test_sorted_entries_orders_raw_bytes_stably_and_cleans_up(tmp_path):
    rnd = random.Random(5)
    keys = [bytes([rnd.randrange(256) for _ in range(rnd.randrange(1, 4))]) for _ in range(3000)]
    for memory in (1 << 30, 1024):
        with SortedEntries(memory, str(tmp_path)) as s:
            for i, key in enumerate(keys):
                s.add(key, i % 2, i.to_bytes(4, "big"))
            got = list(s.sorted())
            assert (len(s.runs) > 64) == (memory == 1024)  # many runs: merged in groups
            assert s.peak <= max(memory, 1024)
        assert [k for k, *_ in got] == sorted(keys)  # unsigned bytes, as Hadoop's raw order
        assert got == sorted(got, key=lambda e: (e[0], e[1], e[2]))
        assert [int.from_bytes(b, "big") for _, _, _, b in got] == [
            i for _, i in sorted(((k, i % 2, i), i) for i, k in enumerate(keys))
        ]
        assert list(tmp_path.iterdir()) == []
