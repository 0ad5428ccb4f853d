"""The NTCIR WEB "cooked" text: the seven rules of the NW100G-01 README, section 10.

The README (../shared/specs/source-docs/ntcir-nw100g-01-readme-data.txt) says how the
``cooked/`` tree was made from a page; :func:`cook` applies the same rules, in order:

1. HTML comments, XML declarations and XML definitions are removed (``<!-- ... -->``, an
   unterminated comment up to the end of the page; ``<?xml ...?>`` and every ``<? ... >``;
   ``<!DOCTYPE ...>``, ``<![CDATA[ ... ]]>`` and every other ``<! ... >``);
2. ``script`` and ``style`` elements are removed with their content (an unterminated one up
   to the end of the page);
3. the ``content`` of each ``<meta>`` whose ``name`` is ``keywords`` or ``description``
   (any case) is put on a line of its own behind :attr:`CookOptions.meta_marker`;
4. the ``alt`` of each ``<img>`` is put on a line of its own behind
   :attr:`CookOptions.alt_marker`;
5. every other tag is removed (replaced by nothing);
6. numeric character references (``&#2345;``, ``&#x2A1;``) are removed;
7. character entity references are replaced: ``&amp;`` ``&lt;`` ``&gt;`` ``&quot;`` by their
   characters, ``&nbsp;`` by a space, the Greek letters (``&Alpha;`` - ``&Omega;``,
   ``&alpha;`` - ``&omega;``) by the Greek letters (EUC-JP has them; ``&sigmaf;``, a final
   sigma EUC-JP lacks, by sigma), letters with diacritical marks by the bare letter
   (``&eacute;`` -> ``e``, ``&Oslash;`` -> ``O``), ``&AElig;`` ``&ETH;`` ``&szlig;``
   ``&aelig;`` ``&eth;`` by ``AE`` ``ETH`` ``ss`` ``ae`` ``eth``, and every other entity by
   one space.

Rules 6 and 7 apply to the text and to the meta and alt values alike, once: after the tags
are found, so ``&lt;b&gt;`` is the text ``<b>``, and ``&amp;lt;`` the text ``&lt;``. Entity names are case-sensitive, as in
HTML (``&Eacute;`` -> ``E``, ``&eacute;`` -> ``e``); an ``&`` that starts no reference (no
``;`` after a name) is left as it is.

The marker strings were lost from the README copy that survives (it was run through a tag
stripper, so they were most likely angle-bracketed tokens); the defaults here, ``<META>`` and
``<ALT>``, are a reconstruction and are options (docs/formats/ntcir.md). The text is handled as
``str``: decode the page first, encode the result (EUC-JP for the NTCIR trees) after.
"""

from __future__ import annotations

import html.entities
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["CookOptions", "cook", "entity_text", "rule7_char"]


@dataclass(frozen=True)
class CookOptions:
    """The marker strings of rules 3 and 4 (a reconstruction: see the module docstring)."""

    meta_marker: str = "<META>"
    alt_marker: str = "<ALT>"


_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_DECLARATION = re.compile(r"<!\[CDATA\[.*?(?:\]\]>|\Z)|<![^>]*(?:>|\Z)|<\?.*?(?:\?>|>|\Z)", re.S)
_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|\Z)", re.S | re.I)
#: a start or end tag: a name, then attributes (quoted values may hold ``>``).
_TAG = re.compile(r"""<(/?)([A-Za-z][A-Za-z0-9:_.-]*)((?:[^>"']|"[^"]*"|'[^']*')*)(?:>|\Z)""", re.S)
_ATTR = re.compile(r"""([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?""", re.S)
_NUMERIC = re.compile(r"&#(?:[0-9]+|[xX][0-9a-fA-F]+);?")
_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]*);")

_SPECIAL = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "nbsp": " "}
_LIGATURES = {"AElig": "AE", "ETH": "ETH", "szlig": "ss", "aelig": "ae", "eth": "eth"}
_STROKES = {"Oslash": "O", "oslash": "o"}  # letters with a stroke: no Unicode decomposition


def _greek(name: str, char: str) -> str | None:
    code = ord(char)
    if 0x391 <= code <= 0x3A9 or 0x3B1 <= code <= 0x3C9:
        return "\u03c3" if code == 0x3C2 else char  # final sigma: not in JIS X 0208
    return None


def _bare(char: str) -> str | None:
    """The letter of ``char`` without its diacritical marks, or ``None``."""
    parts = unicodedata.decomposition(char).split()
    if not parts or parts[0].startswith("<"):
        return None
    base = chr(int(parts[0], 16))
    return base if base.isascii() and base.isalpha() else None


def _table() -> dict[str, str]:
    table: dict[str, str] = {}
    for name, code in html.entities.name2codepoint.items():
        char = chr(code)
        value = _SPECIAL.get(name) or _LIGATURES.get(name) or _STROKES.get(name)
        value = value or _greek(name, char) or _bare(char)
        if value is not None:
            table[name] = value
    return table


#: entity name -> replacement (rule 7); a name not here (but an HTML entity or not) -> " ".
ENTITIES = _table()


#: character -> its rule 7 replacement, for the characters an entity names.
_BY_CHAR = {chr(html.entities.name2codepoint[n]): v for n, v in ENTITIES.items()}


def rule7_char(ch: str) -> str:
    """Rule 7 applied to the character ``ch`` itself (one EUC-JP lacks, in a page of another
    charset): the replacement of the entity naming it (a Greek letter, a letter without its
    diacritical marks, ``AE``...), a letter without its diacritical marks for a character
    no entity names, else one space."""
    found = _BY_CHAR.get(ch)
    if found is None:
        found = _bare(ch) or " "
    return found


def entity_text(text: str) -> str:
    """Rules 6 and 7 on ``text``: numeric references removed, entities replaced."""
    if "&" not in text:
        return text
    text = _NUMERIC.sub("", text)
    return _ENTITY.sub(lambda m: ENTITIES.get(m.group(1), " "), text)


def _attrs(raw: str) -> dict[str, str]:
    """Attribute name (lower case) -> value of a tag's attribute text (the first of a name)."""
    found: dict[str, str] = {}
    for m in _ATTR.finditer(raw):
        name = m.group(1).lower()
        if name not in found:
            value = m.group(2) if m.group(2) is not None else m.group(3)
            found[name] = value if value is not None else (m.group(4) or "")
    return found


def _one_line(value: str) -> str:
    return " ".join(entity_text(value).split())


def cook(page: str, options: CookOptions | None = None) -> str:
    """The cooked text of the decoded page ``page`` (the seven rules of the module
    docstring)."""
    opts = options or CookOptions()
    text = _COMMENT.sub("", page)
    text = _DECLARATION.sub("", text)
    text = _SCRIPT.sub("", text)

    def tag(m: re.Match[str]) -> str:
        if m.group(1):  # an end tag
            return ""
        name = m.group(2).lower()
        if name == "meta":
            attrs = _attrs(m.group(3))
            if attrs.get("name", "").strip().lower() in ("keywords", "description"):
                return f"\n{opts.meta_marker}{_one_line(attrs.get('content', ''))}\n"
        elif name == "img":
            attrs = _attrs(m.group(3))
            if "alt" in attrs:
                return f"\n{opts.alt_marker}{_one_line(attrs['alt'])}\n"
        return ""

    out: list[str] = []
    pos = 0
    for m in _TAG.finditer(text):  # rules 6 and 7 once per piece: never on their own output
        out.append(entity_text(text[pos : m.start()]))
        out.append(tag(m))
        pos = m.end()
    out.append(entity_text(text[pos:]))
    return "".join(out)
