"""A third-party-style output layout, registered through ``crawlmill_register_layouts``:
every input's records in ``<prefix><index>-<seq><ext>``, ``per_file`` records a file."""

from crawlmill.core import PluginOptions, hookimpl
from crawlmill.core.plugin import Layout
from pydantic import Field


class FlatLayout(Layout):
    """Numbered files with a prefix, all in the output root."""

    name = "flat"

    class Options(PluginOptions):
        prefix: str = Field("part-", description="File name prefix.")
        per_file: int | None = Field(None, ge=1, description="Records per file.")

    def next_path(self):
        path = (
            f"{self.settings.prefix}{self.ctx.input.index:03d}-{self.files_started}{self.extension}"
        )
        self.files_started += 1
        return path

    def should_roll(self, records_in_file, bytes_in_file):
        return self.settings.per_file is not None and records_in_file >= self.settings.per_file


@hookimpl
def crawlmill_register_layouts(register):
    register(FlatLayout)
