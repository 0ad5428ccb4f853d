"""One wording for an invalid option, wherever options are validated (config files,
``crawlmill convert``, ``engine.run`` of a spec built in Python, ``open_reader``)."""

from __future__ import annotations

import pytest
from crawlmill.core.config import validate_component
from crawlmill.core.errors import ConfigError
from crawlmill.core.reading import open_reader
from crawlmill.core.registry import Registry
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec

WORDS = "unknown option 'strcit'; did you mean 'strict'?"


def _spec(tmp_path, options):
    src = tmp_path / "a.warc"
    src.write_bytes(b"")
    return PipelineSpec.model_validate(
        {
            "inputs": {"paths": [str(src)]},
            "reader": {"name": "warc", "options": options},
            "writer": {"name": "warc", "options": {}},
            "output": str(tmp_path / "out"),
            "run": {"workers": 1, "progress": "never"},
        }
    )


def _problems(call):
    with pytest.raises(ConfigError) as err:
        call()
    return dict(err.value.problems)


def test_a_misspelt_option_reads_the_same_in_a_config_a_built_spec_and_open_reader(tmp_path):
    registry = Registry.load()
    config = _problems(
        lambda: validate_component(registry, "reader", {"name": "warc", "strcit": True}, "reader")
    )
    built = _problems(lambda: engine.run(_spec(tmp_path, {"strcit": True})))
    opened = _problems(lambda: open_reader(tmp_path / "a.warc", "warc", strcit=True))
    assert config["reader.strcit"].startswith(WORDS)
    assert built["reader.strcit"] == config["reader.strcit"]
    assert opened["reader warc.strcit"] == config["reader.strcit"]


def test_a_wrong_type_reads_the_same_everywhere(tmp_path):
    registry = Registry.load()
    config = _problems(
        lambda: validate_component(
            registry, "reader", {"name": "warc", "inflate_threads": "x"}, "reader"
        )
    )
    built = _problems(lambda: engine.run(_spec(tmp_path, {"inflate_threads": "x"})))
    assert "(got 'x')" in config["reader.inflate_threads"]
    assert built["reader.inflate_threads"] == config["reader.inflate_threads"]
