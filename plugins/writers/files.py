"""Deprecated: :class:`FileWriter` and its options moved into core.

Import them from ``crawlmill.core`` (``from crawlmill.core import FileWriter,
FileWriterOptions``; ``OutputFile`` and ``describes_file`` from
:mod:`crawlmill.core.file_writer`). This module re-exports them so that writers written
against it keep working, and will be removed.
"""

from __future__ import annotations

from crawlmill.core.file_writer import FileWriter, FileWriterOptions, OutputFile, describes_file

__all__ = ["FileWriter", "FileWriterOptions", "OutputFile", "describes_file"]
