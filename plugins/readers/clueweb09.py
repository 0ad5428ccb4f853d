"""The ``clueweb09`` reader: a ClueWeb09-style collection directory read as one input.

``discover`` expands a collection root (holding ``ClueWeb09_<Language>_<n>`` segments and
``record_counts/``), a single segment directory, or a bare directory of ``en0000``-style
folders into its WARC files in collection order (segments by language name and number, as
ir_datasets orders them; directories and files by name). Each :class:`InputFile` carries in
``meta``:

* ``md5`` / ``md5_list``: the expected md5 and the list that gives it (``<Segment>.md5`` or any
  ``*.md5`` in the segment directory, or ``<Segment>.md5`` at the root);
* ``records`` / ``counts_list``: the expected number of records, warcinfo excluded, from
  ``record_counts/<Segment>_counts.txt``;
* ``problems``: collection-level findings to report while reading this file: files listed in
  a side file but missing (a failed check), files present but not listed (warning), unreadable list
  lines, a counts entry found in another segment (the ``en0054`` case ir_datasets fixes by
  hand: checked where the file really is, with a warning).

``read`` delegates the records to the registered ``warc`` reader and, at the end of the file,
compares the md5 of the file bytes (hashed in a thread while the records are parsed) and the
record count with the expectations. Each comparison is a collection check
(``ctx.report_check``), not a record: it never counts in ``read``; a failed one names the
file, the list and both values, shows in the run report and on stderr, and makes the run exit
3 like damage. A record whose ``WARC-TREC-ID`` does not name the file it is in is counted and
reported once per file as a warning.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from crawlmill.core import (
    Check,
    InputFile,
    PluginOptions,
    ReadContext,
    Reader,
    Record,
    RecordKind,
    hookimpl,
)
from crawlmill.core.errors import PluginError
from crawlmill.formats import clueweb09 as cw
from crawlmill.plugins.readers.codes import CLUEWEB09, code_of
from pydantic import Field, field_validator

__all__ = ["ClueWeb09Reader", "scan_collection", "trec_prefix_of", "warc_reader_class"]

_WARC_SUFFIXES = (".warc.gz", ".warc", ".warc.zst")


def warc_reader_class() -> type[Reader]:
    """The ``warc`` reader class from ``crawlmill.plugins.readers.warc``."""
    try:
        module = importlib.import_module("crawlmill.plugins.readers.warc")
    except ImportError as exc:  # pragma: no cover - the warc reader ships with crawlmill
        raise PluginError(f"the clueweb09 reader needs the warc reader: {exc}") from exc
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, Reader)
            and getattr(value, "name", "") == "warc"
        ):
            return value
    raise PluginError("crawlmill.plugins.readers.warc defines no Reader named 'warc'")


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
    md5: dict[str, tuple[str, str]] = field(default_factory=dict)  # inner -> (md5, list relpath)
    counts: dict[str, tuple[int, str]] = field(default_factory=dict)  # inner -> (count, list)
    md5_lists: list[str] = field(default_factory=list)
    counts_lists: list[str] = field(default_factory=list)
    problems: list[dict[str, str]] = field(default_factory=list)


@dataclass
class Collection:
    """The result of :func:`scan_collection`: input files in order and collection problems
    that no file could carry (a collection without any readable file)."""

    root: str
    files: list[InputFile]
    orphan_problems: list[dict[str, str]]


def _problem(severity: str, path: str, reason: str) -> dict[str, str]:
    return {"severity": severity, "path": path, "reason": reason}


def _is_warc_name(name: str) -> bool:
    return name.lower().endswith(_WARC_SUFFIXES)


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
                        "warning",
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
                    seg.problems.append(_problem("warning", sub.path, "not a WARC file; not read"))
        elif entry.name.endswith(".md5"):
            seg.md5_lists.append(entry.path)
        elif entry.name != os.path.basename(cw.counts_file_name(name)):
            seg.problems.append(
                _problem("warning", entry.path, "file outside the <ll>NNNN directories; not read")
            )
    root_md5 = os.path.join(base, cw.md5_file_name(name))
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
                    "warning",
                    list_path,
                    f"line {line} is not '<md5> *./dir/NN.warc.gz': {text[:120]!r}",
                )
            )
        for e in entries:
            seg.md5[e.path] = (e.md5, label)
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
                    "warning",
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
                owner.problems.append(
                    _problem(
                        "warning",
                        os.path.join(owner.path, inner),
                        f"listed in {value[1]} (segment {seg.name}) but stored in segment {owner.name}; checked there",
                    )
                )


def trec_prefix_of(path: str) -> str | None:
    """``clueweb09-en0000-07-`` for a file at ``.../en0000/07.warc.gz``, else ``None``."""
    parts = path.replace(os.sep, "/").split("/")
    if len(parts) < 2 or cw.parse_dir_name(parts[-2]) is None:
        return None
    number = cw.parse_file_name(parts[-1])
    return None if number is None else f"clueweb09-{parts[-2]}-{number:02d}-"


def scan_collection(root: str, languages: list[str] | None = None) -> Collection:
    """List a ClueWeb09-style collection's files with their expected md5 and record counts,
    and the mismatches between the side files and the tree (see the module docstring)."""
    codes = {cw.language_code(x) for x in languages} if languages else None
    base, seg_dirs = _segment_dirs(root, codes)
    segments = [_scan_segment(base, name, path) for name, path in seg_dirs]
    _move_misfiled_counts(segments)
    files: list[InputFile] = []
    orphans: list[dict[str, str]] = []
    for seg in segments:
        problems = list(seg.problems)
        for kind, table, lists in (
            ("md5", seg.md5, seg.md5_lists),
            ("record count", seg.counts, seg.counts_lists),
        ):
            if not lists:
                problems.append(
                    _problem(
                        "warning",
                        seg.path,
                        f"no {kind} list found for segment {seg.name}; {kind}s not checked",
                    )
                )
                continue
            for inner in sorted(set(table) - set(seg.files)):
                problems.append(
                    _problem(
                        "damage",
                        os.path.join(seg.path, inner),
                        f"listed in {table[inner][1]} but missing from the collection",
                    )
                )
            for inner in sorted(set(seg.files) - set(table)):
                problems.append(
                    _problem(
                        "warning",
                        seg.files[inner],
                        f"present but not listed in {', '.join(os.path.relpath(p, base) for p in lists)}; its {kind} is not checked",
                    )
                )
        seg_files = []
        for inner in sorted(seg.files):
            path = seg.files[inner]
            meta: dict[str, Any] = {"collection": "clueweb09", "segment": seg.name, "problems": []}
            if inner in seg.md5:
                meta["md5"], meta["md5_list"] = seg.md5[inner]
            if inner in seg.counts:
                meta["records"], meta["counts_list"] = seg.counts[inner]
            prefix = trec_prefix_of(path)
            if prefix:
                meta["trec_prefix"] = prefix
            seg_files.append(InputFile(path=path, relpath=os.path.relpath(path, root), meta=meta))
        if seg_files:
            seg_files[0].meta["problems"].extend(problems)
        else:
            orphans.extend(problems)
        files.extend(seg_files)
    if files and orphans:
        files[0].meta["problems"].extend(orphans)
        orphans = []
    indexed = [InputFile(f.path, f.relpath, i, f.meta) for i, f in enumerate(files)]
    return Collection(base, indexed, orphans)


# -- the reader --------------------------------------------------------------------------------


class _Md5InThread:
    """md5 of a file computed in a thread (hashlib releases the GIL on large chunks)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.result: str | None = None
        self.error: OSError | None = None
        self._thread = threading.Thread(target=self._run, name="clueweb09-md5", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                self.result = hashlib.file_digest(fh, "md5").hexdigest()
        except OSError as exc:
            self.error = exc

    def wait(self) -> str | None:
        self._thread.join()
        return self.result


class ClueWeb09Reader(Reader):
    """ClueWeb09 collection directory: every segment's WARC files, checked against the md5
    and record-count lists."""

    name = "clueweb09"
    Options = ClueWeb09Options

    @classmethod
    def sniff(cls, path: str, head: bytes) -> float:
        """High for a directory holding ``ClueWeb09_*`` segments or named like one; a
        segment-like directory of ``<ll><NNNN>/<NN>.warc.gz`` folders scores less; 0 for a
        file."""
        return collection_confidence(path)

    @classmethod
    def discover(cls, path: str, options: PluginOptions) -> list[InputFile] | None:
        """The collection's WARC files in collection order with their expectations in
        ``meta``; ``None`` when ``path`` is not a ClueWeb09-style directory."""
        if collection_confidence(path) <= 0.0:
            return None
        languages = list(getattr(options, "languages", []) or [])
        collection = scan_collection(path, languages)
        if not collection.files and collection.orphan_problems:
            from crawlmill.core.errors import FormatError

            reasons = "; ".join(
                f"{p['path']}: {p['reason']}" for p in collection.orphan_problems[:5]
            )
            raise FormatError(
                f"ClueWeb09 collection has no readable WARC file ({reasons})", path=path
            )
        return collection.files

    def read(self, ctx: ReadContext) -> Iterator[Record]:
        """Records of one WARC file (through the ``warc`` reader), then the md5, count and
        TREC-id checks."""
        meta = ctx.input.meta or {}
        for problem in meta.get("problems", []):
            if problem["severity"] == "damage":  # a listed file that is missing
                ctx.report_check(
                    Check(problem["path"], "listed file present", False, problem["reason"])
                )
            else:
                code = code_of(problem["reason"], CLUEWEB09)
                ctx.report_warning(code, f"{problem['path']}: {problem['reason']}")
        expected_md5 = meta.get("md5") if self.options.verify_md5 else None
        hasher = _Md5InThread(ctx.path) if expected_md5 else None
        expected_records = meta.get("records") if self.options.verify_counts else None
        prefix = meta.get("trec_prefix") or trec_prefix_of(ctx.path)
        inner = warc_reader_class()()
        records = 0
        foreign_ids: list[str] = []
        for record in inner.read(ctx):
            if record.kind != RecordKind.WARCINFO:
                records += 1
                if prefix and record.doc_id and not record.doc_id.startswith(prefix):
                    foreign_ids.append(record.doc_id)
            yield record
        if foreign_ids:
            ctx.report_warning(
                "foreign-trec-id",
                f"{ctx.path}: {len(foreign_ids)} WARC-TREC-ID(s) do not name this file ({prefix}*), first {foreign_ids[0]!r}",
            )
        if expected_records is not None:
            ok = records == expected_records
            ctx.report_check(
                Check(
                    ctx.path,
                    "record count",
                    ok,
                    ""
                    if ok
                    else f"record count mismatch: {meta.get('counts_list')} lists "
                    f"{expected_records} records (warcinfo excluded), the file has {records}",
                )
            )
        if hasher is not None:
            actual = hasher.wait()
            if actual is None:
                reason = f"md5 not checked: cannot read the file ({hasher.error})"
            elif actual != expected_md5:
                reason = (
                    f"md5 mismatch: {meta.get('md5_list')} lists {expected_md5}, the file's "
                    f"bytes have {actual}"
                )
            else:
                reason = ""
            ctx.report_check(Check(ctx.path, "md5", not reason, reason))


@hookimpl
def crawlmill_register_readers(register) -> None:
    """Register the ``clueweb09`` collection reader."""
    register(ClueWeb09Reader)
