"""The optional capabilities of a component, as runtime-checkable protocols.

A reader, filter or writer implements its base class (:class:`~crawlmill.core.plugin.Reader`,
``Filter``, ``Writer``). Beyond it, a component may *declare* whole-collection work by defining
more members; the engine asks for each with ``isinstance`` against one of these protocols
(on the class, or on an instance for the writer's shuffle), never by probing names::

    isinstance(cls, Collecting)        # a collect pass and a reduce
    isinstance(cls, ReducedByKey)      # ... that may be split by a key column
    implements(writer, Shuffling)      # a sorted shuffle (isinstance of its class)

| protocol | members | what the engine does with it |
|---|---|---|
| :class:`Collecting` | ``collect_schema``, ``collect(record)``, ``reduce(rows, options, ctx)`` | a collect pass, then the reduce, before the final pass |
| :class:`ReducedByKey` | ``reduce_by`` (a column of ``collect_schema``) | the reduce may run split by that key |
| :class:`FixedReducePartitions` | ``reduce_partitions(options)`` | the split reduce always has that many parts |
| :class:`ReducePartitioner` | ``reduce_partition(values, partitions)`` | the part of each key value (default ``crc32``) |
| :class:`ReduceSummary` | ``reduce_summary`` (two phrases) | the pass's line on the terminal |
| :class:`Shuffling` | ``shuffle()`` | a map pass and a partition pass (when it returns a ``ShuffleSpec``) |
| :class:`SortKeyed` | ``sort_key(record)`` | records merged in key order |
| :class:`HashPartitioned` | ``partition_of(record, partitions)`` | the partition of a record (hash partitioning) |

``docs/plugin_hooks.md`` describes each step; :func:`capabilities` names the ones a class has
(``crawlmill plugins`` lists them). The small functions below are the checks the engine
makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from .plugin import PluginOptions, ReduceContext
    from .record import Record

__all__ = [
    "CAPABILITIES",
    "Collecting",
    "FixedReducePartitions",
    "HashPartitioned",
    "ReduceSummary",
    "ReducePartitioner",
    "ReducedByKey",
    "Shuffling",
    "SortKeyed",
    "capabilities",
    "declares_collect",
    "implements",
    "reduce_key",
    "reduce_summary_of",
    "shuffle_methods_missing",
]


@runtime_checkable
class Collecting(Protocol):
    """A filter or writer that needs the whole collection: ``collect`` gives each record's
    rows (tuples in ``collect_schema`` order) and the classmethod ``reduce`` turns all rows
    of all inputs into one ``pyarrow.Table`` (``docs/plugin_hooks.md``, "collect and
    reduce")."""

    #: a ``pyarrow.Schema`` (or :class:`~crawlmill.core.plugin.LazySchema`) of the rows.
    collect_schema: Any

    def collect(self, record: Record) -> Any:
        """The rows one record contributes, or ``None``."""

    def reduce(self, rows: Any, options: PluginOptions, ctx: ReduceContext) -> Any:
        """All rows (a ``pyarrow.Table`` with ``input`` and ``seq``) to one table."""


@runtime_checkable
class ReducedByKey(Protocol):
    """A collecting component whose ``reduce`` decides each value of the column
    ``reduce_by`` on its own rows, so the engine may split the rows by that key."""

    reduce_by: str


@runtime_checkable
class FixedReducePartitions(Protocol):
    """A keyed reduce whose output has a fixed number of parts (a Nutch CrawlDB's
    ``part-r-NNNNN``): the classmethod gives the count (``None``: split by size)."""

    def reduce_partitions(self, options: PluginOptions) -> int | None:
        """The partition count of the reduce with these options, or ``None``."""


@runtime_checkable
class ReducePartitioner(Protocol):
    """A keyed reduce that chooses the partition of each key value itself (the classmethod
    must give the same answer in every process)."""

    def reduce_partition(self, values: list[Any], partitions: int) -> list[int]:
        """One partition in ``0..partitions-1`` per key value."""


@runtime_checkable
class ReduceSummary(Protocol):
    """A collecting component that names its rows and its table for the pass's line
    (``("capture(s) seen", "duplicate(s) to drop")``)."""

    reduce_summary: tuple[str, str]


@runtime_checkable
class Shuffling(Protocol):
    """A writer that may need its records in key order from all inputs: ``shuffle()`` gives
    a :class:`~crawlmill.core.ShuffleSpec` (or ``None``: no shuffle with these
    options). It must also be :class:`SortKeyed`."""

    def shuffle(self) -> Any:
        """The shuffle the writer's options ask for, or ``None``."""


@runtime_checkable
class SortKeyed(Protocol):
    """A shuffling writer's sort key: bytes, compared unsigned (Hadoop's raw ``Text``
    order); equal keys keep input order."""

    def sort_key(self, record: Record) -> bytes:
        """The record's sort key."""


@runtime_checkable
class HashPartitioned(Protocol):
    """A shuffling writer's hash partitioning: the record's partition, the same in every
    process (``zlib.crc32`` or a digest, never ``hash()``)."""

    def partition_of(self, record: Record, partitions: int) -> int:
        """The partition of ``record`` among ``partitions``."""


#: the listed capability name of each protocol, in the order ``crawlmill plugins`` shows them.
CAPABILITIES: dict[str, type] = {
    "collect": Collecting,
    "reduce_by": ReducedByKey,
    "reduce_partitions": FixedReducePartitions,
    "reduce_partition": ReducePartitioner,
    "reduce_summary": ReduceSummary,
    "shuffle": Shuffling,
    "sort_key": SortKeyed,
    "partition_of": HashPartitioned,
}


def implements(component: Any, protocol: type) -> bool:
    """``isinstance`` of ``component``'s class (``component`` itself when it is a class)
    against ``protocol``. Asked of the class object, the check looks at the members every
    time: an instance's check is cached per class by the ABC machinery, so a class changed
    after its first check (a test's ``monkeypatch``) would keep its first answer."""
    cls = component if isinstance(component, type) else type(component)
    return isinstance(cls, protocol)


def declares_collect(cls: type) -> bool:
    """True when the component class declares a whole-collection step (:class:`Collecting`
    with a schema that is not ``None``)."""
    return isinstance(cls, Collecting) and cls.collect_schema is not None


def reduce_key(cls: type) -> str | None:
    """The ``reduce_by`` column of a collecting component class, or ``None``: with it, the
    class's ``reduce`` may run on parts of the rows that each hold every row of their key
    values (see :mod:`crawlmill.core.run.reduce_tasks`); it must name a ``collect_schema``
    column."""
    if not isinstance(cls, ReducedByKey) or cls.reduce_by is None:
        return None
    key = cls.reduce_by
    names = list(getattr(cls.collect_schema, "names", ()))
    if not isinstance(key, str) or key not in names:
        raise TypeError(
            f"{cls.__name__}.reduce_by is {key!r}; it must name a column of its "
            f"collect_schema ({', '.join(names)})"
        )
    return key


def reduce_summary_of(cls: type, default: tuple[str, str]) -> tuple[str, str]:
    """The class's :class:`ReduceSummary` phrases, or ``default``."""
    if isinstance(cls, ReduceSummary) and cls.reduce_summary:
        return cls.reduce_summary
    return default


def shuffle_methods_missing(writer: Any, partitioning: str) -> list[str]:
    """What a writer that declared a shuffle lacks for ``partitioning`` (``hash`` needs
    ``partition_of`` too): method names, empty when nothing is missing."""
    missing = [] if implements(writer, SortKeyed) else ["sort_key"]
    if partitioning == "hash" and not implements(writer, HashPartitioned):
        missing.append("partition_of")
    return missing


def capabilities(cls: type) -> list[str]:
    """The names of :data:`CAPABILITIES` the component class has (``collect``,
    ``shuffle``...), for ``crawlmill plugins``."""
    found = []
    for name, protocol in CAPABILITIES.items():
        try:
            if isinstance(cls, protocol):
                found.append(name)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails is no capability
            continue
    return found
