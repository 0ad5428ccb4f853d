"""One unit of input as the run plans it (:class:`InputFile`): part of the plugin contract
(``crawlmill.core.InputFile``), in its own module so that the run's messages and the contract
both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .collection import Expectation

__all__ = ["InputFile"]


@dataclass(frozen=True, slots=True)
class InputFile:
    """One unit of input (:mod:`crawlmill.core.collection`): a file, or named parts of a
    collection, the name its outputs derive from, and what the collection expects of it.

    ``path`` is the file of a single-file unit (``parts`` empty), or the location of a
    multi-part unit whose ``parts`` map part names to files (``{"data": ..., "index": ...}``);
    ``relpath`` is the path relative to the input root it was found under (used to name
    outputs, never to escape the output root); ``index`` is its position in the sorted list of
    all inputs of the run; ``expect`` holds the collection's promises about it
    (:class:`~crawlmill.core.collection.Expectation`: md5 of a part, record count, a part
    that must exist), which the engine verifies; ``meta`` carries whatever else a reader's
    ``discover`` learned for ``read``; ``stem`` is the relpath without its compression and
    format suffixes, distinct among the run's inputs (:mod:`crawlmill.core.naming`), the name
    writers derive output names from (empty when the input was not planned: use
    :func:`crawlmill.core.naming.stem_of`).
    """

    path: str
    relpath: str
    index: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    stem: str = ""
    parts: dict[str, str] = field(default_factory=dict)
    expect: tuple[Expectation, ...] = ()

    def part(self, name: str) -> str:
        """The path of the part called ``name`` (a ``KeyError`` names the unit's parts)."""
        try:
            return self.parts[name]
        except KeyError:
            raise KeyError(
                f"{self.path} has no part {name!r} (parts: {', '.join(sorted(self.parts)) or 'none'})"
            ) from None

    def to_dict(self) -> dict[str, Any]:
        """Plain data (what crosses to a worker process)."""
        return {
            "path": self.path,
            "relpath": self.relpath,
            "index": self.index,
            "meta": dict(self.meta),
            "stem": self.stem,
            "parts": dict(self.parts),
            "expect": [e.to_dict() for e in self.expect],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InputFile:
        """The input :meth:`to_dict` gave."""
        return cls(
            data["path"],
            data["relpath"],
            data.get("index", 0),
            dict(data.get("meta") or {}),
            data.get("stem", ""),
            dict(data.get("parts") or {}),
            tuple(Expectation.from_dict(e) for e in data.get("expect") or ()),
        )
