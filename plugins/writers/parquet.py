"""``parquet`` writer: page texts as Parquet, the schema datatrove and Hugging Face load.

One row per HTML page, three columns, as datatrove's ``ParquetWriter`` writes a ``Document``
and its ``ParquetReader`` and ``datasets.load_dataset("parquet", ...)`` read it:

* ``text`` (string): the page's main text by :mod:`crawlmill.algorithms.text_extraction`
  (option ``extractor``);
* ``id`` (string): the document id by the rule ``simhash-dedup``'s cluster table uses
  (option ``doc_id``, :mod:`crawlmill.plugins.writers.doc_ids`);
* ``metadata`` (struct, the same fields in every file, null where unknown): ``url``,
  ``date`` (capture time, timestamp in microseconds, UTC), ``content_type`` (the media type),
  ``charset`` (the codec the body was decoded with), ``title``, ``description``,
  ``language`` (the most probable language of the text, with option ``language``: a
  detector), ``cluster`` and ``cluster_size`` (when a ``simhash-dedup`` step ran before the
  writer in the same run: the cluster table's ``cluster`` and ``cluster_size`` of the page).

Rows are buffered and written as one row group per ``row_group_records`` rows or
``row_group_bytes`` bytes of text, whichever comes first (so a scan reads large, few groups);
``compression`` names the codec. Files follow the layout (``layout: {name: plain,
max_records: 100000}`` or ``max_bytes``: many files); each is written under a temporary name
and renamed into place when its task succeeds (the core ``FileWriter``), so a resumed run
redoes only unfinished inputs.

Records that are not HTML pages have no text: they go to the quarantine with reason
``no-text``. A page whose extractor finds no text is written with an empty ``text`` and
counted as ``empty text`` (datatrove's readers skip such rows with a warning).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any, Literal

from crawlmill.core import Record, hookimpl
from crawlmill.core.reduce_tables import rows_of_input
from pydantic import Field, field_validator

from .doc_ids import DocIds
from .text_base import TextDocOptions, TextWriter

__all__ = ["METADATA", "ParquetWriter", "schema"]

#: the fields of the ``metadata`` struct, in order.
METADATA = (
    "url",
    "date",
    "content_type",
    "charset",
    "title",
    "description",
    "language",
    "cluster",
    "cluster_size",
)
#: the filter whose cluster table gives ``cluster`` and ``cluster_size``.
DEDUP = "simhash-dedup"


def schema() -> Any:
    """The files' ``pyarrow.Schema``: ``text``, ``id``, ``metadata`` (see the module)."""
    import pyarrow as pa

    meta = pa.struct(
        [
            ("url", pa.string()),
            ("date", pa.timestamp("us", tz="UTC")),
            ("content_type", pa.string()),
            ("charset", pa.string()),
            ("title", pa.string()),
            ("description", pa.string()),
            ("language", pa.string()),
            ("cluster", pa.int64()),
            ("cluster_size", pa.int64()),
        ]
    )
    return pa.schema([("text", pa.string()), ("id", pa.string()), ("metadata", meta)])


class ParquetWriter(TextWriter):
    """Parquet ``text``/``id``/``metadata`` rows per HTML page (datatrove, Hugging Face)."""

    name = "parquet"

    class Options(TextDocOptions):
        """Options of the parquet writer (``extractor``, ``doc_id`` and ``layout`` come from
        TextDocOptions)."""

        writes = "parquet"

        row_group_records: int = Field(
            100_000, ge=1, description="a row group holds at most this many rows"
        )
        row_group_bytes: int = Field(
            128 * 1024 * 1024,
            ge=1,
            description="a row group ends once its texts reach this many bytes (UTF-8)",
        )
        compression: Literal["zstd", "snappy", "gzip", "brotli", "lz4", "none"] = Field(
            "zstd", description="the Parquet compression codec"
        )
        language: Literal["none", "langdetect", "lingua"] = Field(
            "none",
            description="metadata.language: none (null), or the most probable language of "
            "the text by this detector (the language extra)",
        )

        @field_validator("language")
        @classmethod
        def _installed(cls, value: str) -> str:
            if value != "none":
                from crawlmill.algorithms.language_detect import DetectorMissing, require

                try:
                    require(value)
                except DetectorMissing as exc:
                    raise ValueError(str(exc)) from None
            return value

    @classmethod
    def extension(cls, options: Any) -> str:
        """``.parquet``."""
        return ".parquet"

    def open(self, ctx: Any) -> None:
        """Start the input's layout; the clusters of this input when simhash-dedup ran."""
        self.open_layout(ctx)
        self.ids = DocIds(self.options.doc_id, ctx)
        self.detect = None
        if self.options.language != "none":
            from crawlmill.algorithms.language_detect import detector

            self.detect = detector(self.options.language)
        self.dedup, self.clusters = _clusters_of(ctx)

    def _cluster(self) -> tuple[int | None, int | None]:
        if self.dedup is None:
            return None, None
        return self.clusters.get(self.dedup.seq, (None, None))

    def _language(self, text: str) -> str | None:
        if self.detect is None or not text:
            return None
        probs = self.detect(text)
        return max(probs.items(), key=lambda kv: (kv[1], kv[0]))[0] if probs else None

    def write(self, record: Record) -> None:
        """One row for an HTML page; the quarantine for a record without text."""
        page = self.page(record)
        if page is None:
            return
        if not page.text:
            self.ctx.count("empty text")
        cluster, size = self._cluster()
        media = (record.content_type or "").split(";")[0].strip().lower() or None
        meta = {
            "url": _utf8(record.url, self.ctx),
            "date": record.date.astimezone(UTC) if record.date is not None else None,
            "content_type": media,
            "charset": page.charset,
            "title": page.title,
            "description": page.description,
            "language": self._language(page.text),
            "cluster": cluster,
            "cluster_size": size,
        }
        file = self.file_for(record)
        rows = file.sink
        text, size = _utf8_sized(page.text, self.ctx)
        rows.add(text, size, _utf8(self.ids(record), self.ctx), meta)
        if rows.full(self.options.row_group_records, self.options.row_group_bytes):
            rows.flush()
        self.count(record)

    def start_file(self, file: Any, first: Any) -> None:
        """Open a Parquet file writer on the file."""
        file.sink = _Rows(file.stream, self.options.compression)

    def finish_file(self, file: Any) -> dict[str, Any]:
        """Write the last row group, the footer; the file's entry in ``ctx.notes``."""
        file.sink.close()
        file.stream.close()
        return {"path": file.path, "records": file.records}

    def file_size(self, file: Any, exact: bool) -> int:
        """Bytes written so far plus the buffered row group's text (not yet encoded)."""
        return file.stream.tell() + file.sink.bytes


def _utf8(text: str | None, ctx: Any) -> str | None:
    """``text`` as Arrow can hold it: a lone surrogate (a raw URL byte that is not UTF-8)
    becomes ``?``, counted as ``not utf-8 replaced``."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        ctx.count("not utf-8 replaced")
        return text.encode("utf-8", "replace").decode("utf-8")


def _utf8_sized(text: str, ctx: Any) -> tuple[str, int]:
    """``(text as Arrow can hold it, its UTF-8 bytes)``: :func:`_utf8` and the size from one
    encoding."""
    try:
        return text, len(text.encode("utf-8"))
    except UnicodeEncodeError:
        ctx.count("not utf-8 replaced")
        data = text.encode("utf-8", "replace")
        return data.decode("utf-8"), len(data)


def _clusters_of(ctx: Any) -> tuple[Any, dict[int, tuple[int, int]]]:
    """The context of the last ``simhash-dedup`` step and ``{its seq: (cluster, size)}``
    of this input's kept documents (``(None, {})`` without such a step or table)."""
    steps = [f for label, f in ctx.filters.items() if label.split("#")[0] == DEDUP]
    table = steps[-1].table() if steps else None
    if table is None:
        return None, {}
    mine = rows_of_input(table, ctx.input.index)
    kept = mine.filter(mine["kept"])
    found = zip(
        kept["seq"].to_pylist(),
        kept["cluster"].to_pylist(),
        kept["cluster_size"].to_pylist(),
        strict=True,
    )
    return steps[-1], {seq: (cluster, size) for seq, cluster, size in found}


class _Rows:
    """The rows of one Parquet file: buffered, written a row group at a time."""

    def __init__(self, stream: Any, compression: str) -> None:
        import pyarrow.parquet as pq

        self.schema = schema()
        self.writer = pq.ParquetWriter(
            stream, self.schema, compression=None if compression == "none" else compression
        )
        self._empty()

    def _empty(self) -> None:
        self.texts: list[str] = []
        self.ids: list[str | None] = []
        #: the ``metadata`` struct's columns, one list per field (METADATA's order).
        self.meta: dict[str, list[Any]] = {name: [] for name in METADATA}
        self.bytes = 0

    def add(self, text: str, size: int, doc_id: str | None, meta: dict[str, Any]) -> None:
        """Buffer one row (``size``: the UTF-8 bytes of ``text``)."""
        self.texts.append(text)
        self.ids.append(doc_id)
        for name, column in self.meta.items():
            column.append(meta[name])
        self.bytes += size

    def full(self, records: int, size: int) -> bool:
        """Whether the buffered rows make a row group."""
        return len(self.texts) >= records or self.bytes >= size

    def flush(self) -> None:
        """Write the buffered rows as one row group (the struct built from its columns, not
        from a dict per row: the same array, a fifth of the time)."""
        import pyarrow as pa

        if not self.texts:
            return
        struct = self.schema.field("metadata").type
        fields = [struct.field(i) for i in range(struct.num_fields)]
        meta = pa.StructArray.from_arrays(
            [pa.array(self.meta[f.name], f.type) for f in fields], fields=fields
        )
        arrays = [pa.array(self.texts, pa.string()), pa.array(self.ids, pa.string()), meta]
        table = pa.Table.from_arrays(arrays, schema=self.schema)
        self.writer.write_table(table, row_group_size=table.num_rows)
        self._empty()

    def close(self) -> None:
        """The last row group and the footer."""
        self.flush()
        self.writer.close()


@hookimpl
def crawlmill_register_writers(register):
    """Register ``parquet``."""
    register(ParquetWriter)
