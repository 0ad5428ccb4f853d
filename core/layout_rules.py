"""The file writer options' rules for their ``layout`` option, shared by their two forms
(:class:`crawlmill.core.file_writer.LightFileWriterOptions` and the pydantic
:class:`crawlmill.core.file_writer_options.FileWriterOptions`): the mapping form, the
deprecated flat form, the layout's check and its validated settings."""

from __future__ import annotations

import json
import warnings
from typing import Any

from .errors import is_validation_error
from .layouts import find_layout, known_layouts
from .plugin import Layout

__all__ = ["check_layout", "fold_flat_layout_options", "layout_mapping", "layout_settings_of"]


def _layout_errors(name: str, exc: Any) -> str:
    return f"layout {name!r}: " + "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: "
        + ("unknown option" if e["type"] in ("extra_forbidden", "unexpected_keyword_argument")
           else e["msg"])
        for e in exc.errors()
    )  # fmt: skip


def _validated(model: Any, data: dict[str, Any]) -> Any:
    """``model.model_validate(data)``; pydantic's ``ValidationError`` as a ``ValueError``
    carrying it (``.errors()``), so both options forms report it alike."""
    try:
        return model.model_validate(data)
    except Exception as exc:
        if not is_validation_error(exc):
            raise
        raise _LayoutInvalid(exc) from None


class _LayoutInvalid(ValueError):
    def __init__(self, exc: Any) -> None:
        super().__init__(str(exc))
        self.errors = exc.errors


def layout_mapping(cls: Any, data: Any, registry: Any) -> Any:
    """``layout: {name: ..., <option>: ...}``: the layout's options, checked by its
    ``Options`` model, become ``layout_options``, except one that is also a field of the
    writer's own options: it sets that field (and the layout's settings get it from there).
    The deprecated flat form is folded in first (``cls.flat_layout_options``)."""
    if cls.flat_layout_options:
        data = fold_flat_layout_options(cls, data, registry)
    if not isinstance(data, dict) or not isinstance(data.get("layout"), dict):
        return data
    data = dict(data)
    given = dict(data["layout"])
    name = given.pop("name", None)
    if not isinstance(name, str) or not name:
        raise ValueError("layout: a mapping needs name: the layout's name")
    layout = find_layout(name, registry)
    if layout is None:
        data["layout"] = name  # the layout field says it is unknown
        return data
    try:
        checked = _validated(layout.Options, given)
    except _LayoutInvalid as exc:
        raise ValueError(_layout_errors(name, exc)) from None
    own = dict(data.get("layout_options") or {})
    for key in given:
        value = getattr(checked, key)
        if key in cls.model_fields and key not in ("layout", "layout_options"):
            if key in data and data[key] != value:
                raise ValueError(f"layout {name!r}: {key} given twice, in layout and beside it")
            data[key] = value
        else:
            own[key] = given[key]
    data["layout"], data["layout_options"] = name, own
    return data


def check_layout(cls: Any, value: str, registry: Any) -> str:
    """``value`` when it names a layout that lays out ``cls.writes`` files, else ``ValueError``."""
    layout = find_layout(value, registry)
    if layout is None:
        raise ValueError(f"unknown layout {value!r}; see `crawlmill plugins` for the layouts")
    formats = getattr(layout, "formats", None)
    if formats and cls.writes and cls.writes not in formats:
        raise ValueError(
            f"layout {value!r} lays out {', '.join(formats)} files only, "
            f"not the {cls.writes} writer's; use another layout (plain)"
        )
    return value


def layout_settings_of(options: Any, registry: Any) -> tuple[type[Layout], Any]:
    """The layout ``options.layout`` names and its own validated ``Options``: its
    ``layout_options`` plus the writer options its ``Options`` model shares with the writer's
    (``ValueError`` when they are refused)."""
    layout = find_layout(options.layout, registry)
    assert layout is not None  # checked by check_layout
    shared = {
        key: getattr(options, key)
        for key in layout.Options.model_fields
        if key in type(options).model_fields and key not in options.layout_options
    }
    try:
        settings = _validated(layout.Options, {**shared, **options.layout_options})
    except _LayoutInvalid as exc:
        raise ValueError(f"layout {options.layout!r}: {exc.errors()[0]['msg']}") from None
    return layout, settings


def fold_flat_layout_options(cls: Any, data: Any, registry: Any) -> Any:
    """The deprecated flat form: the options of the chosen layout given beside ``layout``
    (``layout: clueweb09, language: German``; ``--option max_records=1000``) moved into its
    mapping (``layout: {name: clueweb09, language: German}``), with a ``FutureWarning``
    naming what to write instead. A key given both ways with two values is an error."""
    if not isinstance(data, dict):
        return data
    given = data.get("layout", "plain")
    name = given.get("name") if isinstance(given, dict) else given
    layout = find_layout(name, registry) if isinstance(name, str) else None
    if layout is None:
        return data
    unknown = [k for k in data if k not in cls.model_fields]
    for key in unknown:
        owners = [n for n, c in known_layouts(registry).items() if key in c.Options.model_fields]
        if key not in layout.Options.model_fields and owners:
            raise ValueError(
                f"{key} is an option of the {' or '.join(owners)} layout, not of {name}: "
                f"write layout: {{name: {owners[0]}, {key}: ...}}"
            )
    flat = [k for k in unknown if k in layout.Options.model_fields]
    if not flat:
        return data
    data = dict(data)
    mapping = dict(given) if isinstance(given, dict) else {"name": name}
    for key in flat:
        value = data.pop(key)
        if key in mapping and mapping[key] != value:
            raise ValueError(f"layout {name!r}: {key} given twice, in layout and beside it")
        mapping[key] = value
    data["layout"] = mapping
    inline = ", ".join(f"{k}: {json.dumps(v)}" for k, v in mapping.items())
    warnings.warn(
        f"writer option{'s' if len(flat) > 1 else ''} {', '.join(flat)} beside layout "
        f"{'are' if len(flat) > 1 else 'is'} deprecated (one layout option form): write "
        f"layout: {{{inline}}} in a config, --option 'layout={json.dumps(mapping)}' on the "
        "command line",
        FutureWarning,
        stacklevel=2,
    )
    return data
