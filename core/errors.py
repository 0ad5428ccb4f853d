"""The exception tree of crawlmill: every error derives from :class:`CrawlmillError`."""

from __future__ import annotations


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
    """Raised by the engine under ``on_error: fail`` at the first damaged record."""

    def __init__(self, damage: object) -> None:
        self.damage = damage
        super().__init__(str(damage))
