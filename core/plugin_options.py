"""The pydantic form of a component's options: :class:`PluginOptions` (imported with pydantic).

Components may declare their ``Options`` on it (the original form, what third-party plugins
use) or as a light stdlib dataclass (:mod:`crawlmill.core.options`); both are validated by
pydantic and described alike by ``crawlmill plugins``. ``crawlmill.core.plugin.PluginOptions``
and ``crawlmill.core.PluginOptions`` are this class.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["PluginOptions"]


class PluginOptions(BaseModel):
    """Base of every component's options model: unknown keys are errors, values are typed.

    Describe each option with ``Field(description=...)``; ``crawlmill plugins`` prints them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
