"""Resume when the input set changes (issue 18, item 4): inputs added, removed or renamed.

Completed inputs stay complete (their output files keep inode and mtime), an added input
converts alone, the outputs of an input that is gone ("orphans") are listed by the run
(terminal, report.json) and by ``crawlmill status``, and deleted only with
``--remove-orphans``. A whole-collection pass (``url-dedup``) keeps the collected rows of
unchanged inputs and redoes what depends on every input; its outputs equal a fresh run's.
Real WARC/ARC samples and the real ``warc`` writer; ``SOURCE_DATE_EPOCH`` pins the conversion
date that ARC -> WARC writes, so two runs give the same bytes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import cli, convert

from ..conftest import SAMPLES

DATA = SAMPLES / "webrecorder-warcio" / "test" / "data"


@pytest.fixture(autouse=True)
def _reproducible(monkeypatch, samples):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")


def _put(folder: Path, **names: str) -> Path:
    """Copy samples into ``folder`` under new names (``a_warc_gz="example.warc.gz"``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, sample in names.items():
        shutil.copy(DATA / sample, folder / name.replace("_", "."))
    return folder


def _convert(src: Path, out: Path, *extra: str) -> tuple[int, str]:
    result = convert(src, "warc", out, *extra, workers=1, progress=None)
    return result.exit_code, result.stderr


def _report(out: Path) -> dict:
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def _stats(out: Path, *names: str) -> dict[str, tuple[int, int]]:
    """Inode and mtime (ns) of output files: unchanged means not rewritten."""
    return {n: (os.stat(out / n).st_ino, os.stat(out / n).st_mtime_ns) for n in names}


def _outputs(out: Path) -> dict[str, bytes]:
    """Relpath -> bytes of every file outside the bookkeeping folder."""
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and not p.relative_to(out).as_posix().startswith(".crawlmill/")
    }


def _fresh(src: Path, out: Path, *extra: str) -> dict[str, bytes]:
    code, err = _convert(src, out, *extra)
    assert code == 0, err
    return _outputs(out)


def _status(out: Path) -> tuple[dict, str]:
    as_json, text = cli("status", out, "--json"), cli("status", out)
    assert as_json.exit_code == 0 and text.exit_code == 0
    return json.loads(as_json.stdout), text.stdout


def test_an_added_input_converts_alone_and_the_others_keep_their_files(tmp_path, capsys):
    src = _put(tmp_path / "in", b_warc_gz="example.warc.gz", c_arc_gz="example.arc.gz")
    out = tmp_path / "out"
    code, err = _convert(src, out)
    assert code == 0, err
    before = _stats(out, "b.warc.gz", "c.warc.gz")
    # sorted first: every other input moves one place down
    _put(src, a_warc="example-digest.warc")
    code, err = _convert(src, out)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs"], report["inputs_skipped"], report["inputs_done"]) == (3, 2, 1)
    assert _stats(out, "b.warc.gz", "c.warc.gz") == before
    assert report["orphans"] == [] and "orphan" not in err
    assert _outputs(out) == _fresh(src, tmp_path / "fresh")
    # and the other way round: nothing changed, nothing is redone
    code, err = _convert(src, out)
    assert code == 0 and _report(out)["inputs_skipped"] == 3


def test_a_removed_input_leaves_orphans_listed_and_removed_only_when_asked(tmp_path, capsys):
    src = _put(
        tmp_path / "in",
        a_warc_gz="example.warc.gz",
        b_arc_gz="example.arc.gz",
        c_warc="example-digest.warc",
    )
    out = tmp_path / "out"
    code, err = _convert(src, out)
    assert code == 0, err
    before = _stats(out, "b.warc.gz", "c.warc.gz")
    gone = _stats(out, "a.warc.gz")
    (src / "a.warc.gz").unlink()  # the first input: the others move up one place
    code, err = _convert(src, out)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs"], report["inputs_skipped"], report["inputs_done"]) == (2, 2, 0)
    assert _stats(out, "b.warc.gz", "c.warc.gz") == before
    # the orphan: kept untouched, named on the terminal, in the report and by status
    assert _stats(out, "a.warc.gz") == gone
    assert [(o["input"], o["outputs"], o["reason"]) for o in report["orphans"]] == [
        ("a.warc.gz", ["a.warc.gz"], "input file gone")
    ]
    assert report["orphans_removed"] == []
    assert f"orphaned (input file gone: {src / 'a.warc.gz'}): a.warc.gz" in err
    assert "--remove-orphans deletes them" in err
    data, text = _status(out)
    assert [(o["input"], o["outputs"]) for o in data["orphans"]] == [("a.warc.gz", ["a.warc.gz"])]
    assert "orphans: 1 file(s) of 1 input(s)" in text and "a.warc.gz" in text
    # a rerun without the option keeps it still
    code, err = _convert(src, out)
    assert code == 0 and (out / "a.warc.gz").exists() and len(_report(out)["orphans"]) == 1
    # --remove-orphans deletes the orphan's files and marker, nothing else
    (out / "notes.txt").write_text("a file crawlmill did not write")
    code, err = _convert(src, out, "--remove-orphans")
    assert code == 0, err
    report = _report(out)
    assert report["orphans_removed"] == ["a.warc.gz"] and not (out / "a.warc.gz").exists()
    assert "removed 1 orphaned file(s) of 1 input(s)" in err
    assert _stats(out, "b.warc.gz", "c.warc.gz") == before
    assert (out / "notes.txt").read_text() == "a file crawlmill did not write"
    assert _status(out)[0]["orphans"] == []
    (out / "notes.txt").unlink()
    assert _outputs(out) == _fresh(src, tmp_path / "fresh")


def test_a_renamed_input_is_one_removed_and_one_added(tmp_path, capsys):
    src = _put(tmp_path / "in", a_warc_gz="example.warc.gz", b_arc_gz="example.arc.gz")
    out = tmp_path / "out"
    code, err = _convert(src, out)
    assert code == 0, err
    before = _stats(out, "a.warc.gz")
    (src / "b.arc.gz").rename(src / "0b.arc.gz")  # now first: a.warc.gz moves down
    code, err = _convert(src, out)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs_skipped"], report["inputs_done"]) == (1, 1)
    assert _stats(out, "a.warc.gz") == before
    assert (out / "0b.warc.gz").exists() and (out / "b.warc.gz").exists()
    assert [o["outputs"] for o in report["orphans"]] == [["b.warc.gz"]]
    assert _status(out)[0]["orphans"][0]["input_path"] == str(src / "b.arc.gz")
    code, err = _convert(src, out, "--remove-orphans")
    assert code == 0, err
    assert not (out / "b.warc.gz").exists() and _stats(out, "a.warc.gz") == before
    assert _outputs(out) == _fresh(src, tmp_path / "fresh")


def test_an_input_left_out_of_the_run_but_not_deleted_is_an_orphan_too(tmp_path, capsys):
    src = _put(tmp_path / "in", a_warc_gz="example.warc.gz", b_arc_gz="example.arc.gz")
    out = tmp_path / "out"
    assert _convert(src, out)[0] == 0
    code, err = _convert(src / "b.arc.gz", out)
    assert code == 0, err
    orphans = _report(out)["orphans"]
    assert [(o["input"], o["reason"]) for o in orphans] == [
        ("a.warc.gz", "not an input of the run")
    ]
    # status names it from the last run's report (its file still exists)
    assert [o["input"] for o in _status(out)[0]["orphans"]] == ["a.warc.gz"]


def test_a_sibling_that_lengthens_a_stem_redoes_only_that_input(tmp_path, capsys):
    """x.arc.gz beside x.warc.gz: both keep more of their names (core/naming.py), so x's
    outputs are named otherwise and x is redone; its old output is crawlmill's own,
    superseded, and deleted; an unrelated input keeps its files."""
    src = _put(tmp_path / "in", x_warc_gz="example.warc.gz", y_warc="example-digest.warc")
    out = tmp_path / "out"
    assert _convert(src, out)[0] == 0
    before = _stats(out, "y.warc.gz")
    _put(src, x_arc_gz="example.arc.gz")
    code, err = _convert(src, out)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs_skipped"], report["inputs_done"]) == (1, 2)
    assert _stats(out, "y.warc.gz") == before
    assert sorted(_outputs(out)) == ["x.arc.warc.gz", "x.warc.warc.gz", "y.warc.gz"]
    assert report["orphans"] == []
    assert _outputs(out) == _fresh(src, tmp_path / "fresh")


def test_a_position_named_output_is_redone_when_its_input_moves(tmp_path, capsys):
    """``{index}`` in the name pattern: the writer is not position-free, so inputs that moved
    are redone (their names change) and the result equals a fresh run's."""
    src = _put(tmp_path / "in", b_warc_gz="example.warc.gz", c_arc_gz="example.arc.gz")
    out = tmp_path / "out"
    pattern = ("--option", "name_pattern=part-{index}{ext}")
    code, err = _convert(src, out, *pattern)
    assert code == 0, err
    _put(src, a_warc="example-digest.warc")
    code, err = _convert(src, out, *pattern)
    assert code == 0, err
    assert _report(out)["inputs_done"] == 3
    assert _outputs(out) == _fresh(src, tmp_path / "fresh", *pattern)


def _pass_folders(out: Path) -> list[Path]:
    return [p for p in (out / ".crawlmill" / "passes").iterdir() if p.is_dir()]


def _urls(path: Path) -> list[str]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return [
            r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(fh)
            if r.rec_type in ("response", "resource")
        ]


def test_url_dedup_keeps_collected_rows_and_redoes_what_depends_on_every_input(
    tmp_path, capsys, need
):
    """url-dedup, rule first: "the first capture in pipeline order (input order, then record
    order within the input)". An added first input holding the same URL takes the capture
    from b: every final output may change, so the reduce and the final pass are redone; the
    collect rows of b and c (unchanged inputs) are kept, their input column renumbered."""
    need("warcio")
    src = _put(tmp_path / "in", b_warc_gz="example.warc.gz", c_warc="example-digest.warc")
    out = tmp_path / "out"
    dedup = ("--filter", "url-dedup")
    code, err = _convert(src, out, *dedup)
    assert code == 0, err
    assert _urls(out / "b.warc.gz") == ["http://example.com/"]  # b's capture is the first
    first = _report(out)["dropped"]["url-dedup"].get("duplicate", 0)
    (old,) = _pass_folders(out)
    _put(src, a_warc_gz="example.warc.gz")  # the same capture, now first in input order
    code, err = _convert(src, out, *dedup)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs_skipped"], report["inputs_done"]) == (0, 3)  # the final pass: redone
    assert "kept the collected rows of 2 unchanged input(s)" in err
    assert "collecting 1 of 3 input(s)" in err  # only a.warc.gz is read by the collect pass
    (new,) = _pass_folders(out)  # the old pass folder is removed after the run
    assert new.name != old.name
    tasks = {
        json.loads(p.read_text())["input"]: json.loads(p.read_text())
        for p in (new / "tasks").glob("*[0-9].json")
    }
    assert sorted(tasks) == ["a.warc.gz", "b.warc.gz", "c.warc"]
    assert "kept_from" not in tasks["a.warc.gz"]
    assert tasks["b.warc.gz"]["kept_from"] == old.name == tasks["c.warc"]["kept_from"]
    # the kept rows carry the inputs' new places (b moved from 0 to 1)
    from crawlmill.core.run.tables import load_table

    rows = load_table(str(new / "tasks" / f"{tasks['b.warc.gz']['index']:06d}.arrow"))
    assert tasks["b.warc.gz"]["index"] == 1 and set(rows.column("input").to_pylist()) == {1}
    assert _urls(out / "a.warc.gz") == ["http://example.com/"]
    assert _urls(out / "b.warc.gz") == []  # now the duplicate
    assert report["dropped"]["url-dedup"] == {"duplicate": first + 1}  # b's capture
    assert _outputs(out) == _fresh(src, tmp_path / "fresh", *dedup)
    # an unchanged rerun redoes nothing at all
    code, err = _convert(src, out, *dedup)
    assert code == 0 and _report(out)["inputs_skipped"] == 3 and "collecting" not in err
    # an input removed: no collect task runs, the reduce and the final pass run again
    (src / "c.warc").unlink()
    code, err = _convert(src, out, *dedup)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs_skipped"], report["inputs_done"]) == (0, 2)
    assert "kept the collected rows of 2 unchanged input(s)" in err and "collecting" not in err
    assert [o["outputs"] for o in report["orphans"]] == [["c.warc.gz"]]
    assert _convert(src, out, *dedup, "--remove-orphans")[0] == 0
    assert _outputs(out) == _fresh(src, tmp_path / "fresh2", *dedup)


def test_a_renamed_input_whose_output_keeps_its_name_takes_the_file_over(tmp_path, capsys):
    """a.warc.gz renamed a.warc: the stem (a) and so the output name (a.warc.gz) stay; the
    new input's task writes that name again (as a fresh run would) and the old marker is
    void: nothing is left as an orphan."""
    src = _put(tmp_path / "in", a_warc_gz="example.warc.gz", b_arc_gz="example.arc.gz")
    out = tmp_path / "out"
    assert _convert(src, out)[0] == 0
    before = _stats(out, "b.warc.gz")
    (src / "a.warc.gz").unlink()
    _put(src, a_warc="example.warc")
    code, err = _convert(src, out)
    assert code == 0, err
    report = _report(out)
    assert (report["inputs_skipped"], report["inputs_done"], report["orphans"]) == (1, 1, [])
    assert _stats(out, "b.warc.gz") == before
    assert len(list((out / ".crawlmill" / "done").glob("*.json"))) == 2
    assert _outputs(out) == _fresh(src, tmp_path / "fresh")


def test_removing_orphans_deletes_only_their_own_files(tmp_path):
    """``remove_orphans`` deletes what the orphan's marker lists, but never a file a current
    marker claims, an input of the run, or a file reached through a symlink out of the root;
    a marker of a shuffle's partition (its input below ``.crawlmill``) is no orphan."""
    from crawlmill.core.run.orphans import INPUT_GONE, find_orphans, remove_orphans
    from crawlmill.core.run.outputs import OutputRoot

    root = OutputRoot(str(tmp_path / "out"))
    os.makedirs(os.path.join(root.meta, "done"))
    outside = tmp_path / "precious.txt"
    outside.write_text("not crawlmill's")
    for name in ("mine.out", "claimed.out", "input.warc"):
        (tmp_path / "out" / name).write_text(name)
    (tmp_path / "out" / "link.out").symlink_to(outside)
    listed = ["mine.out", "claimed.out", "input.warc", "link.out", "absent.out"]
    orphan = {
        "key": "k1",
        "fingerprint": "f",
        "input": "gone.warc",
        "input_path": str(tmp_path / "in" / "gone.warc"),
        "outputs": [{"path": p, "size": 1} for p in listed],
        "quarantine": [],
    }
    partition = {**orphan, "key": "shuffle-x-p00000", "outputs": [{"path": "part-00000"}]}
    partition["input_path"] = os.path.join(root.meta, "passes", "x-shuffle", "shuffle", "p0")
    root.write_marker("k1", orphan)
    root.write_marker("shuffle-x-p00000", partition)
    found = find_orphans(root, [str(tmp_path / "out" / "input.warc")], keep=set())
    assert [(o["key"], o["reason"], o["outputs"]) for o in found] == [("k1", INPUT_GONE, listed)]
    removed = remove_orphans(
        root, found, claimed={"claimed.out"}, inputs=[str(tmp_path / "out" / "input.warc")]
    )
    assert removed == ["mine.out"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.name != ".crawlmill") == [
        "claimed.out",
        "input.warc",
        "link.out",
    ]
    assert outside.read_text() == "not crawlmill's"
    assert root.read_marker("k1") is None and root.read_marker("shuffle-x-p00000") is not None
