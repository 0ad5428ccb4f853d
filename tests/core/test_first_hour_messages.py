"""Issue 24, "Messages and exit codes" and "Finding the way": the text a user sees and the exit
code, for each message a new user met in the first hour."""

from __future__ import annotations

from pathlib import Path

from crawlmill.core.cli import main

ROOT = Path(__file__).resolve().parents[2]
LEGACY_ARC = ROOT / "fixtures" / "legacy" / "example-2008.arc.gz"


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
