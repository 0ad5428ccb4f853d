"""Benchmark: WARC -> index inputs (``pyserini`` JSON lines, ``parquet``) with crawlmill, beside
the script users write today (a plain warcio loop with the same extraction library).

Inputs (built once under ``--work``):

* ``real-html``: the distinct HTML ``response`` records (HTTP head and body as stored:
  chunked and gzip bodies stay so) of the WARC and ARC files under ``../shared/samples``
  (``CRAWLMILL_SAMPLES``), replicated to ``--pages`` pages over ``--files`` ``.warc.gz``
  files (WARC/1.0, a gzip member per record, a fresh ``WARC-Record-ID`` per copy);
* ``clueweb09``: the two ClueWeb09 sample files of ``sqs-freequery`` as they are (uncompressed
  WARC/0.18, 100 responses each, ids in ``WARC-TREC-ID``); warcio cannot read them, so the
  plain loop's rows say "fails" with its error;
* ``clueweb09-warc1.0``: the same pages written as WARC/1.0 by ``crawlmill convert --to warc``
  (which the plain loop reads).

Tools, each a process of its own, with 1 and 2 workers:

* ``crawlmill convert IN --filter kind keep=response --filter mime --to pyserini`` and
  ``--to parquet`` (default options: Resiliparse main text, the ``auto`` doc id);
* ``plain jsonl``: ``warcio.ArchiveIterator`` over each file, the HTML responses (HTTP
  ``Content-Type`` ``text/html`` or ``application/xhtml+xml``), the body by warcio's
  ``content_stream()`` (chunked and content codings undone; a page it fails on is skipped
  with a line on stderr, as a script with a ``try`` goes on), the charset as crawlmill finds it
  (header, ``<meta>``, ``chardet``, ISO-8859-1), Resiliparse's
  ``extract_plain_text(main_content=True)``, the id ``WARC-TREC-ID`` else the record id's
  UUID, ``{"id", "contents"}`` lines by ``orjson``; 2 workers: a ``multiprocessing.Pool``
  over the files;
* ``plain parquet``: the same loop, the rows written with ``pyarrow.parquet.write_table``
  (``text``, ``id``, ``metadata`` {``url``, ``date``}; zstd).

For each: wall seconds, CPU seconds of the whole process tree (user + system, from
``tree_usage.run``: the pool workers, children of multiprocessing's forkserver, included), peak
RSS (the largest single process: the main process's ``VmHWM``, its waited children's and the
forkserver tree's ``ru_maxrss``), pages/s (documents written / wall), and the documents out compared with the
plain loop's: count, same ids (in order), texts equal after blank-collapsing (crawlmill tidies
blanks; the plain loop does not).

    python benchmarks/bench_ir_outputs.py                       # 4,000 pages, 4 files
    python benchmarks/bench_ir_outputs.py --pages 1000 --files 2 --workers 1
    python benchmarks/bench_ir_outputs.py --json out.json --repeat 3
    python benchmarks/bench_ir_outputs.py --before /tmp/base   # also crawlmill of a checkout
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

import tree_usage

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(os.environ.get("CRAWLMILL_SAMPLES", ROOT.parent / "shared" / "samples"))
CLUEWEB09 = ("ClueWeb09_English_Sample", "ClueWeb09_Chinese_Sample")
HTML_TYPES = ("text/html", "application/xhtml+xml")

# -- inputs ------------------------------------------------------------------------------------


def sample_responses() -> list[tuple[str, bytes]]:
    """``(url, http head + body)`` of the distinct HTML responses of the samples' WARC/ARC
    files, as stored."""
    from crawlmill import open_reader
    from crawlmill.algorithms.text_extraction import is_html

    paths = sorted(
        p
        for pattern in ("**/*.warc", "**/*.warc.gz", "**/*.arc", "**/*.arc.gz")
        for p in glob.glob(str(SAMPLES / pattern), recursive=True)
    )
    seen: set[bytes] = set()
    found: list[tuple[str, bytes]] = []
    for path in paths:
        try:
            with open_reader(path) as records:
                for record in records:
                    if record.kind.value != "response" or not record.http_head:
                        continue
                    if not record.url or not is_html(record) or not record.payload.strip():
                        continue
                    if record.payload in seen:
                        continue
                    seen.add(record.payload)
                    found.append((record.url, record.http_head + record.payload))
        except Exception as exc:  # noqa: BLE001 - a sample a reader refuses is skipped
            print(f"skipped {path}: {exc}", file=sys.stderr)
    return found


def _warc_record(url: str, block: bytes, n: int) -> bytes:
    rid = uuid.uuid5(uuid.NAMESPACE_URL, f"bench-ir-outputs/{n}")
    head = (
        "WARC/1.0\r\n"
        "WARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\n"
        f"WARC-Date: 2026-11-29T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z\r\n"
        f"WARC-Record-ID: <urn:uuid:{rid}>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(block)}\r\n\r\n"
    ).encode("utf-8", "surrogateescape")
    return gzip.compress(head + block + b"\r\n\r\n", compresslevel=6, mtime=0)


def build_real_html(folder: Path, pages: int, files: int) -> tuple[int, int]:
    """Write ``files`` ``.warc.gz`` files holding ``pages`` HTML responses in all (the samples'
    distinct pages, repeated); ``(distinct pages, bytes written)``."""
    found = sample_responses()
    folder.mkdir(parents=True, exist_ok=True)
    per = -(-pages // files)
    size = 0
    for f in range(files):
        path = folder / f"pages-{f:02d}.warc.gz"
        with open(path, "wb") as out:
            for n in range(f * per, min(pages, (f + 1) * per)):
                url, block = found[n % len(found)]
                out.write(_warc_record(url, block, n))
        size += path.stat().st_size
    return len(found), size


def build_clueweb09(folder: Path) -> int:
    """Copy the two ClueWeb09 sample files into ``folder``; their bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    size = 0
    for name in CLUEWEB09:
        src = next(iter(glob.glob(str(SAMPLES / "**" / name), recursive=True)), None)
        if src is None:
            raise SystemExit(f"{name} not found under {SAMPLES}")
        shutil.copyfile(src, folder / f"{name}.warc")
        size += os.path.getsize(src)
    return size


# -- the plain loop (the script users write today) ---------------------------------------------


def _charset(content_type: str, body: bytes) -> str:
    """The charset as crawlmill finds it: the header's, a <meta> tag's, chardet's, latin-1."""
    import codecs
    import re

    def known(label: str | bytes | None) -> str | None:
        if not label:
            return None
        label = label.decode("ascii", "replace") if isinstance(label, bytes) else label
        try:
            return codecs.lookup(label.strip()).name
        except LookupError:
            return None

    pattern = rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)"""
    m = re.search(pattern, content_type.encode("latin-1", "replace"), re.I)
    found = known(m.group(1)) if m else None
    if found:
        return found
    for meta in re.finditer(rb"<meta\b[^>]*>", body[:4096], re.I):
        m = re.search(pattern, meta.group(0), re.I)
        found = known(m.group(1)) if m else None
        if found:
            return found
    if body:
        import chardet

        found = known(chardet.detect(body[:65536]).get("encoding"))
    return found or "latin-1"


def plain_docs(path: str):
    """``(id, text, url, date)`` of each HTML response of the WARC file ``path``."""
    from resiliparse.extract.html2text import extract_plain_text
    from resiliparse.parse.html import HTMLTree
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as fh:
        for rec in ArchiveIterator(fh):
            if rec.rec_type != "response" or rec.http_headers is None:
                continue
            ctype = rec.http_headers.get_header("Content-Type") or ""
            if ctype.split(";")[0].strip().lower() not in HTML_TYPES:
                continue
            try:
                body = rec.content_stream().read()
            except Exception as exc:  # noqa: BLE001 - as a user's script goes on: page lost
                print(f"{path}: {rec.rec_headers.get_header('WARC-Record-ID')}: "
                      f"{type(exc).__name__}: {exc}", file=sys.stderr)  # fmt: skip
                continue
            html = body.decode(_charset(ctype, body), "replace")
            tree = HTMLTree.parse(html)
            text = extract_plain_text(tree, main_content=True, alt_texts=False, noscript=False)
            headers = rec.rec_headers
            doc_id = headers.get_header("WARC-TREC-ID")
            if not doc_id:
                doc_id = (headers.get_header("WARC-Record-ID") or "").strip("<>")
                doc_id = doc_id.removeprefix("urn:uuid:")
            url = headers.get_header("WARC-Target-URI")
            yield doc_id, text, url, headers.get_header("WARC-Date")


def plain_jsonl(job: tuple[str, str]) -> int:
    """Write ``{"id", "contents"}`` lines of one input; the lines written."""
    import orjson

    path, out = job
    n = 0
    with open(out, "wb") as fh:
        for doc_id, text, _, _ in plain_docs(path):
            fh.write(orjson.dumps({"id": doc_id, "contents": text}) + b"\n")
            n += 1
    return n


def plain_parquet(job: tuple[str, str]) -> int:
    """Write the ``text``/``id``/``metadata`` rows of one input with pyarrow; the rows."""
    from datetime import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    path, out = job
    texts, ids, metas = [], [], []
    for doc_id, text, url, date in plain_docs(path):
        texts.append(text)
        ids.append(doc_id)
        when = None
        if date:
            try:
                when = datetime.fromisoformat(date.replace("Z", "+00:00"))
            except ValueError:
                when = None
        metas.append({"url": url, "date": when})
    meta = pa.struct([("url", pa.string()), ("date", pa.timestamp("us", tz="UTC"))])
    table = pa.table(
        {"text": pa.array(texts, pa.string()), "id": pa.array(ids, pa.string()),
         "metadata": pa.array(metas, meta)}
    )  # fmt: skip
    pq.write_table(table, out, compression="zstd")
    return len(ids)


def plain_main(kind: str, workers: int, out: str, inputs: list[str]) -> int:
    """The plain loop over ``inputs``: a file per input in ``out``; a pool when ``workers > 1``.
    Prints the documents written; returns 0."""
    os.makedirs(out, exist_ok=True)
    ext = ".jsonl" if kind == "jsonl" else ".parquet"
    jobs = [(p, os.path.join(out, Path(p).name.split(".")[0] + ext)) for p in inputs]
    work = plain_jsonl if kind == "jsonl" else plain_parquet
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            written = sum(pool.map(work, jobs, chunksize=1))
    else:
        written = sum(work(job) for job in jobs)
    print(f"{written} documents", file=sys.stderr)
    return 0


# -- measuring ---------------------------------------------------------------------------------

#: runs ``main`` of a module in a child and reports its peak RSS (its own ``VmHWM`` and its
#: largest waited-for child's ``ru_maxrss``; ``_measure`` adds the forkserver's tree).
CHILD = """
import json, resource, sys
sys.path.insert(0, {here!r})
from {module} import {func} as main
code = 0
try:
    code = main({args})
finally:
    peak = 0.0
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            peak = int(line.split()[1]) / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({{"peak_rss_mib": max(peak, kids)}}))
sys.exit(code)
"""


def _measure(code: str, before: str | None = None) -> dict:
    """Run ``python -c code`` (with ``before``: crawlmill imported from that checkout); wall
    and CPU seconds (the whole tree) and the peak RSS."""
    env = dict(os.environ)
    if before is not None:
        from bench_read_warc import _before_path

        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_before_path(before),
                                                          env.get("PYTHONPATH")]))  # fmt: skip
    run, info = tree_usage.run_json([sys.executable, "-c", code], env=env)
    # the pool's workers are the forkserver's children, not the child's: their peak comes from
    # the orphans tree_usage reaped
    info["peak_rss_mib"] = max(info.get("peak_rss_mib", 0.0), run.orphan_peak_rss / 2**20)
    info.update(seconds=run.wall, cpu_seconds=run.cpu)
    return info


def crawlmill_code(writer: str, workers: int, out: str, inputs: list[str]) -> str:
    """The child running ``crawlmill convert`` (its CLI's ``main``)."""
    argv = [
        "convert", *inputs, "--to", writer, "-o", out, "--workers", str(workers),
        "--progress", "never", "--no-resume", "--overwrite",
        "--filter", "kind", "keep=response", "--filter", "mime",
    ]  # fmt: skip
    return CHILD.format(
        here=str(ROOT / "benchmarks"),
        module="crawlmill.core.commands.cli",
        func="main",
        args=repr(argv),
    )


def plain_code(kind: str, workers: int, out: str, inputs: list[str]) -> str:
    """The child running the plain loop of this module."""
    return CHILD.format(
        here=str(ROOT / "benchmarks"),
        module="bench_ir_outputs",
        func="plain_main",
        args=f"{kind!r}, {workers}, {out!r}, {inputs!r}",
    )


# -- comparing ---------------------------------------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(text.split())


def read_docs(folder: str, kind: str) -> list[tuple[str, str]]:
    """``(id, text)`` of the documents of an output folder, files in name order."""
    docs: list[tuple[str, str]] = []
    if kind == "jsonl":
        for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    obj = json.loads(line)
                    docs.append((obj["id"], obj["contents"]))
    else:
        import pyarrow.parquet as pq

        for path in sorted(glob.glob(os.path.join(folder, "*.parquet"))):
            table = pq.read_table(path, columns=["id", "text"])
            docs += list(zip(table["id"].to_pylist(), table["text"].to_pylist(), strict=True))
    return docs


def compare(ours: list[tuple[str, str]], theirs: list[tuple[str, str]]) -> dict:
    """Counts, whether the ids are the same in order, and the share of equal texts (blanks
    collapsed) among the ids both have."""
    mine = dict(ours)
    same = [_norm(mine[i]) == _norm(t) for i, t in theirs if i in mine]
    theirs_ids = {i for i, _ in theirs}
    return {
        "docs": len(ours),
        "plain_docs": len(theirs),
        "same_ids": [i for i, _ in ours] == [i for i, _ in theirs],
        "only_ours": sum(1 for i, _ in ours if i not in theirs_ids),
        "text_agreement": sum(same) / len(same) if same else None,
    }


# -- main --------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=4000, help="pages of the real-html set")
    parser.add_argument("--files", type=int, default=4, help="files of the real-html set")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; the least CPU kept")
    parser.add_argument("--sets", nargs="+", default=["real-html", "clueweb09"])
    parser.add_argument("--work", default=None, help="scratch folder (default: a temp folder)")
    parser.add_argument("--json", default=None, help="write the results here too")
    parser.add_argument(
        "--before", metavar="CHECKOUT", default=None,
        help="also run crawlmill from this checkout (git worktree add /tmp/base main)",
    )  # fmt: skip
    args = parser.parse_args()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-ir-"))
    inputs: dict[str, list[str]] = {}
    if "real-html" in args.sets:
        distinct, size = build_real_html(work / "real-html", args.pages, args.files)
        inputs["real-html"] = sorted(glob.glob(str(work / "real-html" / "*.warc.gz")))
        print(
            f"real-html: {args.pages} pages ({distinct} distinct) in {args.files} files, "
            f"{size / 2**20:.1f} MiB .warc.gz"
        )
    if "clueweb09" in args.sets:
        size = build_clueweb09(work / "clueweb09")
        inputs["clueweb09"] = sorted(glob.glob(str(work / "clueweb09" / "*.warc")))
        print(f"clueweb09: the 2 sample files, {size / 2**20:.1f} MiB")
        reframed = work / "clueweb09-warc1.0"
        shutil.rmtree(reframed, ignore_errors=True)
        _measure(
            CHILD.format(
                here=str(ROOT / "benchmarks"),
                module="crawlmill.core.commands.cli",
                func="main",
                args=repr(["convert", *inputs["clueweb09"], "--to", "warc", "-o", str(reframed),
                           "--progress", "never", "--workers", "1"]),
            )
        )  # fmt: skip
        inputs["clueweb09-warc1.0"] = sorted(glob.glob(str(reframed / "*.warc.gz")))
        print("clueweb09-warc1.0: the same, written as WARC/1.0 by crawlmill convert --to warc")
    tools = {
        "crawlmill pyserini": ("jsonl", lambda w, o, i: crawlmill_code("pyserini", w, o, i)),
        "plain warcio+orjson": ("jsonl", lambda w, o, i: plain_code("jsonl", w, o, i)),
        "crawlmill parquet": ("parquet", lambda w, o, i: crawlmill_code("parquet", w, o, i)),
        "plain warcio+pyarrow": ("parquet", lambda w, o, i: plain_code("parquet", w, o, i)),
    }
    if args.before:
        tools["crawlmill pyserini before"] = tools["crawlmill pyserini"]
        tools["crawlmill parquet before"] = tools["crawlmill parquet"]
    results = []
    print(
        "| input | tool | workers | docs out | wall s | pages/s | CPU s | peak RSS MiB "
        "| same ids as plain | texts equal |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for name, files in inputs.items():
        for workers in args.workers:
            outputs: dict[str, str] = {}
            rows = []
            for tool, (kind, code) in tools.items():
                out = str(work / "out" / name / f"{tool.replace(' ', '_')}-{workers}")
                runs = []
                try:
                    for _ in range(args.repeat):
                        shutil.rmtree(out, ignore_errors=True)
                        before = args.before if tool.endswith(" before") else None
                        runs.append(_measure(code(workers, out, files), before))
                except RuntimeError as exc:  # the plain loop cannot read ClueWeb09's WARC/0.18
                    error = str(exc).strip().splitlines()[-1]
                    print(f"| {name} | {tool} | {workers} | fails: {error[:150]} |||||||")
                    results.append({"input": name, "tool": tool, "workers": workers,
                                    "error": error})  # fmt: skip
                    continue
                best = min(runs, key=lambda r: r["cpu_seconds"])
                outputs[tool] = out
                rows.append((tool, kind, best))
            for tool, kind, best in rows:
                plain = "plain warcio+orjson" if kind == "jsonl" else "plain warcio+pyarrow"
                ours = read_docs(outputs[tool], kind)
                theirs = read_docs(outputs[plain], kind) if plain in outputs else []
                cmp = compare(ours, theirs) if theirs else {"docs": len(ours)}
                row = {"input": name, "tool": tool, "workers": workers, **best, **cmp}
                row["pages_per_s"] = cmp["docs"] / best["seconds"]
                results.append(row)
                agree = cmp.get("text_agreement")
                same = {True: "yes", False: "NO", None: "-"}[cmp.get("same_ids")]
                if cmp.get("only_ours") and tool.startswith("crawlmill"):
                    same = f"plain lacks {cmp['only_ours']}"
                if tool.startswith("plain"):  # the reference itself
                    same, agree = "-", None
                print(
                    f"| {name} | {tool} | {workers} | {cmp['docs']:,} | {best['seconds']:.2f} "
                    f"| {row['pages_per_s']:.0f} | {best['cpu_seconds']:.2f} "
                    f"| {best.get('peak_rss_mib', 0):.0f} | {same} "
                    f"| {'-' if agree is None else f'{agree:.1%}'} |",
                    flush=True,
                )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
