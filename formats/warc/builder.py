"""Building WARC records from header pairs and blocks: verbatim copy, rebuild, digests, warcinfo.

The record-level rules of a WARC writer, free of any record model (as warcio's
``recordbuilder.py`` and ``ensure_digest``): a writer maps its records onto ``(name, value)``
header pairs and a block, and this module decides

* whether a record read from WARC can be copied byte for byte (:func:`can_copy_verbatim`);
* how its original headers are re-framed for a target version (:func:`reframe_headers`);
* how digest headers are checked, recomputed, removed or added (:func:`fix_digests`,
  :func:`new_digest_headers`; policy ``keep``/``recompute``/``none``, see
  :mod:`crawlmill.plugins.writers.warc`);
* the bytes of a ``warcinfo`` record (:func:`warcinfo_record`).

Functions that find something to report return it as a list of ``(code, text)`` warnings; the
caller counts and reports them. Header values are bytes; names compare case-insensitively.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence

from .digest import DeferredSha1, digest_matches, recompute_like, sha1_base32
from .fields import BARE_UUID, ID_FIELDS, valid_warc_date
from .writer import Framing, clean_header_value, serialize_record, warc_fields

__all__ = [
    "CONFORMS_TO",
    "Headers",
    "can_copy_verbatim",
    "content_length_tail",
    "framing_facts",
    "fix_digests",
    "get_header",
    "new_digest_headers",
    "reframe_headers",
    "remove_header",
    "set_header",
    "verbatim_parts",
    "warcinfo_record",
]

#: ``(name, value)`` header pairs in file order.
Headers = list[tuple[bytes, bytes]]

#: the compiled header checks of a verbatim copy (formats/warc/_warcfast.c), unless
#: ``CRAWLMILL_PURE=1``; ``None``: :func:`_verbatim_ok_pure` alone (the same answers).
_KERNEL_VERBATIM = None
if os.environ.get("CRAWLMILL_PURE", "") in ("", "0"):
    with contextlib.suppress(ImportError):  # (an install without a compiler)
        from ._warcfast import verbatim_ok as _KERNEL_VERBATIM
        from ._warcfast import verbatim_parts as _KERNEL_PARTS
if _KERNEL_VERBATIM is None:
    _KERNEL_PARTS = None

#: the ``format`` and ``conformsTo`` a warcinfo names for each WARC version.
CONFORMS_TO = {
    "1.1": (
        "WARC File Format 1.1",
        "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    ),
    "1.0": (
        "WARC File Format 1.0",
        "http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf",
    ),
    "0.18": ("WARC File Format 0.18", "http://www.archive.org/documents/WarcFileFormat-0.18.html"),
}


def get_header(headers: Sequence[tuple[bytes, object]], name: bytes) -> bytes | None:
    """The value of the first header called ``name`` (any case), or ``None``."""
    want = name.lower()
    for key, value in headers:
        if key.lower() == want:
            return value  # type: ignore[return-value]
    return None


def set_header(headers: list, name: bytes, value: object) -> None:
    """Replace the value of header ``name`` in place, or insert it before ``Content-Type``
    (at the end when there is none), where a usual header block has it."""
    want = name.lower()
    for i, (key, _) in enumerate(headers):
        if key.lower() == want:
            headers[i] = (key, value)
            return
    headers.insert(_before_content_type(headers), (name, value))


def remove_header(headers: list, name: bytes) -> None:
    """Remove every header called ``name`` (any case)."""
    want = name.lower()
    headers[:] = [(k, v) for k, v in headers if k.lower() != want]


def _before_content_type(headers: Sequence[tuple[bytes, object]]) -> int:
    return next(
        (i for i, (k, _) in enumerate(headers) if k.lower() == b"content-type"), len(headers)
    )


def content_length_tail(framing: Framing) -> bytes:
    """What a version's ``Content-Length`` counts after the block (``\\n\\n`` in 0.18), which
    readers of that convention therefore digest with it."""
    return framing.separator if framing.cl_includes_separator else b""


def can_copy_verbatim(
    raw_header: bytes,
    headers: Headers,
    block_length: int,
    framing: Framing,
    *,
    version: str,
    line_ending: bytes | None,
    cl_includes_separator: bool,
    separator: bytes | None,
) -> bool:
    """Whether a record read from WARC (its exact ``raw_header``, parsed ``headers``, block
    length and the framing it was read with) can be written as ``raw_header + block +
    separator`` in ``framing``: same version, line endings and separator convention, one
    blank line ending the header, a ``Content-Length`` that counts the block, a ``WARC-Date``."""
    if version != framing.version or not raw_header.startswith(framing.version_line):
        return False
    if line_ending is not None and line_ending != framing.line_ending:
        return False
    if cl_includes_separator != framing.cl_includes_separator:
        return False
    if (
        not framing.cl_includes_separator
        and separator is not None
        and separator != framing.separator
    ):
        return False
    eol = framing.line_ending
    expected = block_length + (len(framing.separator) if framing.cl_includes_separator else 0)
    if _KERNEL_VERBATIM is not None:
        got = _KERNEL_VERBATIM(raw_header, headers, expected, eol)
        if got is not None:  # else: the pure function decides
            return got
    return _verbatim_ok_pure(raw_header, headers, expected, eol)


def _verbatim_ok_pure(raw_header: bytes, headers: Headers, expected: int, eol: bytes) -> bool:
    """The header checks of :func:`can_copy_verbatim` after its framing comparisons (the
    compiled kernel's reference): ``eol eol`` first found at the end of ``raw_header``; with
    CRLF no bare LF; the first ``Content-Length`` spells ``expected``; a non-blank first
    ``WARC-Record-ID``; a ``WARC-Date``."""
    if raw_header.find(eol + eol) != len(raw_header) - 2 * len(eol):
        return False  # blank line inside the header, or no proper end: rebuild it
    if eol == b"\r\n" and raw_header.count(b"\n") != raw_header.count(b"\r\n"):
        return False  # mixed line endings
    declared = record_id = date = None  # the first of each, as get_header finds it
    for key, value in headers:  # one pass; names compared only where the length matches
        n = len(key)
        if n == 14:
            lower = key.lower()
            if lower == b"content-length":
                declared = value if declared is None else declared
            elif lower == b"warc-record-id":
                record_id = value if record_id is None else record_id
        elif n == 9 and date is None and key.lower() == b"warc-date":
            date = value
    if declared is None or declared.strip() != b"%d" % expected:
        return False
    if not (record_id or b"").strip():
        return False  # rebuilt with a record id (mandatory field)
    return date is not None  # else rebuilt (mandatory field)


#: the framing of a verbatim copy: (version, version line, line ending, separator, whether
#: ``Content-Length`` counts the separator).
FramingFacts = tuple[str, bytes, bytes, bytes, bool]


def framing_facts(framing: Framing) -> FramingFacts:
    """What :func:`verbatim_parts` needs of ``framing``, as one tuple (made once per framing by
    its caller)."""
    return (
        framing.version,
        framing.version_line,
        framing.line_ending,
        framing.separator,
        framing.cl_includes_separator,
    )


def verbatim_parts(
    warc: dict, head: bytes | None, payload: bytes, framing: FramingFacts
) -> tuple[bytes, bytes, bytes, bytes] | None:
    """A verbatim copy of a record read from WARC as its parts ``(raw_header, HTTP head,
    payload, separator)``, or ``None``: ``warc`` is the record's ``extras["warc"]``, ``head``
    and ``payload`` its block, ``framing`` the target's :func:`framing_facts`. The parts when
    :func:`can_copy_verbatim` says the input bytes can be written as they are, their values
    being of the types the WARC reader gives (bytes, a ``str`` version, a ``bool``
    ``cl_includes_separator``, header pairs as a list or tuple of 2-tuples of bytes and bytes
    or ``None``); ``None`` when it says no and for any other types, where the
    caller takes its general path. The compiled kernel's when it is there (the same answers)."""
    if _KERNEL_PARTS is not None:
        return _KERNEL_PARTS(warc, head, payload, framing)
    return _verbatim_parts_pure(warc, head, payload, framing)


def _verbatim_parts_pure(
    warc: dict, head: bytes | None, payload: bytes, framing: FramingFacts
) -> tuple[bytes, bytes, bytes, bytes] | None:
    """:func:`verbatim_parts` in Python (the compiled kernel's reference)."""
    if type(framing) is not tuple or len(framing) != 5:
        return None
    version, version_line, eol, separator, cl_includes_separator = framing
    if (type(version), type(version_line), type(eol), type(separator)) != (
        str,
        bytes,
        bytes,
        bytes,
    ):
        return None
    if type(cl_includes_separator) is not bool:
        return None
    if type(warc) is not dict or type(payload) is not bytes:
        return None
    if head is not None and type(head) is not bytes:
        return None
    raw_header = warc.get("raw_header")
    headers = warc.get("headers")
    got_version = warc.get("version")
    if type(raw_header) is not bytes or not raw_header or headers is None:
        return None
    if type(got_version) is not str:
        return None
    line_ending = warc.get("line_ending")
    given_separator = warc.get("separator")
    cl_sep = warc.get("cl_includes_separator", False)
    if line_ending is not None and type(line_ending) is not bytes:
        return None
    if given_separator is not None and type(given_separator) is not bytes:
        return None
    if type(cl_sep) is not bool:
        return None
    if type(headers) not in (list, tuple) or not 1 <= len(eol) <= 8:
        return None
    for pair in headers:
        if type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not bytes:
            return None
        if pair[1] is not None and type(pair[1]) is not bytes:
            return None
    if got_version != version or not raw_header.startswith(version_line):
        return None
    if line_ending is not None and line_ending != eol:
        return None
    if cl_sep != cl_includes_separator:
        return None
    if not cl_includes_separator and given_separator is not None and given_separator != separator:
        return None
    head = head or b""
    expected = len(head) + len(payload) + (len(separator) if cl_includes_separator else 0)
    if _verbatim_ok_pure(raw_header, headers, expected, eol) is not True:
        return None
    return raw_header, head, payload, separator


def reframe_headers(
    pairs: Iterable[tuple[bytes, bytes]], version: str
) -> tuple[Headers, list[tuple[str, str]]]:
    """Original header pairs re-framed for ``version``: ``Content-Length`` dropped (the
    serialiser writes it last), bare UUID record ids wrapped as ``<urn:uuid:...>`` in 1.x, line
    breaks inside values replaced by spaces; invalid dates are kept and noted in 0.18 (in 1.x
    the writer replaces them, keeping the original: ``WarcEncoder._originals``)."""
    headers: Headers = []
    notes: list[tuple[str, str]] = []
    for name, val in pairs:
        lower = name.lower()
        if lower == b"content-length":
            continue
        if version != "0.18" and lower in ID_FIELDS and BARE_UUID.match(val.strip()):
            bare = val.strip()
            val = bare if bare.startswith(b"urn:") else b"urn:uuid:" + bare
            val = b"<" + val + b">"
            notes.append(("record-id-wrapped", "bare record id wrapped as <urn:uuid:...>"))
        if lower == b"warc-date" and version == "0.18" and not valid_warc_date(val.strip()):
            notes.append(("invalid-date-kept", "invalid WARC-Date kept as written"))
        val, cleaned = clean_header_value(val)
        if cleaned:
            notes.append(
                (
                    "line-break-in-header",
                    "line break inside a WARC header value replaced by a space",
                )
            )
        headers.append((name, val))
    return headers, notes


def fix_digests(
    headers: Headers,
    block: bytes,
    payload: bytes,
    *,
    mode: str,
    revisit: bool,
    http_payload: bool,
) -> tuple[Headers, list[tuple[str, str]]]:
    """Digest headers of a record whose ``block`` (and ``payload``, both with the version's
    :func:`content_length_tail`) may have changed: a digest that still matches keeps its exact
    spelling, a wrong one is recomputed in its own algorithm and encoding (``mode``
    ``recompute``/``keep``) or removed (``none``), one in an unknown algorithm is kept
    unchecked. Unless ``mode`` is ``none``, a missing block digest is added, and a payload
    digest when the block holds an HTTP payload (SHA-1 base32, before ``Content-Type``). A
    revisit's payload digest names the original capture's payload: never touched."""
    notes: list[tuple[str, str]] = []
    out: Headers = []
    seen_block = seen_payload = False
    for key, value in headers:
        lower = key.lower()
        if lower == b"warc-block-digest":
            seen_block, data = True, block
        elif lower == b"warc-payload-digest" and not revisit:
            seen_payload, data = True, payload
        else:
            out.append((key, value))
            continue
        ok = digest_matches(value, data)
        if ok is None:
            notes.append(
                ("unknown-digest-algorithm", "digest in an unknown algorithm kept unchecked")
            )
        elif not ok and mode == "none":
            notes.append(("stale-digest-removed", "stale digest of a changed record removed"))
            continue
        elif not ok:
            notes.append(("digest-recomputed", "digest recomputed"))
            value = recompute_like(value, data).encode("ascii")
        out.append((key, value))
    extra: Headers = []
    if mode != "none":
        if not seen_block:
            extra.append((b"WARC-Block-Digest", sha1_base32(block).encode("ascii")))
        if not seen_payload and http_payload and not revisit:
            extra.append((b"WARC-Payload-Digest", sha1_base32(payload).encode("ascii")))
    if extra:
        pos = _before_content_type(out)
        out[pos:pos] = extra
    return out, notes


def new_digest_headers(
    head: bytes, payload: bytes, tail: bytes, *, http_payload: bool
) -> list[tuple[bytes, DeferredSha1]]:
    """SHA-1 block digest of ``head + payload + tail``, and payload digest of ``payload +
    tail`` when there is an HTTP payload; computed when the record is serialised (on a writer
    thread), without concatenating the parts."""
    out = [(b"WARC-Block-Digest", DeferredSha1(head, payload, tail))]
    if http_payload:
        out.append((b"WARC-Payload-Digest", DeferredSha1(payload, tail)))
    return out


def warcinfo_record(
    framing: Framing,
    fields: Sequence[tuple[str, str]],
    *,
    record_id: bytes,
    date: bytes,
    filename: bytes,
    digest: bool,
) -> tuple[bytes, bytes]:
    """A ``warcinfo`` record (``application/warc-fields`` block of ``fields``) in
    ``framing``'s version; returns ``(record bytes, block)``."""
    block = warc_fields(fields)
    headers: Headers = [
        (b"WARC-Type", b"warcinfo"),
        (b"WARC-Record-ID", record_id),
        (b"WARC-Date", date),
        (b"WARC-Filename", filename),
    ]
    if digest:
        tail = content_length_tail(framing)
        headers.append((b"WARC-Block-Digest", sha1_base32(block + tail).encode("ascii")))
    headers.append((b"Content-Type", b"application/warc-fields"))
    return serialize_record(framing.version, headers, block), block
