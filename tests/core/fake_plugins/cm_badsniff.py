"""A third-party reader plugin with a bug: its ``sniff`` raises on every file. Detection must
name it once and go on without it (tests/core/test_sniff_detection.py)."""

from crawlmill.core import Reader, hookimpl


class BadSniffReader(Reader):
    """Claims nothing: its sniff raises."""

    name = "badsniff"

    @classmethod
    def sniff(cls, path, head):
        raise ZeroDivisionError("sniff bug")

    def read(self, ctx):  # never chosen
        return iter(())


@hookimpl
def crawlmill_register_readers(register):
    register(BadSniffReader)
