"""Issue 6, items 7, 16, 17, 18, 20 and 21, where a user meets them: the ``crawlmill`` command.

* 7: a file whose format is not detected never blocks the others (exit 3, reported);
* 16: every failure in the report is on stderr and makes the exit code non-zero;
* 17: a run that converts nothing says so and exits non-zero; known foreign formats are named;
* 18: one warnings summary line; ``written`` counts the records the writer adds;
* 20: ``inspect`` / ``plugins`` into a closed pipe end quietly; ``inspect`` exits 3 on damage;
* 21: inputs written after ``--filter NAME k=v`` are inputs.

Most runs use the toy plugin of tests/core/toy (reader ``toytext`` claims ``*.toy``); the
writer-added records use the real ARC reader and WARC writer on fixtures/legacy.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import build_parser, main

TOY_DIR = Path(__file__).resolve().parent / "toy"
FAKE_DIR = Path(__file__).resolve().parent / "fake_plugins"
TOY = "crawlmill_toy_plugin"
GOOD = "http://a.org/ hello\nhttp://b.org/ a-much-longer-payload\nhttp://c.org/ x\n"
LEGACY_ARC = Path(__file__).resolve().parents[2] / "fixtures" / "legacy" / "example-2008.arc.gz"
#: bytes no reader recognises, now or after detection learns to look past damage: no gzip
#: member, no version line, no ARC header line anywhere
GARBAGE = b"\x00" * 64 + bytes(range(1, 200)) * 3


@pytest.fixture(autouse=True)
def plugins_on_path(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(TOY_DIR))
    monkeypatch.syspath_prepend(str(FAKE_DIR))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    monkeypatch.setenv(
        "PYTHONPATH",
        os.pathsep.join([str(TOY_DIR), str(FAKE_DIR), os.environ.get("PYTHONPATH", "")]),
    )
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data)
    else:
        path.write_bytes(data)
    return path


def convert(capsys, out: Path, *argv) -> tuple[int, str, str]:
    return run_cli(
        capsys, "convert", *argv, "--plugin", TOY, "--to", "toyout", "-o", out, "--workers", "1"
    )


def report_of(out: Path) -> dict:
    return json.loads((out / ".crawlmill" / "report.json").read_text())


def outputs(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if not p.name.startswith("."))


# -- item 21: the --filter grammar -------------------------------------------------------------


def test_inputs_after_a_filters_options_are_inputs(tmp_path, capsys):
    a = write(tmp_path / "a.toy", GOOD)
    b = write(tmp_path / "b=c.toy", "http://d.org/ yy\n")  # a path with '=' is still a path
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", "--plugin", TOY, "--to", "toyout", "-o", out, "--workers", "1",
        "--filter", "threshold", "threshold=2", a, b,
    )  # fmt: skip
    assert code == 0, err
    assert outputs(out) == ["a.toy.out", "b=c.toy.out"]
    assert (out / "a.toy.out").read_text() == "# 1.0 \nhttp://c.org/ x\n"
    assert (out / "b=c.toy.out").read_text() == "# 1.0 \nhttp://d.org/ yy\n"


def test_inputs_around_options_are_all_inputs(tmp_path, capsys):
    a = write(tmp_path / "a.toy", GOOD)
    b = write(tmp_path / "b.toy", "http://d.org/ yy\n")
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", a, "--plugin", TOY, "--to", "toyout", b, "-o", out, "--workers", "1"
    )
    assert code == 0, err
    assert outputs(out) == ["a.toy.out", "b.toy.out"]


def test_the_first_word_without_equals_ends_a_filters_options():
    args = build_parser().parse_args(
        ["convert", "--to", "w", "-o", "o", "--filter", "size", "min_bytes=5", "max-x=[1]",
         "in/a.warc", "late=1", "--filter", "kind", "x.warc"]
    )  # fmt: skip
    assert args.filters == [("size", ["min_bytes=5", "max-x=[1]"]), ("kind", [])]
    assert args.late_inputs == ["in/a.warc", "late=1", "x.warc"]


def test_no_input_at_all_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert", "--plugin", TOY, "--to", "toyout", "-o", str(tmp_path / "out"),
              "--filter", "threshold", "threshold=2"])  # fmt: skip
    assert info.value.code == 2
    assert "required: INPUT" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    with pytest.raises(SystemExit) as info:  # an unknown option is still refused
        main(["convert", "a.toy", "--to", "toyout", "-o", str(tmp_path / "out"), "--bogus"])
    assert info.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


# -- item 20: pipes, inspect exit codes ----------------------------------------------------------


def test_plugins_into_a_closed_pipe_ends_quietly():
    proc = subprocess.Popen(
        ["crawlmill", "plugins"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader went away before the first line (`| head -0`)
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 0, err
    assert err == ""


def test_inspect_piped_into_head_ends_quietly(tmp_path):
    big = write(tmp_path / "big.toy", "".join(f"http://x.org/{i} p{i}\n" for i in range(20000)))
    result = subprocess.run(
        [
            "bash",
            "-o",
            "pipefail",
            "-c",
            f"crawlmill inspect {big} --plugin {TOY} -n 20000 | head -3",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert len(result.stdout.splitlines()) == 3


def test_inspect_exits_3_when_it_sees_damage(tmp_path, capsys):
    src = write(tmp_path / "d.toy", "http://a.org/ hello\n!oops\nhttp://b.org/ bye\n")
    code, out, _ = run_cli(capsys, "inspect", src, "--plugin", TOY)
    assert code == 3
    assert f"DAMAGE {src} at byte 20: bang line" in out
    clean = write(tmp_path / "c.toy", GOOD)
    assert run_cli(capsys, "inspect", clean, "--plugin", TOY)[0] == 0


def test_inspect_a_folder_that_is_not_a_collection_plans_it_as_convert_does(tmp_path, capsys):
    folder = tmp_path / "crawl"
    write(folder / "A-README", "notes\n")
    write(folder / "a.toy", GOOD)
    code, out, err = run_cli(capsys, "inspect", folder, "--plugin", TOY)
    assert code == 3, out + err  # the README would not be converted
    assert f"{folder}: a folder of 1 input(s), planned as `convert` plans it:" in out
    assert f"  not converted: {folder / 'A-README'}  (format not detected: text," in out
    assert f"first of 1 input(s): {folder / 'a.toy'}" in out and "#1" in out


def test_inspect_a_folder_nothing_in_which_is_read_says_so(tmp_path, capsys):
    folder = tmp_path / "crawl"
    write(folder / "A-README", "notes\n")
    code, out, err = run_cli(capsys, "inspect", folder, "--plugin", TOY)
    assert code == 2
    assert "not a collection" in out + err


def test_inspect_names_a_known_foreign_format(tmp_path, capsys):
    seq = write(tmp_path / "part-00000", b"Obj\x01\x04\x14avro.codec" + b"\x00" * 40)
    code, out, err = run_cli(capsys, "inspect", seq, "--plugin", TOY)
    assert code == 2
    assert "Avro object container file: no reader installed for it yet" in out
    assert "no reader recognises" not in out


# -- item 7: an undetected file never blocks the others ----------------------------------------


def test_an_undetected_file_named_on_the_command_line_does_not_block_the_others(tmp_path, capsys):
    good = write(tmp_path / "in" / "good.toy", GOOD)
    bad = write(tmp_path / "in" / "bad.warc.gz", GARBAGE)
    out = tmp_path / "out"
    code, _, err = convert(capsys, out, good, bad)
    assert code == 3, err
    assert outputs(out) == ["good.toy.out"]
    line = next(x for x in err.splitlines() if str(bad) in x)
    assert line.startswith("crawlmill: not converted") and "format" in line
    report = report_of(out)
    assert [n["path"] for n in report["not_converted"]] == [str(bad)]
    assert "read 3 = written 3" in err


def test_an_undetected_archive_in_a_folder_makes_the_run_exit_3(tmp_path, capsys):
    folder = tmp_path / "crawl"
    write(folder / "a.arc.gz", LEGACY_ARC.read_bytes())
    bad = write(folder / "b.warc.gz", GARBAGE)  # named like a WARC: meant to be converted
    write(folder / "NOTES.txt", "how this crawl was made\n")  # text next to data: named too
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "convert", folder, "--to", "warc", "-o", out, "--workers", "1")
    assert code == 3, err
    assert (out / "a.warc.gz").is_file()
    assert any(str(bad) in x and x.startswith("crawlmill: not converted") for x in err.splitlines())
    notes = str(folder / "NOTES.txt")
    assert any(x.startswith(f"crawlmill: not converted: {notes}: ") for x in err.splitlines())
    report = report_of(out)
    assert sorted(n["path"] for n in report["not_converted"]) == sorted([str(bad), notes])
    assert report["unclaimed"] == []


def test_a_text_file_next_to_data_is_named_and_the_run_exits_3(tmp_path, capsys):
    # issue 18: no file is skipped in silence; only .crc, _SUCCESS and dotfiles are
    folder = tmp_path / "crawl"
    write(folder / "a.toy", GOOD)
    write(folder / "NOTES.txt", "notes\n")
    write(folder / "a.toy.crc", "crc\n")
    write(folder / "_SUCCESS", "")
    write(folder / ".hidden", "x\n")
    code, _, err = convert(capsys, tmp_path / "out", folder)
    assert code == 3, err
    assert f"crawlmill: not converted: {folder / 'NOTES.txt'}: format not detected: text" in err
    assert [n["path"] for n in report_of(tmp_path / "out")["not_converted"]] == [
        str(folder / "NOTES.txt")
    ]


# -- item 17: a run that converts nothing ------------------------------------------------------


@pytest.mark.parametrize("content", ["empty", "side-files-only", "undetected-only"])
def test_a_run_that_converts_nothing_exits_non_zero_and_says_so(tmp_path, capsys, content):
    folder = tmp_path / "crawl"
    folder.mkdir()
    if content == "side-files-only":
        write(folder / "README", "nothing here\n")
    elif content == "undetected-only":
        write(folder / "x.warc.gz", GARBAGE)
    out = tmp_path / "out"
    code, _, err = convert(capsys, out, folder)
    assert code == 2, err
    assert "nothing to convert" in err
    assert not out.exists()


def test_a_glob_that_matches_nothing_exits_non_zero(tmp_path, capsys):
    code, _, err = convert(capsys, tmp_path / "out", str(tmp_path / "*.warc.gz"))
    assert code == 2 and "no file matches" in err


def test_a_foreign_format_file_is_named_as_such(tmp_path, capsys):
    good = write(tmp_path / "in" / "good.toy", GOOD)
    seq = write(tmp_path / "in" / "segment" / "data", b"Obj\x01" + b"\x00" * 60)
    out = tmp_path / "out"
    code, _, err = convert(capsys, out, tmp_path / "in")
    assert code == 3, err
    assert (
        f"crawlmill: not converted: {seq}: Avro object container file: no reader installed for it yet"
        in err
    )
    assert report_of(out)["not_converted"] == [
        {"path": str(seq), "reason": "Avro object container file: no reader installed for it yet"}
    ]
    assert good.exists()


# -- item 16: every failure is on stderr and non-zero ------------------------------------------

FINALIZE_FAILS = """\
from crawlmill.core import Writer, hookimpl

class BrokenFinalize(Writer):
    '''Writes nothing per record; its finalize raises.'''
    name = "broken-finalize"
    def open(self, ctx):
        self.ctx = ctx
    def write(self, record):
        pass
    def close(self):
        pass
    @classmethod
    def finalize(cls, root, options, tasks, create):
        raise RuntimeError("manifest went wrong")

@hookimpl
def crawlmill_register_writers(register):
    register(BrokenFinalize)
"""


def test_a_failure_found_after_the_tasks_is_printed_and_exits_1(tmp_path, capsys):
    write(tmp_path / "plugins" / "broken_finalize_xyz.py", FINALIZE_FAILS)
    src = write(tmp_path / "a.toy", GOOD)
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", src, "--plugin", TOY, "--plugin", "broken_finalize_xyz",
        "--to", "broken-finalize", "-o", out, "--workers", "1",
    )  # fmt: skip
    assert code == 1, err
    assert "crawlmill: error: broken-finalize finalize: RuntimeError: manifest went wrong" in err
    assert report_of(out)["failures"][0]["error"].endswith("manifest went wrong")


# -- item 18: warnings summary, records the writer adds ----------------------------------------


@pytest.mark.own_codes  # the fake plugin's codes (its messages' words)
def test_warnings_reach_the_terminal_as_one_summary_line(tmp_path, capsys):
    src = write(tmp_path / "w.txt", "R http://a/ response p\nW odd date\nW odd date\nW odd url\n")
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", src, "--plugin", "cm_fake", "--from", "fake-lines",
        "--to", "fake-jsonl", "-o", out, "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    report_path = out / ".crawlmill" / "report.json"
    assert f"3 warnings of 2 kinds (odd-date 2, odd-url 1); see {report_path}" in err
    assert "odd date" not in err  # the details are in the report, not on the terminal
    # the fake plugin's codes: its messages' words (cm_fake.code_of)
    assert report_of(out)["warnings"] == {"odd-date": 2, "odd-url": 1}
    assert report_of(out)["warning_examples"] == {"odd-date": "odd date", "odd-url": "odd url"}


def test_written_counts_the_warcinfo_the_writer_adds(tmp_path, capsys, need):
    warcio = need("warcio.archiveiterator")
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", LEGACY_ARC, "--to", "warc", "-o", out, "--workers", "1"
    )
    assert code == 0, err
    with open(out / "example-2008.warc.gz", "rb") as fh:
        in_file = sum(1 for _ in warcio.ArchiveIterator(fh))
    report = report_of(out)
    assert report["written"] == in_file
    assert report["added"] == 1  # crawlmill's warcinfo
    assert report["read"] + report["added"] == in_file  # nothing dropped or quarantined
    read = report["read"]
    assert f"read {read} + added 1 by the writer = written {read + 1} + dropped 0" in err


def test_the_arc_writer_counts_the_filedesc_it_adds(tmp_path, capsys):
    warc = tmp_path / "in.warc"
    body = b"hello"
    warc.write_bytes(
        b"WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
        b"WARC-Date: 2020-01-01T00:00:00Z\r\nWARC-Target-URI: http://a.org/\r\n"
        b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n" % (len(body), body)
    )
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "convert", warc, "--to", "arc", "-o", out, "--workers", "1")
    assert code == 0, err
    report = report_of(out)
    assert (report["read"], report["added"], report["written"]) == (1, 1, 2)
    assert "read 1 + added 1 by the writer = written 2" in err


def test_an_output_collision_found_after_the_tasks_is_printed_and_exits_1(tmp_path, capsys):
    a = write(tmp_path / "a.txt", "R http://a/ response p\n")
    b = write(tmp_path / "b.txt", "R http://b/ response q\n")
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", a, b, "--plugin", "cm_fake", "--to", "fake-jsonl",
        "--option", "path=same.out", "-o", out, "--workers", "1",
    )  # fmt: skip
    assert code == 1, err
    # a writer that plans no outputs: the second task to commit the name is refused (the
    # commit guard), or the check after the tasks finds the collision; either is printed
    errors = [
        line
        for line in err.splitlines()
        if line.startswith(("crawlmill: error: ", "crawlmill: task failed: "))
    ]
    assert any(
        "same.out" in line and ("also written for" in line or "refusing to replace" in line)
        for line in errors
    ), err
    assert "crawlmill: the run failed: 1 failure(s)" in err
    assert len(report_of(out)["failures"]) == 1


@pytest.mark.slow
def test_every_failure_of_a_run_is_on_stderr_once_with_a_closing_line(tmp_path, capsys):
    """Task failures in worker processes are printed as they happen; the end says the run
    failed and how often, so a script and a person both see it."""
    good = write(tmp_path / "in" / "a.txt", "R http://a/ response p\n")
    bad = write(tmp_path / "in" / "b.txt", "R http://b/ response q\nX reader exploded\n")
    out = tmp_path / "out"
    code, _, err = run_cli(
        capsys, "convert", good, bad, "--plugin", "cm_fake", "--to", "fake-jsonl",
        "-o", out, "--workers", "2",
    )  # fmt: skip
    assert code == 1, err
    failed = [line for line in err.splitlines() if "reader exploded" in line]
    assert failed == [
        f"crawlmill: task failed: {bad}: RuntimeError: reader exploded (after reading 1 "
        "record(s); none of this input's records written)"
    ]
    assert "crawlmill: the run failed: 1 failure(s)" in err
    assert [f["input"] for f in report_of(out)["failures"]] == [str(bad)]


def test_validate_lists_the_inputs_that_would_not_be_converted(tmp_path, capsys):
    write(tmp_path / "data" / "a.toy", GOOD)
    seq = write(tmp_path / "data" / "part-00000", b"Obj\x01" + b"\x00" * 20)
    pipeline = write(
        tmp_path / "p.yaml",
        f"plugins: [{TOY}]\ninputs: [data/]\nwriter: {{name: toyout}}\noutput: out\n",
    )
    code, out, err = run_cli(capsys, "validate", pipeline)
    assert code == 0, err
    assert "not converted (1, the run would exit 3):" in out
    assert f"  {seq}  (Avro object container file: no reader installed for it yet)" in out
    code, out, _ = run_cli(capsys, "validate", pipeline, "--json")
    assert json.loads(out)["not_converted"] == [
        {"path": str(seq), "reason": "Avro object container file: no reader installed for it yet"}
    ]
