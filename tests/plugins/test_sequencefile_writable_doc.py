"""docs/adding-a-writable.md: its example Writable runs as a plugin module (listed by
``crawlmill plugins``, used by the reader through the CLI, copied byte for byte), and
Writables are a registered kind with their own hook."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

from crawlmill.core import Writable, open_reader
from crawlmill.core.commands.cli import main
from crawlmill.core.registry import KINDS, Registry
from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "adding-a-writable.md"
H = "org.apache.hadoop.io."


def _module(tmp_path, monkeypatch) -> str:
    block = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)[0]
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "cm_doc_points.py").write_text(block, encoding="utf-8")
    monkeypatch.syspath_prepend(str(mods))
    return "cm_doc_points"


def _points_file(path: Path, values: list[bytes], value_class="org.example.Point") -> None:
    with path.open("wb") as fh:
        w = SequenceFileWriter(fh, H + "Text", value_class, sync_interval=100)
        for i, v in enumerate(values):
            url = b"http://example.com/%d" % i
            w.append(bytes([len(url)]) + url, v)
        w.close()


def test_writable_is_a_registered_kind_with_a_hook():
    reg = Registry.load()
    assert KINDS["writable"] is Writable
    assert reg.writable(H + "Text").name == H + "Text"
    assert reg.writable("long").name == H + "LongWritable"  # an old header alias
    assert reg.writable("org.example.Unknown") is None
    assert reg.components["writable"][H + "MapWritable"].plugin == "hadoop-writables"


def test_the_example_is_listed_read_and_copied(tmp_path, monkeypatch, capsys):
    mod = _module(tmp_path, monkeypatch)
    assert main(["plugins", "--json", "--plugin", mod]) == 0
    listed = {
        c["name"]: c
        for p in json.loads(capsys.readouterr().out)
        for c in p["components"]
        if c["kind"] == "writable"
    }
    assert (
        listed["org.example.Point"]["summary"]
        == "org.example.Point: two big-endian ints, x then y."
    )
    assert H + "Text" in listed and "org.commoncrawl.util.TextBytes" in listed

    src = tmp_path / "points" / "part-00000"
    src.parent.mkdir()
    _points_file(src, [struct.pack(">ii", 3, 4), struct.pack(">ii", -1, 7), b"\x00" * 7])
    out = tmp_path / "copy"
    assert (
        main(
            [
                "convert",
                str(src.parent),
                "--to",
                "sequencefile",
                "-o",
                str(out),
                "--plugin",
                mod,
                "--workers",
                "1",
            ]
        )
        == 0
    )
    report = json.loads((out / ".crawlmill" / "report.json").read_text())
    assert report["warnings"] == {"value-not-its-class": 1}
    assert (out / "part-00000.seq").read_bytes() == src.read_bytes()

    __import__(mod)
    with open_reader(src) as records:
        decoded = [r.extras["sequencefile"].get("decoded", {}).get("value") for r in records]
    assert decoded == [(3, 4), (-1, 7), None]
    assert [w.code for w in records.warnings] == ["value-not-its-class"]


def test_a_class_no_writable_answers_to_is_read_and_copied_raw(tmp_path, capsys):
    src = tmp_path / "odd.seq"
    _points_file(src, [b"\x01\x02", b"", b"\xff" * 300], value_class="com.example.Unknown")
    with open_reader(src) as records:
        got = list(records)
    assert [r.payload for r in got] == [b"\x01\x02", b"", b"\xff" * 300]
    assert all(
        "decoded" not in r.extras["sequencefile"]
        or "value" not in r.extras["sequencefile"]["decoded"]
        for r in got
    )
    assert records.ok and not records.warnings
    out = tmp_path / "out"
    assert (
        main(["convert", str(src), "--to", "sequencefile", "-o", str(out), "--workers", "1"]) == 0
    )
    assert (out / "odd.seq").read_bytes() == src.read_bytes()
