"""docs/examples/clueweb09-to-pyserini.yaml: the raw ClueWeb09 samples to deduplicated Pyserini
JSONL in one run, and that JSONL indexed and searched by Anserini, Pyserini's Java side.

Anserini's JsonCollection ("a JSON Document on each line": ``{"id", "contents"}``; the example
writes ``.jsonl.gz`` files) is read by
Anserini's own ``io.anserini.index.IndexCollection``, then ``io.anserini.search.SearchCollection``
(BM25) answers a query whose page is found here in the raw sample bytes: the top document must
be that page's ``WARC-TREC-ID``. The fat jar comes out of the pyserini sdist (no torch) and
runs on a Java 21 or later: ``CRAWLMILL_ANSERINI_JAR`` and ``CRAWLMILL_ANSERINI_JAVA`` name them
(``.ci/anserini.sh`` sets both in CI); without them the Anserini test skips, and fails under
``CRAWLMILL_REQUIRE_ORACLES=1``.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import REQUIRE_ORACLES
from tests.helpers import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "clueweb09-to-pyserini.yaml"
#: ClueWeb09's own sample files (WARC/0.18, a warcinfo and 100 responses each).
SAMPLE_DIR = "sqs-freequery/test/dumps"
SAMPLE_NAMES = ("ClueWeb09_Chinese_Sample", "ClueWeb09_English_Sample")
#: both tests in one worker: the example runs once (a module fixture).
pytestmark = pytest.mark.xdist_group("cw09-pyserini")
#: the query: the words of one sample page's title.
QUERY = "underwater pumpkin carving"


def raw_responses(path: Path) -> list[tuple[str, bytes]]:
    """``(WARC-TREC-ID, record bytes)`` of each response in a raw ClueWeb09 file, read with a
    plain byte split (no crawlmill code)."""
    found = []
    for chunk in path.read_bytes().split(b"WARC/0.18\n")[1:]:
        if re.search(rb"^WARC-Type: response\s*$", chunk, re.M):
            trec = re.search(rb"^WARC-TREC-ID: (\S+)", chunk, re.M)
            found.append((trec.group(1).decode("ascii"), chunk))
    return found


@pytest.fixture(scope="module")
def example(samples: Path, tmp_path_factory) -> tuple[Path, dict, Path]:
    """The example pipeline run over both samples: ``(output, report, input folder)``."""
    root = tmp_path_factory.mktemp("cw09-pyserini")
    inputs = root / "in"
    inputs.mkdir()
    for name in SAMPLE_NAMES:
        shutil.copyfile(samples / SAMPLE_DIR / name, inputs / name)
    out = root / "out"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("IN", str(inputs))
        mp.setenv("OUT", str(out))
        result = cli("run", EXAMPLE, "--progress", "never", "--workers", "1", out=out)
    assert result.exit_code == 0, result.stdout + result.stderr
    return out, result.report, inputs


def jsonl_lines(out: Path) -> list[dict]:
    lines = []
    for name in SAMPLE_NAMES:
        text = gzip.decompress((out / "jsonl" / f"{name}.jsonl.gz").read_bytes()).decode("utf-8")
        lines += [json.loads(line) for line in text.splitlines()]
    return lines


def test_example_writes_the_kept_pages_by_their_trec_ids(example):
    out, report, inputs = example
    # the jsonl files alone in their folder (Anserini's -input reads every file below it)
    assert sorted(p.name for p in (out / "jsonl").iterdir()) == [
        f"{n}.jsonl.gz" for n in SAMPLE_NAMES
    ]
    responses = [r for name in SAMPLE_NAMES for r in raw_responses(inputs / name)]
    assert len(responses) == 200
    dropped = report["dropped"]
    assert dropped["kind"] == {"wrong-kind": 2}  # the two warcinfo records
    near = dropped["simhash-dedup"]["near-duplicate"]
    assert near > 0  # the samples hold near-duplicate pages
    assert report["read"] == 202 and report["quarantined"] == 0
    assert report["written"] == 200 - near
    # every id is the page's WARC-TREC-ID, in input order, and the cluster table's kept doc id
    table = pq.read_table(out / "clusters.parquet").to_pylist()
    kept = {row["doc_id"] for row in table if row["kept"]}
    lines = jsonl_lines(out)
    assert [line["id"] for line in lines] == [t for t, _ in responses if t in kept]
    assert len(kept) == len(lines) == report["written"]
    gone = [row for row in table if not row["kept"]]
    assert len(gone) == near and all(row["distance"] <= 3 for row in gone)
    assert all(set(line) <= {"id", "contents", "url", "title"} for line in lines)
    assert all(line["url"].startswith("http") for line in lines)


def java_major(java: str) -> int:
    done = subprocess.run([java, "-version"], capture_output=True, text=True, check=False)
    found = re.search(r'version "(\d+)', done.stderr + done.stdout)
    return int(found.group(1)) if found else 0


def anserini() -> tuple[str, str]:
    """``(java, jar)``: a Java 21+ and Anserini's fat jar; skips (fails in CI) without them."""
    jar = os.environ.get("CRAWLMILL_ANSERINI_JAR", "")
    java = os.environ.get("CRAWLMILL_ANSERINI_JAVA") or shutil.which("java") or ""
    problem = None
    if not jar or not Path(jar).is_file():
        problem = "CRAWLMILL_ANSERINI_JAR names no Anserini fat jar (.ci/anserini.sh gets one)"
    elif not java or java_major(java) < 21:
        problem = f"Anserini needs a Java 21 or later (CRAWLMILL_ANSERINI_JAVA; found {java!r})"
    if problem is not None:
        if REQUIRE_ORACLES:
            pytest.fail(f"oracle Anserini: {problem}", pytrace=False)
        pytest.skip(f"oracle Anserini: {problem}")
    return java, jar


def run_java(java: str, jar: str, *args: object) -> str:
    # C1 only and the serial GC: a short run spends less CPU compiling and collecting
    command = [java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", jar]
    done = subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.oracle
def test_anserini_indexes_the_jsonl_and_finds_the_page(example, tmp_path):
    java, jar = anserini()
    out, report, inputs = example
    log = run_java(
        java, jar, "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
        "-input", out / "jsonl", "-index", tmp_path / "index", "-threads", "1",
    )  # fmt: skip
    counters = dict(re.findall(r"- (indexed|unindexable|empty|skipped|errors):\s+(\d+)", log))
    # Anserini leaves out documents with empty contents (its "empty"), as our "empty text"
    empty = report["counts"]["writer"]["empty text"]
    assert counters == {
        "indexed": str(report["written"] - empty),
        "unindexable": "0",
        "empty": str(empty),
        "skipped": "0",
        "errors": "0",
    }, log
    # the page whose <title> holds the query's words, found in the raw HTML (another page
    # names it once, in a link)
    (expected,) = [
        trec
        for name in SAMPLE_NAMES
        for trec, chunk in raw_responses(inputs / name)
        if re.search(rb"<title>[^<]*" + QUERY.encode(), chunk.lower())
    ]
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"1\t{QUERY}\n", encoding="utf-8")
    run = tmp_path / "run.txt"
    run_java(
        java, jar, "io.anserini.search.SearchCollection", "-index", tmp_path / "index",
        "-topics", topics, "-topicReader", "TsvString", "-output", run, "-bm25", "-hits", "3",
    )  # fmt: skip
    ranked = [line.split() for line in run.read_text().splitlines()]
    # TREC run format: qid Q0 docid rank score tag
    assert ranked[0][:4] == ["1", "Q0", expected, "1"], ranked
    assert len(ranked) == 3 and float(ranked[0][4]) > float(ranked[1][4])
