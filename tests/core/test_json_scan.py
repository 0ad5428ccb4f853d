"""core/run/json_scan.py: a large JSON object read with its long lists item by item (what
``crawlmill status`` reads a stage listing and ``report.json`` with)."""

from __future__ import annotations

import json

import pytest
from crawlmill.core.run import json_scan
from crawlmill.core.run.json_scan import scan_json_object
from crawlmill.core.run.outputs import json_chunks


def _scan(path, names=("tasks",)):
    seen = {name: [] for name in names}
    found = scan_json_object(str(path), {name: seen[name].append for name in names})
    return found, seen


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
@pytest.mark.parametrize("indent", [None, 1, "chunks"])
def test_same_values_as_json_load(tmp_path, monkeypatch, chunk, indent):
    # numbers split at a chunk's end must not be cut short ("12345" read as "12")
    monkeypatch.setattr(json_scan, "_CHUNK", chunk)
    data = {
        "a": 12345, "b": [1.5, -2e10, "x,]}", {"k": [1, 2]}], "c": None, "d": {"e": "é"},
        "tasks": [{"n": i, "s": "t" * i} for i in range(25)] + [[], 7, "z"], "z": 123456789,
    }  # fmt: skip
    path = tmp_path / "x.json"
    if indent == "chunks":
        path.write_text("".join(json_chunks(data)))
    else:
        path.write_text(json.dumps(data, indent=indent))
    found, seen = _scan(path)
    assert seen["tasks"] == data["tasks"]
    assert found == {**data, "tasks": len(data["tasks"])}


def test_empty_object_and_list(tmp_path):
    (tmp_path / "a.json").write_text(" { } ")
    assert _scan(tmp_path / "a.json") == ({}, {"tasks": []})
    (tmp_path / "b.json").write_text('{"tasks": [ ], "x": 1}')
    assert _scan(tmp_path / "b.json") == ({"tasks": 0, "x": 1}, {"tasks": []})


def test_member_not_a_list_is_decoded_whole(tmp_path):
    (tmp_path / "a.json").write_text('{"tasks": {"a": 1}}')
    assert _scan(tmp_path / "a.json") == ({"tasks": {"a": 1}}, {"tasks": []})


@pytest.mark.parametrize(
    "text", ["[1, 2]", '{"a": 1', '{"a": 1,}', '{"a" 1}', '{"tasks": [1 2]}', '{"a": 1} x', ""]
)
def test_not_an_object_is_a_value_error(tmp_path, text):
    (tmp_path / "a.json").write_text(text)
    with pytest.raises(ValueError):
        _scan(tmp_path / "a.json")
