"""Pipeline configs: the three syntaxes, interpolation, paths, and every error with its place."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from crawlmill.core.config import (
    component_from_assignments,
    load_pipeline,
    read_config_file,
    validate_component,
)
from crawlmill.core.errors import ConfigError
from crawlmill.core.registry import Registry
from crawlmill.core.spec import PipelineSpec

TOY_DIR = Path(__file__).resolve().parent / "toy"


@pytest.fixture
def registry(monkeypatch) -> Registry:
    """Only the toy plugin and the basic filters: independent of the format plugins."""
    monkeypatch.syspath_prepend(str(TOY_DIR))
    return Registry.load(
        ["crawlmill_toy_plugin", "crawlmill.plugins.filters.basic"], entry_points=False
    )


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems_of(path: Path, registry: Registry, env=None) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        load_pipeline(path, registry=registry, env=env or {})
    return dict(info.value.problems)


YAML = """\
version: 1
inputs:
  paths: [data/*.toy, more/]
  list_file: paths.txt
reader: {name: toytext, strip: false}
filters:
  - name: kind
    keep: [response, resource]
  - name: threshold
    threshold: 20
writer:
  name: toyout
  version: "1.1"
output: ${OUT:-./out}
run: {workers: 2, on_error: fail}
"""

TOML = """\
version = 1
output = "${OUT:-./out}"

[inputs]
paths = ["data/*.toy", "more/"]
list_file = "paths.txt"

[reader]
name = "toytext"
strip = false

[[filters]]
name = "kind"
keep = ["response", "resource"]

[[filters]]
name = "threshold"
threshold = 20

[writer]
name = "toyout"
version = "1.1"

[run]
workers = 2
on_error = "fail"
"""

JSON = {
    "version": 1,
    "inputs": {"paths": ["data/*.toy", "more/"], "list_file": "paths.txt"},
    "reader": {"name": "toytext", "strip": False},
    "filters": [
        {"name": "kind", "keep": ["response", "resource"]},
        {"name": "threshold", "threshold": 20},
    ],
    "writer": {"name": "toyout", "version": "1.1"},
    "output": "${OUT:-./out}",
    "run": {"workers": 2, "on_error": "fail"},
}


def test_yaml_toml_and_json_give_the_same_spec(tmp_path, registry):
    specs = [
        load_pipeline(write(tmp_path, "p.yaml", YAML), registry=registry, env={}),
        load_pipeline(write(tmp_path, "p.toml", TOML), registry=registry, env={}),
        load_pipeline(write(tmp_path, "p.json", json.dumps(JSON)), registry=registry, env={}),
    ]
    dumps = [s.model_dump(mode="json") for s in specs]
    assert dumps[0] == dumps[1] == dumps[2]
    spec = specs[0]
    assert isinstance(spec, PipelineSpec)
    assert spec.reader.name == "toytext" and spec.reader.options == {"strip": False}
    assert [f.name for f in spec.filters] == ["kind", "threshold"]
    assert spec.filters[0].options["keep"] == ["response", "resource"]
    assert spec.filters[1].options == {"threshold": 20}
    assert spec.writer.options == {"version": "1.1", "label": ""}  # defaults filled in
    assert spec.run.workers == 2 and spec.run.on_error == "fail"
    # the spec is plain data: it survives a JSON round trip
    assert PipelineSpec.model_validate_json(spec.model_dump_json()) == spec


def test_relative_paths_are_relative_to_the_config_folder(tmp_path, registry, monkeypatch):
    conf_dir = tmp_path / "conf"
    conf_dir.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    spec = load_pipeline(write(conf_dir, "p.yaml", YAML), registry=registry, env={})
    assert spec.inputs.paths == [str(conf_dir / "data" / "*.toy"), str(conf_dir / "more")]
    assert spec.inputs.list_file == str(conf_dir / "paths.txt")
    assert spec.output == str(conf_dir / "out")
    absolute = load_pipeline(
        write(conf_dir, "q.yaml", YAML), registry=registry, env={"OUT": "/abs/out"}
    )
    assert absolute.output == "/abs/out"


def test_interpolation_in_values(tmp_path, registry):
    text = """\
    inputs: ${IN}
    writer: {name: toyout, label: "run $$1 of ${WHO:-nobody}"}
    filters: [{name: threshold, threshold: "${T}"}]
    output: /o
    """
    spec = load_pipeline(
        write(tmp_path, "p.yaml", text), registry=registry, env={"IN": "/x.toy", "T": "7"}
    )
    assert spec.inputs.paths == ["/x.toy"]
    assert spec.writer.options["label"] == "run $1 of nobody"
    assert spec.filters[0].options == {
        "threshold": 7
    }  # text from the environment, typed by the model


@pytest.mark.parametrize(
    ("inputs", "paths", "list_file"),
    [
        ('"a.toy"', ["a.toy"], None),
        ("[a.toy, b/]", ["a.toy", "b"], None),
        ("{list_file: l.txt}", [], "l.txt"),
        ("{paths: a.toy}", ["a.toy"], None),
    ],
)
def test_input_forms(tmp_path, registry, inputs, paths, list_file):
    spec = load_pipeline(
        write(tmp_path, "p.yaml", f"inputs: {inputs}\nwriter: toyout\noutput: out\n"),
        registry=registry,
        env={},
    )
    assert spec.inputs.paths == [str(tmp_path / p) for p in paths]
    assert spec.inputs.list_file == (str(tmp_path / list_file) if list_file else None)
    assert spec.reader is None and spec.filters == []


# -- errors with their places ----------------------------------------------------------------

BASE = "inputs: [a.toy]\nwriter: toyout\noutput: out\n"


@pytest.mark.parametrize(
    ("text", "location", "fragments"),
    [
        (BASE + "filterz: []\n", "filterz", ["unknown key", "did you mean 'filters'"]),
        (BASE + "version: 2\n", "version", ["unsupported config version 2"]),
        (
            BASE + "reader: toytxt\n",
            "reader",
            ["unknown reader 'toytxt'", "did you mean 'toytext'"],
        ),
        (
            BASE + "filters: [{name: kind, keep: [response]}, {name: threshold, threshold: 100}]\n",
            "filters[1].threshold",
            ["less than or equal to 64", "100"],
        ),
        (BASE + "filters: [{threshold: 3}]\n", "filters[0].name", ["required", "threshold"]),
        (BASE + "filters: [{name: kind, keep: [responze]}]\n", "filters[0].keep[0]", ["responze"]),
        (
            BASE + "filters: [{name: size, min_bytes: 10, max_bytes: 5}]\n",
            "filters[0]",
            ["below min_bytes"],
        ),
        (BASE + "filters: {name: size}\n", "filters", ["expected a list"]),
        (
            BASE + "filters: [{name: threshold, options: {threshold: 3}}]\n",
            "filters[0].options",
            ["unknown option 'options'", "flat keys"],
        ),
        (BASE + "plugins: 5\n", "plugins", ["expected a list"]),
        (
            "inputs: [a.toy]\noutput: o\nwriter: {name: toyout, verison: '1.1'}\n",
            "writer.verison",
            ["did you mean 'version'"],
        ),
        (
            "inputs: [a.toy]\noutput: o\nwriter: {name: toyout, version: 1.1}\n",
            "writer.version",
            ["1.1", "quote"],
        ),
        (
            "inputs: [a.toy]\noutput: o\nwriter: {name: toyout, label: no}\n",
            "writer.label",
            ["False", "quote"],
        ),
        ("inputs: [a.toy]\noutput: o\nwriter: {name: wrc}\n", "writer", ["unknown writer 'wrc'"]),
        ("inputs: [a.toy]\noutput: o\n", "writer", ["required"]),
        ("inputs: [a.toy]\nwriter: toyout\n", "output", ["required"]),
        ("writer: toyout\noutput: o\n", "inputs", ["required"]),
        (
            "inputs: {pahts: [a]}\nwriter: toyout\noutput: o\n",
            "inputs.pahts",
            ["did you mean 'paths'"],
        ),
        (
            "inputs: [a.toy, 5]\nwriter: toyout\noutput: o\n",
            "inputs.paths[1]",
            ["expected non-empty text"],
        ),
        (BASE + "run: {workers: 0}\n", "run.workers", ["greater than or equal to 1"]),
        (BASE + "run: {on_error: no}\n", "run.on_error", ["quarantine", "False"]),
        (BASE + "run: {workerz: 2}\n", "run.workerz", ["did you mean 'workers'"]),
        (
            BASE + "plugins: [no_such_module_xyz]\n",
            "plugins[0]",
            ["no_such_module_xyz", "ModuleNotFoundError"],
        ),
        ("inputs: [a.toy]\nwriter: toyout\noutput: ${OUT}\n", "output", ["OUT is not set"]),
        (
            "inputs: [a.toy]\nwriter: toyout\noutput: ${OUT:?set OUT to the output folder}\n",
            "output",
            ["set OUT to the output folder"],
        ),
    ],
)
def test_error_names_its_place(tmp_path, registry, text, location, fragments):
    found = problems_of(write(tmp_path, "p.yaml", text), registry)
    assert location in found, found
    for fragment in fragments:
        assert fragment in found[location], found[location]


def test_all_errors_are_collected_not_just_the_first(tmp_path, registry):
    text = """\
    inputs: [a.toy]
    reader: wrac
    filters:
      - {name: threshold, threshold: -1}
      - {name: nosuchfilter}
    writer: {name: toyout, version: "2.0"}
    output: ${NOPE}
    run: {workers: many}
    """
    # interpolation errors come first (they are found before validation); fix them, see the rest
    assert set(problems_of(write(tmp_path, "p.yaml", text), registry)) == {"output"}
    found = problems_of(write(tmp_path, "p.yaml", text), registry, env={"NOPE": "o"})
    assert set(found) == {
        "reader",
        "filters[0].threshold",
        "filters[1]",
        "writer.version",
        "run.workers",
    }


def test_error_message_carries_the_file(tmp_path, registry):
    path = write(tmp_path, "p.yaml", BASE + "reader: toytxt\n")
    with pytest.raises(ConfigError) as info:
        load_pipeline(path, registry=registry, env={})
    assert info.value.source == str(path)
    assert str(info.value).startswith(f"{path}: reader: unknown reader 'toytxt'")


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [
        ("p.yaml", "inputs: [a\nwriter: x\n", "YAML syntax error"),
        ("p.yaml", "writer: a\nwriter: b\n", "duplicate key 'writer'"),
        ("p.yaml", "writer: !!python/object/apply:os.system ['true']\n", "YAML syntax error"),
        ("p.yaml", "", "got an empty file"),
        ("p.yaml", "- a\n- b\n", "got list"),
        ("p.toml", "writer = \n", "TOML syntax error"),
        ("p.json", '{"writer": "a", "writer": "b"}', "duplicate key 'writer'"),
        ("p.json", "{", "JSON syntax error"),
        ("p.ini", "[x]", "unknown config suffix '.ini'"),
    ],
)
def test_syntax_errors(tmp_path, registry, name, text, fragment):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_pipeline(path, registry=registry, env={})
    assert fragment in str(info.value)


def test_yaml_anchors_are_allowed(tmp_path):
    path = write(
        tmp_path,
        "p.yaml",
        """\
        common: &c {name: size, min_bytes: 5}
        filters: [*c, {<<: *c, max_bytes: 9}]
        """,
    )
    data = read_config_file(path)
    assert data["filters"] == [
        {"name": "size", "min_bytes": 5},
        {"name": "size", "min_bytes": 5, "max_bytes": 9},
    ]


# -- one component, as config entry and as command-line assignments --------------------------


def test_plugins_may_be_one_name(tmp_path, registry, monkeypatch):
    monkeypatch.syspath_prepend(str(TOY_DIR))
    spec = load_pipeline(
        write(tmp_path, "p.yaml", BASE + "plugins: crawlmill_toy_plugin\n"),
        registry=registry,
        env={},
    )
    assert spec.plugins == ["crawlmill_toy_plugin"]


def test_validate_component_forms(registry):
    assert validate_component(registry, "filter", "threshold", "f").options == {"threshold": 10}
    spec = validate_component(registry, "filter", {"name": "threshold", "threshold": 3}, "f")
    assert (spec.name, spec.options) == ("threshold", {"threshold": 3})
    with pytest.raises(ConfigError) as info:
        validate_component(registry, "filter", 5, "filters[2]")
    assert info.value.problems[0][0] == "filters[2]"


def test_assignments_parse_json_and_fall_back_to_text(registry):
    spec = component_from_assignments(
        registry, "writer", "toyout", ["version=1.1", "label=7"], "writer"
    )
    assert spec.options == {"version": "1.1", "label": "7"}  # JSON 1.1 and 7 refused, the text wins
    spec = component_from_assignments(
        registry, "filter", "kind", ['keep=["response","request"]'], "filters[0]"
    )
    assert spec.options["keep"] == ["response", "request"]
    spec = component_from_assignments(
        registry, "filter", "kind", ["keep=response,resource"], "filters[0]"
    )
    assert spec.options["keep"] == ["response", "resource"]
    spec = component_from_assignments(
        registry, "filter", "url-match", ["ignore-case=true"], "filters[0]"
    )
    assert spec.options["ignore_case"] is True


@pytest.mark.parametrize(
    ("assignments", "location", "fragment"),
    [
        (["threshold"], "filters[3]", "expected key=value"),
        (["threshold=65"], "filters[3].threshold", "less than or equal to 64"),
        (["threshold=abc"], "filters[3].threshold", "valid integer"),
        (["treshold=5"], "filters[3].treshold", "did you mean 'threshold'"),
    ],
)
def test_assignment_errors(registry, assignments, location, fragment):
    with pytest.raises(ConfigError) as info:
        component_from_assignments(registry, "filter", "threshold", assignments, "filters[3]")
    found = dict(info.value.problems)
    assert location in found and fragment in found[location], found


def test_a_plugins_module_names_its_distribution_each_time(monkeypatch, tmp_path):
    """A ``plugins:`` module is listed with its distribution and version, in every registry of
    a process (the installed distributions' file lists are read once while ``sys.path`` is
    unchanged), and again after ``sys.path`` changes."""
    import importlib.metadata as md

    module = "crawlmill.plugins.filters.basic"
    for _ in range(2):
        info = Registry.load([module], entry_points=False).plugins[module]
        assert (info.package, info.version) == ("crawlmill", md.version("crawlmill"))
    monkeypatch.syspath_prepend(str(tmp_path))
    info = Registry.load([module], entry_points=False).plugins[module]
    assert (info.package, info.version) == ("crawlmill", md.version("crawlmill"))
