"""The pydantic form of a file writer's options: :class:`FileWriterOptions` (imported with
pydantic; ``crawlmill.core.FileWriterOptions`` and ``crawlmill.core.file_writer.FileWriterOptions``
are this class). Its rules are :mod:`crawlmill.core.file_writer`'s, which its light twin
:class:`~crawlmill.core.file_writer.LightFileWriterOptions` shares."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from .errors import ConfigError
from .layout_rules import check_layout, layout_mapping, layout_settings_of
from .layouts import find_layout
from .plugin import Layout
from .plugin_options import PluginOptions

__all__ = ["FileWriterOptions"]


class FileWriterOptions(PluginOptions):
    """Options every file writer has: its layout, by name or as a mapping with options."""

    #: the format the writer writes (its name), checked against ``Layout.formats``.
    writes: ClassVar[str] = ""
    #: whether options of the chosen layout are still accepted beside ``layout`` (the flat
    #: form ``max_records: 1000``, deprecated): they are moved into the layout's mapping with a
    #: ``FutureWarning`` that says what to write instead (:func:`fold_flat_layout_options`).
    flat_layout_options: ClassVar[bool] = False

    layout: str = Field(
        "plain",
        description="Output layout: any registered layout (see `crawlmill plugins`). A name, or a mapping {name: plain, max_records: 1000} with the layout's options.",
    )
    layout_options: dict[str, Any] = Field(
        default_factory=dict,
        description="The layout's own options that are not writer options (set by the mapping form of layout).",
    )

    _layout_cls: Any = PrivateAttr(None)
    _layout_settings: Any = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _layout_mapping(cls, data: Any, info: ValidationInfo) -> Any:
        """The mapping form and the deprecated flat form (:func:`layout_mapping`)."""
        return layout_mapping(cls, data, (info.context or {}).get("registry"))

    @field_validator("layout")
    @classmethod
    def _known_layout(cls, value: str, info: ValidationInfo) -> str:
        return check_layout(cls, value, (info.context or {}).get("registry"))

    @model_validator(mode="after")
    def _layout_settings_of(self, info: ValidationInfo) -> FileWriterOptions:
        """Resolve the layout and validate its own options: ``layout_options`` plus the
        writer options its ``Options`` model shares with the writer's."""
        registry = (info.context or {}).get("registry")
        self._layout_cls, self._layout_settings = layout_settings_of(self, registry)
        return self

    @property
    def layout_class(self) -> type[Layout]:
        """The layout class the ``layout`` option names (looked up again for options built
        without validation, ``model_construct``); :class:`ConfigError` when none has it."""
        layout = self._layout_cls or find_layout(self.layout)
        if layout is None:
            raise ConfigError([("writer.layout", f"unknown layout {self.layout!r}")])
        return layout

    @property
    def layout_settings(self) -> PluginOptions:
        """The layout's own validated ``Options``."""
        return self._layout_settings
