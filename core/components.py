"""Resolve the components a :class:`~crawlmill.core.spec.PipelineSpec` names and validate their
options, reporting every problem with its place in the config (``filters[1].threshold``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import ConfigError, PluginError, is_validation_error, pydantic_problems
from .registry import Registry
from .spec import ComponentSpec, PipelineSpec

if TYPE_CHECKING:
    from .plugin import PluginOptions

__all__ = ["Resolved", "ResolvedPipeline", "pydantic_problems", "resolve", "resolve_pipeline"]


@dataclass(frozen=True)
class Resolved:
    """A component class with its validated options."""

    name: str
    cls: type
    options: PluginOptions

    def instantiate(self) -> Any:
        """A fresh instance for one task."""
        return self.cls(self.options)


@dataclass(frozen=True)
class ResolvedPipeline:
    """Reader (``None``: detected per input), filters and writer of a spec, validated."""

    reader: Resolved | None
    filters: list[Resolved]
    writer: Resolved


def resolve(
    registry: Registry, kind: str, spec: ComponentSpec, loc: str, problems: list[tuple[str, str]]
) -> Resolved | None:
    """Look up ``spec.name`` among ``kind`` components and validate its options; append
    problems (``loc.name``, ``loc.<option>``) and return ``None`` on failure."""
    try:
        cls = registry.get(kind, spec.name)
    except PluginError as exc:
        problems.append((f"{loc}.name", str(exc)))
        return None
    try:
        options = cls.Options.model_validate(spec.options, context={"registry": registry})
    except Exception as exc:  # pydantic's ValidationError (imported when it validated)
        if not is_validation_error(exc):
            raise
        problems.extend(pydantic_problems(exc, loc, cls.Options))
        return None
    return Resolved(spec.name, cls, options)


def resolve_pipeline(spec: PipelineSpec, registry: Registry) -> ResolvedPipeline:
    """Every component of ``spec`` resolved and validated, or one :class:`ConfigError` listing
    all problems."""
    problems: list[tuple[str, str]] = []
    reader = resolve(registry, "reader", spec.reader, "reader", problems) if spec.reader else None
    filters = [
        resolve(registry, "filter", f, f"filters[{i}]", problems)
        for i, f in enumerate(spec.filters)
    ]
    writer = resolve(registry, "writer", spec.writer, "writer", problems)
    if spec.run.executor not in ("local", "spark"):
        problems.append(
            (
                "run.executor",
                f"unknown executor {spec.run.executor!r}; known executors: local, spark",
            )
        )
    if problems:
        raise ConfigError(problems)
    assert writer is not None
    return ResolvedPipeline(reader, [f for f in filters if f is not None], writer)
