"""Environment interpolation on parsed config values."""

from __future__ import annotations

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.interpolate import interpolate, interpolate_string

ENV = {"OUT": "/data/out", "EMPTY": "", "N": "4"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${OUT}", "/data/out"),
        ("${OUT}/warc", "/data/out/warc"),
        ("pre-${N}-${N}", "pre-4-4"),
        ("${MISSING:-./out}", "./out"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${EMPTY-fallback}", ""),
        ("${MISSING-fallback}", "fallback"),
        ("${OUT:-unused}", "/data/out"),
        ("${MISSING:-}", ""),
        ("${MISSING:-a:b-c}", "a:b-c"),
        ("$$HOME", "$HOME"),
        ("$${OUT}", "${OUT}"),
        (r"\.html$", r"\.html$"),
        ("cost $5", "cost $5"),
        ("no dollars", "no dollars"),
        ("${N:?must be set}", "4"),
    ],
)
def test_interpolate_string(text, expected):
    assert interpolate_string(text, ENV) == expected


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("${MISSING}", "MISSING is not set"),
        ("${MISSING:?give the output folder}", "give the output folder"),
        ("${EMPTY:?}", "EMPTY: is empty"),
        ("${MISSING?}", "MISSING: is not set"),
        ("${OUT", "unclosed"),
        ("${1BAD}", "invalid variable reference"),
        ("${OUT:+x}", "invalid variable reference"),
    ],
)
def test_interpolate_string_errors(text, fragment):
    with pytest.raises(ValueError) as info:
        interpolate_string(text, ENV)
    assert fragment in str(info.value)


def test_only_string_leaves_change_and_types_stay():
    data = {"output": "${OUT}", "run": {"workers": 2, "resume": True}, "paths": ["${N}.warc", 7]}
    assert interpolate(data, ENV) == {
        "output": "/data/out",
        "run": {"workers": 2, "resume": True},
        "paths": ["4.warc", 7],
    }


def test_keys_are_not_interpolated():
    assert interpolate({"${OUT}": "x"}, ENV) == {"${OUT}": "x"}


def test_value_cannot_inject_structure():
    env = {"EVIL": "x\nwriter: {name: other}"}
    assert interpolate({"output": "${EVIL}"}, env) == {"output": "x\nwriter: {name: other}"}


def test_every_failing_place_is_reported():
    data = {"output": "${A}", "filters": [{"name": "size"}, {"name": "${B:?say which filter}"}]}
    with pytest.raises(ConfigError) as info:
        interpolate(data, {})
    locations = dict(info.value.problems)
    assert set(locations) == {"output", "filters[1].name"}
    assert "A is not set" in locations["output"]
    assert "say which filter" in locations["filters[1].name"]


def test_default_env_is_os_environ(monkeypatch):
    monkeypatch.setenv("CRAWLMILL_TEST_VAR", "yes")
    assert interpolate({"x": "${CRAWLMILL_TEST_VAR}"}) == {"x": "yes"}
