"""Output planning and ownership of the output root, through the ``crawlmill`` command line
(issue 6, items 1-4 and 24): distinct inputs never share an output name, an output never
replaces an input or a file crawlmill did not write, an output root belongs to one pipeline,
and a forced reader that disagrees with detection is named.

The runs use the real WARC/ARC readers and writer on samples from ``SAMPLES``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from tests import helpers

from ..conftest import ROOT, SAMPLES

DATA = SAMPLES / "webrecorder-warcio" / "test" / "data"


@pytest.fixture(autouse=True)
def _fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1600000000")


def cli(*argv: str) -> tuple[int, str]:
    result = helpers.cli(*argv, "--workers", "1", "--progress", "never")
    return result.exit_code, result.stderr


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): _md5(p)
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".crawlmill" not in p.relative_to(root).parts
    }


def _responses(path: Path) -> list[str]:
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        return [
            r.rec_headers.get_header("WARC-Target-URI")
            for r in ArchiveIterator(fh)
            if r.rec_type == "response"
        ]


def _siblings(folder: Path) -> Path:
    """Real collections hold such siblings: one name, several formats or compressions."""
    folder.mkdir(parents=True)
    shutil.copy(DATA / "example.arc.gz", folder / "x.arc.gz")
    shutil.copy(DATA / "example.warc.gz", folder / "x.warc.gz")
    shutil.copy(DATA / "example.warc.gz", folder / "y.warc.gz")
    import lz4.frame

    raw = gzip.decompress((DATA / "example.warc.gz").read_bytes())
    (folder / "y.warc.lz4").write_bytes(lz4.frame.compress(raw))
    shutil.copy(DATA / "example.warc.gz", folder / "example.txt.warc.gz")
    shutil.copy(DATA / "example-resource.warc.gz", folder / "example.warc.gz")
    return folder


# -- item 1: names ---------------------------------------------------------------------------


def test_inputs_that_strip_to_one_name_get_distinct_outputs(tmp_path, capsys, need):
    need("warcio")
    src = _siblings(tmp_path / "crawl")
    out = tmp_path / "out"
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0, err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    mapping = {m["input"]: m["outputs"] for m in report["input_outputs"]}
    assert mapping == {
        "example.txt.warc.gz": ["example.txt.warc.gz"],  # .txt is not a format suffix
        "example.warc.gz": ["example.warc.gz"],  # no collision: today's name
        "x.arc.gz": ["x.arc.warc.gz"],
        "x.warc.gz": ["x.warc.warc.gz"],
        "y.warc.gz": ["y.warc.gz.warc.gz"],
        "y.warc.lz4": ["y.warc.lz4.warc.gz"],
    }
    assert sorted(_tree(out)) == sorted(o for outs in mapping.values() for o in outs)
    # every input's records are in its own output
    for name in ("x.warc.warc.gz", "y.warc.gz.warc.gz", "y.warc.lz4.warc.gz"):
        assert _responses(out / name) == _responses(DATA / "example.warc.gz")
    assert _responses(out / "x.arc.warc.gz") == ["http://example.com/"]
    # a rerun resumes everything and changes nothing
    before = _tree(out)
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0 and "6 already complete" in err, err
    assert _tree(out) == before


def test_names_that_still_collide_are_refused_at_planning(tmp_path, capsys):
    src = tmp_path / "crawl"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "a.warc.gz")
    shutil.copy(DATA / "example.warc.gz", src / "b.warc.gz")
    out = tmp_path / "out"
    code, err = cli(
        "convert", str(src), "--to", "warc", "--option", "name_pattern=all{ext}",
        "-o", str(out),
    )  # fmt: skip
    assert code == 2, err
    assert "all.warc.gz" in err and "a.warc.gz" in err and "b.warc.gz" in err
    assert not out.exists()


# -- item 2: outputs onto inputs -------------------------------------------------------------


def test_output_folder_equal_to_the_input_folder_is_refused(tmp_path, capsys):
    src = tmp_path / "inplace"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    before = _md5(src / "x.warc.gz")
    code, err = cli(
        "convert", str(src), "--filter", "kind", "keep=response", "--to", "warc",
        "-o", str(src),
    )  # fmt: skip
    assert code == 2, err
    assert "input" in err and str(src) in err
    assert _md5(src / "x.warc.gz") == before
    assert sorted(p.name for p in src.iterdir()) == ["x.warc.gz"]  # nothing written


def test_output_folder_inside_the_input_folder_is_refused(tmp_path, capsys):
    src = tmp_path / "data"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(src / "out"))
    assert code == 2, err
    assert not (src / "out").exists()


def test_an_output_that_is_an_input_file_is_refused(tmp_path, capsys):
    src = tmp_path / "d"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    before = _md5(src / "x.warc.gz")
    code, err = cli(
        "convert", str(src / "x.warc.gz"), "--filter", "kind", "keep=response",
        "--to", "warc", "-o", str(src),
    )  # fmt: skip
    assert code == 2, err
    assert "x.warc.gz" in err and "input" in err
    assert _md5(src / "x.warc.gz") == before
    assert not (src / ".crawlmill").exists()


# -- item 3: files crawlmill did not write ---------------------------------------------------


def test_a_file_crawlmill_did_not_write_is_not_replaced(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.arc.gz", src / "x.arc.gz")
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.warc.gz").write_bytes(b"the user's own file")
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 2, err
    assert str(out / "x.warc.gz") in err and "--overwrite" in err
    assert (out / "x.warc.gz").read_bytes() == b"the user's own file"
    assert not (out / ".crawlmill").exists()
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out), "--overwrite")
    assert code == 0, err
    assert (out / "x.warc.gz").read_bytes()[:2] == b"\x1f\x8b"


def test_overwrite_is_a_run_setting_of_a_config(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.arc.gz", src / "x.arc.gz")
    out = tmp_path / "out"
    out.mkdir()
    (out / "x.warc.gz").write_bytes(b"the user's own file")
    config = tmp_path / "p.yaml"
    config.write_text(f"inputs: {src}\nwriter: warc\noutput: {out}\nrun: {{overwrite: true}}\n")
    code, err = cli("run", str(config))
    assert code == 0, err
    assert (out / "x.warc.gz").read_bytes()[:2] == b"\x1f\x8b"


# -- item 4: one pipeline per output root ----------------------------------------------------


def test_a_second_pipeline_into_the_same_root_is_refused(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    shutil.copy(DATA / "example.arc.gz", src / "z.arc.gz")
    out = tmp_path / "out"
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0, err
    before = _tree(out)
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(DATA / "example.warc.gz", other / "w.warc.gz")
    code, err = cli(
        "convert", str(other), "--filter", "kind", "keep=response", "--to", "warc",
        "-o", str(out),
    )  # fmt: skip
    assert code == 2, err
    assert "another pipeline" in err and "filters" in err
    assert "--overwrite" in err and "-o" in err
    assert _tree(out) == before
    # --overwrite replaces the old pipeline's outputs instead of mixing with them
    code, err = cli(
        "convert", str(other), "--filter", "kind", "keep=response", "--to", "warc",
        "-o", str(out), "--overwrite",
    )  # fmt: skip
    assert code == 0, err
    assert sorted(_tree(out)) == ["w.warc.gz"]


def test_an_upgrade_is_a_different_pipeline(tmp_path, capsys, monkeypatch):
    from crawlmill.core import registry as registry_module

    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    out = tmp_path / "out"
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0, err
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0 and "already complete" in err

    load = registry_module.Registry.load.__func__

    def upgraded(cls, *args, **kwargs):
        reg = load(cls, *args, **kwargs)
        for info in reg.plugins.values():
            if info.package == "crawlmill":
                info.version = "999.0"
        return reg

    monkeypatch.setattr(registry_module.Registry, "load", classmethod(upgraded))
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 2, err
    assert "already complete" not in err and "999.0" in err


# -- item 24: forced readers and the documented examples -------------------------------------


def test_a_forced_reader_that_disagrees_with_detection_is_named(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.arc.gz", src / "x.arc.gz")
    code, err = cli(
        "convert", str(src), "--from", "warc", "--to", "warc", "-o", str(tmp_path / "o")
    )
    warnings = [line for line in err.splitlines() if "warning" in line and "x.arc.gz" in line]
    assert len(warnings) == 1, err
    assert "'warc'" in warnings[0] and "'arc'" in warnings[0]
    report = json.loads((tmp_path / "o" / ".crawlmill" / "report.json").read_text())
    assert report["warnings"]["forced-reader"] == 1
    assert "reader 'warc' is forced" in report["warning_examples"]["forced-reader"]


def test_an_agreeing_forced_reader_is_not_warned_about(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.arc.gz", src / "x.arc.gz")
    code, err = cli("convert", str(src), "--from", "arc", "--to", "warc", "-o", str(tmp_path / "o"))
    assert code == 0 and "warning" not in err, err


def _yaml_example(doc: Path) -> str:
    return re.search(r"```yaml\n(version: 1\n.*?)```", doc.read_text(), re.S).group(1)


@pytest.mark.parametrize("doc", ["README.md", "docs/config.md"])
def test_the_documented_config_example_runs_clean(tmp_path, capsys, monkeypatch, doc):
    import yaml

    data = yaml.safe_load(_yaml_example(ROOT / doc))
    data.pop("plugins", None)  # an example name of the user's own module
    for name in ("data", "more", "crawl"):
        (tmp_path / name).mkdir()
    shutil.copy(DATA / "example.arc.gz", tmp_path / "data" / "a.arc.gz")
    shutil.copy(DATA / "example.arc.gz", tmp_path / "crawl" / "a.arc.gz")
    shutil.copy(DATA / "example.warc.gz", tmp_path / "more" / "b.warc.gz")
    (tmp_path / "paths.txt").write_text("# nothing more\n")
    config = tmp_path / "pipeline.yaml"
    config.write_text(yaml.safe_dump(data))
    monkeypatch.setenv("OUT", str(tmp_path / "out"))
    code, err = cli("run", str(config))
    assert code == 0, err
    assert "quarantined 0" in err


def test_readme_says_where_the_tests_read_samples():
    text = (ROOT / "README.md").read_text()
    assert "../shared/samples" in text and "CRAWLMILL_SAMPLES" in text


def test_an_input_that_wrote_no_file_still_resumes(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    out = tmp_path / "out"
    args = [
        "convert",
        str(src),
        "--filter",
        "kind",
        "keep=conversion",
        "--to",
        "warc",
        "-o",
        str(out),
    ]
    code, err = cli(*args)
    assert code == 0 and "written 0" in err, err
    code, err = cli(*args)
    assert code == 0 and "1 already complete" in err, err


def test_collection_files_of_finalize_are_crawlmills_own(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "a.warc.gz")
    shutil.copy(DATA / "example.warc.gz", src / "b.warc.gz")
    out = tmp_path / "out"
    args = ["convert", str(src), "--to", "warc", "--option", "layout=clueweb09", "-o", str(out)]
    code, err = cli(*args)
    assert code == 0, err
    md5 = out / "ClueWeb_English_1.md5"
    first = md5.read_bytes()
    code, err = cli(*args)  # finalize writes its lists again, over its own files
    assert code == 0 and "2 already complete" in err, err
    assert md5.read_bytes() == first
    # another pipeline with --overwrite: the old collection lists go with the old outputs
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out), "--overwrite")
    assert code == 0, err
    assert sorted(_tree(out)) == ["a.warc.gz", "b.warc.gz"]
    code, err = cli("convert", str(src), "--to", "warc", "-o", str(out))
    assert code == 0 and "2 already complete" in err, err  # nothing of the old pipeline left


def test_a_foreign_file_at_a_later_rollover_name_fails_the_task_and_is_kept(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    out = tmp_path / "out"
    out.mkdir()
    (out / "x-00001.warc.gz").write_bytes(b"not crawlmill's")
    code, err = cli(
        "convert", str(src), "--to", "warc", "--option", "max_records=2", "-o", str(out)
    )
    assert code == 1, err
    assert f"{out / 'x-00001.warc.gz'} exists and crawlmill did not write it" in err
    assert (out / "x-00001.warc.gz").read_bytes() == b"not crawlmill's"
    assert not (out / "x-00000.warc.gz").exists()  # the task committed nothing


def test_the_issue_command_converts_to_warc_by_default_and_is_refused(tmp_path, capsys):
    """`crawlmill convert inplace --filter kind keep=response -o inplace`, as a user types it:
    `--to` defaults to WARC, and the run is refused before anything is written."""
    src = tmp_path / "inplace"
    src.mkdir()
    shutil.copy(DATA / "example.warc.gz", src / "x.warc.gz")
    before = _md5(src / "x.warc.gz")
    code, err = cli("convert", str(src), "--filter", "kind", "keep=response", "-o", str(src))
    assert code == 2, err
    assert _md5(src / "x.warc.gz") == before
    assert sorted(p.name for p in src.iterdir()) == ["x.warc.gz"]
    out = tmp_path / "out"
    code, err = cli("convert", str(src), "-o", str(out))
    assert code == 0, err
    assert _responses(out / "x.warc.gz") == _responses(src / "x.warc.gz")
