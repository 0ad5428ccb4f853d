"""Per-input detail of a run kept on local scratch instead of in the driver's memory (issue 22
item 3: 100,000 inputs resume in bounded driver memory).

* :class:`MarkerStore`: the completion markers of a run by input index (what the engine calls
  ``completed``), each a JSON line in a spill file; the driver holds only each one's place
  in the file and its key (arrays by input index: about 16 bytes an input and the key,
  where a marker object held about 5 kB).
* :class:`SpilledList`: a list of JSON-able items appended one at a time (the report's
  ``input_outputs``), read back in order one at a time, e.g. by ``report.json``'s writer.

The spill files are anonymous temporary files (``tempfile.TemporaryFile``: gone when closed
or when the process ends), never in the output folder, which may be an object store.
"""

from __future__ import annotations

import json
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from typing import Any, overload

from ..messages import Marker

__all__ = ["MarkerStore", "SpilledList", "encode_marker"]

#: bits of a place's length (the offset is above them).
_LENGTH_BITS = 32


class _Spill:
    """An append-only anonymous temporary file (opened on the first write)."""

    def __init__(self) -> None:
        self._file: Any = None
        self.end = 0

    def append(self, data: bytes) -> int:
        """Write ``data`` at the end; its offset."""
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="crawlmill-spill-")  # noqa: SIM115
        at = self.end
        view = memoryview(data)
        while view:
            view = view[os.pwrite(self._file.fileno(), view, at + len(data) - len(view)) :]
        self.end += len(data)
        return at

    def read(self, at: int, size: int) -> bytes:
        """The ``size`` bytes at offset ``at``."""
        data = os.pread(self._file.fileno(), size, at)
        while len(data) < size:  # a short read (rare): the rest
            more = os.pread(self._file.fileno(), size - len(data), at + len(data))
            if not more:
                raise OSError(f"spill file ends at {at + len(data)}, {size} bytes wanted")
            data += more
        return data


def encode_marker(marker: Marker) -> bytes:
    """``marker``'s JSON (the keys and values of :meth:`Marker.to_dict`, in its order), one line."""
    return marker.to_json().encode()


class MarkerStore(MutableMapping[int, Marker]):
    """Completion markers by input index, each a line of a spill file; reading one decodes
    it again (a new :class:`Marker` each time, equal to the one stored after a JSON round
    trip, which is what a marker file's reader gets). Input indexes are small and dense
    (0 to the number of inputs): the places and keys are arrays indexed by them (about 16
    bytes an input, where dicts took about 150)."""

    def __init__(self, markers: Iterable[tuple[int, Marker]] = ()) -> None:
        self._spill = _Spill()
        #: by input index: offset << 32 | length of its line, 0 when it has none.
        self._at = array("Q")
        #: by input index: its marker's key (``None`` when it has none).
        self._keys: list[str | None] = []
        self._count = 0
        for index, marker in markers:
            self[index] = marker

    def _place(self, index: object) -> int:
        """Input ``index``'s place in the spill file, 0 when it has none."""
        if isinstance(index, int) and 0 <= index < len(self._at):
            return self._at[index]
        return 0

    def _line(self, index: int) -> bytes:
        at = self._place(index)
        if not at:
            raise KeyError(index)
        return self._spill.read(at >> _LENGTH_BITS, at & ((1 << _LENGTH_BITS) - 1))

    def __getitem__(self, index: int) -> Marker:
        return Marker.from_dict(json.loads(self._line(index)))

    def __setitem__(self, index: int, marker: Marker) -> None:
        if not isinstance(index, int) or index < 0:
            raise KeyError(f"an input index is an int >= 0, not {index!r}")
        line = encode_marker(marker)
        if index >= len(self._at):
            grow = index + 1 - len(self._at)
            self._at.extend(array("Q", bytes(8 * grow)))
            self._keys.extend([None] * grow)
        self._count += not self._at[index]
        self._at[index] = self._spill.append(line) << _LENGTH_BITS | len(line)
        self._keys[index] = marker.key

    def __delitem__(self, index: int) -> None:
        if not self._place(index):
            raise KeyError(index)
        self._at[index] = 0
        self._keys[index] = None
        self._count -= 1

    def __iter__(self) -> Iterator[int]:
        return iter([i for i, at in enumerate(self._at) if at])

    def __len__(self) -> int:
        return self._count

    def __contains__(self, index: object) -> bool:
        return bool(self._place(index))

    def clear(self) -> None:
        """Forget every marker (the spill file keeps its lines for :meth:`snapshot` copies)."""
        self._at = array("Q")
        self._keys = []
        self._count = 0

    def key_of(self, index: int) -> str:
        """The key of input ``index``'s marker, without decoding it."""
        if not self._place(index):
            raise KeyError(index)
        return self._keys[index]  # type: ignore[return-value]

    def marker_keys(self) -> set[str]:
        """The keys of every marker held, without decoding them."""
        return {k for k in self._keys if k is not None}

    def holds(self, index: int, marker: Marker) -> bool:
        """Whether input ``index``'s marker is ``marker`` (the same JSON)."""
        return index in self and self._line(index) == encode_marker(marker)

    def snapshot(self) -> MarkerStore:
        """A copy of the markers held now (sharing the spill file: nothing is rewritten)."""
        copy = MarkerStore()
        copy._spill, copy._at, copy._keys = self._spill, array("Q", self._at), list(self._keys)
        copy._count = self._count
        return copy


class SpilledList(Sequence[Any]):
    """A list of JSON-able items written to a spill file as they are appended; indexing or
    iterating decodes them again (so an item read back is its JSON round trip)."""

    def __init__(self, items: Iterable[Any] = ()) -> None:
        self._spill = _Spill()
        self._ends = array("Q")
        for item in items:
            self.append(item)

    def append(self, item: Any) -> None:
        """Add ``item`` at the end."""
        line = json.dumps(item, default=str).encode()
        self._spill.append(line)
        self._ends.append(self._spill.end)

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("SpilledList index out of range")
        start = self._ends[i - 1] if i else 0
        return json.loads(self._spill.read(start, self._ends[i] - start))

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, SpilledList)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]
