"""Issue 24, "Messages and exit codes" and "Finding the way": the text a user sees and the exit
code, for each message a new user met in the first hour."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from crawlmill.core.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
LEGACY_ARC = ROOT / "fixtures" / "legacy" / "example-2008.arc.gz"
WARC_SAMPLE = ROOT / "fixtures" / "legacy" / "clueweb09-style-segment1.warc.gz"


def test_to_a_layout_name_says_what_to_type(tmp_path, capsys):
    for layout in ("clueweb09", "chuweb21"):
        code = main(["convert", str(LEGACY_ARC), "--to", layout, "-o", str(tmp_path / "o")])
        err = capsys.readouterr().err
        assert code == 2
        assert f"{layout!r} is a layout, not a writer" in err
        assert f"--to warc --option layout={layout}" in err
    assert not (tmp_path / "o").exists()


def test_to_in_capitals_suggests_the_lower_case_name(tmp_path, capsys):
    code = main(["convert", str(LEGACY_ARC), "--to", "WARC", "-o", str(tmp_path / "o")])
    assert code == 2
    assert "did you mean 'warc'?" in capsys.readouterr().err


def test_the_suggested_layout_command_works(tmp_path, capsys):
    out = tmp_path / "o"
    code = main(
        ["convert", str(LEGACY_ARC), "--to", "warc", "--option", "layout=clueweb09", "-o", str(out)]
    )
    assert code == 0, capsys.readouterr().err
    assert list(out.glob("ClueWeb09_*/*/*.warc.gz"))


def test_chuweb21d_usage_comment_works_as_written(tmp_path):
    """The usage lines of docs/examples/chuweb21d.yaml, typed as they are in the checkout's top
    folder (here: a folder whose docs/ is the checkout's), read IN and write OUT there."""
    example = ROOT / "docs" / "examples" / "chuweb21d.yaml"
    lines = [
        line[1:].strip()
        for line in example.read_text().splitlines()
        if line.startswith("#") and "crawlmill run" in line
    ]
    assert len(lines) == 2
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    (tmp_path / "chuweb21").mkdir()
    shutil.copy(WARC_SAMPLE, tmp_path / "chuweb21" / "a.warc.gz")
    before = sorted(p.name for p in example.parent.iterdir())
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(
        ["bash", "-c", lines[0]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / lines[0].split("OUT=$PWD/")[1].split()[0]
    assert list(out.glob("*.warc.gz")) or list(out.rglob("*.warc.gz"))
    assert sorted(p.name for p in example.parent.iterdir()) == before


def test_spark_install_hint_is_one_that_works(capsys):
    """crawlmill is not on PyPI: ``pip install 'crawlmill[spark]'`` fails; every place that
    says how to get Spark says to install the checkout's extra instead."""
    try:
        main(["convert", "--help"])
    except SystemExit as stop:
        assert stop.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "pip install '.[spark]' in the crawlmill checkout" in help_text
    from crawlmill.core.run import spark_executor

    for text in (
        help_text,
        (ROOT / "README.md").read_text(),
        (ROOT / "docs" / "config.md").read_text(),
        Path(spark_executor.__file__).read_text(),
    ):
        assert "crawlmill[spark]" not in text


def test_dedup_runs_usage_errors_exit_2(tmp_path, capsys):
    (tmp_path / "a.run").write_text("1 Q0 d1 1 1.0 r\n")
    code = main(
        [
            "dedup-runs",
            str(tmp_path / "nothing"),
            "--run",
            str(tmp_path / "a.run"),
            "-o",
            str(tmp_path / "d"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "no such cluster table or output folder" in err and "nothing was written" in err
    assert main(["dedup-runs", str(tmp_path), "-o", str(tmp_path / "d")]) == 2
    assert "give --run and/or --qrels files" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()


def test_get_several_keys_prints_each_key_and_names_the_missing_one(samples, capsys):
    folder = samples / "hadoop-oracle-generated" / "mapfile_none"
    keys = ["http://example.com/0001", "nope", "http://example.com/0002"]
    assert main(["get", str(folder), *keys]) == 1  # docs: 1 when a key is not found
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "# key: http://example.com/0001" and lines[1].startswith("value 1 ")
    assert lines[2:4] == ["# key: nope", "# (not found)"]
    assert lines[4] == "# key: http://example.com/0002" and lines[5].startswith("value 2 ")
    assert f"'nope' is not a key of {folder}" in err
    assert "1 of 3 key(s) not found: 'nope'" in err
    # one key: the value alone, as before
    assert main(["get", str(folder), "http://example.com/0001"]) == 0
    assert capsys.readouterr().out.startswith("value 1 ")


def test_output_under_a_file_is_a_clear_refusal(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    out = tmp_path / "afile" / "out"
    assert main(["convert", str(LEGACY_ARC), "-o", str(out), "--progress", "never"]) == 2
    err = capsys.readouterr().err
    assert f"cannot create or write the output folder {out}" in err
    assert "a part of its path is a file, not a folder" in err
    assert "choose a folder you can write" in err and "Errno" not in err


def test_output_without_permission_is_a_clear_refusal(tmp_path, capsys, monkeypatch):
    """Running as root, permission bits do not stop a write: the PermissionError a user without
    rights gets is raised here by os.makedirs for the .crawlmill folder."""
    real = os.makedirs

    def makedirs(name, *args, **kwargs):
        if ".crawlmill" in str(name):
            raise PermissionError(13, "Permission denied", str(name))
        return real(name, *args, **kwargs)

    monkeypatch.setattr(os, "makedirs", makedirs)
    out = tmp_path / "ro"
    assert main(["convert", str(LEGACY_ARC), "-o", str(out), "--progress", "never"]) == 2
    err = capsys.readouterr().err
    assert f"cannot create or write the output folder {out}: you have no permission" in err
    assert "nothing was run and nothing was written" in err and "Errno" not in err


def test_an_empty_warc_gz_is_named(tmp_path, capfd):
    empty = tmp_path / "in" / "a.warc.gz"
    empty.parent.mkdir()
    empty.write_bytes(b"")
    out = tmp_path / "out"
    assert main(["convert", str(empty), "-o", str(out), "--progress", "never"]) == 0
    err = capfd.readouterr().err
    assert f"{empty}: empty file (0 bytes), no records [empty-input]" in err
    assert "1 warning of 1 kind (empty-input 1)" in err
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["warnings"] == {"empty-input": 1}
    assert "empty-input" in (ROOT / "docs" / "problems.md").read_text()


def test_output_equal_to_the_input_folder_is_one_error_with_a_working_way_out(tmp_path, capsys):
    folder = tmp_path / "crawl"
    folder.mkdir()
    shutil.copy(LEGACY_ARC, folder / "a.arc.gz")
    for extra in ([], ["--overwrite"]):
        code = main(["convert", str(folder), "-o", str(folder), "--progress", "never", *extra])
        err = capsys.readouterr().err
        assert code == 2
        assert err.count("error:") == 1, err
        assert f"choose an output folder outside the inputs, such as {folder}-out" in err
        assert "--overwrite" not in err
    assert sorted(p.name for p in folder.iterdir()) == ["a.arc.gz"]
    assert main(["convert", str(folder), "-o", f"{folder}-out", "--progress", "never"]) == 0


def test_an_input_file_as_output_is_one_error(tmp_path, capsys):
    shutil.copy(LEGACY_ARC, tmp_path / "a.arc.gz")
    code = main(["convert", str(tmp_path / "a.arc.gz"), "--to", "arc", "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("error:") == 1, err
    assert "is an input of this run; choose an output folder outside the inputs" in err
    assert "--overwrite" not in err


def test_run_refusal_does_not_suggest_an_option_run_lacks(tmp_path, capsys):
    out = tmp_path / "out"
    config = tmp_path / "p.yaml"
    for writer in ("warc", "arc"):
        config.write_text(f"version: 1\ninputs: [{LEGACY_ARC}]\nwriter: {writer}\noutput: {out}\n")
        code = main(["run", str(config), "--progress", "never"])
    err = capsys.readouterr().err
    assert code == 2
    assert "holds the outputs of another pipeline" in err
    assert "(-o)" not in err and "run: `output:` in the pipeline file" in err
