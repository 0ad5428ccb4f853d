"""A repaired quirk with its problem code, as the formats hand it to the readers.

A framer notes a deviation that changes no byte (LF line endings, a padded date) as a
:class:`Note`: its stable problem code (``docs/problems.md``) set where it is found, and its
text with the specifics. Readers copy the code; rewording the text cannot change a counter.
"""

from __future__ import annotations

__all__ = ["Note"]


class Note(str):
    """A repaired quirk: ``code`` (stable, kebab-case) and ``text`` (what was found). As a
    string it is ``"code: text"`` (the form a message starting with its code has)."""

    code: str
    text: str

    def __new__(cls, code: str, text: str) -> Note:
        self = super().__new__(cls, f"{code}: {text}")
        self.code = code
        self.text = text
        return self

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return self.code, self.text
