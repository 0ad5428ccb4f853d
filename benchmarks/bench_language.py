"""Benchmark: the ``language`` filter's detectors on the real pages of the samples.

Pages: every HTML response (``text/html`` or ``application/xhtml+xml``) of the WARC and ARC
files under ``../shared/samples`` (``CRAWLMILL_SAMPLES``) and the Chuweb21D case files, as
the filter sees them: body text without script and style
(:func:`crawlmill.plugins.filters.language.page_text`), pages without letters left out.
Distinct texts only (a sample set repeats pages).

For each detector (``langdetect`` seeded as the filter seeds it, ``lingua``), one process,
single-threaded: the time to build the detector, then documents/s and MB/s of text over all
pages (each detector's first call outside the timing), and its decisions "English with
probability >= t". Agreement: the share of pages where both give the same most probable
language, and the share where lingua at threshold t decides as langdetect at 0.99 (the
paper's filter), for several t.

    python benchmarks/bench_language.py               # all pages
    python benchmarks/bench_language.py --limit 300   # the first 300
    python benchmarks/bench_language.py --json out.json
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
HTML = {"text/html", "application/xhtml+xml"}


def sample_texts(limit: int | None = None) -> list[str]:
    """The distinct body texts (with letters) of the samples' HTML pages, in path order."""
    from crawlmill import Record, RecordKind, open_reader
    from crawlmill.plugins.filters.language import page_text

    paths = sorted(
        p
        for pattern in ("**/*.warc", "**/*.warc.gz", "**/*.arc", "**/*.arc.gz")
        for p in glob.glob(str(SAMPLES / pattern), recursive=True)
    )
    seen: set[str] = set()
    texts: list[str] = []
    for path in paths:
        try:
            with open_reader(path) as records:
                for record in records:
                    if record.kind != RecordKind.RESPONSE or record.content_type not in HTML:
                        continue
                    text = page_text(record)
                    if text not in seen and any(c.isalpha() for c in text):
                        seen.add(text)
                        texts.append(text)
        except Exception as exc:  # noqa: BLE001 - a sample a reader refuses is skipped
            print(f"skipped {path}: {exc}", file=sys.stderr)
        if limit and len(texts) >= limit:
            return texts[:limit]
    cases = SAMPLES / "chuzhumin98-Chuweb21D" / "materials" / "cases"
    for path in sorted(cases.glob("*/*.html")):
        record = Record(kind=RecordKind.RESPONSE, payload=path.read_bytes())
        text = page_text(record)
        if text not in seen and any(c.isalpha() for c in text):
            seen.add(text)
            texts.append(text)
    return texts[:limit] if limit else texts


def _lingua_low():
    """lingua in its low-accuracy mode (trigrams only), for comparison."""
    from lingua import LanguageDetectorBuilder

    built = LanguageDetectorBuilder.from_all_languages().with_low_accuracy_mode().build()

    def probabilities(text: str) -> dict[str, float]:
        if not any(c.isalpha() for c in text):
            return {}
        values = built.compute_language_confidence_values(text)
        return {v.language.iso_code_639_1.name.lower(): v.value for v in values if v.value > 0}

    return probabilities


def run(name: str, texts: list[str], cut: int | None = None) -> dict:
    """Build detector ``name``, time it over ``texts`` (each cut to ``cut`` characters);
    its probabilities per text."""
    from crawlmill.algorithms.language_detect import detector

    if cut is not None:
        texts = [t[:cut] for t in texts]
    t0 = time.perf_counter()
    detect = _lingua_low() if name == "lingua-low" else detector(name, 0)
    detect("warm up: the first call loads what the detector loads lazily")
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    probs = [detect(text) for text in texts]
    took = time.perf_counter() - t0
    chars = sum(len(t) for t in texts)
    return {
        "detector": name,
        "build_s": round(build, 2),
        "seconds": round(took, 2),
        "docs_per_s": round(len(texts) / took, 1),
        "mb_per_s": round(chars / took / 1e6, 3),
        "probs": probs,
    }


def top(probs: dict[str, float]) -> str | None:
    return max(probs.items(), key=lambda kv: (kv[1], kv[0]))[0] if probs else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="pages at most")
    parser.add_argument("--json", help="write the results as JSON here")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    texts = sample_texts(args.limit)
    extract = time.perf_counter() - t0
    chars = sum(len(t) for t in texts)
    print(f"{len(texts)} distinct pages, {chars / 1e6:.2f} M characters of body text "
          f"(read and extracted in {extract:.1f} s)")  # fmt: skip
    results = {name: run(name, texts) for name in ("langdetect", "lingua")}
    # lingua reads the whole text; langdetect its first 10,000 characters: lingua on as much
    results["lingua-10k"] = run("lingua", texts, 10_000)
    results["lingua-10k"]["detector"] = "lingua, 10,000 characters"
    results["lingua-low-10k"] = run("lingua-low", texts, 10_000)
    results["lingua-low-10k"]["detector"] = "lingua low accuracy, 10,000 characters"
    for r in results.values():
        print(f"{r['detector']:>10}: build {r['build_s']} s, {r['docs_per_s']} docs/s, "
              f"{r['mb_per_s']} MB/s of text ({r['seconds']} s)")  # fmt: skip
    ld = results["langdetect"]["probs"]
    paper = [a.get("en", 0.0) >= 0.99 for a in ld]
    print(f"langdetect en >= 0.99 (the paper's filter): {sum(paper)} of {len(texts)} kept")
    agreement: dict[str, dict[str, float]] = {}
    same_top: dict[str, float] = {}
    for key in ("lingua", "lingua-10k", "lingua-low-10k"):
        li = results[key]["probs"]
        same_top[key] = round(
            sum(top(a) == top(b) for a, b in zip(ld, li, strict=True)) / len(texts), 4
        )
        print(f"{key}: most probable language as langdetect's on {same_top[key]:.1%} of pages")
        agreement[key] = {}
        for t in (0.3, 0.5, 0.7, 0.9, 0.99):
            lingua = [b.get("en", 0.0) >= t for b in li]
            agree = sum(x == y for x, y in zip(paper, lingua, strict=True)) / len(texts)
            agreement[key][str(t)] = round(agree, 4)
            print(f"  en >= {t}: {sum(lingua)} kept; same decision on {agree:.1%}")
    if args.json:
        out = {
            "pages": len(texts),
            "characters": chars,
            "detectors": {
                k: {x: y for x, y in v.items() if x != "probs"} for k, v in results.items()
            },
            "same_top_language": round(same_top, 4),
            "langdetect_kept_at_0.99": sum(paper),
            "lingua_agreement_by_threshold": agreement,
        }
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
