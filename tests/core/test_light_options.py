"""Light options (issue 20, start-up): core's run spec and the common path's component options
are stdlib dataclasses (:mod:`crawlmill.core.options`) that pydantic validates and that build
without it. A direct build must accept and refuse exactly what pydantic's validation accepts
and refuses, at each boundary; both option forms (light and pydantic ``PluginOptions``) are
described, validated and reported alike.

Whether a convert imports pydantic is checked in one fresh interpreter by
``tests/core/test_startup_imports.py`` (this process has imported it long ago).
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import pytest
from crawlmill.core.errors import pydantic_problems
from crawlmill.core.options import Ge, LightOptions, build, option
from crawlmill.core.plugin import PluginOptions
from crawlmill.core.registry import Component
from crawlmill.core.spec import ComponentSpec, InputSpec, PipelineSpec, RunSpec, SparkSpec
from crawlmill.plugins.readers.warc import WarcReader
from crawlmill.plugins.writers.layout_plain import PlainOptions
from crawlmill.plugins.writers.warc import WarcWriter
from crawlmill.plugins.writers.warc_sorted import SortedOptions
from pydantic import Field, TypeAdapter, ValidationError


def _direct(cls: type, values: dict[str, Any]) -> Any:
    """``cls(**values)`` or ``None`` when the direct build refuses the values."""
    try:
        return cls(**values)
    except (TypeError, ValueError):
        return None


def _validated(cls: Any, values: dict[str, Any]) -> Any:
    """pydantic's validation of ``values`` (``cls.model_validate``, or a ``TypeAdapter``'s)
    or ``None`` when it refuses them."""
    try:
        if isinstance(cls, TypeAdapter):
            return cls.validate_python(values)
        return cls.model_validate(values)
    except ValidationError:
        return None


#: (class, field, values on both sides of each boundary) of every constrained field
BOUNDARIES = [
    (RunSpec, "workers", [0, 1, 2, -1]),
    (RunSpec, "max_record_bytes", [1023, 1024]),
    (RunSpec, "max_decompressed_bytes", [1023, 1024]),
    (RunSpec, "shuffle_memory", [64 * 1024 - 1, 64 * 1024]),
    (RunSpec, "reduce_memory", [1023, 1024]),
    (RunSpec, "executor", ["local", "spark", "yarn", ""]),
    (RunSpec, "on_error", ["quarantine", "fail", "ignore"]),
    (RunSpec, "progress", ["auto", "always", "never", "sometimes"]),
    (RunSpec, "resume", [True, False]),
    (RunSpec, "workers", [True, 1.5, None, [1]]),  # not an int (True is refused by both)
    (WarcReader.Options, "inflate_threads", [-1, 0, 64, 65]),
    (WarcReader.Options, "strict", [True, False, None]),
    (SortedOptions, "partitions", [0, 1, 100_000, 100_001]),
    (SortedOptions, "partitioning", ["hash", "range", "random"]),
    (PlainOptions, "max_records", [0, 1, None]),
    (PlainOptions, "max_bytes", [0, 1, None]),
    (PlainOptions, "name_pattern", ["{stem}{ext}", "{nope}", None]),
    (WarcWriter.Options, "level", [0, 1, 9, 10, None]),
    (WarcWriter.Options, "compression", ["gzip", "zstd", "none", "bz2"]),
    (WarcWriter.Options, "digests", ["keep", "recompute", "none", "sometimes"]),
    (WarcWriter.Options, "layout", ["plain", "clueweb09", "no-such-layout"]),
]


@pytest.mark.parametrize(("cls", "name", "values"), BOUNDARIES)
def test_a_direct_build_and_pydantic_accept_and_refuse_the_same_values(cls, name, values):
    for value in values:
        direct, validated = _direct(cls, {name: value}), _validated(cls, {name: value})
        if direct is not None:  # never accepts what pydantic refuses, nor differs
            assert direct == validated, (name, value)
        elif validated is not None:  # refuses only a value pydantic converts (True -> 1)
            assert type(getattr(validated, name)) is not type(value), (name, value)
        # the command line's build: pydantic's answer whenever the direct one is no
        try:
            built = build(cls, {name: value})
        except ValidationError:
            built = None
        assert built == validated, (name, value)


def test_cross_field_rules_hold_in_both_paths():
    cases = [
        (WarcWriter.Options, {"compression": "zstd", "level": 22}, True),
        (WarcWriter.Options, {"compression": "zstd", "level": 23}, False),
        (WarcWriter.Options, {"compression": "none", "level": 3}, False),
        (WarcWriter.Options, {"sorted": {"partitions": 2}, "layout": "clueweb09"}, False),
        (PlainOptions, {"max_records": 5, "name_pattern": "{stem}{ext}"}, False),
        (PlainOptions, {"max_records": 5, "name_pattern": "{stem}-{seq}{ext}"}, True),
    ]
    for cls, values, ok in cases:
        assert (_validated(cls, values) is not None) == ok, values
        direct = {k: SortedOptions(**v) if k == "sorted" else v for k, v in values.items()}
        assert (_direct(cls, direct) is not None) == ok, values


def test_values_pydantic_coerces_are_built_by_pydantic():
    """A value a direct build refuses but pydantic coerces (``"2"`` for an ``int``): the
    command line's :func:`build` hands it to pydantic, whose answer it returns."""
    assert _direct(RunSpec, {"workers": "2"}) is None
    assert build(RunSpec, {"workers": "2"}) == RunSpec(workers=2)
    with pytest.raises(ValidationError) as caught:
        build(RunSpec, {"workers": 0})
    assert pydantic_problems(caught.value, "run") == [
        ("run.workers", "Input should be greater than or equal to 1 (got 0)")
    ]


def test_unknown_keys_are_refused_with_the_known_options_named():
    with pytest.raises(ValidationError) as caught:
        WarcReader.Options.model_validate({"strcit": True})
    ((where, message),) = pydantic_problems(caught.value, "reader", WarcReader.Options)
    assert where == "reader.strcit"
    assert "did you mean 'strict'?" in message and "inflate_threads" in message
    with pytest.raises(ValidationError) as caught:
        RunSpec.model_validate({"spark": {"mastr": "local"}})
    ((where, message),) = pydantic_problems(caught.value, "run", RunSpec)
    assert where == "run.spark.mastr" and "did you mean 'master'?" in message


def test_the_spec_dumps_as_pydantic_dumps_it_and_rebuilds_from_its_dump():
    spec = PipelineSpec(
        inputs=InputSpec(paths=["/in/a.warc.gz"]),
        filters=[ComponentSpec(name="mime", options={"allow": ["text/html"]})],
        writer=ComponentSpec(name="warc", options={"compression": "zstd"}),
        output="/out",
        run=RunSpec(workers=3, spark=SparkSpec(conf={"spark.ui.port": 4041})),
    )
    dumped = spec.model_dump(mode="json")
    assert dumped == TypeAdapter(PipelineSpec).dump_python(spec, mode="json")
    assert list(dumped) == [f.name for f in dataclasses.fields(PipelineSpec)]
    assert PipelineSpec.from_dump(dumped) == spec == PipelineSpec.model_validate(dumped)
    assert PipelineSpec.model_validate_json(spec.model_dump_json()) == spec
    assert pickle.loads(pickle.dumps(spec)) == spec
    # a dump that does not build directly is pydantic's to judge
    with pytest.raises(ValidationError):
        PipelineSpec.from_dump({**dumped, "run": {**dumped["run"], "workers": 0}})


def test_fields_set_are_the_fields_given_as_pydantic_counts_them():
    """``run.workers`` given or not decides the pool's size (``executor_for``), and ``crawlmill
    run`` keeps only the settings a config gave (``model_dump(exclude_unset=True)``)."""
    assert RunSpec().model_fields_set == set()
    assert RunSpec(workers=2).model_fields_set == {"workers"}
    assert RunSpec.model_validate({"workers": 2}).model_fields_set == {"workers"}
    assert RunSpec.model_validate({}).model_fields_set == set()
    full = RunSpec().model_dump()  # every key given (the defaults): all set, as pydantic's
    assert RunSpec.model_validate(full).model_fields_set == set(full)
    assert RunSpec(workers=2, resume=False).model_dump(exclude_unset=True) == {
        "workers": 2,
        "resume": False,
    }
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": ["a"]}, "writer": {"name": "warc"}, "output": "/o", "run": {}}
    )
    assert spec.run.model_fields_set == set()
    assert pickle.loads(pickle.dumps(spec.run)).model_fields_set == set()
    copied = spec.model_copy(update={"output": "/p"})
    assert copied.output == "/p" and copied.run == spec.run


def test_defaults_of_light_options_are_their_validation_of_nothing():
    for cls in (WarcReader.Options, WarcWriter.Options, PlainOptions, SortedOptions):
        made = cls.model_validate({})
        assert made == cls() == TypeAdapter(cls).validate_python({})
        # a validated spec stores the defaults' dump: it gives the defaults again
        assert cls.model_validate(made.model_dump(mode="json")) == made
    # the defaults' dump with a value of another type (1.0 == True) is pydantic's to judge
    dump = WarcReader.Options().model_dump(mode="json")
    for value in (1.0, 1.5, "yes", 1):
        data = {**dump, "parse_http": value}
        assert _validated(WarcReader.Options, data) == _validated(
            TypeAdapter(WarcReader.Options), data
        )
    options = WarcWriter.Options.model_validate({})
    assert options.layout_class.name == "plain"
    assert options.layout_settings == PlainOptions()


# -- both forms alike --------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Light(LightOptions):
    """Light form."""

    mode: Literal["a", "b"] = option("a", description="which mode")
    count: Annotated[int, Ge(1)] = option(3, description="how many")
    names: list[str] = option(default_factory=list, description="the names")


class _Model(PluginOptions):
    """The same options, pydantic's form (a third-party plugin's, unchanged)."""

    mode: Literal["a", "b"] = Field("a", description="which mode")
    count: int = Field(3, ge=1, description="how many")
    names: list[str] = Field(default_factory=list, description="the names")


class _LightReader:
    """A reader."""

    Options = _Light


class _ModelReader:
    """A reader."""

    Options = _Model


def test_both_forms_are_described_validated_and_reported_alike():
    light = Component("reader", "x", _LightReader, "p").describe()
    model = Component("reader", "x", _ModelReader, "p").describe()
    assert light == model
    assert [o["name"] for o in light["options"]] == ["mode", "count", "names"]
    for data in ({}, {"count": 2, "names": ["x"]}, {"mode": "b"}):
        assert _Light.model_validate(data).model_dump(mode="json") == _Model.model_validate(
            data
        ).model_dump(mode="json")
    for bad in ({"count": 0}, {"mode": "c"}, {"cuont": 2}, {"names": "x"}):
        problems = []
        for cls in (_Light, _Model):
            with pytest.raises(ValidationError) as caught:
                cls.model_validate(bad)
            problems.append(pydantic_problems(caught.value, "reader", cls))
        assert problems[0] == problems[1], bad
