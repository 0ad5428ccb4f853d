"""``crawlmill validate`` shows, per input, the output files the run would write (the writer's
``planned_outputs``), and refuses (exit 2) what ``run`` refuses at planning, with the same
message (core/run/ownership.py ``check_outputs``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import cli, warc_record


def project(tmp_path: Path, writer: str = "{name: warc, cdxj: true}", output="out"):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    # x.warc and x.warc.zst strip to one stem: naming keeps them apart
    (data / "x.warc").write_bytes(warc_record(1))
    (data / "x.warc.zst").write_bytes(_zstd(warc_record(2)))
    (data / "sub" / "y.warc").write_bytes(warc_record(3) + warc_record(4))
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        f"inputs: [data/]\nwriter: {writer}\noutput: {output}\nrun: {{workers: 1}}\n"
    )
    return pipeline


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return zstandard.ZstdCompressor().compress(data)


def _files(root: Path) -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and ".crawlmill" not in p.parts
    )


def test_validate_lists_the_outputs_the_run_then_writes(tmp_path, capsys):
    pipeline = project(tmp_path)
    code, out, err = cli("validate", str(pipeline))
    assert code == 0, err
    assert not (tmp_path / "out").exists()  # validate writes nothing
    listed = [line.split(" -> ", 1)[1].split(", ") for line in out.splitlines() if " -> " in line]
    assert len(listed) == 3, out
    code, js, err = cli("validate", str(pipeline), "--json")
    assert code == 0, err
    inputs = json.loads(js)["inputs"]
    assert [i["outputs"] for i in inputs] == listed
    assert [Path(i["path"]).name for i in inputs] == ["y.warc", "x.warc", "x.warc.zst"]

    code, _, err = cli("run", str(pipeline))
    assert code == 0, err
    written = _files(tmp_path / "out")
    assert sorted(p for paths in listed for p in paths) == written
    # one .warc.gz and its .cdxj per input, none shared
    assert len(written) == 6 and len({p.removesuffix(".cdxj") for p in written}) == 3
    # the run's own outputs are no obstacle to validating it again
    code, again, err = cli("validate", str(pipeline))
    assert code == 0, err
    assert again == out


def _error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("crawlmill: error:")]


@pytest.mark.parametrize(
    "case",
    ["two inputs, one name", "output inside the input folder", "a file crawlmill did not write"],
)
def test_validate_refuses_what_run_refuses_at_planning_with_the_same_message(
    tmp_path, capsys, case
):
    if case == "two inputs, one name":
        pipeline = project(tmp_path, "{name: warc, name_pattern: 'all{ext}'}")
        expect = "would both be written to all.warc.gz"
    elif case == "output inside the input folder":
        pipeline = project(tmp_path, output="data/out")
        expect = "is inside the input folder"
    else:
        pipeline = project(tmp_path)
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "x.warc.warc.gz").write_bytes(b"mine")
        expect = "x.warc.warc.gz"
    before = _files(tmp_path)
    code, out, err = cli("validate", str(pipeline))
    assert code == 2, out + err
    assert expect in err
    assert _files(tmp_path) == before  # nothing written
    validate_errors = _error_lines(err)
    assert validate_errors and all(str(pipeline) in line for line in validate_errors)

    code, _, err = cli("run", str(pipeline))
    assert code == 2, err
    assert _error_lines(err) == validate_errors
    assert _files(tmp_path) == before


def test_validate_shows_planning_warnings(tmp_path, capsys):
    """A forced reader detection disagrees with is a warning of the run's plan; so validate
    shows it."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "x.warc").write_bytes(warc_record(1))
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text("inputs: [data/x.warc]\nreader: arc\nwriter: warc\noutput: out\n")
    code, out, err = cli("validate", str(pipeline))
    assert code == 0, err
    assert "warnings (1):" in out
    assert "reader 'arc' is forced" in out
    code, js, _ = cli("validate", str(pipeline), "--json")
    assert json.loads(js)["warnings"] == [
        {
            "path": str(data / "x.warc"),
            "message": out.split(f"{data / 'x.warc'}: ", 1)[1].strip(),
            "code": "forced-reader",
        }
    ]
