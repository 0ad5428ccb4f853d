"""A third-party plugin whose ``crawlmill_detect_format`` hook raises on every file. Detection
must name it once and still rank the other plugins' answers (tests/core/test_sniff_detection.py)."""

from crawlmill.core import hookimpl


@hookimpl
def crawlmill_detect_format(path, head):
    raise KeyError("detect bug")
