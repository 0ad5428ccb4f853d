"""The plugin registries a process caches, by plugin list: workers rebuild a registry from
the spec once and reuse it; in-process runs seed the caller's."""

from __future__ import annotations

from ..registry import Registry

__all__ = ["REGISTRIES", "forget_registries", "registry_for", "seed_registry"]

#: registry by the spec's ``plugins`` list.
REGISTRIES: dict[tuple[str, ...], Registry] = {}


def seed_registry(plugins: list[str], registry: Registry) -> None:
    """Use ``registry`` for specs with these ``plugins`` in this process (in-process runs)."""
    REGISTRIES[tuple(plugins)] = registry


def registry_for(plugins: list[str]) -> Registry:
    """The registry of ``plugins`` (loaded once per process)."""
    key = tuple(plugins)
    if key not in REGISTRIES:
        REGISTRIES[key] = Registry.load(plugins)
    return REGISTRIES[key]


def forget_registries() -> None:
    """Drop every cached registry (the variables that decide what they load changed)."""
    REGISTRIES.clear()
