"""ClueWeb09 collection naming, TREC ids and side files (md5 and record-count lists); Chuweb21
md5 manifests.

Text-level codecs only; nothing here reads WARC records. The user's page is
``docs/formats/clueweb09.md``. Facts (see ``shared/specs/collections.md`` §1 and the Lemur
"Dataset Information" page):

* segments ``ClueWeb09_<Language>_<n>`` (``n`` from 1), holding directories
  ``<ll><NNNN>`` (``en0000``) and, in ``ClueWeb09_English_1`` only, ``enwp00``..``enwp03``
  (Wikipedia); each directory holds up to 100 files ``00.warc.gz``..``99.warc.gz``;
* ``WARC-TREC-ID`` = ``clueweb09-<directory>-<file 2 digits>-<record 5 digits>``, the record
  number 0-based in file order, the warcinfo record not counted;
* md5 lists: ``md5sum --binary`` output, ``<md5> *./en0000/22.warc.gz``, paths relative to the
  segment directory, one file per segment named as the page names them, ``ClueWeb_*.md5``:
  ``ClueWeb_<Language>_<n>.md5`` (:func:`md5_file_name`), at the collection root beside the
  segments (where crawlmill writes it) or in the segment directory; crawlmill's older name
  ``<Segment>.md5`` is still found (:func:`md5_list_names`);
* record counts: ``record_counts/<Segment>_counts.txt`` below the collection root, lines
  ``*./en0042/15.warc.gz 34618`` (ir_datasets strips the first three characters of the path
  and counts ``response`` records, i.e. every record but the warcinfo);
* Chuweb21/21D manifests: ``<folder>/<file>.warc.gz<TAB><md5>`` per line (``md5_checksum.txt``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

__all__ = [
    "COUNTS_DIR",
    "LANGUAGES",
    "SEGMENTS",
    "ChecksumEntry",
    "CountEntry",
    "DirName",
    "FilePath",
    "SegmentName",
    "TrecId",
    "counts_file_name",
    "dir_name",
    "file_name",
    "format_chuweb_manifest",
    "format_counts",
    "format_md5_list",
    "language_code",
    "language_name",
    "md5_file_name",
    "md5_list_names",
    "normalize_listed_path",
    "parse_chuweb_manifest",
    "parse_counts",
    "parse_dir_name",
    "parse_file_name",
    "parse_file_path",
    "parse_md5_list",
    "parse_segment_name",
    "parse_trec_id",
    "segment_name",
    "trec_id",
]

#: ClueWeb09 language names and their ISO 639-1 codes, as the segment and directory names use
#: them (the ten languages of the collection; ir_datasets ``clueweb09/{ar,zh,en,...}``).
LANGUAGES: dict[str, str] = {
    "Arabic": "ar",
    "Chinese": "zh",
    "English": "en",
    "French": "fr",
    "German": "de",
    "Italian": "it",
    "Japanese": "ja",
    "Korean": "ko",
    "Portuguese": "pt",
    "Spanish": "es",
}
_CODE_TO_NAME = {code: name for name, code in LANGUAGES.items()}

#: The 24 segments of the full collection, in ir_datasets' order.
SEGMENTS: tuple[str, ...] = (
    "ClueWeb09_Arabic_1",
    *(f"ClueWeb09_Chinese_{n}" for n in range(1, 5)),
    *(f"ClueWeb09_English_{n}" for n in range(1, 11)),
    "ClueWeb09_French_1",
    "ClueWeb09_German_1",
    "ClueWeb09_Italian_1",
    "ClueWeb09_Japanese_1",
    "ClueWeb09_Japanese_2",
    "ClueWeb09_Korean_1",
    "ClueWeb09_Portuguese_1",
    "ClueWeb09_Spanish_1",
    "ClueWeb09_Spanish_2",
)

#: Folder (below the collection root) of the record-count lists.
COUNTS_DIR = "record_counts"

_SEGMENT_RE = re.compile(r"^ClueWeb09_([A-Za-z]+)_(\d+)$")
_DIR_RE = re.compile(r"^([a-z]{2})(wp)?(\d+)$")
_FILE_RE = re.compile(r"^(\d{2})(\.warc(?:\.gz|\.zst)?)$")
_TREC_ID_RE = re.compile(r"^clueweb09-([a-z]{2}(?:wp\d{2}|\d{4}))-(\d{2})-(\d{5})$")
_MD5_RE = re.compile(r"^[0-9a-fA-F]{32}$")


def language_code(language: str) -> str:
    """The 2-letter code of a ClueWeb09 language given by name (``English``) or code (``en``),
    case-insensitive. Raises ``ValueError`` for a language ClueWeb09 does not have."""
    key = language.strip()
    if key.lower() in _CODE_TO_NAME:
        return key.lower()
    for name, code in LANGUAGES.items():
        if name.lower() == key.lower():
            return code
    raise ValueError(f"{language!r} is not a ClueWeb09 language; known: {', '.join(LANGUAGES)}")


def language_name(language: str) -> str:
    """The ClueWeb09 language name (``English``) for a code or name, case-insensitive."""
    return _CODE_TO_NAME[language_code(language)]


class SegmentName(NamedTuple):
    """A parsed segment directory name: language name and segment number."""

    language: str
    number: int


def segment_name(language: str, number: int) -> str:
    """``ClueWeb09_<Language>_<number>`` for a language name or code and a number from 1."""
    if number < 1:
        raise ValueError(f"ClueWeb09 segment numbers start at 1, got {number}")
    return f"ClueWeb09_{language_name(language)}_{number}"


def parse_segment_name(name: str) -> SegmentName | None:
    """Parse ``ClueWeb09_English_10``; ``None`` when ``name`` is not a segment directory name
    of a known language."""
    m = _SEGMENT_RE.match(name)
    if not m:
        return None
    try:
        lang = language_name(m.group(1))
    except ValueError:
        return None
    return SegmentName(lang, int(m.group(2)))


class DirName(NamedTuple):
    """A parsed directory name: language code, number and whether it is a Wikipedia dir."""

    code: str
    number: int
    wikipedia: bool = False


def dir_name(code: str, number: int, *, wikipedia: bool = False) -> str:
    """``en0042`` (4 digits) or, for the Wikipedia copy, ``enwp03`` (2 digits)."""
    code = language_code(code)
    width = 2 if wikipedia else 4
    if not 0 <= number < 10**width:
        raise ValueError(f"ClueWeb09 directory number {number} does not fit {width} digits")
    return f"{code}{'wp' if wikipedia else ''}{number:0{width}d}"


def parse_dir_name(name: str) -> DirName | None:
    """Parse ``en0042`` or ``enwp03``; ``None`` for anything else."""
    m = _DIR_RE.match(name)
    if not m or m.group(1) not in _CODE_TO_NAME:
        return None
    wikipedia = m.group(2) is not None
    if len(m.group(3)) != (2 if wikipedia else 4):
        return None
    return DirName(m.group(1), int(m.group(3)), wikipedia)


def file_name(number: int, extension: str = ".warc.gz") -> str:
    """``07.warc.gz``: the 2-digit file number (0..99) and the extension."""
    if not 0 <= number < 100:
        raise ValueError(f"ClueWeb09 file number {number} is not in 0..99")
    return f"{number:02d}{extension}"


def parse_file_name(name: str) -> int | None:
    """The file number of ``07.warc.gz`` (also ``.warc``, ``.warc.zst``), else ``None``."""
    m = _FILE_RE.match(name)
    return int(m.group(1)) if m else None


class FilePath(NamedTuple):
    """Where a path names a ClueWeb09 file: its segment (when a path component names one),
    directory and file number."""

    segment: SegmentName | None
    directory: DirName
    file: int


def parse_file_path(path: str) -> FilePath | None:
    """Parse the ClueWeb09 place of a path ending in ``<dir>/<NN>.warc[.gz|.zst]``
    (``.../ClueWeb09_English_1/en0000/07.warc.gz``, also with ``\\`` separators); ``None``
    when its last two components are not a ClueWeb09 directory and file name. The segment
    is the component just above the directory when it is a segment name."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if len(parts) < 2:
        return None
    file = parse_file_name(parts[-1])
    directory = parse_dir_name(parts[-2])
    if file is None or directory is None:
        return None
    segment = parse_segment_name(parts[-3]) if len(parts) >= 3 else None
    return FilePath(segment, directory, file)


class TrecId(NamedTuple):
    """A parsed ``WARC-TREC-ID``: directory name, file number, record number."""

    directory: str
    file: int
    record: int

    def __str__(self) -> str:
        return trec_id(self.directory, self.file, self.record)


def trec_id(directory: str, file: int, record: int) -> str:
    """``clueweb09-<directory>-<file:02d>-<record:05d>``; raises ``ValueError`` when a number
    does not fit its digits (a file with more than 100,000 documents has no valid ids)."""
    if parse_dir_name(directory) is None:
        raise ValueError(f"{directory!r} is not a ClueWeb09 directory name (like en0042)")
    if not 0 <= file < 100:
        raise ValueError(f"ClueWeb09 file number {file} is not in 0..99")
    if not 0 <= record < 100000:
        raise ValueError(
            f"ClueWeb09 record number {record} does not fit 5 digits; "
            "a ClueWeb09 file holds at most 100,000 documents"
        )
    return f"clueweb09-{directory}-{file:02d}-{record:05d}"


def parse_trec_id(value: str) -> TrecId | None:
    """Parse ``clueweb09-en0000-00-00000``; ``None`` when it is not a ClueWeb09 TREC id."""
    m = _TREC_ID_RE.match(value.strip())
    if not m or parse_dir_name(m.group(1)) is None:
        return None
    return TrecId(m.group(1), int(m.group(2)), int(m.group(3)))


# -- side files ------------------------------------------------------------------------------


def md5_file_name(segment: str) -> str:
    """Name of a segment's md5 list as the dataset page names them ("The files with the name
    ``ClueWeb_*.md5``"): ``ClueWeb_English_1.md5`` for segment ``ClueWeb09_English_1``."""
    parsed = parse_segment_name(segment)
    if parsed is None:
        raise ValueError(f"{segment!r} is not a ClueWeb09 segment name (ClueWeb09_English_1)")
    return f"ClueWeb_{parsed.language}_{parsed.number}.md5"


def md5_list_names(segment: str) -> tuple[str, ...]:
    """The names a segment's md5 list is found under: the page's (:func:`md5_file_name`),
    then ``<Segment>.md5`` (what crawlmill wrote before it followed the page); only the
    latter for a directory not named like a segment."""
    if parse_segment_name(segment) is None:
        return (f"{segment}.md5",)
    return (md5_file_name(segment), f"{segment}.md5")


def counts_file_name(segment: str) -> str:
    """Path (below the collection root) of a segment's record-count list."""
    return f"{COUNTS_DIR}/{segment}_counts.txt"


def normalize_listed_path(path: str) -> str:
    """A path as written in an md5 or counts list (``*./en0000/22.warc.gz``, ``./en0000/...``,
    ``en0000/...``) reduced to ``en0000/22.warc.gz``."""
    path = path.strip()
    if path.startswith("*"):  # md5sum's binary-mode marker
        path = path[1:]
    while path.startswith("./"):
        path = path[2:]
    return path


class ChecksumEntry(NamedTuple):
    """One line of an md5 list: relative path, lowercase md5 hex, 1-based line number."""

    path: str
    md5: str
    line: int


class CountEntry(NamedTuple):
    """One line of a record-count list: relative path, record count, 1-based line number."""

    path: str
    count: int
    line: int


def _text_lines(data: bytes | str) -> Iterator[tuple[int, str]]:
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            yield number, line


def parse_md5_list(data: bytes | str) -> tuple[list[ChecksumEntry], list[tuple[int, str]]]:
    """Parse an md5sum-style list (``<md5> *./dir/NN.warc.gz`` or ``<md5>  ./dir/...``).

    Returns the entries and the lines that could not be parsed as ``(line number, text)``.
    """
    entries: list[ChecksumEntry] = []
    bad: list[tuple[int, str]] = []
    for number, line in _text_lines(data):
        digest, _, rest = line.strip().partition(" ")
        if digest.startswith("\\"):  # md5sum escapes names with backslashes this way
            digest = digest[1:]
        path = normalize_listed_path(rest)
        if not _MD5_RE.match(digest) or not path:
            bad.append((number, line))
            continue
        entries.append(ChecksumEntry(path, digest.lower(), number))
    return entries, bad


def format_md5_list(entries: Iterable[tuple[str, str]]) -> bytes:
    """An md5 list in ClueWeb09 form from ``(relative path, md5 hex)`` pairs, in the given
    order: ``<md5> *./en0000/00.warc.gz`` lines (``md5sum --binary`` output, which
    ``md5sum -c`` checks when run in the segment directory)."""
    lines = []
    for path, digest in entries:
        if not _MD5_RE.match(digest):
            raise ValueError(f"{digest!r} is not an md5 hex digest")
        lines.append(f"{digest.lower()} *./{normalize_listed_path(path)}\n")
    return "".join(lines).encode("utf-8", "surrogateescape")


def parse_counts(data: bytes | str) -> tuple[list[CountEntry], list[tuple[int, str]]]:
    """Parse a record-count list (``*./en0042/15.warc.gz 34618`` lines).

    Returns the entries and the lines that could not be parsed as ``(line number, text)``.
    """
    entries: list[CountEntry] = []
    bad: list[tuple[int, str]] = []
    for number, line in _text_lines(data):
        path, _, count = line.strip().rpartition(" ")
        path = normalize_listed_path(path)
        if not path or not count.strip().isdigit():
            bad.append((number, line))
            continue
        entries.append(CountEntry(path, int(count), number))
    return entries, bad


def format_counts(entries: Iterable[tuple[str, int]]) -> bytes:
    """A record-count list in ClueWeb09 form from ``(relative path, count)`` pairs, in the
    given order: ``*./en0000/00.warc.gz 34618`` lines."""
    lines = [f"*./{normalize_listed_path(path)} {int(count)}\n" for path, count in entries]
    return "".join(lines).encode("utf-8", "surrogateescape")


def parse_chuweb_manifest(data: bytes | str) -> tuple[list[ChecksumEntry], list[tuple[int, str]]]:
    """Parse a Chuweb21 ``md5_checksum.txt`` (``<folder>/<file>.warc.gz<TAB><md5>`` lines).

    Returns the entries and the lines that could not be parsed as ``(line number, text)``.
    """
    entries: list[ChecksumEntry] = []
    bad: list[tuple[int, str]] = []
    for number, line in _text_lines(data):
        path, sep, digest = line.rstrip("\r\n").rpartition("\t")
        digest = digest.strip()
        if not sep or not path or not _MD5_RE.match(digest):
            bad.append((number, line))
            continue
        entries.append(ChecksumEntry(path, digest.lower(), number))
    return entries, bad


def format_chuweb_manifest(entries: Iterable[tuple[str, str]]) -> bytes:
    """A Chuweb21 manifest from ``(relative path, md5 hex)`` pairs, in the given order."""
    lines = []
    for path, digest in entries:
        if not _MD5_RE.match(digest) or "\t" in path or "\n" in path:
            raise ValueError(f"cannot list {path!r} with md5 {digest!r} in a Chuweb21 manifest")
        lines.append(f"{path}\t{digest.lower()}\n")
    return "".join(lines).encode("utf-8", "surrogateescape")
