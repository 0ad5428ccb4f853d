"""The exception tree of crawlmill: every error derives from :class:`CrawlmillError`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

    from .problems import Damage


class CrawlmillError(Exception):
    """Base class of every error crawlmill raises on purpose."""


class ConfigError(CrawlmillError):
    """A pipeline configuration or a plugin option is invalid.

    ``problems`` lists ``(location, message)`` pairs such as
    ``("filters[1].threshold", "must be between 0 and 64")``.
    """

    def __init__(self, problems: list[tuple[str, str]], source: str | None = None) -> None:
        self.problems = list(problems)
        self.source = source
        where = f"{source}: " if source else ""
        lines = [f"{where}{loc}: {msg}" if loc else f"{where}{msg}" for loc, msg in self.problems]
        super().__init__("\n".join(lines))


def unknown_key(name: str, known: Sequence[str], what: str) -> str:
    """``unknown option 'strcit'; did you mean 'strict'? (known: ...)``: the one wording of an
    unknown key, with the closest known name."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {name!r}{hint} (known: {', '.join(known) or 'none'})"


def is_validation_error(exc: BaseException) -> bool:
    """Whether ``exc`` is pydantic's ``ValidationError`` (without importing pydantic: when it
    is not imported, nothing raised one)."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


def pydantic_problems(
    exc: ValidationError, where: str, model: type[BaseModel] | None = None
) -> list[tuple[str, str]]:
    """``(location, message)`` pairs of a pydantic error, located below ``where``
    (``filters[1].max_bytes``): the one wording of an invalid option, wherever options are
    validated (configs, ``crawlmill convert``, ``engine.run`` of a built spec,
    ``open_reader``). ``model`` names the known options in the message of an unknown one."""
    out: list[tuple[str, str]] = []
    fields = tuple(model.model_fields) if model is not None else ()  # light options have it too
    for err in exc.errors(include_url=False):
        loc = where
        for part in err["loc"]:
            loc = (
                f"{loc}[{part}]"
                if isinstance(part, int)
                else (f"{loc}.{part}" if loc else str(part))
            )
        kind, value = err["type"], err.get("input")
        if kind in ("extra_forbidden", "unexpected_keyword_argument"):  # a model's, a dataclass's
            name = str(err["loc"][-1]) if err["loc"] else ""
            known = _nested_fields(model, err["loc"][:-1]) if model is not None else fields
            out.append((loc, unknown_key(name, known, "option")))
            continue
        if kind == "missing":
            out.append((loc, "required option is missing"))
            continue
        msg = err["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        if not isinstance(value, (dict, list, *_model_type())) and err["loc"]:
            msg += f" (got {value!r})"
            if kind in ("string_type", "literal_error", "enum") and isinstance(
                value, bool | int | float
            ):
                msg += "; YAML reads unquoted yes/no/on/off and numbers as such: quote the value to pass text"
        out.append((loc, msg))
    return out


def _nested_fields(model: type[BaseModel], path: Sequence[Any]) -> tuple[str, ...]:
    """The field names of the model found at ``path`` below ``model`` (a nested options
    model such as ``run.spark``); ``model``'s own when the path leads to no model."""
    current: Any = model
    for part in path:
        field = getattr(current, "model_fields", {}).get(part)
        nested = getattr(field, "annotation", None)
        if not isinstance(nested, type) or not issubclass(nested, _model_type()):
            return tuple(model.model_fields)
        current = nested
    return tuple(current.model_fields)


def _model_type() -> Any:
    """The classes of options: a pydantic model, or a light options dataclass."""
    from pydantic import BaseModel

    from .options import LightOptions

    return (BaseModel, LightOptions)


class PluginError(CrawlmillError):
    """A plugin could not be found, loaded or registered."""


class FormatError(CrawlmillError):
    """Bytes that do not follow the format they claim to be.

    Always carries the file path (``None`` for an anonymous stream), the byte offset where the
    problem was seen, and a reason that says what was seen and, when known, the fix.
    """

    def __init__(self, reason: str, *, path: str | None = None, offset: int | None = None) -> None:
        self.reason = reason
        self.path = path
        self.offset = offset
        super().__init__(self._describe())

    def _describe(self) -> str:
        where = self.path or "<stream>"
        at = f" at byte {self.offset}" if self.offset is not None else ""
        return f"{where}{at}: {self.reason}"


class DamagedRecordError(CrawlmillError):
    """Raised by the engine under ``on_error: fail`` at the first damaged record: the exception
    that carries a :class:`~crawlmill.core.problems.Damage` (the one damage type), not a
    damage type of its own."""

    def __init__(self, damage: Damage) -> None:
        self.damage = damage
        super().__init__(str(damage))
