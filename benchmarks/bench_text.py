"""Benchmark: the text extractors of ``algorithms/text_extraction.py`` on the samples' real HTML.

Pages: every HTML ``response``/``resource`` record
(:func:`crawlmill.algorithms.text_extraction.is_html`) of the WARC and ARC files under
``../shared/samples`` (``CRAWLMILL_SAMPLES``), decoded as the component decodes them
(:func:`~crawlmill.algorithms.text_extraction.decoded_page`: de-chunked, content codings undone,
charset found); distinct pages only (the sample sets repeat pages).

For each extractor (``resiliparse``, ``trafilatura``, ``lxml``; one not installed is left
out), one process, single-threaded: pages/s and MB/s of decoded HTML over all pages (the first
page outside the timing; the title/description parse included, as the writers call it), the
share of pages with non-empty text. Agreement of each pair: the mean Jaccard similarity of
the pages' word sets (lowercased ``\\w+`` tokens), and the share of pages where both are
empty or both not; the decode step (body decoding + charset) is timed apart.

    python benchmarks/bench_text.py               # all pages
    python benchmarks/bench_text.py --limit 300   # the first 300
    python benchmarks/bench_text.py --json out.json
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
WORDS = re.compile(r"\w+")


def sample_pages(limit: int | None = None) -> tuple[list[str], float, int]:
    """``(distinct decoded pages, seconds spent decoding, files read)`` of the samples."""
    from crawlmill import open_reader
    from crawlmill.algorithms.text_extraction import decoded_page, is_html

    paths = sorted(
        p
        for pattern in ("**/*.warc", "**/*.warc.gz", "**/*.arc", "**/*.arc.gz")
        for p in glob.glob(str(SAMPLES / pattern), recursive=True)
    )
    seen: set[str] = set()
    pages: list[str] = []
    decoding = 0.0
    files = 0
    for path in paths:
        try:
            with open_reader(path) as records:
                files += 1
                for record in records:
                    if record.kind.value not in ("response", "resource") or not is_html(record):
                        continue
                    start = time.perf_counter()
                    html, _, _ = decoded_page(record)
                    decoding += time.perf_counter() - start
                    if html not in seen and html.strip():
                        seen.add(html)
                        pages.append(html)
        except Exception as exc:  # noqa: BLE001 - a sample a reader refuses is skipped
            print(f"skipped {path}: {exc}", file=sys.stderr)
        if limit and len(pages) >= limit:
            break
    return pages[:limit] if limit else pages, decoding, files


def available() -> list[str]:
    """The extractors whose library imports here."""
    from crawlmill.algorithms.text_extraction import EXTRACTORS

    found = []
    for name in EXTRACTORS:
        try:
            if name != "lxml":
                __import__(name)
            found.append(name)
        except ImportError:
            print(f"{name}: not installed, left out", file=sys.stderr)
    return found


def run(pages: list[str], name: str) -> tuple[list[str], float]:
    """The texts of ``pages`` by ``name`` and the seconds they took (first page untimed)."""
    from crawlmill.algorithms.text_extraction import extract_html

    extract_html(pages[0], name)
    start = time.perf_counter()
    texts = [extract_html(page, name)[0] for page in pages]
    return texts, time.perf_counter() - start


def jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the lowercased word sets of ``a`` and ``b`` (1.0 when both empty)."""
    x, y = set(WORDS.findall(a.lower())), set(WORDS.findall(b.lower()))
    return 1.0 if not x and not y else len(x & y) / len(x | y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", default=None, help="write the results here too")
    args = parser.parse_args()
    pages, decoding, files = sample_pages(args.limit)
    megabytes = sum(len(p.encode("utf-8", "surrogatepass")) for p in pages) / 1e6
    print(f"{len(pages)} distinct HTML pages ({megabytes:.1f} MB decoded) from {files} files")
    print(f"decode (transfer/content codings + charset): {decoding:.2f} s in all")
    results: dict = {"pages": len(pages), "megabytes": megabytes, "extractors": {}, "pairs": {}}
    texts: dict[str, list[str]] = {}
    for name in available():
        texts[name], seconds = run(pages, name)
        nonempty = sum(1 for t in texts[name] if t) / len(pages)
        results["extractors"][name] = {
            "seconds": seconds,
            "pages_per_s": len(pages) / seconds,
            "mb_per_s": megabytes / seconds,
            "nonempty": nonempty,
        }
        print(
            f"{name:12s} {len(pages) / seconds:8.1f} pages/s {megabytes / seconds:6.2f} MB/s"
            f"  non-empty {nonempty:.1%}"
        )
    for a, b in itertools.combinations(texts, 2):
        scores = [jaccard(x, y) for x, y in zip(texts[a], texts[b], strict=True)]
        same_empty = sum(1 for x, y in zip(texts[a], texts[b], strict=True) if bool(x) == bool(y))
        mean = sum(scores) / len(scores)
        results["pairs"][f"{a}/{b}"] = {"jaccard": mean, "same_emptiness": same_empty / len(pages)}
        print(
            f"{a}/{b}: mean word-set Jaccard {mean:.3f}, same emptiness {same_empty / len(pages):.1%}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
