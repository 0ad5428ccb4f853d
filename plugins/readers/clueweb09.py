"""The ``clueweb09`` reader: a ClueWeb09-style collection directory read as one input
(the user's page: ``docs/formats/clueweb09.md``).

``discover`` expands a collection root (holding ``ClueWeb09_<Language>_<n>`` segments and
``record_counts/``), a single segment directory, or a bare directory of ``en0000``-style
folders into its WARC files in collection order (segments by language name and number, as
ir_datasets orders them; directories and files by name). Each file is a single-file unit
(:class:`InputFile`) whose ``expect`` holds what the segment's side files promise
(:mod:`crawlmill.core.collection`):

* the md5 its segment's md5 lists give, unless ``verify_md5`` is off: any ``*.md5`` in the
  segment directory, and at the collection root the page's ``ClueWeb_<Language>_<n>.md5``
  (what the ``clueweb09`` layout writes) or crawlmill's older ``<Segment>.md5``; every list
  found is read, and a file several lists name is checked against each of them;
* its number of ``response`` records (the page's "individual page records": every record of
  its files but the warcinfo) from the page's ``<Segment>_counts.txt``
  (``ClueWeb09_English_1_counts.txt``) in ``record_counts/`` below the root (where the layout
  writes it, as ir_datasets keeps them), in the segment directory or at the root, unless
  ``verify_counts`` is off.

A file a list names that is missing from the tree is a unit too, expected ``present`` by each
list that names it: the engine reports it as a failed check and reads the others. The engine
verifies every expectation (the md5 hashed in a thread while the records are parsed); each is
a collection check, not a record: it never counts in ``read``; a failed one names the file,
the list and both values, shows in the run report and on stderr, and makes the run exit 3.

``meta["problems"]`` carries the collection's warnings to report while reading a segment's
first file: files present but not listed, unreadable list lines, a segment without lists, a
counts entry found in another segment (the ``en0054`` case ir_datasets fixes by hand: checked
where the file really is, with a warning).

``read`` delegates the records to the registered ``warc`` reader (``ctx.reader("warc")``: with
the WARC reader disabled a ClueWeb09 input fails, naming it). A record whose ``WARC-TREC-ID``
does not name the file it is in is counted and reported once per file as a warning.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from crawlmill.core import (
    Expectation,
    InputFile,
    PluginOptions,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
)
from crawlmill.core.naming import named_with, reader_suffixes
from crawlmill.formats.clueweb09 import collection as cw
from pydantic import Field, field_validator

__all__ = ["NOT_COUNTED", "ClueWeb09Reader", "scan_collection", "trec_prefix_of"]

#: the record kinds a counts list does not count: every kind but ``response`` (the page's
#: "# of records" are pages; its files hold a warcinfo and responses).
NOT_COUNTED: tuple[RecordKind, ...] = tuple(k for k in RecordKind if k != RecordKind.RESPONSE)


class ClueWeb09Options(PluginOptions):
    """Options of the ``clueweb09`` reader."""

    verify_md5: bool = Field(
        True, description="compare each file's md5 with the segment's md5 list"
    )
    verify_counts: bool = Field(
        True, description="compare each file's record count with record_counts/"
    )
    languages: list[str] = Field(
        default_factory=list,
        description="read only the segments of these languages (names or codes); empty: all",
    )

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: list[str]) -> list[str]:
        for language in value:
            cw.language_code(language)  # ValueError names the known languages
        return value


# -- collection scan -------------------------------------------------------------------------


@dataclass
class _Segment:
    name: str
    path: str
    files: dict[str, str] = field(default_factory=dict)  # inner relpath -> absolute path
    #: inner relpath -> [(md5, list relpath)], one per list naming it
    md5: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    counts: dict[str, tuple[int, str]] = field(default_factory=dict)  # inner -> (count, list)
    md5_lists: list[str] = field(default_factory=list)
    counts_lists: list[str] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Collection:
    """The result of :func:`scan_collection`: the units in order (the files, and the listed
    files that are missing, expected present) and collection problems that no file could
    carry (a collection without any readable file)."""

    root: str
    files: list[InputFile]
    orphan_problems: list[dict[str, str]]


def _problem(code: str, path: str, reason: str) -> dict[str, str]:
    """A collection warning of kind ``code`` (docs/problems.md) about ``path``."""
    return {"code": code, "path": path, "reason": reason}


def _is_warc_name(name: str) -> bool:
    """A WARC file name: the warc reader's ``file_suffixes`` after at most one compression
    suffix (``00.warc.gz``, ``00.warc.lz4``; :func:`crawlmill.core.naming.reader_suffixes`)."""
    return named_with(name, reader_suffixes("warc"))


def _looks_like_bare_segment(path: str) -> bool:
    try:
        return any(cw.parse_dir_name(e.name) and e.is_dir() for e in os.scandir(path))
    except OSError:
        return False


def collection_confidence(path: str) -> float:
    """How sure we are that directory ``path`` is a ClueWeb09-style collection."""
    if not os.path.isdir(path):
        return 0.0
    if cw.parse_segment_name(os.path.basename(os.path.normpath(path))):
        return 0.95
    try:
        entries = list(os.scandir(path))
    except OSError:
        return 0.0
    if any(e.is_dir() and cw.parse_segment_name(e.name) for e in entries):
        return 0.95
    if any(e.is_dir() and cw.parse_dir_name(e.name) for e in entries):
        return 0.6
    return 0.0


def _segment_dirs(root: str, languages: set[str] | None) -> tuple[str, list[tuple[str, str]]]:
    """``(collection root, [(segment name, segment path)])`` in collection order."""
    root = os.path.normpath(root)
    own = cw.parse_segment_name(os.path.basename(root))
    if own:
        found = [(os.path.basename(root), root)]
        base = os.path.dirname(root)
    else:
        found = []
        for entry in os.scandir(root):
            if entry.is_dir() and cw.parse_segment_name(entry.name):
                found.append((entry.name, entry.path))
        base = root
        if not found and _looks_like_bare_segment(root):
            return root, [(os.path.basename(root), root)]

    def key(item: tuple[str, str]) -> tuple[str, int]:
        parsed = cw.parse_segment_name(item[0])
        return (parsed.language, parsed.number) if parsed else (item[0], 0)

    if languages:
        found = [
            s
            for s in found
            if (p := cw.parse_segment_name(s[0])) and cw.language_code(p.language) in languages
        ]
    return base, sorted(found, key=key)


def _names(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _read_list(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _scan_segment(base: str, name: str, path: str) -> _Segment:
    seg = _Segment(name, path)
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            if entry.name == cw.COUNTS_DIR:
                continue
            if not cw.parse_dir_name(entry.name):
                seg.problems.append(
                    _problem(
                        "not-read",
                        entry.path,
                        "directory is not a ClueWeb09 directory name (like en0000); not read",
                    )
                )
                continue
            for sub in sorted(os.scandir(entry.path), key=lambda e: e.name):
                inner = f"{entry.name}/{sub.name}"
                if sub.is_file() and _is_warc_name(sub.name):
                    seg.files[inner] = sub.path
                else:
                    seg.problems.append(_problem("not-read", sub.path, "not a WARC file; not read"))
        elif entry.name.endswith(".md5"):
            seg.md5_lists.append(entry.path)
        elif entry.name != os.path.basename(cw.counts_file_name(name)):
            seg.problems.append(
                _problem("not-read", entry.path, "file outside the <ll>NNNN directories; not read")
            )
    for list_name in cw.md5_list_names(name):  # the lists at the collection root
        root_md5 = os.path.join(base, list_name)
        if os.path.isfile(root_md5) and os.path.normpath(root_md5) not in map(
            os.path.normpath, seg.md5_lists
        ):
            seg.md5_lists.append(root_md5)
    for list_path in seg.md5_lists:
        label = os.path.relpath(list_path, base)
        entries, bad = cw.parse_md5_list(_read_list(list_path) or b"")
        for line, text in bad:
            seg.problems.append(
                _problem(
                    "bad-list-line",
                    list_path,
                    f"line {line} is not '<md5> *./dir/NN.warc.gz': {text[:120]!r}",
                )
            )
        for e in entries:
            seg.md5.setdefault(e.path, []).append((e.md5, label))
    counts_name = os.path.basename(cw.counts_file_name(name))
    for counts_path in (
        os.path.join(base, cw.counts_file_name(name)),
        os.path.join(path, counts_name),
        os.path.join(base, counts_name),
    ):
        if not os.path.isfile(counts_path) or counts_path in seg.counts_lists:
            continue
        seg.counts_lists.append(counts_path)
        label = os.path.relpath(counts_path, base)
        entries, bad = cw.parse_counts(_read_list(counts_path) or b"")
        for line, text in bad:
            seg.problems.append(
                _problem(
                    "bad-list-line",
                    counts_path,
                    f"line {line} is not '*./dir/NN.warc.gz <count>': {text[:120]!r}",
                )
            )
        for e in entries:
            seg.counts.setdefault(e.path, (e.count, label))
    return seg


def _move_misfiled_counts(segments: list[_Segment]) -> None:
    """Entries listed under one segment for a directory that lives in another (ir_datasets'
    ``en0054`` fix, generalised): move them to the segment that has the directory."""
    dir_owner: dict[str, _Segment] = {}
    for seg in segments:
        for inner in seg.files:
            dir_owner.setdefault(inner.split("/", 1)[0], seg)
    for seg in segments:
        for table_name in ("counts", "md5"):
            table = getattr(seg, table_name)
            for inner in list(table):
                if inner in seg.files:
                    continue
                owner = dir_owner.get(inner.split("/", 1)[0])
                if owner is None or owner is seg or inner not in owner.files:
                    continue
                value = table.pop(inner)
                getattr(owner, table_name).setdefault(inner, value)
                label = value[0][1] if table_name == "md5" else value[1]
                owner.problems.append(
                    _problem(
                        "listed-elsewhere",
                        os.path.join(owner.path, inner),
                        f"listed in {label} (segment {seg.name}) but stored in segment {owner.name}; checked there",
                    )
                )


def trec_prefix_of(path: str) -> str | None:
    """``clueweb09-en0000-07-`` for a file at ``.../en0000/07.warc.gz``, else ``None``."""
    parts = path.replace(os.sep, "/").split("/")
    if len(parts) < 2 or cw.parse_dir_name(parts[-2]) is None:
        return None
    number = cw.parse_file_name(parts[-1])
    return None if number is None else f"clueweb09-{parts[-2]}-{number:02d}-"


def scan_collection(
    root: str, languages: list[str] | None = None, md5: bool = True, counts: bool = True
) -> Collection:
    """List a ClueWeb09-style collection's files in order, each expected to have the md5
    (``md5``) and record count (``counts``) its segment's lists give, the files the lists
    name that are missing (expected ``present``), and the warnings about side files and tree
    (see the module docstring)."""
    codes = {cw.language_code(x) for x in languages} if languages else None
    base, seg_dirs = _segment_dirs(root, codes)
    segments = [_scan_segment(base, name, path) for name, path in seg_dirs]
    _move_misfiled_counts(segments)
    units: list[InputFile] = []
    first_present: InputFile | None = None
    orphans: list[dict[str, str]] = []
    for seg in segments:
        problems = list(seg.problems)
        missing: dict[str, list[Expectation]] = {}
        for kind, table, lists in (
            ("md5", seg.md5, seg.md5_lists),
            ("record count", seg.counts, seg.counts_lists),
        ):
            if not lists:
                problems.append(
                    _problem(
                        "no-list",
                        seg.path,
                        f"no {kind} list found for segment {seg.name}; {kind}s not checked",
                    )
                )
                continue
            for inner in sorted(set(table) - set(seg.files)):
                entry = table[inner]
                label = entry[0][1] if kind == "md5" else entry[1]
                missing.setdefault(inner, []).append(Expectation.present(source=label))
            for inner in sorted(set(seg.files) - set(table)):
                problems.append(
                    _problem(
                        "not-listed",
                        seg.files[inner],
                        f"present but not listed in {', '.join(os.path.relpath(p, base) for p in lists)}; its {kind} is not checked",
                    )
                )
        seg_units = []
        for inner in sorted(set(seg.files) | set(missing)):
            path = seg.files.get(inner) or os.path.join(seg.path, *inner.split("/"))
            meta: dict[str, Any] = {"collection": "clueweb09", "segment": seg.name, "problems": []}
            expect = list(missing.get(inner, ()))
            if md5:
                for digest, label in seg.md5.get(inner, ()):
                    expect.append(Expectation.md5(digest, source=label))
            if counts and inner in seg.counts:
                count, label = seg.counts[inner]
                expect.append(Expectation.records(count, source=label, exclude=NOT_COUNTED))
            prefix = trec_prefix_of(path)
            if prefix:
                meta["trec_prefix"] = prefix
            rel = os.path.relpath(path, root)
            seg_units.append(InputFile(path, rel, meta=meta, expect=tuple(expect)))
        present = [u for u in seg_units if u.path in seg.files.values()]
        if present:
            present[0].meta["problems"].extend(problems)
            first_present = first_present or present[0]
        else:
            orphans.extend(problems)
        units.extend(seg_units)
    if first_present is not None and orphans:
        first_present.meta["problems"].extend(orphans)
        orphans = []
    indexed = [replace(u, index=i) for i, u in enumerate(units)]
    return Collection(base, indexed, orphans)


# -- the reader --------------------------------------------------------------------------------


class ClueWeb09Reader(Reader):
    """ClueWeb09 collection directory: every segment's WARC files, checked against the md5
    and record-count lists."""

    name = "clueweb09"
    Options = ClueWeb09Options
    #: the md5 and record-count lists ``discover`` turns into each file's expectations
    discovery_reads = ((r".+\.md5", None), (r".+_counts\.txt", None))

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """High for a directory holding ``ClueWeb09_*`` segments or named like one; a
        segment-like directory of ``<ll><NNNN>/<NN>.warc.gz`` folders scores less; 0 for a
        file."""
        return collection_confidence(path)

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """The collection's WARC files in collection order, each with the md5 and record
        count its segment's lists promise (and the listed files that are missing, expected
        present); ``None`` when ``path`` is not a ClueWeb09-style directory."""
        if collection_confidence(path) <= 0.0:
            return None
        languages = list(getattr(options, "languages", []) or [])
        collection = scan_collection(
            path,
            languages,
            md5=getattr(options, "verify_md5", True),
            counts=getattr(options, "verify_counts", True),
        )
        if not collection.files and collection.orphan_problems:
            from crawlmill.core import FormatError

            reasons = "; ".join(
                f"{p['path']}: {p['reason']}" for p in collection.orphan_problems[:5]
            )
            raise FormatError(
                f"ClueWeb09 collection has no readable WARC file ({reasons})", path=path
            )
        return collection.files

    @classmethod
    def side_files(cls, path: str, units: list[InputFile]) -> list[str]:
        """The md5 lists (``*.md5`` in the collection root and its segment folders) and the
        record-count lists (``record_counts/``, or ``<Segment>_counts.txt`` beside the
        segments) its checks read."""
        found: list[str] = []
        root = os.path.abspath(path)
        folders = [root] + sorted({os.path.dirname(os.path.dirname(u.path)) for u in units})
        for folder in dict.fromkeys(folders):
            for name in sorted(_names(folder)):
                file = os.path.join(folder, name)
                if name.endswith((".md5", "_counts.txt")) and os.path.isfile(file):
                    found.append(file)
            counts = os.path.join(folder, cw.COUNTS_DIR)
            found += [os.path.join(counts, n) for n in sorted(_names(counts))
                      if os.path.isfile(os.path.join(counts, n))]  # fmt: skip
        return found

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Records of one WARC file through the registered ``warc`` reader, then the TREC-id
        check (the engine verifies the md5 and the record count)."""
        meta = ctx.input.meta or {}
        for problem in meta.get("problems", []):
            ctx.report_warning(problem["code"], f"{problem['path']}: {problem['reason']}")
        prefix = meta.get("trec_prefix") or trec_prefix_of(ctx.path)
        inner = ctx.reader("warc")
        foreign_ids: list[str] = []
        for record in inner.read(ctx):
            if (
                record.kind != RecordKind.WARCINFO
                and prefix
                and record.doc_id
                and not record.doc_id.startswith(prefix)
            ):
                foreign_ids.append(record.doc_id)
            yield record
        if foreign_ids:
            ctx.report_warning(
                "foreign-trec-id",
                f"{ctx.path}: {len(foreign_ids)} WARC-TREC-ID(s) do not name this file ({prefix}*), first {foreign_ids[0]!r}",
            )


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the ``clueweb09`` collection reader."""
    register(ClueWeb09Reader)
