"""How often an archived HTTP response's body is shorter than the ``Content-Length`` its head
declares, on the real sample files: the noise of the ``ntcir`` reader's ``possibly-cut-short``
warning (docs/formats/ntcir.md, "A page cut short").

Every WARC and ARC file below the samples folder (detected as crawlmill plans it; one copy of
files with the same bytes) is read with crawlmill's reader; each ``response`` record with an
HTTP head whose declared length binds the body (``formats.http.head.declared_length``: the
rule the warning uses) is counted equal, shorter or longer, for every record and for the last
response of each file; then the pages of the Nutch segments below the samples' ``*nutch*``
folders (one page per Content, the server's head kept in its metadata: NTCIR-like).

    python benchmarks/content_length_noise.py [SAMPLES]   # default ../shared/samples
"""

from __future__ import annotations

import collections
import hashlib
import os
import sys
import tempfile
from typing import Any

from crawlmill.core import storage
from crawlmill.core.inputs import expand_inputs
from crawlmill.core.reading import open_reader
from crawlmill.core.registry import Registry
from crawlmill.core.spec import PipelineSpec
from crawlmill.formats.http.head import declared_length

_SKIP = (".crc", ".md", ".cdx", ".json", ".java", ".py", ".html")


def _kinds(path: Any, reader: str | None = None) -> list[tuple[str, str, int | None, int]]:
    """``(kind, url, declared, body length)`` of each HTTP response of the file ``path``."""
    found = []
    with open_reader(path, reader) as records:
        for r in records:
            head = r.http_head
            if r.kind != "response" or not head or not head.startswith(b"HTTP/"):
                continue
            body, declared = len(r.payload or b""), declared_length(head)
            if declared is None:
                kind = "no length"
            else:
                kind = "equal" if body == declared else "shorter" if body < declared else "longer"
            found.append((kind, r.url or "", declared, body))
    return found


def main(root: str) -> None:
    registry = Registry.load()
    every, last, seen = collections.Counter(), collections.Counter(), set()
    shorter = []
    files = 0
    for dirpath, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            if name.lower().endswith(_SKIP):
                continue
            try:
                ranking = registry.detect(path, storage.read_head(path))
            except OSError:
                continue
            if not ranking or ranking[0][0] not in ("warc", "arc"):
                continue
            with open(path, "rb") as fh:
                digest = hashlib.sha1(fh.read()).digest()
            if digest in seen:
                continue
            seen.add(digest)
            try:
                kinds = _kinds(path)
            except Exception as exc:  # noqa: BLE001 - a sample the reader refuses: named
                print(f"not read: {path}: {exc}", file=sys.stderr)
                continue
            if not kinds:
                continue
            files += 1
            every.update(k for k, *_ in kinds)
            last[kinds[-1][0]] += 1
            for i, (kind, url, declared, body) in enumerate(kinds):
                if kind == "shorter":
                    where = "last" if i == len(kinds) - 1 else f"{i + 1} of {len(kinds)}"
                    rel = os.path.relpath(path, root)
                    shorter.append(f"  {rel} ({where}) {url}: {body} < {declared}")
    pages = collections.Counter()  # Nutch segments: one page per Content, its head kept
    for name in sorted(os.listdir(root)):
        if "nutch" not in name:
            continue
        spec = {"inputs": {"paths": [os.path.join(root, name)]}, "writer": {"name": "warc"}}
        with tempfile.TemporaryDirectory(prefix="noise-") as out:  # planned, never written
            spec["output"] = out
            for planned in expand_inputs(PipelineSpec.model_validate(spec), registry):
                if planned.reader == "nutch-segment":
                    pages.update(k for k, *_ in _kinds(planned.input, planned.reader))
    bound = sum(v for k, v in every.items() if k != "no length")
    bound_last = sum(v for k, v in last.items() if k != "no length")
    print(f"{files} files with HTTP responses, {sum(every.values())} responses")
    print(f"every response: {dict(every)}; shorter {every['shorter']} of {bound} with a length")
    print(f"last response of each file: {dict(last)}; shorter {last['shorter']} of {bound_last}")
    print("shorter:", *shorter, sep="\n")
    print(f"Nutch segments' pages: {dict(pages)}")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "samples"))
