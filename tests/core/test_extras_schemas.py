"""Every ``Record.extras`` key a built-in reader emits has a TypedDict schema in
``crawlmill.core.extras`` (issue 21 item 2), and the records readers make keep to it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from crawlmill import open_reader
from crawlmill.core.extras import EXTRAS, RecordExtras
from crawlmill.core.registry import Registry

from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def _extras_keys_in_readers() -> set[str]:
    """The top-level keys of the ``extras`` mappings readers build: dict literals given as a
    ``Record(..., extras={...})`` keyword or as the ``extras`` positional of ``Record``,
    ``{"arc": ..., "neutral": ...}`` returned by a helper, and ``<x>extras["key"] = {...}``."""
    keys: set[str] = set()
    for path in sorted((ROOT / "plugins" / "readers").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        consts = {
            t.id: n.value.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
            for t in n.targets
            if isinstance(t, ast.Name) and isinstance(n.value.value, str)
        }

        def key_of(node: ast.AST | None, consts: dict = consts) -> str | None:
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                return node.value
            if isinstance(node, ast.Name):
                return consts.get(node.id)
            return None

        for node in ast.walk(tree):
            dicts = []
            if isinstance(node, ast.keyword) and node.arg == "extras":
                dicts.append(node.value)
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Record":
                dicts += [a for a in node.args if isinstance(a, ast.Dict)]
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.IfExp):
                dicts += [node.value.body, node.value.orelse]
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if (
                        isinstance(t, ast.Subscript)
                        and isinstance(t.value, ast.Name)
                        and t.value.id in ("all_extras", "extras")
                        and isinstance(node.value, ast.Dict)
                        and key_of(t.slice) in EXTRAS
                    ):
                        keys.add(key_of(t.slice))  # type: ignore[arg-type]
            for d in dicts:
                if isinstance(d, ast.Dict):
                    keys.update(k for k in map(key_of, d.keys) if k is not None)
    return keys


def test_every_key_readers_emit_has_a_schema():
    emitted = _extras_keys_in_readers()
    # the scan finds the keys (so a new one would be found too)
    assert {"warc", "arc", "ntcir", "cc_metadata", "nutch", "neutral"} <= emitted
    assert sorted(emitted - set(EXTRAS)) == []
    assert set(RecordExtras.__annotations__) == set(EXTRAS)


def _check(records) -> set[str]:
    seen: set[str] = set()
    for record in records:
        for key, value in record.extras.items():
            assert key in EXTRAS, f"{record.source}: extras key {key!r} has no schema"
            schema = EXTRAS[key]
            unknown = set(value) - set(schema.__annotations__)
            assert not unknown, f"extras[{key!r}] holds keys {sorted(unknown)} not in {schema}"
            seen.add(key)
    return seen


INPUTS = [
    (FIXTURES / "legacy" / "example-2008.arc.gz", None, {"arc", "neutral"}),
    (FIXTURES / "legacy" / "clueweb09-style-segment1.warc.gz", None, {"warc"}),
    (FIXTURES / "nutch-legacy" / "20050301120000", "nutch-legacy", {"nutch-legacy"}),
    (SAMPLES / "cc2012-synthetic" / "text-gzip", "cc2012", {"cc_metadata"}),
    (SAMPLES / "apache-nutch" / "test-segments" / "20150309101625", "nutch-segment", {"nutch"}),
]


def _read_all(path: Path, reader: str | None) -> set[str]:
    """The extras keys of every record of a file, or of every unit of a collection folder
    (as its reader's ``discover`` lists them)."""
    if not path.is_dir():
        with open_reader(str(path), reader) as records:
            return _check(records)
    cls = Registry.load().get("reader", reader)
    seen: set[str] = set()
    for unit in cls.discover(str(path), cls.Options()) or []:
        with open_reader(unit, reader) as records:
            seen |= _check(records)
    return seen


@pytest.mark.parametrize(("path", "reader", "keys"), INPUTS, ids=lambda v: getattr(v, "name", ""))
def test_records_keep_to_their_schemas(path, reader, keys):
    if not path.exists():
        pytest.skip(f"{path} is not here")
    assert keys <= _read_all(path, reader)


def test_ntcir_records_keep_to_their_schema(tmp_path):
    from tests.plugins.ntcir_tree import build_tree

    build_tree(tmp_path / "nw", sites=2, per=2)
    assert "ntcir" in _read_all(tmp_path / "nw", "ntcir")


def test_nw1000g_records_keep_to_the_ntcir_schema(tmp_path):
    from tests.plugins.ntcir_tree import build_nw1000g

    build_nw1000g(tmp_path / "nw1000g")
    assert "ntcir" in _read_all(tmp_path / "nw1000g", "ntcir")
