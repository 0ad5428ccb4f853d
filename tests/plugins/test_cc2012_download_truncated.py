"""``download_truncated`` in the generated 2012 metadata JSON. The page's Atom sample
(../shared/specs/source-docs/commoncrawl-2012-dataset.txt L439) has ``"download_size":
523871, "download_truncated": true``; the crawler's ``ParserMapper`` added it right after
``download_size``, only for a capture its ``TruncatedDuringDownload`` flag marks, which its
``ArcFileWriter`` wrote into the 2012 ARC files as ``x-commoncrawl-ContentTruncated:
TruncatedInDownload`` (../shared/specs/collections.md 4.2). ARC captures built here: marked,
cut by the end of the file, and neither (no field); the JSON read back and written again keeps
the field."""

from __future__ import annotations

import json

from tests import helpers


def _arc_record(url: str, body: bytes, extra: str = "", cut: int = 0) -> bytes:
    http = (
        f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    head = f"{url} 10.0.0.1 20120708221327 text/html {len(http)}\n".encode()
    return head + (http[:-cut] if cut else http + b"\n")


def _arc() -> bytes:
    block = b"1 0 CommonCrawl\nURL IP-address Archive-date Content-type Archive-length\n"
    desc = f"filedesc://x.arc 0.0.0.0 20120708221327 text/plain {len(block)}\n".encode()
    page = b"<html><head><title>t</title></head><body>words</body></html>"
    return (
        desc + block + b"\n"
        + _arc_record("http://example.com/whole", page)
        + _arc_record("http://example.com/marked", page,
                      "x-commoncrawl-ContentTruncated:TruncatedInDownload\r\n")
        + _arc_record("http://example.com/inflate", page,
                      "x-commoncrawl-ContentTruncated:TruncatedInInflate\r\n")
        + _arc_record("http://example.com/cut", page, cut=10)
    )  # fmt: skip


def _lines(out) -> dict[str, dict]:
    (path,) = sorted(out.glob("*.jsonl"))
    return {x["url"]: x["metadata"] for x in map(json.loads, path.read_bytes().splitlines())}


def test_download_truncated_is_written_for_a_cut_capture_only(tmp_path):
    (src := tmp_path / "in.arc").write_bytes(_arc())
    result = helpers.convert(src, "cc-metadata", tmp_path / "m", "--filter", "kind",
                             "keep=response")  # fmt: skip
    # the cut record is damage (exit 3) and delivered as truncated
    assert result.exit_code == 3 and "truncated-record" in result.stderr, result.stderr
    assert result.report["written"] == 4
    found = _lines(tmp_path / "m")
    assert set(found) == {f"http://example.com/{n}" for n in ("whole", "marked", "inflate", "cut")}
    for name, truncated in (("whole", False), ("inflate", False), ("marked", True), ("cut", True)):
        data = found[f"http://example.com/{name}"]
        assert data.get("download_truncated", False) is truncated, name
        if truncated:
            keys = list(data)
            assert keys.index("download_truncated") == keys.index("download_size") + 1
    # read back and written again: the field is kept (the JSON is carried as read)
    (path,) = sorted((tmp_path / "m").glob("*.jsonl"))
    again = helpers.convert(path, "cc-metadata", tmp_path / "again")
    assert again.exit_code == 0, again.stderr
    assert _lines(tmp_path / "again") == found
