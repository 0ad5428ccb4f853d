"""A Chuweb21D-like collection from one YAML file (docs/examples/chuweb21d.yaml): real WARC
samples named as Chuweb21 names its files, the ``kind`` and ``http-status`` filters,
``simhash-dedup`` at tau 2 (Chuweb21D-70) and 3 (Chuweb21D-60), WARC out in the ``chuweb21``
layout (input file names kept, md5 manifest), the cluster table and the statistics table.
The clusters are checked against brute force over the table's codes. The same on Spark is
tests/core/test_spark_pipelines.py's case."""

from __future__ import annotations

import csv
import hashlib
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from crawlmill import open_reader

from tests.conftest import SAMPLES
from tests.helpers import cli
from tests.plugins.test_simhash_dedup import make_records, warc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "chuweb21d.yaml"
#: real samples (HTML responses, other kinds, non-2xx statuses) under Chuweb21-like names.
SAMPLE_FILES = {
    "CC-MAIN-20210725000000-00000.warc": "N0taN3rd-node-warc/test__files__books.toscrape.warc",
    "CC-MAIN-20210725000000-00001.warc": "netarchivesuite-netarchivesuite/common__common-test__tests__dk__netarkivet__common__utils__cdx__data__input__warcs__netarkivet-20081105135926-00001.warc",
    "CC-MAIN-20210725000000-00002.warc.gz": "openzim-warc2zim/tests__data__http-return-codes.warc.gz",
    # the first again: every page an exact duplicate of one in another file
    "CC-MAIN-20210725000000-00003.warc": "N0taN3rd-node-warc/test__files__books.toscrape.warc",
}


def chuweb21(tmp_path: Path) -> Path:
    folder = tmp_path / "chuweb21"
    folder.mkdir()
    for name, rel in SAMPLE_FILES.items():
        shutil.copy(SAMPLES / "real-world-2026-11" / rel, folder / name)
    # constructed pages with near-duplicates planted at 1, 2 and 4 changed words, so the
    # thresholds differ (the real samples hold exact copies only)
    planted = b"".join(
        warc(r["n"], r["kind"], r["url"], r["date"], r["block"], r["trec"]) for r in make_records()
    )
    (folder / "CC-MAIN-20210725000000-00004.warc").write_bytes(planted)
    return folder


def run(monkeypatch, inputs: Path, out: Path, tau: int) -> dict:
    monkeypatch.setenv("IN", str(inputs))
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.setenv("TAU", str(tau))
    # in-process: the same dedup at 1 and 2 workers is test_simhash_dedup.py's
    result = cli("run", EXAMPLE, "--progress", "never", "--workers", "1", out=out)
    assert result.exit_code == 0, result.stderr
    return result.report


def stats(out: Path) -> list[dict]:
    with open(out / "simhash-stats.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def brute_force_kept(codes: list[int], tau: int) -> int:
    """Connected components of the pairs within ``tau`` (every pair compared)."""
    parent = list(range(len(codes)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i in range(len(codes)):
        for j in range(i + 1, len(codes)):
            if bin(codes[i] ^ codes[j]).count("1") <= tau:
                parent[find(j)] = find(i)
    return len({find(i) for i in range(len(codes))})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    return chuweb21(tmp_path_factory.mktemp("in"))


@pytest.mark.slow
def test_chuweb21d_from_one_yaml_file_at_tau_2_and_3(tmp_path, inputs, monkeypatch, capsys):
    reports, tables = {}, {}
    for tau in (2, 3):
        out = tmp_path / f"chuweb21d-{tau}"
        reports[tau] = report = run(monkeypatch, inputs, out, tau)
        # the chuweb21 layout: the input file names kept, one folder per crawl, a manifest
        folder = out / "CC-MAIN-20210725000000"
        names = sorted(p.name for p in folder.iterdir())
        # the copy's pages are all duplicates of the first file's: no file for it
        assert names == [f"CC-MAIN-20210725000000-0000{i}.warc.gz" for i in (0, 1, 2, 4)]
        manifest = (out / "md5_checksum.txt").read_text().splitlines()
        assert len(manifest) == 4
        for line in manifest:
            path, md5 = line.split("\t")
            assert hashlib.md5((out / path).read_bytes()).hexdigest() == md5
        # kind and http-status before the dedup, counted
        assert report["dropped"]["kind"]["wrong-kind"] > 0
        assert report["dropped"]["http-status"]["wrong-status"] > 0
        table = tables[tau] = pq.read_table(out / "clusters.parquet")
        rows = stats(out)
        assert [int(r["tau"]) for r in rows] == [0, 1, 2, 3]
        (chosen,) = [r for r in rows if r["chosen"] == "True"]
        assert int(chosen["tau"]) == tau
        removed = report["dropped"]["simhash-dedup"]["near-duplicate"]
        assert int(chosen["removed"]) == removed == table.num_rows - sum(table["kept"].to_pylist())
        codes = table["simhash64"].to_pylist()
        for row in rows:
            assert int(row["kept"]) == brute_force_kept(codes, int(row["tau"])), row
        # what was written: the kept documents only
        written = []
        for path in sorted(folder.iterdir()):
            with open_reader(str(path)) as records:
                written += [r.url for r in records if r.kind.value == "response"]
        assert sorted(written) == sorted(
            u for u, k in zip(table["url"].to_pylist(), table["kept"].to_pylist(), strict=True) if k
        )
        assert (out / "simhash-stats-tau.png").exists() and (out / "simhash-stats-tau.svg").exists()
    # one signature pass per run, the same signatures: the same table of statistics
    strip = [{k: v for k, v in r.items() if k != "chosen"} for r in stats(tmp_path / "chuweb21d-2")]
    assert strip == [
        {k: v for k, v in r.items() if k != "chosen"} for r in stats(tmp_path / "chuweb21d-3")
    ]
    assert tables[2]["simhash64"].equals(tables[3]["simhash64"])
    # the planted pages make the thresholds differ: tau 3 keeps fewer than tau 2
    kept = [int(r["kept"]) for r in stats(tmp_path / "chuweb21d-3")]
    assert kept == sorted(kept, reverse=True) and kept[3] < kept[2] < kept[0], kept
    assert reports[3]["written"] < reports[2]["written"] < reports[2]["read"]
