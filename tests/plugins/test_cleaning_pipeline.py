"""The Chuweb21 cleaning pipeline from one YAML file: kind, http-status, mime, html-length,
tld, language and exact-dedup chained, on constructed records that each stop at one filter
(every drop reason counted) and on a real WARC sample (each kept page checked with warcio and
langdetect directly), with the same files and counts at 1 and 2 workers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SAMPLES, need
from tests.helpers import cli

PIPELINE = """\
version: 1
inputs: [{inputs}]
filters:
  - {{name: kind, keep: [response]}}
  - http-status
  - mime
  - html-length
  - tld
  - {{name: language, threshold: 0.99}}
  - exact-dedup
writer: {{name: warc, gzip_backend: zlib}}
output: {output}
run: {{workers: {workers}, progress: never}}
"""

ENGLISH = (
    "<p>This is a page about gardening in plain English. Tomatoes need sun, water and good "
    "soil; plant them after the last frost and tie them to a stake as they grow.</p>\n"
)
FRENCH = (
    "<p>Cette page parle de jardinage en bon français. Les tomates ont besoin de soleil, "
    "d'eau et d'une bonne terre; plantez-les après les dernières gelées.</p>\n"
)


def html(body: str, n: int = 8) -> bytes:
    return f"<html><head><title>t</title></head><body>{body * n}</body></html>".encode()


LONG_EN = html(ENGLISH)


def sized(n: int) -> bytes:
    """English HTML of exactly ``n`` characters, padded with ``—`` (three UTF-8 bytes, not a letter)."""
    page = html(ENGLISH, 3).decode()
    page = page.replace("</body>", "—" * (n - len(page)) + "</body>")
    assert len(page) == n and len(page.encode()) > n
    return page.encode()


#: (input, n, kind, status, content type, url, payload, where it stops)
RECORDS = [
    (0, 1, "request", None, None, "http://a.example.com/", b"", "kind:wrong-kind"),
    (0, 2, "response", 404, "text/html", "http://b.example.com/", LONG_EN, "http-status:wrong-status"),
    (0, 3, "response", 200, "image/png", "http://c.example.com/", b"\x89PNG" * 400, "mime:wrong-mime"),
    (0, 4, "response", 200, None, "http://c2.example.com/", LONG_EN, "mime:no-mime"),
    (0, 5, "response", 200, "text/html; charset=utf-8", "http://d.example.com/", sized(1000), "html-length:too-short"),
    (0, 6, "response", 200, "text/html", "http://e.example.de/", LONG_EN, "tld:wrong-tld"),
    (1, 7, "response", 200, "text/html", "http://10.1.2.3:8080/", LONG_EN, "tld:ip-host"),
    (1, 8, "response", 200, "text/html; charset=utf-8", "http://f.example.com/", html(FRENCH), "language:wrong-language"),
    (1, 9, "response", 200, "text/html", "http://g.example.org/", b"<script>" + b"x=1;" * 400 + b"</script>", "language:no-text"),
    (1, 10, "response", 200, "Text/HTML; Charset=UTF-8", "http://h.example.org./", LONG_EN, None),
    (1, 11, "response", 200, "text/html", "http://i.example.net/", LONG_EN, "exact-dedup:duplicate"),
    (1, 12, "response", 200, "APPLICATION/XHTML+XML", "http://j.example.com:8080/", html(ENGLISH, 9), None),
    (0, 13, "response", 200, "text/html; charset=utf-8", "http://k.example.com/", sized(1001), None),
]  # fmt: skip


def warc(n: int, kind: str, status, ctype, url: str, payload: bytes) -> bytes:
    if kind == "request":
        block = b"GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n"
    else:
        head = f"HTTP/1.1 {status} X\r\n"
        if ctype:
            head += f"Content-Type: {ctype}\r\n"
        block = (head + "\r\n").encode() + payload
    header = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\n"
        f"WARC-Date: 2021-04-10T11:00:00Z\r\n"
        f"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-{n:012d}>\r\n"
        f"Content-Type: application/http; msgtype={kind}\r\nContent-Length: {len(block)}\r\n\r\n"
    ).encode()
    return header + block + b"\r\n\r\n"


def run(tmp_path: Path, inputs: Path, name: str, workers: int) -> dict:
    config = tmp_path / f"{name}.yaml"
    out = tmp_path / name
    config.write_text(PIPELINE.format(inputs=inputs, output=out, workers=workers))
    result = cli("run", config, out=out)
    assert result.exit_code == 0
    return result.report


def files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.glob("*.warc.gz"))}


def kept_ids(out: Path) -> list[int]:
    from crawlmill import open_reader

    ids = []
    for path in sorted(out.glob("*.warc.gz")):
        with open_reader(str(path)) as records:
            for record in records:
                if record.kind == "response":
                    rid = dict(record.extras["warc"]["headers"])[b"WARC-Record-ID"]
                    ids.append(int(rid[-13:-1]))
    return ids


def test_every_filter_and_drop_reason_counted_same_at_1_and_2_workers(tmp_path):
    need("langdetect")
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(2):
        data = b"".join(warc(*r[1:7]) for r in RECORDS if r[0] == i)
        (folder / f"crawl-{i}.warc").write_bytes(data)
    expected: dict[str, dict[str, int]] = {}
    for *_, stop in RECORDS:
        if stop:
            step, reason = stop.split(":")
            expected.setdefault(step, {})[reason] = expected.get(step, {}).get(reason, 0) + 1
    one = run(tmp_path, folder, "w1", 1)
    two = run(tmp_path, folder, "w2", 2)
    assert files(tmp_path / "w1") == files(tmp_path / "w2")
    assert sorted(kept_ids(tmp_path / "w1")) == [r[1] for r in RECORDS if r[-1] is None]
    for report in (one, two):
        assert report["dropped"] == expected
        assert report["read"] == len(RECORDS)
        dropped = sum(n for step in report["dropped"].values() for n in step.values())
        assert report["read"] + report.get("added", 0) == (
            report["written"] + dropped + report["quarantined"]
        )
        assert report["counts"]["language"] == {"lang:en": 4, "lang:fr": 1, "lang:none": 1}


REAL = "kris-sigur-jwat/jwat-warc/src/test/resources/IAH-20080430204825-00000-blackbook.warc.gz"


@pytest.mark.slow
def test_real_sample_kept_pages_meet_every_rule_same_at_1_and_2_workers(tmp_path):
    """A real crawl (822 records): the kept pages, read back, each meet every rule when
    checked with warcio, the stdlib and langdetect's own API (seeded), and both worker counts
    give the same files and counts."""
    need("langdetect")
    need("warcio")
    sample = SAMPLES / REAL
    if not sample.exists():
        pytest.skip(f"sample missing: {sample}")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / sample.name).symlink_to(sample)
    one = run(tmp_path, folder, "w1", 1)
    two = run(tmp_path, folder, "w2", 2)
    assert files(tmp_path / "w1") == files(tmp_path / "w2")
    assert {k: one[k] for k in ("read", "written", "dropped", "counts")} == {
        k: two[k] for k in ("read", "written", "dropped", "counts")
    }
    dropped = sum(n for step in one["dropped"].values() for n in step.values())
    assert one["read"] == 822
    assert one["read"] + one.get("added", 0) == one["written"] + dropped + one["quarantined"]
    assert set(one["dropped"]) >= {"kind", "http-status", "mime", "exact-dedup"}

    import hashlib
    from urllib.parse import urlsplit

    from langdetect import DetectorFactory, detect_langs
    from lxml import etree
    from lxml import html as lhtml

    DetectorFactory.seed = 0
    from warcio.archiveiterator import ArchiveIterator

    digests = set()
    kept = 0
    for path in sorted((tmp_path / "w1").glob("*.warc.gz")):
        with open(path, "rb") as f:
            for rec in ArchiveIterator(f):
                if rec.rec_type != "response":
                    continue
                kept += 1
                assert 200 <= int(rec.http_headers.get_statuscode()) <= 299
                ctype = rec.http_headers.get_header("Content-Type").split(";")[0].strip().lower()
                assert ctype in ("text/html", "application/xhtml+xml")
                body = rec.raw_stream.read()  # the payload as stored
                digest = hashlib.sha1(body).digest()
                assert digest not in digests  # exact duplicates removed
                digests.add(digest)
                host = urlsplit(rec.rec_headers.get_header("WARC-Target-URI")).hostname
                assert host.rstrip(".").rsplit(".", 1)[-1] in ("com", "org", "net")
                assert len(body) > 1000  # no charset gives more characters than bytes
                root = lhtml.document_fromstring(body)
                etree.strip_elements(root, "script", "style", with_tail=False)
                words = " ".join(root.xpath("//body")[0].itertext())
                probs = {p.lang: p.prob for p in detect_langs(words)}
                assert probs.get("en", 0) >= 0.98, (host, probs)
    assert kept == one["written"] - one.get("added", 0) > 0
