"""``simhash-dedup``'s user-visible outputs through the CLI: the cluster table at a
documented place in the output root (option ``clusters``, never outside it, kept on resume,
a foreign file not replaced), and the statistics of several thresholds from one signature
pass (the paper's Table 2; equal to separate runs at each threshold) with their plots as
valid PNG and SVG; the engine's reduce outputs at the mechanism."""

from __future__ import annotations

import csv
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from crawlmill.core import ReduceContext
from crawlmill.core.run.outputs import OutputConflict, UnsafeOutputPath
from crawlmill.core.run.pass_tasks import PassDir
from crawlmill.core.run.passes import pass_done
from crawlmill.core.run.reduce_outputs import ReduceOutputs

from tests import helpers
from tests.plugins.test_simhash_dedup import inputs, records  # noqa: F401 (fixtures)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def convert(src: Path, out: Path, *filter_opts: str, extra: tuple[str, ...] = ()) -> int:
    return helpers.convert(src, "warc", out, "--filter", "simhash-dedup", *filter_opts, *extra,
                           option=["gzip_backend=zlib"], workers=1).exit_code  # fmt: skip


# -- the cluster table -----------------------------------------------------------------------


def test_cluster_table_in_the_output_root(tmp_path, inputs):  # noqa: F811
    out = tmp_path / "out"
    assert convert(inputs, out, "tau=3") == 0
    table = pq.read_table(out / "clusters.parquet")
    for column in ("doc_id", "cluster", "representative_doc_id", "kept", "distance"):
        assert column in table.column_names
    marker = json.loads(next(out.glob(".crawlmill/passes/*/done.json")).read_text())
    assert marker["outputs"] == [["clusters.parquet", (out / "clusters.parquet").stat().st_size]]
    # a rerun resumes and keeps the file as it is
    before = (out / "clusters.parquet").stat()
    assert convert(inputs, out, "tau=3") == 0
    after = (out / "clusters.parquet").stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)
    # another place inside the root; none
    assert convert(inputs, tmp_path / "o2", "tau=3", "clusters=tables/c.parquet") == 0
    assert pq.read_table(tmp_path / "o2" / "tables" / "c.parquet").equals(table)
    assert not (tmp_path / "o2" / "clusters.parquet").exists()
    assert convert(inputs, tmp_path / "o3", "tau=3", "clusters=null") == 0
    assert not list((tmp_path / "o3").glob("*.parquet"))


@pytest.mark.parametrize("place", ["../c.parquet", "/tmp/c.parquet", ".crawlmill/c.parquet"])
def test_cluster_table_never_outside_the_root(tmp_path, inputs, place, capsys):  # noqa: F811
    assert convert(inputs, tmp_path / "out", "tau=3", f"clusters={place}") == 2
    assert "clusters" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").rglob("*.parquet"))
    assert not (tmp_path / "c.parquet").exists()


def test_a_foreign_file_is_not_replaced(tmp_path, inputs, capsys):  # noqa: F811
    out = tmp_path / "out"
    out.mkdir()
    (out / "clusters.parquet").write_bytes(b"my own file")
    assert convert(inputs, out, "tau=3") == 1
    assert "no reduce of this root lists it" in capsys.readouterr().err
    assert (out / "clusters.parquet").read_bytes() == b"my own file"
    assert convert(inputs, out, "tau=3", extra=("--overwrite",)) == 0
    assert pq.read_table(out / "clusters.parquet").num_rows > 0
    # crawlmill's own file: a run that redoes its passes replaces it without --overwrite
    (out / "clusters.parquet").write_bytes(b"changed")
    assert convert(inputs, out, "tau=3", extra=("--no-resume",)) == 0
    assert pq.read_table(out / "clusters.parquet").num_rows > 0


def test_reduce_outputs_mechanism(tmp_path):
    root = tmp_path / "out"
    pdir = root / ".crawlmill" / "passes" / "p1"
    work = pdir / "work"
    work.mkdir(parents=True)
    outputs = ReduceOutputs(str(root), str(pdir), str(work), overwrite=False, inputs=[])
    for bad in ("../x", "/abs", ".crawlmill/x", "a/../../x", ""):
        with pytest.raises(UnsafeOutputPath):
            outputs.request(bad)
    path = outputs.request("sub/x.bin")
    assert outputs.request("sub/x.bin") == path
    Path(path).write_bytes(b"12345")
    missing = outputs.request("never.bin")
    with pytest.raises(RuntimeError, match="did not write it"):
        outputs.commit()
    Path(missing).write_bytes(b"")
    assert outputs.commit() == [["sub/x.bin", 5], ["never.bin", 0]]
    assert (root / "sub" / "x.bin").read_bytes() == b"12345"
    # another pass (other options) replaces crawlmill's file, not a foreign one
    (root / "foreign.bin").write_bytes(b"mine")
    other = ReduceOutputs(str(root), str(pdir), str(work), overwrite=False, inputs=[])
    Path(other.request("sub/x.bin")).write_bytes(b"678")
    assert other.commit() == [["sub/x.bin", 3]]
    third = ReduceOutputs(str(root), str(pdir), str(work), overwrite=False, inputs=[])
    Path(third.request("foreign.bin")).write_bytes(b"new")
    with pytest.raises(OutputConflict, match="no reduce of this root lists it"):
        third.commit()
    assert (root / "foreign.bin").read_bytes() == b"mine"
    # an input is never replaced, even with overwrite
    (root / "in.warc").write_bytes(b"input")
    again = ReduceOutputs(str(root), str(pdir), str(work), overwrite=True,
                          inputs=[str(root / "in.warc")])  # fmt: skip
    with pytest.raises(OutputConflict):
        again.request("in.warc")
    # a complete pass whose output went missing is not complete
    (pdir / "table.arrow").write_bytes(b"t")
    (pdir / "done.json").write_text(
        json.dumps({"tables": [["table.arrow", 1]], "outputs": [["sub/x.bin", 3]]})
    )
    assert pass_done(PassDir(str(pdir))) is not None
    (root / "sub" / "x.bin").unlink()
    assert pass_done(PassDir(str(pdir))) is None


def test_reduce_context_without_outputs_says_so():
    with pytest.raises(RuntimeError, match="only a reduce the engine runs"):
        ReduceContext([], "/nowhere").output("x")


# -- statistics ------------------------------------------------------------------------------


def stats_of(out: Path, name: str = "simhash-stats") -> list[dict]:
    with open(out / f"{name}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(PNG_MAGIC) and b"IEND" in data[-12:]
    import matplotlib.image

    assert matplotlib.image.imread(str(path)).shape[0] > 100


def check_svg(path: Path) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(list(root.iter())) > 20  # drawn, not empty


def test_thresholds_equal_separate_runs(tmp_path, inputs, records):  # noqa: F811
    out = tmp_path / "all"
    assert convert(inputs, out, "threshold=3", "thresholds=[0,1,2,3]") == 0
    rows = stats_of(out)
    assert [(r["axis"], int(r["tau"]), r["chosen"]) for r in rows] == [
        ("tau", 0, "False"), ("tau", 1, "False"), ("tau", 2, "False"), ("tau", 3, "True"),
    ]  # fmt: skip
    single = pq.read_table(out / "clusters.parquet")
    n_docs = single.num_rows
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    passes = list(out.glob(".crawlmill/passes/*/tasks"))
    assert len(passes) == 1  # one signature pass
    for row in rows:
        tau = int(row["tau"])
        sep = tmp_path / f"t{tau}"
        assert convert(inputs, sep, f"tau={tau}") == 0
        table = pq.read_table(sep / "clusters.parquet")
        kept = sum(table["kept"].to_pylist())
        sizes = table["cluster_size"].to_pylist()
        assert int(row["documents"]) == n_docs == table.num_rows
        assert int(row["kept"]) == kept
        assert int(row["removed"]) == n_docs - kept
        assert int(row["largest_cluster"]) == max(sizes)
        assert int(row["duplicate_clusters"]) == len(
            {c for c, s in zip(table["cluster"].to_pylist(), sizes, strict=True) if s > 1}
        )
        assert float(row["kept_ratio"]) == pytest.approx(kept / n_docs)
        assert float(row["largest_ratio"]) == pytest.approx(max(sizes) / n_docs)
    kept3 = int(rows[-1]["kept"])
    assert report["dropped"]["simhash-dedup"]["near-duplicate"] == n_docs - kept3
    assert int(rows[0]["kept"]) > kept3  # the thresholds differ on these pages
    data = json.loads((out / "simhash-stats.json").read_text())
    assert [r["kept"] for r in data["rows"]] == [int(r["kept"]) for r in rows]
    sizes = data["sizes"]
    assert sum(s["documents"] for s in sizes) == n_docs
    assert sum(s["clusters"] for s in sizes) == kept3
    with open(out / "simhash-stats-sizes.csv", newline="") as fh:
        assert [int(r["clusters"]) for r in csv.DictReader(fh)] == [s["clusters"] for s in sizes]
    for name in ("simhash-stats-tau", "simhash-stats-sizes"):
        check_png(out / f"{name}.png")
        check_svg(out / f"{name}.svg")
    assert not (out / "simhash-stats-tau128.png").exists()


def test_tau128_axis(tmp_path, inputs):  # noqa: F811
    out = tmp_path / "out"
    assert convert(inputs, out, "tau=6", "tau128=20", "thresholds128=[0,10,20,128]",
                   "stats=stats/dedup") == 0  # fmt: skip
    rows = stats_of(out / "stats", "dedup")
    assert [(r["axis"], int(r["tau"]), int(r["tau128"])) for r in rows] == [
        ("tau128", 6, t) for t in (0, 10, 20, 128)
    ]
    kept = [int(r["kept"]) for r in rows]
    assert kept == sorted(kept, reverse=True)  # a looser check joins more
    assert [r["chosen"] for r in rows] == ["False", "False", "True", "False"]
    sep = tmp_path / "sep"
    assert convert(inputs, sep, "tau=6", "tau128=10") == 0
    assert int(rows[1]["kept"]) == sum(pq.read_table(sep / "clusters.parquet")["kept"].to_pylist())
    assert convert(inputs, tmp_path / "plain", "tau=6") == 0
    assert int(rows[3]["kept"]) == sum(
        pq.read_table(tmp_path / "plain" / "clusters.parquet")["kept"].to_pylist()
    )  # 128 bits at most 128 apart: the "oracle" of the paper's Figure 3
    check_png(out / "stats" / "dedup-tau128.png")
    check_svg(out / "stats" / "dedup-tau128.svg")


def test_without_matplotlib_the_tables_are_written(tmp_path, inputs, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    out = tmp_path / "out"
    assert convert(inputs, out, "tau=3", "thresholds=[2,3]") == 0
    assert (
        "matplotlib is not installed (pip install '.[plots]' in the crawlmill checkout"
        in capsys.readouterr().err
    )
    assert len(stats_of(out)) == 2
    assert not list(out.glob("*.png")) and not list(out.glob("*.svg"))


def test_stats_options_are_checked(tmp_path, inputs):  # noqa: F811
    assert convert(inputs, tmp_path / "a", "thresholds=[0,40]") == 2
    assert convert(inputs, tmp_path / "b", "thresholds128=[200]") == 2
    assert convert(inputs, tmp_path / "c", "stats=../s") == 2


def test_plots_are_the_same_bytes_twice(tmp_path, inputs):  # noqa: F811
    for name in ("a", "b"):
        assert convert(inputs, tmp_path / name, "tau=3", "thresholds=[1,3]") == 0
    for suffix in ("tau.svg", "sizes.svg", "tau.png", "sizes.png"):
        first = (tmp_path / "a" / f"simhash-stats-{suffix}").read_bytes()
        assert first == (tmp_path / "b" / f"simhash-stats-{suffix}").read_bytes(), suffix
