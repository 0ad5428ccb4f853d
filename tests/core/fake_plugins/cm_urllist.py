"""A whole reader plugin for a one-URL-per-line format (``*.urls``), detected by ``sniff``
alone (no ``crawlmill_detect_format`` hook); docs/plugin_hooks.md points here."""

from crawlmill.core import Reader, Record, RecordKind, hookimpl


class UrlListReader(Reader):
    """One URL per line (``http://`` or ``https://``), each a resource record."""

    name = "urllist"
    file_suffixes = (".urls",)

    @classmethod
    def sniff(cls, path, head):
        lines = head.splitlines()[:20]
        if lines and all(line.startswith((b"http://", b"https://")) for line in lines):
            return 0.6 if path.endswith(cls.file_suffixes) else 0.4
        return None

    def read(self, ctx):
        with ctx.open() as stream:  # decompressed: x.urls, x.urls.gz, x.urls.zst...
            for line in stream:
                url = line.strip().decode("utf-8")
                if url:
                    yield Record(
                        kind=RecordKind.RESOURCE,
                        url=url,
                        payload=line,
                        content_type="text/plain",
                        source=stream.provenance(stream.tell() - len(line), len(line), "urllist"),
                    )


@hookimpl
def crawlmill_register_readers(register):
    register(UrlListReader)
