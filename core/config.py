"""Pipeline configs: read a YAML, TOML or JSON file into a validated :class:`PipelineSpec`.

Everything is checked before anything runs, and *every* problem is reported with its place::

    filters[1].max_bytes: Input should be greater than or equal to 0 (got -5)
    reader: unknown reader 'wrac'; did you mean 'warc'? known readers: arc, warc
    output: environment variable OUT is not set (set it, or write ${OUT:-default} ...)

The steps: parse the file by its suffix (``yaml.safe_load`` only; duplicate keys are errors),
interpolate ``${VAR}`` in string leaves (:mod:`crawlmill.core.interpolate`), load the plugins
(entry points plus the config's ``plugins:``), validate each component's options with its
``Options`` model (:func:`validate_component`, which ``crawlmill convert`` uses too), resolve
relative paths against the config file's folder. The format is documented in
``docs/config.md``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, PluginError, is_validation_error, pydantic_problems, unknown_key
from .interpolate import interpolate
from .options import build, is_light
from .registry import Registry
from .remote_paths import url_scheme
from .spec import ComponentSpec, InputSpec, PipelineSpec, RunSpec

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "CONFIG_SUFFIXES",
    "build_pipeline",
    "component_from_assignments",
    "pipeline_from_arguments",
    "load_pipeline",
    "parse_assignment",
    "read_config_file",
    "validate_component",
    "with_run_settings",
]

#: file suffix -> syntax
CONFIG_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json"}
TOP_LEVEL_KEYS = ("version", "inputs", "reader", "filters", "writer", "output", "run", "plugins")

Problems = list[tuple[str, str]]


# -- reading files -------------------------------------------------------------------------


@functools.cache
def _strict_yaml_loader() -> type:
    """``yaml.SafeLoader`` (no Python tags) that refuses duplicate mapping keys (the class is
    made on first use: a run from the command line's arguments never imports YAML)."""
    import yaml

    class _StrictYamlLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.setdefault(key, key_node.start_mark.line)
                    except TypeError:  # unhashable key: SafeLoader reports it
                        continue
                    if first != key_node.start_mark.line:
                        raise yaml.constructor.ConstructorError(
                            None,
                            None,
                            f"duplicate key {key!r} (first given on line {first + 1})",
                            key_node.start_mark,
                        )
            return super().construct_mapping(node, deep)

    return _StrictYamlLoader


def read_config_file(path: str | os.PathLike[str]) -> Any:
    """Parse a config file by its suffix (``.yaml``/``.yml``, ``.toml``, ``.json``) into plain
    data; syntax errors become a :class:`ConfigError` with the line."""
    path = Path(path)
    syntax = CONFIG_SUFFIXES.get(path.suffix.lower())
    if syntax is None:
        raise ConfigError(
            [
                (
                    "",
                    f"unknown config suffix {path.suffix!r}; use one of {', '.join(CONFIG_SUFFIXES)}",
                )
            ],
            str(path),
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([("", f"cannot read the config: {exc}")], str(path)) from exc
    # each parser is imported when a file of its syntax is read
    if syntax == "yaml":
        import yaml

        try:
            return yaml.load(text, Loader=_strict_yaml_loader())  # noqa: S506 - a SafeLoader subclass
        except yaml.YAMLError as exc:
            raise ConfigError([("", f"YAML syntax error: {exc}")], str(path)) from exc
    if syntax == "toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError([("", f"TOML syntax error: {exc}")], str(path)) from exc
    try:
        return json.loads(text, object_pairs_hook=_json_object)
    except json.JSONDecodeError as exc:
        raise ConfigError([("", f"JSON syntax error: {exc}")], str(path)) from exc


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise json.JSONDecodeError(f"duplicate key {key!r}", "", 0)
        out[key] = value
    return out


# -- the whole pipeline ----------------------------------------------------------------------


def load_pipeline(
    path: str | os.PathLike[str],
    *,
    env: Mapping[str, str] | None = None,
    registry: Registry | None = None,
) -> PipelineSpec:
    """Read, interpolate and validate the pipeline config at ``path``.

    Relative paths in it are relative to the config file's folder. Raises
    :class:`ConfigError` (``source`` = the path) listing every problem found.
    """
    data = read_config_file(path)
    try:
        data = interpolate(data, env)
    except ConfigError as exc:
        raise ConfigError(exc.problems, str(path)) from None
    base_dir = Path(path).resolve().parent
    return build_pipeline(data, base_dir=base_dir, registry=registry, source=str(path))


def build_pipeline(
    data: Any,
    *,
    base_dir: str | os.PathLike[str] | None = None,
    registry: Registry | None = None,
    source: str | None = None,
) -> PipelineSpec:
    """Validate plain config data (already interpolated) into a :class:`PipelineSpec`.

    ``base_dir`` (default: the working directory) anchors relative paths. ``registry`` is
    loaded from entry points when ``None``; the config's ``plugins:`` modules are added to it.
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    problems: Problems = []
    if not isinstance(data, Mapping):
        what = "an empty file" if data is None else type(data).__name__
        raise ConfigError(
            [
                (
                    "",
                    f"a pipeline config is a mapping with keys {', '.join(TOP_LEVEL_KEYS)}; got {what}",
                )
            ],
            source,
        )
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            problems.append((str(key), unknown_key(str(key), TOP_LEVEL_KEYS, "key")))

    version = data.get("version", 1)
    if type(version) is not int or version != 1:
        problems.append(
            ("version", f"unsupported config version {version!r}; this crawlmill reads version 1")
        )

    raw_plugins = data.get("plugins") or []
    plugins = _string_list(
        [raw_plugins] if isinstance(raw_plugins, str) else raw_plugins, "plugins", problems
    )
    if registry is None:
        registry = Registry.load()
    for i, module in enumerate(plugins):
        info = registry.add_module(module)
        if info.status == "failed":
            problems.append(
                (f"plugins[{i}]", f"cannot load plugin module {module!r}: {info.error}")
            )

    inputs = _inputs(data.get("inputs"), base, problems)

    reader = None
    if data.get("reader") is not None:
        reader = _collect(
            problems, validate_component, registry, "reader", data["reader"], "reader"
        )

    filters: list[ComponentSpec] = []
    raw_filters = data.get("filters") or []
    if not isinstance(raw_filters, list):
        problems.append(
            ("filters", f"expected a list of filters, got {type(raw_filters).__name__}")
        )
        raw_filters = []
    for i, raw in enumerate(raw_filters):
        spec = _collect(problems, validate_component, registry, "filter", raw, f"filters[{i}]")
        if spec is not None:
            filters.append(spec)

    writer = None
    if data.get("writer") is None:
        problems.append(
            ("writer", f"required: name the writer (known writers: {_known(registry, 'writer')})")
        )
    else:
        writer = _collect(
            problems, validate_component, registry, "writer", data["writer"], "writer"
        )

    output = data.get("output")
    if output is None:
        problems.append(("output", "required: the output folder"))
    elif not isinstance(output, str) or not output.strip():
        problems.append(("output", f"expected a folder path (text), got {output!r}"))
        output = None
    else:
        output = resolve_path(output, base)

    run = _validate_model(RunSpec, data.get("run") or {}, "run", problems)
    _check_executor(run, problems)

    if problems:
        raise ConfigError(problems, source)
    return PipelineSpec(
        version=1,
        inputs=inputs,
        reader=reader,
        filters=filters,
        writer=writer,
        output=output,
        run=run,
        plugins=plugins,
    )


def pipeline_from_arguments(
    registry: Registry,
    *,
    inputs: Sequence[str],
    output: str,
    writer: tuple[str, Sequence[str]],
    reader: tuple[str, Sequence[str]] | None = None,
    filters: Sequence[tuple[str, Sequence[str]]] = (),
    run: Mapping[str, Any] | None = None,
    plugins: Sequence[str] = (),
) -> PipelineSpec:
    """The :class:`PipelineSpec` of a ``crawlmill convert`` command line.

    Components are ``(name, ["key=value", ...])`` pairs validated by
    :func:`component_from_assignments`; paths are relative to the working directory. Raises
    :class:`ConfigError` with every problem, located as in a config (``filters[1].min_bytes``).
    """
    problems: Problems = []
    base = Path.cwd()
    spec_inputs = _inputs(list(inputs), base, problems)
    spec_reader = None
    if reader is not None:
        spec_reader = _collect(
            problems, component_from_assignments, registry, "reader", reader[0], reader[1], "reader"
        )
    spec_filters = []
    for i, (name, assignments) in enumerate(filters):
        spec = _collect(
            problems,
            component_from_assignments,
            registry,
            "filter",
            name,
            assignments,
            f"filters[{i}]",
        )
        if spec is not None:
            spec_filters.append(spec)
    spec_writer = _collect(
        problems, component_from_assignments, registry, "writer", writer[0], writer[1], "writer"
    )
    # the values argparse typed build the run settings directly (pydantic for its message)
    run_spec = _validate_model(RunSpec, dict(run or {}), "run", problems, direct=True)
    _check_executor(run_spec, problems)
    if not output:
        problems.append(("output", "required: the output folder"))
    if problems:
        raise ConfigError(problems)
    return PipelineSpec(
        inputs=spec_inputs,
        reader=spec_reader,
        filters=spec_filters,
        writer=spec_writer,
        output=resolve_path(output, base),
        run=run_spec,
        plugins=list(plugins),
    )


def with_run_settings(spec: PipelineSpec, run: Mapping[str, Any]) -> PipelineSpec:
    """``spec`` with its ``run`` section replaced by ``run``, validated (command-line
    overrides of a config's ``run:``)."""
    problems: Problems = []
    run_spec = _validate_model(RunSpec, run, "run", problems)
    _check_executor(run_spec, problems)
    if problems:
        raise ConfigError(problems)
    return spec.model_copy(update={"run": run_spec})


def _check_executor(run: RunSpec | None, problems: Problems) -> None:
    """Can this machine run ``run.executor`` (``spark``: pyspark and Java installed)? Asked
    while the config is read, so a missing one stops the run before anything is written."""
    if run is not None and run.executor == "spark":
        from .run.spark_executor import missing_requirement  # imports no pyspark

        reason = missing_requirement()
        if reason is not None:
            problems.append(("run.executor", reason))


def resolve_path(path: str, base: Path) -> str:
    """``path`` (``~`` expanded) made absolute against ``base``; globs are kept as they are,
    and so is a URL (``s3://...``: no local path; :func:`~crawlmill.core.remote_paths.refuse_urls`
    refuses it by name)."""
    if url_scheme(path):
        return path
    expanded = os.path.expanduser(path)
    if os.path.isabs(expanded):
        return os.path.normpath(expanded)
    return os.path.normpath(os.path.join(base, expanded))


def _inputs(raw: Any, base: Path, problems: Problems) -> InputSpec | None:
    if raw is None:
        problems.append(("inputs", "required: paths, globs or a list_file of the files to read"))
        return None
    if isinstance(raw, str | list):
        raw = {"paths": raw}
    if not isinstance(raw, Mapping):
        problems.append(
            ("inputs", f"expected a path, a list of paths or a mapping, got {type(raw).__name__}")
        )
        return None
    ok = True
    for key in raw:
        if key not in ("paths", "list_file"):
            problems.append((f"inputs.{key}", unknown_key(str(key), ("paths", "list_file"), "key")))
            ok = False
    paths = raw.get("paths", [])
    if isinstance(paths, str):
        paths = [paths]
    before = len(problems)
    paths = _string_list(paths, "inputs.paths", problems)
    list_file = raw.get("list_file")
    if list_file is not None and (not isinstance(list_file, str) or not list_file):
        problems.append(("inputs.list_file", f"expected a file path (text), got {list_file!r}"))
        list_file = None
    if not paths and list_file is None and len(problems) == before:
        problems.append(("inputs", "no inputs given: list paths or globs, or a list_file"))
    if not ok or len(problems) != before:
        return None
    return InputSpec(
        paths=[resolve_path(p, base) for p in paths],
        list_file=resolve_path(list_file, base) if list_file is not None else None,
    )


def _string_list(raw: Any, where: str, problems: Problems) -> list[str]:
    if not isinstance(raw, list):
        problems.append((where, f"expected a list of text values, got {type(raw).__name__}"))
        return []
    out = []
    for i, item in enumerate(raw):
        if isinstance(item, str) and item:
            out.append(item)
        else:
            problems.append((f"{where}[{i}]", f"expected non-empty text, got {item!r}"))
    return out


def _collect(problems: Problems, func: Any, *args: Any) -> Any:
    try:
        return func(*args)
    except ConfigError as exc:
        problems.extend(exc.problems)
        return None


def _known(registry: Registry, kind: str) -> str:
    return ", ".join(sorted(registry.components[kind])) or "none"


# -- one component ---------------------------------------------------------------------------


def validate_component(registry: Registry, kind: str, raw: Any, where: str) -> ComponentSpec:
    """Turn one reader/filter/writer entry into a validated :class:`ComponentSpec`.

    ``raw`` is a name (``"warc"``) or a mapping ``{"name": "warc", <option>: value, ...}``
    with the options as flat keys beside ``name``. Options are validated by the component's
    ``Options`` model and stored as ``model_dump(mode="json")``. Raises :class:`ConfigError`
    with every problem, located under ``where`` (``filters[1].max_bytes``).
    """
    if isinstance(raw, str):
        name, options = raw, {}
    elif isinstance(raw, Mapping):
        name = raw.get("name")
        options = {key: value for key, value in raw.items() if key != "name"}
        if name is None:
            raise ConfigError(
                [(f"{where}.name", f"required: which {kind} (known: {_known(registry, kind)})")]
            )
    else:
        raise ConfigError(
            [
                (
                    where,
                    f"expected a {kind} name or a mapping with 'name' and its options, got {type(raw).__name__}",
                )
            ]
        )
    if not isinstance(name, str) or not name:
        raise ConfigError(
            [
                (
                    f"{where}.name" if isinstance(raw, Mapping) else where,
                    f"expected a {kind} name, got {name!r}",
                )
            ]
        )
    try:
        cls = registry.get(kind, name)
    except PluginError as exc:
        raise ConfigError([(where, str(exc))]) from None
    problems: Problems = []
    bad_keys = [key for key in options if not isinstance(key, str)]
    for key in bad_keys:
        problems.append((f"{where}.{key}", "option names must be text"))
    if problems:
        raise ConfigError(problems)
    model = _validate_model(cls.Options, options, where, problems, context={"registry": registry})
    nested = options.get("options")
    if isinstance(nested, Mapping) and "options" not in cls.Options.model_fields:
        problems = [
            (loc, msg + "; options go beside name as flat keys, not under options:")
            if loc == f"{where}.options"
            else (loc, msg)
            for loc, msg in problems
        ]
    if problems:
        raise ConfigError(problems)
    return ComponentSpec(name=name, options=model.model_dump(mode="json"))


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a command-line ``key=value`` into ``(key, value)``; ``ValueError`` otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected key=value, got {text!r}")
    return key.strip().replace("-", "_"), value


def component_from_assignments(
    registry: Registry, kind: str, name: str, assignments: Sequence[str], where: str
) -> ComponentSpec:
    """A validated :class:`ComponentSpec` from command-line ``key=value`` strings.

    Each value is parsed as JSON when it parses (``5``, ``true``, ``["a","b"]``) and kept as
    text otherwise; when the JSON reading of a value is refused by the Options model but the
    text is accepted (``version=1.1`` for a text option), the text wins. Validation is
    :func:`validate_component`'s, so errors read as in configs.
    """
    problems: Problems = []
    texts: dict[str, str] = {}
    for item in assignments:
        try:
            key, value = parse_assignment(item)
        except ValueError as exc:
            problems.append((where, str(exc)))
            continue
        if key == "name":
            problems.append(
                (f"{where}.name", "the name is given before the options, not as name=...")
            )
            continue
        texts[key] = value
    if problems:
        raise ConfigError(problems)
    parsed = {key: _json_or_text(value) for key, value in texts.items()}
    try:
        return validate_component(registry, kind, {"name": name, **parsed}, where)
    except ConfigError as first:
        failing = {loc[len(where) + 1 :].split(".")[0].split("[")[0] for loc, _ in first.problems}
        retry = {key: (texts[key] if key in failing else value) for key, value in parsed.items()}
        if retry == parsed:
            raise
        try:
            return validate_component(registry, kind, {"name": name, **retry}, where)
        except ConfigError:
            raise first from None


def _json_or_text(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


# -- pydantic errors with places -------------------------------------------------------------


def _validate_model(
    model: type[BaseModel],
    data: Any,
    where: str,
    problems: Problems,
    context: dict[str, Any] | None = None,
    direct: bool = False,
) -> Any:
    """``model``'s validation of ``data`` (pydantic, imported then; light options without
    options given need none), its errors added to ``problems``. ``direct``: a light model is
    built from the values as they are when they hold (:func:`~crawlmill.core.options.build`)."""
    if not isinstance(data, Mapping):
        problems.append((where, f"expected a mapping of options, got {type(data).__name__}"))
        return None
    try:
        if direct and is_light(model):
            return build(model, dict(data), context=context)
        return model.model_validate(dict(data), context=context)
    except Exception as exc:
        if not is_validation_error(exc):
            raise
        problems.extend(pydantic_problems(exc, where, model))
        return None
