"""The ``mapfile`` writer: Hadoop MapFiles (``data`` + ``index``) from any reader's records,
sorted through the shuffle.

Every record goes through a sorted shuffle (:mod:`crawlmill.core.run.shuffle`) into
``partitions`` MapFile directories ``part-r-NNNNN/`` (``part-NNNNN/`` with ``part_names:
part``, the old ``mapred`` API's names), each holding:

* ``data``: a SequenceFile of the entries the ``sequencefile`` writer makes (the same key and
  value per record and the same options: classes, version, codec, sync interval, metadata), in
  Hadoop's raw byte order of the serialized keys
  (:func:`crawlmill.formats.hadoop.mapfile.sort_key`: for ``Text`` keys the UTF-8 bytes
  compared unsigned, not Python's or Java's string order); equal keys keep input order.
  BLOCK-compressed with DefaultCodec unless ``compression``/``codec`` (or a SequenceFile
  source) say otherwise (Hadoop's own ``MapFile.Writer`` defaults to RECORD:
  ``io.seqfile.compression.type``);
* ``index``: what Hadoop 3's ``MapFile.Writer`` writes (BLOCK + DefaultCodec, an entry every
  ``index_interval`` (128) records where the data position moved: one per block of BLOCK
  data).

Folder names and rollover are the plain layout's, as for every file writer: ``name_pattern``
with the placeholders ``{stem}`` (the partition's folder, ``part-r-NNNNN``), ``{index}`` (the
partition number), ``{seq}`` (the MapFile's number within its partition), ``{dir}`` and
``{ext}`` (both empty); ``max_records`` and ``max_bytes`` (of ``data``) close a MapFile and
start the next one, ``{stem}-{seq:05d}`` (``part-r-00000-00001/``) unless ``name_pattern``
says otherwise. A rolled MapFile is a MapFile of its own (its own sorted ``data`` and
``index``), never split between equal keys, so ``MapFile.Reader.get`` on each folder finds
each of its keys; the ``mapfile`` reader and ``crawlmill get`` find ``part-...-NNNNN`` folders
in the output root (other names: give the folder). Keys are hash-partitioned across
partitions, not across a partition's rolled MapFiles: ``MapFileOutputFormat.getEntry`` with
``HashPartitioner`` applies only without rollover.

Records are partitioned as Hadoop's ``HashPartitioner`` partitions (``(key.hashCode() &
Integer.MAX_VALUE) % partitions``, ``Text.hashCode`` = ``WritableComparator.hashBytes`` of
its UTF-8 bytes), so ``MapFileOutputFormat.getEntry`` finds a key in the part a Hadoop job
would have put it in. A key lower than the one before it (possible only when the records'
key classes differ) is refused as Hadoop refuses it: the record is quarantined
(``key-out-of-order``); equal keys are written.
"""

from __future__ import annotations

from typing import Any, Literal

from crawlmill.core import Record, ShuffleSpec, hookimpl
from crawlmill.core.file_writer import OutputFile
from crawlmill.core.plugin import PluginOptions
from crawlmill.formats.hadoop.mapfile import (
    INDEX_INTERVAL,
    KeyOrderError,
    MapFileWriter,
    hash_partition,
    sort_key,
)
from pydantic import Field, field_validator, model_validator

from .layout_plain import check_pattern, check_rollover, pattern_for
from .sequencefile import H, SequenceFileWriter, _key_of

__all__ = ["MapFileWriterPlugin"]


class _PlainFields(PluginOptions):
    """The plain layout's options (:class:`~.layout_plain.PlainOptions`, a light dataclass) as
    pydantic fields, for this writer's pydantic options: the same names, rules and messages."""

    name_pattern: str | None = Field(
        None,
        description="File names; placeholders {dir} {stem} {seq} {index} {ext}. Default: one file per input named after it ({dir}{stem}{ext}), or {dir}{stem}-{seq:05d}{ext} with rollover.",
    )
    max_records: int | None = Field(
        None, ge=1, description="Start a new file after this many records."
    )
    max_bytes: int | None = Field(
        None, ge=1, description="Start a new file once a file reaches this many (compressed) bytes."
    )

    @field_validator("name_pattern")
    @classmethod
    def _pattern_placeholders(cls, value: str | None) -> str | None:
        return check_pattern(value)

    @model_validator(mode="after")
    def _rollover_needs_seq(self) -> _PlainFields:
        check_rollover(self.name_pattern, self.max_records, self.max_bytes)
        return self


class MapFileWriterPlugin(SequenceFileWriter):
    """Hadoop MapFiles (data + index), sorted by key through the shuffle, in part folders."""

    name = "mapfile"
    default_compression = "block"

    class Options(SequenceFileWriter.Options, _PlainFields):
        """Options of the MapFile writer (the SequenceFile writer's, the shuffle's, and the
        plain layout's folder names and rollover: ``name_pattern``, ``max_records``,
        ``max_bytes``, see the module docstring)."""

        writes = "mapfile"

        partitions: int = Field(
            1, ge=1, le=100_000, description="number of MapFiles (reduce partitions), hash-partitioned as Hadoop's HashPartitioner"
        )  # fmt: skip
        index_interval: int = Field(
            INDEX_INTERVAL, ge=1, description="records between index entries (io.map.index.interval)"
        )  # fmt: skip
        part_names: Literal["part-r", "part"] = Field(
            "part-r", description="part folder names: part-r-NNNNN (mapreduce API) or part-NNNNN (mapred)"
        )  # fmt: skip

        @model_validator(mode="after")
        def _names_stay_apart(self) -> MapFileWriterPlugin.Options:
            pattern = self.name_pattern
            if pattern and self.partitions > 1 and "{stem" not in pattern and "{index" not in pattern:
                raise ValueError(
                    "name_pattern: several partitions need {stem} or {index} in the pattern"
                )
            return self

    @classmethod
    def extension(cls, options: Any) -> str:
        """No suffix: a MapFile is a folder."""
        return ""

    @classmethod
    def planned_outputs(cls, options: Any, inputs: list[Any]) -> list[list[str]] | None:
        """``None``: the folders belong to partitions, not to inputs."""
        return None

    @classmethod
    def position_free(cls, options: Any) -> bool:
        """``False``: the folders are named by the partition's place."""
        return False

    # -- the shuffle -------------------------------------------------------------------------

    def key_of(self, record: Record) -> tuple[str, bytes]:
        """The key class and serialized key the record is written with (as the
        ``sequencefile`` writer chooses them); an empty key when its class cannot hold the
        record's URL (the record is then refused when written)."""
        src = record.extras.get("sequencefile")
        src = src if isinstance(src, dict) else {}
        key_class = self.options.key_class or src.get("key_class") or H + "Text"
        if src.get("key_class") == key_class and "url" not in record.changed and "key" in src:
            return key_class, bytes(src["key"])
        try:
            return key_class, _key_of(key_class, record.url)
        except ValueError:
            return key_class, b""

    def shuffle(self) -> ShuffleSpec:
        """Always: ``partitions`` hash partitions, each sorted by key."""
        return ShuffleSpec(self.options.partitions, "hash")

    def partition_of(self, record: Record, partitions: int) -> int:
        """Hadoop's ``HashPartitioner`` of the record's key."""
        return hash_partition(*self.key_of(record), partitions)

    def sort_key(self, record: Record) -> bytes:
        """The record's key in Hadoop's raw comparator order."""
        return sort_key(*self.key_of(record))

    # -- files -------------------------------------------------------------------------------

    def open(self, ctx: Any) -> None:
        """Start a partition: no MapFile yet, none written."""
        super().open(ctx)
        self._folders = 0
        self._last_key: tuple[str, bytes] | None = None

    def folder_name(self, seq: int) -> str:
        """The folder of the partition's ``seq``-th MapFile (module docstring)."""
        o = self.options
        stem = f"{o.part_names}-{self.ctx.input.index:05d}"
        return pattern_for(o).format(dir="", stem=stem, seq=seq, index=self.ctx.input.index, ext="")

    def file_for(self, record: Record | None) -> OutputFile:
        """The open MapFile folder (``data`` as the file, ``index`` beside it), or the next
        one when the open one is full and ``record`` has another key than the last written."""
        full = self.file is not None and record is not None and self._full(self.file)
        if full and self.key_of(record) != self._last_key:  # type: ignore[arg-type]
            self.close_file()
        if self.file is None:
            folder = self.folder_name(self._folders)
            self._folders += 1
            self._index = self.ctx.create(folder + "/index")
            self.file = OutputFile(folder + "/data", self.ctx.create(folder + "/data"))
            self.start_file(self.file, record)
        return self.file

    def open_encoder(self, file: OutputFile, key_class: str, value_class: str, **kw: Any) -> Any:
        """A MapFile writer: ``data`` on ``file``, ``index`` beside it."""
        return MapFileWriter(file.stream, self._index, key_class, value_class,
                             index_interval=self.options.index_interval, **kw)  # fmt: skip

    def finish_file(self, file: OutputFile) -> dict[str, Any]:
        """Flush and close data and index."""
        try:
            entry = super().finish_file(file)
        finally:
            self._index.close()
        return entry

    def write(self, record: Record) -> None:
        """Write one record as one entry; a key lower than the last is quarantined."""
        try:
            super().write(record)
        except KeyOrderError as exc:
            self.ctx.quarantine(record, f"key-out-of-order: {exc}")
            return
        self._last_key = self.key_of(record)


@hookimpl
def crawlmill_register_writers(register) -> None:
    """Register the ``mapfile`` writer."""
    register(MapFileWriterPlugin)
