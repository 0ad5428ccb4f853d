"""How much the text features change when they read the text extraction component's text.

For every distinct HTML page (``response``/``resource``) of the WARC and ARC samples: the
simhash of ``simhash-dedup``'s ``hash: text`` by its default rule (``extractor: body``,
``encoding: utf-8``) beside the simhash of each component extractor's text (share of equal
64-bit codes, mean and median Hamming distance), and the ``language`` filter's most probable
language (langdetect, seeded) by the default rule beside each extractor's (share agreeing),
and the pages the filter's default (English at 0.99) keeps by each.

    python benchmarks/bench_text_features.py [--limit N]
"""

from __future__ import annotations

import argparse
import glob
import statistics
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "samples"


def sample_records(limit: int | None) -> list:
    """The distinct HTML page records of the samples (by stored payload)."""
    from crawlmill import open_reader
    from crawlmill.algorithms.text_extraction import is_html

    paths = sorted(
        p
        for pattern in ("**/*.warc", "**/*.warc.gz", "**/*.arc", "**/*.arc.gz")
        for p in glob.glob(str(SAMPLES / pattern), recursive=True)
    )
    seen: set[bytes] = set()
    found = []
    for path in paths:
        try:
            with open_reader(path) as records:
                for record in records:
                    if record.kind.value not in ("response", "resource") or not is_html(record):
                        continue
                    if record.payload in seen or not record.payload.strip():
                        continue
                    seen.add(record.payload)
                    found.append(record)
        except Exception as exc:  # noqa: BLE001 - a sample a reader refuses is skipped
            print(f"skipped {path}: {exc}", file=sys.stderr)
        if limit and len(found) >= limit:
            break
    return found[:limit] if limit else found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    from crawlmill.algorithms.language_detect import detector
    from crawlmill.algorithms.simhash import simhash64_128
    from crawlmill.algorithms.text_extraction import EXTRACTORS, feature_text
    from crawlmill.plugins.filters.language import page_text

    records = sample_records(args.limit)
    detect = detector("langdetect", 0)

    def top(text: str | None) -> tuple[str | None, float]:
        probs = detect(text or "")
        if not probs:
            return None, 0.0
        lang = max(probs.items(), key=lambda kv: (kv[1], kv[0]))[0]
        return lang, probs.get("en", 0.0)

    base_codes = [simhash64_128(feature_text(r, "body", None))[0] for r in records]
    base_langs = [top(page_text(r)) for r in records]
    print(f"{len(records)} distinct HTML pages")
    kept = sum(1 for _, en in base_langs if en >= 0.99)
    print(f"body (default): language kept (en >= 0.99) {kept}")
    for name in EXTRACTORS:
        codes = [simhash64_128(feature_text(r, name) or "")[0] for r in records]
        dist = [bin(a ^ b).count("1") for a, b in zip(base_codes, codes, strict=True)]
        langs = [top(page_text(r, name)) for r in records]
        same_lang = sum(a[0] == b[0] for a, b in zip(base_langs, langs, strict=True))
        kept_by = sum(1 for _, en in langs if en >= 0.99)
        same_kept = sum(
            (a[1] >= 0.99) == (b[1] >= 0.99) for a, b in zip(base_langs, langs, strict=True)
        )
        print(
            f"{name}: simhash equal {sum(d == 0 for d in dist)}/{len(dist)}, "
            f"within 3 {sum(d <= 3 for d in dist)}, mean distance {statistics.mean(dist):.1f}, "
            f"median {statistics.median(dist)}; language agrees {same_lang}/{len(langs)}, "
            f"kept {kept_by}, same decision {same_kept}"
        )


if __name__ == "__main__":
    main()
