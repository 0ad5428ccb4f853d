"""The ``clueweb09`` and ``chuweb21`` output layouts of the WARC writer.

``clueweb09``: every input file of the run becomes exactly one output file, placed by the
input's index ``i`` among all inputs: directory ``d = i // files_per_dir``, file
``i % files_per_dir``, segment ``d // segment_dirs + 1`` (or 1 when ``segment_dirs`` is unset)::

    ClueWeb09_<Language>_<segment>/<ll><d:04d>/<file:02d>.warc.gz

TREC ids (writer option ``trec_ids``, default ``keep``): the ids are the qrels keys, so they
are kept whenever they can be. With ``keep``, an input whose path ends in a ClueWeb09 file
name (``[ClueWeb09_<Language>_<n>/]<ll><NNNN>/<NN>.warc.gz``, also ``<ll>wp<NN>``) keeps its
place, language included (its segment when the folder above names one, else as computed from
the directory number; the ``language`` option names the others' segments) and each record keeps its ``WARC-TREC-ID`` when the id
names that file (``clueweb09-<dir>-<file>-<n>``). Ids are *assigned anew*
(``clueweb09-<dir>-<file>-<n:05d>``, ``n`` 0-based in file order, warcinfo not counted) for a
whole file when its first document has no id (notes only), or has one that names another
file, or ``trec_ids: assign`` was chosen: then the run report counts a warning and the
completion marker's ``notes["trec_ids"]`` says which ids were replaced and why. A file whose
first document kept its id never mixes in new ids: a later document without a fitting id, or
with an id seen before in the file, fails the task with the reason (new numbers could collide
with kept ones). A run that mixes ClueWeb09-named inputs with others may map two inputs to one
file (an input placed by position on a named input's place): the run then fails with both
named, and ``trec_ids: assign`` places every input by position. ``finalize`` writes, per segment,
the md5 list named as the dataset page names them ("The files with the name ClueWeb_*.md5"),
``ClueWeb_<Language>_<segment>.md5`` at the output root beside the segment directories
(``<md5> *./en0000/00.warc.gz`` lines, ``md5sum --binary`` style, relative to the segment
directory, so ``md5sum -c ../ClueWeb_English_1.md5`` works there) and
``record_counts/ClueWeb09_<Language>_<segment>_counts.txt`` (the page's ``ClueWeb09_*_counts.txt``)
(``*./en0000/00.warc.gz <records>`` lines, counting the ``response`` records, as ir_datasets
does). Only ``response`` records are numbered and counted: the page adds ``WARC-TREC-ID`` "to
the WARC response header information", and every record of its files but the warcinfo is a
response; a ``request``, ``metadata`` or other record is written without a new id and not
counted. Use writer version ``0.18`` for files that ClueWeb09 tools read.

``chuweb21``: one output file per input, named after the input the way Chuweb21 keeps
Common Crawl's names: an input ``.../CC-MAIN-<t1>-<t2>-00042.warc.gz`` goes to
``CC-MAIN-<t1>-<t2>/CC-MAIN-<t1>-<t2>-00042.warc.gz`` (folder = name without its last
``-<digits>``); an input whose name has no such number goes to a folder named after its
input folder (``/`` replaced by ``-``; ``warc`` for a top-level input). ``finalize`` writes
``md5_checksum.txt`` (``<folder>/<file><TAB><md5>`` lines, in input order), as the Chuweb21
release does. With ``pack: tar`` it also packs each folder as the paper ships it ("The complete
Chuweb21 collection is split into 5, 118 sub-files with "warc.tar" format to facilitate the
user in downloading and using"): ``<folder>.warc.tar`` at the output root, an uncompressed POSIX
tar whose members are the folder's files under the names the manifest gives them
(``<folder>/<file>.warc.gz``, in name order; mode 0644, owner 0, the files' own bytes, mtime
``SOURCE_DATE_EPOCH`` or 0, so a rerun packs the same bytes). The loose files stay where the
run wrote them (the engine owns them: resume and ``status`` check them); ship the tars and the
manifest.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import tarfile
from collections.abc import Callable
from typing import Any, BinaryIO, Literal

from crawlmill.core import ConfigError, CrawlmillError
from crawlmill.core.file_writer import describes_file
from crawlmill.core.layouts import Layout, register_layout
from crawlmill.core.markers import hookimpl
from crawlmill.core.naming import named_with, reader_suffixes, strip_suffixes
from crawlmill.core.plugin import PluginOptions, WriteContext
from crawlmill.core.record import Record, RecordKind
from crawlmill.formats.clueweb09 import collection as cw
from pydantic import Field

__all__ = [
    "CHUWEB_MANIFEST",
    "Chuweb21Layout",
    "Chuweb21Options",
    "ClueWeb09Layout",
    "ClueWeb09Options",
    "pack_folders",
]

#: warnings the run report counts when the clueweb09 layout replaces existing TREC ids.
REPLACED_NOT_FITTING = (
    "clueweb09 layout: WARC-TREC-IDs assigned anew, replacing the input's ids, which do not "
    "name the output file (notes.trec_ids in the completion marker lists the files)"
)
REPLACED_BY_OPTION = (
    "clueweb09 layout: WARC-TREC-IDs assigned anew, replacing the input's ids (trec_ids=assign)"
)

#: ``ctx.notes`` key: output path -> responses numbered in it (what the counts list counts).
NUMBERED_NOTE = "trec_numbered"

#: Name of the Chuweb21 md5 manifest at the output root.
CHUWEB_MANIFEST = "md5_checksum.txt"

_NUMBERED_STEM = re.compile(r"^(.+)-(\d+)$")


class OneFilePerInput(CrawlmillError):
    """The writer asked a one-file-per-input layout for a second file."""


def _int_option(options: Any, name: str, default: int | None) -> int | None:
    value = getattr(options, name, default)
    return default if value is None else int(value)


class ClueWeb09Options(PluginOptions):
    """Options of the ``clueweb09`` layout."""

    language: str = Field(
        "English", description="Collection language (ClueWeb09_<Language>_<N>), name or code."
    )
    segment_dirs: int | None = Field(
        None, ge=1, description="Directories per segment (None: the layout's default)."
    )
    files_per_dir: int = Field(100, ge=1, description="Files per directory.")
    trec_ids: Literal["keep", "assign"] = Field(
        "keep",
        description="keep: an input named like a ClueWeb09 file (<dir>/<NN>.warc.gz) keeps its place and its records' WARC-TREC-IDs when they name that file; assign: number every file's records anew.",
    )


@register_layout
class ClueWeb09Layout(Layout):
    """ClueWeb09 segments of WARC files with TREC ids, md5 and record-count lists.

    Files ``ClueWeb09_<Language>_<n>/<ll><NNNN>/<NN>.warc.gz``, one per input (see the module
    docstring)."""

    name = "clueweb09"
    rolls_by_size = False  # one file per input
    Options = ClueWeb09Options
    formats = ("warc",)

    def __init__(self, options: Any, ctx: WriteContext, extension: str) -> None:
        super().__init__(options, ctx, extension)
        self.code, self.language = self.language_of(self.settings)
        self.files_per_dir, self.segment_dirs = self.sizes_of(self.settings)
        self.keep_ids = getattr(self.settings, "trec_ids", "keep") != "assign"
        named = cw.parse_file_path(ctx.input.path) if self.keep_ids else None
        if named is not None:
            self._place_by_name(named)
        else:
            self._place_by_index(ctx.input.index)
        self._paths_given = 0
        #: "kept" or "assigned", decided at the file's first document.
        self.ids: str | None = None
        self._kept: set[int] = set()
        #: documents of this file that ClueWeb09 does not number (not ``response``).
        self._unnumbered = 0

    def _place_by_index(self, index: int) -> None:
        self.dir_number = index // self.files_per_dir
        self.file_number = index % self.files_per_dir
        if self.dir_number >= 10000:
            raise ConfigError(
                [
                    (
                        "layout",
                        f"input #{index} needs ClueWeb09 directory {self.dir_number}, more than the 4 digits allow",
                    )
                ]
            )
        segment = self.dir_number // self.segment_dirs + 1 if self.segment_dirs else 1
        self.segment = cw.segment_name(self.language, segment)
        self.directory = cw.dir_name(self.code, self.dir_number)

    def _place_by_name(self, named: cw.FilePath) -> None:
        """The place the input's own ClueWeb09 name gives (so its ids can be kept), in the
        input's own language (a collection of several languages keeps its segments)."""
        d = named.directory
        self.code, self.language = d.code, cw.language_name(d.code)
        self.dir_number = d.number
        self.file_number = named.file
        if named.segment is not None and named.segment.language == self.language:
            segment = named.segment.number
        elif d.wikipedia:
            segment = 1  # the Wikipedia directories are in ClueWeb09_English_1
        else:
            segment = d.number // self.segment_dirs + 1 if self.segment_dirs else 1
        self.segment = cw.segment_name(self.language, segment)
        self.directory = cw.dir_name(self.code, d.number, wikipedia=d.wikipedia)

    @staticmethod
    def language_of(options: Any) -> tuple[str, str]:
        """``(code, name)`` of the layout's ``language`` option (name or code)."""
        value = getattr(options, "language", None) or "English"
        try:
            code = cw.language_code(value)
        except ValueError as exc:
            raise ConfigError([("language", str(exc))]) from exc
        return code, cw.language_name(code)

    @staticmethod
    def sizes_of(options: Any) -> tuple[int, int | None]:
        """``(files_per_dir, segment_dirs)`` from the layout's options, checked."""
        files_per_dir = _int_option(options, "files_per_dir", 100)
        segment_dirs = _int_option(options, "segment_dirs", None)
        if not 1 <= files_per_dir <= 100:
            raise ConfigError(
                [
                    (
                        "files_per_dir",
                        f"must be 1..100 for 2-digit ClueWeb09 file names, got {files_per_dir}",
                    )
                ]
            )
        if segment_dirs is not None and segment_dirs < 1:
            raise ConfigError([("segment_dirs", f"must be at least 1, got {segment_dirs}")])
        return files_per_dir, segment_dirs

    @property
    def relpath(self) -> str:
        """The output file of this task, relative to the output root."""
        name = cw.file_name(self.file_number, self.extension)
        return f"{self.segment}/{self.directory}/{name}"

    def next_path(self) -> str:
        """The one output file of this input; a second request is an error (ClueWeb09 maps
        each input to one file, so record-count rollover does not apply)."""
        if self._paths_given:
            raise OneFilePerInput(
                f"the clueweb09 layout writes one file per input; input {self.ctx.input.relpath!r} "
                "asked for a second one (unset max_records/max_bytes)"
            )
        self._paths_given += 1
        self.ctx.notes.setdefault(NUMBERED_NOTE, {})[self.relpath] = 0
        return self.relpath

    def should_roll(self, records_in_file: int, bytes_in_file: int) -> bool:
        """Never: one file per input."""
        return False

    def doc_id(self, record: Record, record_number: int) -> str | None:
        """The record's own TREC id when it names this file (``trec_ids: keep``), else
        ``clueweb09-<dir>-<file>-<record:05d>``, ``record`` counting this file's responses
        (``record_number`` counts its documents: those that are no response are subtracted);
        ``None`` for every record ClueWeb09 does not number: the warcinfo, any record
        describing its file (:func:`~crawlmill.core.file_writer.describes_file`) and
        every record that is not a ``response`` ("One custom field is added to the WARC
        response header information named WARC-TREC-ID"). See the module docstring for when
        ids are assigned anew and how that is reported."""
        if describes_file(record):
            return None
        if record.kind != RecordKind.RESPONSE:
            self._unnumbered += 1
            return None
        record_number -= self._unnumbered
        numbered = self.ctx.notes.setdefault(NUMBERED_NOTE, {})
        numbered[self.relpath] = numbered.get(self.relpath, 0) + 1
        own = cw.parse_trec_id(record.doc_id) if record.doc_id else None
        fits = own is not None and (own.directory, own.file) == (self.directory, self.file_number)
        if self.ids is None:
            self._decide(record, fits)
        if self.ids == "kept":
            if not fits or own is None:
                raise CrawlmillError(
                    f"{self.relpath}: record {record.url!r} has WARC-TREC-ID {record.doc_id!r}, "
                    f"which does not name this file, among records whose ids were kept; "
                    "use the writer option trec_ids=assign to number the file anew"
                )
            if own.record in self._kept:
                raise CrawlmillError(
                    f"{self.relpath}: WARC-TREC-ID {record.doc_id!r} occurs twice in the input; "
                    "use the writer option trec_ids=assign to number the file anew"
                )
            self._kept.add(own.record)
            return str(own)
        try:
            return cw.trec_id(self.directory, self.file_number, record_number)
        except ValueError as exc:
            raise CrawlmillError(f"{self.relpath}: {exc}") from exc

    def _decide(self, first: Record, fits: bool) -> None:
        """Keep or assign the ids of this file, from its first document; note and report it."""
        if self.keep_ids and fits:
            self.ids, reason = "kept", "the input's WARC-TREC-IDs name this file"
        elif first.doc_id is None:
            self.ids, reason = "assigned", "the input records carry no WARC-TREC-ID"
        elif not self.keep_ids:
            self.ids, reason = "assigned", "writer option trec_ids=assign"
            self.ctx.report_warning("trec-ids-assigned", REPLACED_BY_OPTION)
        else:
            self.ids = "assigned"
            reason = (
                f"the input's WARC-TREC-IDs ({first.doc_id!r} first) do not name the output "
                f"file {self.directory}/{self.file_number:02d}"
            )
            self.ctx.report_warning("trec-ids-replaced", REPLACED_NOT_FITTING)
        self.ctx.notes.setdefault("trec_ids", []).append(
            {"path": self.relpath, "ids": self.ids, "reason": reason}
        )

    @classmethod
    def needs_md5(cls, options: Any) -> bool:
        """Yes: :meth:`finalize` lists every output's MD5 (the segments' md5 lists)."""
        return True

    @classmethod
    def finalize(
        cls,
        root: str,
        options: Any,
        tasks: list[dict[str, Any]],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Write each segment's ``ClueWeb_<Language>_<n>.md5`` (at the root) and
        ``record_counts/<Segment>_counts.txt``."""
        per_segment: dict[str, list[tuple[str, str, int]]] = {}
        for task in sorted(tasks, key=lambda t: t.get("index", 0)):
            for output in task.get("outputs", []):
                path = str(output["path"]).replace(os.sep, "/")
                segment, sep, inner = path.partition("/")
                if not sep or cw.parse_segment_name(segment) is None:
                    continue
                if cw.parse_file_name(posixpath.basename(inner)) is None:
                    continue  # a side file of the output (CDXJ index), not a WARC file
                digest = output.get("md5") or _md5_of(os.path.join(root, path))
                count = _record_count(root, path, output, task)
                per_segment.setdefault(segment, []).append((inner, digest, count))
        for segment in sorted(per_segment, key=_segment_sort_key):
            rows = sorted(per_segment[segment])
            _write(
                create,
                cw.md5_file_name(segment),
                cw.format_md5_list((inner, digest) for inner, digest, _ in rows),
            )
            _write(
                create,
                cw.counts_file_name(segment),
                cw.format_counts((inner, count) for inner, _, count in rows),
            )


def _write(create: Callable[[str], BinaryIO], relpath: str, data: bytes) -> None:
    fh = create(relpath)
    try:
        fh.write(data)
    finally:
        fh.close()


def _segment_sort_key(segment: str) -> tuple[str, int]:
    parsed = cw.parse_segment_name(segment)
    return (parsed.language, parsed.number) if parsed else (segment, 0)


def _md5_of(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "md5").hexdigest()


def _record_count(root: str, path: str, output: dict[str, Any], task: dict[str, Any]) -> int:
    """The page records of one output, the ``response`` records the layout numbered
    (``notes["trec_numbered"]``), else counted by reading the file."""
    numbered = (task.get("notes") or {}).get(NUMBERED_NOTE) or {}
    if path in numbered:
        return int(numbered[path])
    return count_documents(os.path.join(root, path))


def count_documents(path: str) -> int:
    """Count the ``response`` WARC records of ``path`` (the records ClueWeb09 numbers and its
    counts lists count) with the registered ``warc`` reader (a ``PluginError`` when it is
    disabled); a damaged file is an error, not a count."""
    from crawlmill.core import open_reader

    with open_reader(path, "warc") as records:
        count = sum(1 for record in records if record.kind == RecordKind.RESPONSE)
    if records.damages:
        raise CrawlmillError(
            f"{path}: cannot count records of a damaged output: {records.damages[0]}"
        )
    return count


class Chuweb21Options(PluginOptions):
    """Options of the ``chuweb21`` layout."""

    pack: Literal["none", "tar"] = Field(
        "none",
        description="tar: also pack each folder into <folder>.warc.tar at the output root, as "
        'the Chuweb21 paper ships the collection ("warc.tar" format); none: folders only.',
    )


@register_layout
class Chuweb21Layout(Layout):
    """Chuweb21 folders of WARC files named as Common Crawl names them, with an md5 manifest.

    ``CC-MAIN-<t1>-<t2>/CC-MAIN-<t1>-<t2>-NNNNN.warc.gz`` and ``md5_checksum.txt``
    (``path<TAB>md5``)."""

    name = "chuweb21"
    Options = Chuweb21Options
    rolls_by_size = False  # one file per input
    formats = ("warc",)

    def __init__(self, options: Any, ctx: WriteContext, extension: str) -> None:
        super().__init__(options, ctx, extension)
        self._paths_given = 0

    @property
    def relpath(self) -> str:
        """The output file of this task, relative to the output root."""
        return chuweb_path(self.ctx.input.relpath, self.extension)

    def next_path(self) -> str:
        """The one output file of this input; a second request is an error."""
        if self._paths_given:
            raise OneFilePerInput(
                f"the chuweb21 layout writes one file per input; input {self.ctx.input.relpath!r} "
                "asked for a second one (unset max_records/max_bytes)"
            )
        self._paths_given += 1
        return self.relpath

    @classmethod
    def needs_md5(cls, options: Any) -> bool:
        """Yes: :meth:`finalize` lists every output's MD5 (``md5_checksum.txt``)."""
        return True

    @classmethod
    def finalize(
        cls,
        root: str,
        options: Any,
        tasks: list[dict[str, Any]],
        create: Callable[[str], BinaryIO],
    ) -> None:
        """Write ``md5_checksum.txt`` listing every output in input order, and with ``pack:
        tar`` each folder's ``<folder>.warc.tar``."""
        rows: list[tuple[str, str]] = []
        seen: dict[str, str] = {}
        for task in sorted(tasks, key=lambda t: t.get("index", 0)):
            for output in task.get("outputs", []):
                path = str(output["path"]).replace(os.sep, "/")
                if not named_with(path, reader_suffixes("warc")):
                    continue  # a side file of the output (CDXJ index), not a WARC file
                if path in seen:
                    raise CrawlmillError(
                        f"chuweb21 layout: inputs {seen[path]!r} and {task.get('input')!r} both map to {path!r}"
                    )
                seen[path] = str(task.get("input"))
                rows.append((path, output.get("md5") or _md5_of(os.path.join(root, path))))
        _write(create, CHUWEB_MANIFEST, cw.format_chuweb_manifest(rows))
        settings = getattr(options, "layout_settings", None)
        if getattr(settings, "pack", "none") == "tar":
            pack_folders(root, [path for path, _ in rows], create)


def pack_folders(root: str, paths: list[str], create: Callable[[str], BinaryIO]) -> list[str]:
    """Pack the files ``paths`` (relative to ``root``, ``<folder>/<file>``) into one
    ``<folder>.warc.tar`` per folder at ``root`` (module docstring); return the tars' paths."""
    folders: dict[str, list[str]] = {}
    for path in paths:
        folder, sep, _ = path.partition("/")
        if not sep:
            raise CrawlmillError(f"chuweb21 layout: {path!r} is in no folder; cannot pack it")
        folders.setdefault(folder, []).append(path)
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "0") or 0)
    written = []
    for folder in sorted(folders):
        relpath = f"{folder}.warc.tar"
        fh = create(relpath)
        try:
            with tarfile.open(fileobj=fh, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                for member in sorted(folders[folder]):
                    full = os.path.join(root, *member.split("/"))
                    info = tarfile.TarInfo(member)
                    info.size = os.path.getsize(full)
                    info.mtime, info.mode, info.uid, info.gid = mtime, 0o644, 0, 0
                    with open(full, "rb") as src:
                        tar.addfile(info, src)
        finally:
            fh.close()
        written.append(relpath)
    return written


def chuweb_path(input_relpath: str, extension: str) -> str:
    """Where the chuweb21 layout puts the output of ``input_relpath`` (see module docstring)."""
    relpath = input_relpath.replace(os.sep, "/").strip("/")
    parent, _, base = relpath.rpartition("/")
    stem = strip_suffixes(base)  # the readers' format and compression suffixes
    m = _NUMBERED_STEM.match(stem)
    folder = m.group(1) if m else (parent.replace("/", "-") or "warc")
    return f"{folder}/{stem}{extension}"


@hookimpl
def crawlmill_register_layouts(register: Any) -> None:
    """Register the ``clueweb09`` and ``chuweb21`` layouts."""
    register(ClueWeb09Layout)
    register(Chuweb21Layout)
