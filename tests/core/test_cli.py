"""The ``crawlmill`` command line: help, convert/run exit codes, validate, inspect, plugins.

The runs use the toy plugin in tests/core/toy (reader ``toytext``, filter ``threshold``,
writer ``toyout``), so these tests do not depend on the format plugins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.commands.cli import main

from tests.helpers import cli

TOY_DIR = Path(__file__).resolve().parent / "toy"
TOY = "crawlmill_toy_plugin"
GOOD_LINES = "http://a.org/ hello\nhttp://b.org/ a-much-longer-payload\nhttp://c.org/ x\n"


@pytest.fixture(autouse=True)
def toy_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(TOY_DIR))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(TOY_DIR), os.environ.get("PYTHONPATH", "")])
    )
    monkeypatch.delenv("CRAWLMILL_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("CRAWLMILL_DISABLE_PLUGINS", raising=False)


def toy_file(tmp_path: Path, text: str = GOOD_LINES, name: str = "in.toy") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- help ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [None, "convert", "run", "validate", "inspect", "plugins"])
def test_help_explains_itself_with_an_example(capsys, command):
    argv = ["--help"] if command is None else [command, "--help"]
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "example" in out
    assert f"crawlmill {command or 'convert'} " in out  # an example command line


def test_console_script_is_installed():
    result = subprocess.run(["crawlmill", "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and "convert" in result.stdout


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert", "x.toy"])  # no --to / -o
    assert info.value.code == 2


# -- convert ---------------------------------------------------------------------------------


def test_convert_ok_exits_0_and_writes(tmp_path, capsys):
    src = toy_file(tmp_path)
    out = tmp_path / "out"
    code, _, err = cli(
        "convert", str(src), "--plugin", TOY, "--to", "toyout", "--option", "version=1.1",
        "--filter", "threshold", "threshold=10", "-o", str(out), "--workers", "1",
    )  # fmt: skip
    assert code == 0, err
    assert (out / "in.toy.out").read_text() == "# 1.1 \nhttp://a.org/ hello\nhttp://c.org/ x\n"
    assert "read 3 = written 2 + dropped 1 (threshold:too-long 1) + quarantined 0" in err


@pytest.mark.slow
def test_convert_detects_the_reader_and_takes_inputs_after_a_filter(tmp_path, capsys):
    a = toy_file(tmp_path, name="a.toy")
    b = toy_file(tmp_path, "http://d.org/ yy\n", name="b.toy")
    out = tmp_path / "out"
    code, _, err = cli(
        "convert", str(a), "--plugin", TOY, "--to", "toyout", "-o", str(out),
        "--filter", "threshold", "threshold=2", str(b), "--workers", "2",
    )  # fmt: skip
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        "a.toy.out",
        "b.toy.out",
    ]
    assert (out / "b.toy.out").read_text() == "# 1.0 \nhttp://d.org/ yy\n"
    assert (out / "a.toy.out").read_text() == "# 1.0 \nhttp://c.org/ x\n"


def test_convert_with_damage_exits_3(tmp_path, capsys):
    src = toy_file(tmp_path, GOOD_LINES + "!broken line\n")
    code, _, err = cli(
        "convert", str(src), "--plugin", TOY, "--to", "toyout", "-o", str(tmp_path / "out"),
        "--workers", "1",
    )  # fmt: skip
    assert code == 3, err
    assert "quarantined 1" in err
    assert str(src) in err  # the damage is reported with its file


def test_convert_on_error_fail_exits_1(tmp_path, capsys):
    src = toy_file(tmp_path, "!broken line\n" + GOOD_LINES)
    code, _, err = cli(
        "convert", str(src), "--plugin", TOY, "--to", "toyout", "-o", str(tmp_path / "out"),
        "--on-error", "fail", "--workers", "1",
    )  # fmt: skip
    assert code == 1, err
    assert "bang line" in err
    # what the run did before it stopped is summed up too
    assert "\nread " in err and " = written " in err  # the accounting line
    assert "crawlmill: the run failed: 1 failure(s)" in err


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--to", "toyoot"], "writer: unknown writer 'toyoot'; did you mean 'toyout'?"),
        (["--to", "toyout", "--option", "version=2.0"], "writer.version:"),
        (["--to", "toyout", "--filter", "threshold", "threshold=99"], "filters[0].threshold:"),
        (["--to", "toyout", "--filter", "nosuch"], "filters[0]: unknown filter 'nosuch'"),
        (["--to", "toyout", "--from", "toytxt"], "reader: unknown reader 'toytxt'"),
        (["--to", "toyout", "--workers", "0"], "run.workers:"),
    ],
)
def test_convert_config_errors_exit_2_and_write_nothing(tmp_path, capsys, extra, fragment):
    src = toy_file(tmp_path)
    out = tmp_path / "out"
    code, _, err = cli("convert", str(src), "--plugin", TOY, "-o", str(out), *extra)
    assert code == 2
    assert fragment in err
    assert not out.exists()


def test_convert_missing_input_exits_2(tmp_path, capsys):
    out = tmp_path / "out"
    code, _, err = cli(
        "convert",
        str(tmp_path / "nope.toy"),
        "--plugin",
        TOY,
        "--to",
        "toyout",
        "-o",
        str(out),
    )
    assert code == 2, err
    assert "nope.toy" in err
    assert not out.exists() or not any(out.iterdir())


# -- run / validate --------------------------------------------------------------------------

PIPELINE = """\
version: 1
plugins: [crawlmill_toy_plugin]
inputs: [data/]
filters:
  - {name: threshold, threshold: 10}
writer: {name: toyout, label: "${LABEL:-plain}"}
output: ${OUT:-out}
run: {workers: 1}
"""


def make_project(tmp_path: Path, pipeline: str = PIPELINE) -> Path:
    (tmp_path / "data").mkdir()
    toy_file(tmp_path / "data")
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(pipeline))
    return path


def test_run_pipeline(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LABEL", "env-label")
    monkeypatch.chdir(tmp_path.parent)  # paths are relative to the config, not the cwd
    path = make_project(tmp_path)
    code, _, err = cli("run", str(path))
    assert code == 0, err
    assert (
        tmp_path / "out" / "in.toy.out"
    ).read_text() == "# 1.0 env-label\nhttp://a.org/ hello\nhttp://c.org/ x\n"
    assert "read 3 = written 2 + dropped 1 (threshold:too-long 1) + quarantined 0" in err


def test_run_flags_override_the_config(tmp_path, capsys):
    path = make_project(tmp_path)
    (tmp_path / "data" / "in.toy").write_text("!bad\n" + GOOD_LINES)
    code, _, err = cli("run", str(path), "--on-error", "fail")
    assert code == 1, err


BAD_PIPELINE = """\
version: 1
plugins: [crawlmill_toy_plugin]
inputs: [data/]
reader: toytxt
filters:
  - {name: threshold, threshold: 100}
writer: {name: toyout, verison: "1.1"}
output: out
"""


@pytest.mark.parametrize("command", ["run", "validate"])
def test_bad_config_exits_2_lists_every_problem_and_writes_nothing(tmp_path, capsys, command):
    path = make_project(tmp_path, BAD_PIPELINE)
    code, out, err = cli(command, str(path))
    assert code == 2
    assert f"{path}: reader: unknown reader 'toytxt'; did you mean 'toytext'?" in err
    assert f"{path}: filters[0].threshold: " in err
    assert f"{path}: writer.verison: unknown option 'verison'; did you mean 'version'?" in err
    assert not (tmp_path / "out").exists()
    assert out == ""


def test_bad_config_via_the_console_script(tmp_path):
    path = make_project(tmp_path, BAD_PIPELINE)
    result = subprocess.run(
        ["crawlmill", "run", str(path)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "filters[0].threshold" in result.stderr
    assert not (tmp_path / "out").exists()


def test_validate_prints_the_resolved_pipeline_and_inputs(tmp_path, capsys):
    path = make_project(tmp_path)
    code, out, err = cli("validate", str(path))
    assert code == 0, err
    assert "threshold: 10" in out
    assert 'label: "plain"' in out
    assert f"{tmp_path / 'data' / 'in.toy'}  [toytext] -> (named while writing)" in out
    assert not (tmp_path / "out").exists()  # validate runs nothing

    code, out, _ = cli("validate", str(path), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["pipeline"]["writer"] == {
        "name": "toyout",
        "options": {"version": "1.0", "label": "plain"},
    }
    assert data["pipeline"]["output"] == str(tmp_path / "out")
    assert data["inputs"] == [
        {
            "path": str(tmp_path / "data" / "in.toy"),
            "relpath": "in.toy",
            "reader": "toytext",
            "parts": {},  # a single file: no parts
            "outputs": None,  # the toy writer does not plan its outputs
        }
    ]
    assert data["claimed"] == [] and data["not_converted"] == []


def test_validate_reports_missing_inputs(tmp_path, capsys):
    path = make_project(tmp_path, PIPELINE.replace("[data/]", "[data/, nothere/*.toy]"))
    code, _, err = cli("validate", str(path))
    assert code == 2
    assert "inputs.paths[1]" in err


# -- inspect ---------------------------------------------------------------------------------


def test_inspect_shows_ranking_records_and_damage(tmp_path, capsys):
    src = toy_file(tmp_path, "http://a.org/ hello\n!oops\nhttp://b.org/ bye\nhttp://c.org/ zz\n")
    code, out, err = cli("inspect", str(src), "--plugin", TOY, "--records", "2")
    assert code == 3, err  # damage seen
    assert "toytext" in out and "0.80" in out
    assert "url:          http://a.org/" in out
    assert "url:          http://b.org/" in out
    assert "http://c.org/" not in out  # only 2 records
    assert "payload:      5 bytes" in out
    assert f"DAMAGE {src} at byte 20: bang line" in out


def test_inspect_unrecognised_file_asks_for_from(tmp_path, capsys):
    src = tmp_path / "mystery.bin"
    src.write_bytes(b"\x00\x01 nothing known")
    code, out, err = cli("inspect", str(src), "--plugin", TOY)
    assert code == 2
    assert "no reader recognises" in out and "--from" in err
    code, out, _ = cli("inspect", str(src), "--plugin", TOY, "--from", "toytext")
    assert code == 0 and "reading with: toytext" in out


# -- plugins ---------------------------------------------------------------------------------


def test_plugins_json_structure(capsys):
    code, out, _ = cli("plugins", "--json", "--plugin", TOY)
    assert code == 0
    listing = {p["name"]: p for p in json.loads(out)}
    basic = listing["basic-filters"]
    assert basic["package"] == "crawlmill" and basic["version"] and basic["status"] == "ok"
    assert basic["hooks"] == ["crawlmill_register_filters"]
    comps = {c["name"]: c for c in basic["components"]}
    assert {"kind", "url-match", "http-status", "size"} <= set(comps)
    size = comps["size"]
    assert size["kind"] == "filter" and size["summary"]
    min_bytes = next(o for o in size["options"] if o["name"] == "min_bytes")
    assert min_bytes == {
        "name": "min_bytes",
        "type": "int",
        "default": 0,
        "required": False,
        "description": min_bytes["description"],
    }
    assert min_bytes["description"]
    toy = listing[TOY]
    assert {(c["kind"], c["name"]) for c in toy["components"]} == {
        ("reader", "toytext"),
        ("filter", "threshold"),
        ("writer", "toyout"),
    }
    assert "crawlmill_detect_format" in toy["hooks"]


def test_failed_plugin_is_listed_and_the_others_load(capsys):
    code, out, _ = cli("plugins", "--json", "--plugin", "no_such_module_xyz", "--plugin", TOY)
    assert code == 0
    listing = {p["name"]: p for p in json.loads(out)}
    failed = listing["no_such_module_xyz"]
    assert failed["status"] == "failed" and "ModuleNotFoundError" in failed["error"]
    assert listing[TOY]["status"] == "ok" and listing["basic-filters"]["status"] == "ok"
    code, out, _ = cli("plugins", "--plugin", "no_such_module_xyz")
    assert "no_such_module_xyz" in out and "failed" in out and "error: ModuleNotFoundError" in out


def test_plugins_text_lists_components_and_options(capsys):
    code, out, _ = cli("plugins", "--plugin", TOY)
    assert code == 0
    assert "filter threshold: Drop payloads longer than the threshold." in out
    assert "threshold (int, default 10): longest payload kept" in out


def test_load_and_disable_switches(capsys, monkeypatch):
    monkeypatch.setenv("CRAWLMILL_LOAD_PLUGINS", "basic-filters")
    code, out, _ = cli("plugins", "--json")
    shown = {p["name"]: p["status"] for p in json.loads(out)}
    assert shown == {"basic-filters": "ok"}  # the others are blocked and hidden
    code, out, _ = cli("plugins", "--json", "--all")
    statuses = {p["name"]: p["status"] for p in json.loads(out)}
    assert statuses["basic-filters"] == "ok"
    assert len(statuses) > 1 and set(statuses.values()) == {"ok", "blocked"}


def test_plugins_in_a_fresh_process():
    env = dict(os.environ, CRAWLMILL_DISABLE_PLUGINS="")
    result = subprocess.run(
        [sys.executable, "-m", "crawlmill.core.commands.cli", "plugins", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    names = {p["name"] for p in json.loads(result.stdout)}
    assert "basic-filters" in names


def test_plugins_reports_duplicates_and_misspelt_hooks(tmp_path, capsys, monkeypatch):
    (tmp_path / "dup_plugin_xyz.py").write_text(
        textwrap.dedent(
            """\
            from crawlmill.core import Filter, hookimpl

            class Other(Filter):
                '''Another filter called threshold.'''
                name = "threshold"
                def apply(self, record):
                    return record

            @hookimpl
            def crawlmill_register_filters(register):
                register(Other)
            """
        )
    )
    (tmp_path / "typo_plugin_xyz.py").write_text(
        "def crawlmill_register_filter(register):\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code, out, _ = cli(
        "plugins",
        "--plugin",
        TOY,
        "--plugin",
        "dup_plugin_xyz",
        "--plugin",
        "typo_plugin_xyz",
    )
    assert code == 0
    assert "warning: filter 'threshold' from plugin 'dup_plugin_xyz' refused" in out
    code, out, _ = cli("plugins", "--json", "--plugin", "typo_plugin_xyz")
    typo = {p["name"]: p for p in json.loads(out)}["typo_plugin_xyz"]
    assert typo["status"] == "failed" and "crawlmill_register_filter" in typo["error"]


def test_run_with_missing_inputs_exits_2_naming_the_config(tmp_path, capsys):
    path = make_project(tmp_path, PIPELINE.replace("[data/]", "[nothere/*.toy]"))
    code, _, err = cli("run", str(path))
    assert code == 2
    assert f"{path}: inputs.paths[0]" in err
    assert not (tmp_path / "out").exists()
