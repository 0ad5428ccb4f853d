"""Reading byte spans (gzip members) back from input files: a writer copies unchanged members."""

from __future__ import annotations

from typing import BinaryIO

__all__ = ["MemberSource"]


class MemberSource:
    """Reads byte spans (gzip members) back from input files, keeping each file open until
    :meth:`close`; a writer uses it to copy the members of unchanged records."""

    def __init__(self) -> None:
        self._files: dict[str, BinaryIO] = {}

    def read(self, path: str, offset: int, length: int) -> bytes | None:
        """``length`` bytes at ``offset`` of ``path``, or ``None`` when they cannot be read."""
        fh = self._files.get(path)
        if fh is None:
            try:
                fh = open(path, "rb")  # noqa: SIM115 - closed in close()
            except OSError:
                return None
            self._files[path] = fh
        try:
            fh.seek(offset)
            data = fh.read(length)
        except OSError:
            return None
        return data if len(data) == length else None

    def close(self) -> None:
        """Close every file opened so far."""
        for fh in self._files.values():
            fh.close()
        self._files.clear()
