"""The ``kinds`` option of the filters that work on some record kinds only (``exact-dedup``,
``simhash-dedup``, ``cooked-text``, ``url-dedup``): a list of
:class:`~crawlmill.core.RecordKind` that also takes one comma-separated string
(``kinds=response,resource`` on the command line), by default the captures, ``response`` and ``resource``.

    kinds: Kinds = kinds_field("record kinds that take part; records of other kinds are kept")
"""

from __future__ import annotations

from typing import Annotated, Any

from crawlmill.core import RecordKind, comma_list
from pydantic import BeforeValidator, Field

__all__ = ["CAPTURE_KINDS", "Kinds", "kinds_field"]

#: the default: the records that hold a capture's payload.
CAPTURE_KINDS: tuple[RecordKind, ...] = (RecordKind.RESPONSE, RecordKind.RESOURCE)

#: the type of a ``kinds`` option: record kinds, a list or one comma-separated string.
Kinds = Annotated[list[RecordKind], BeforeValidator(comma_list)]


def kinds_field(description: str) -> Any:
    """The ``Field`` of a ``kinds`` option (default :data:`CAPTURE_KINDS`) described as
    ``description``."""
    return Field(default_factory=lambda: list(CAPTURE_KINDS), description=description)
