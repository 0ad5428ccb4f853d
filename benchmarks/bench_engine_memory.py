"""Peak memory of the engine on growing inputs: it must stay flat in the input size.

Runs the pipeline (fake reader -> a filter -> fake writer, from tests/core/fake_plugins) in a
fresh subprocess per size, in-process (workers=1) so the peak RSS of that one process covers
the whole pipeline, and prints records, input size, seconds and peak RSS::

    python benchmarks/bench_engine_memory.py [--sizes 10000,100000,500000] [--payload 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

FAKE_DIR = Path(__file__).resolve().parent.parent / "tests" / "core" / "fake_plugins"

CHILD = """
import json, resource, sys, time
sys.path.insert(0, {fake!r})
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec
spec = PipelineSpec.model_validate({spec!r})
t = time.monotonic()
report = engine.run(spec)
assert report.ok, report.failures
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
assert report.written == report.read, report.accounting_line()
print(json.dumps({{"read": report.read, "written": report.written, "seconds": time.monotonic() - t, "peak": peak}}))
"""


def main() -> None:
    """Generate inputs of each size and print the run's peak RSS."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes", default="10000,100000,500000", help="records per input, comma-separated"
    )
    ap.add_argument("--payload", type=int, default=1000, help="payload bytes per record")
    args = ap.parse_args()
    print(f"{'records':>10} {'input MB':>9} {'seconds':>8} {'rec/s':>9} {'peak RSS MB':>12}")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "in.txt"
            line = f" response {'x' * args.payload}\n"
            with open(src, "w") as fh:
                for i in range(n):
                    fh.write(f"R http://example.com/{i}{line}")
            spec = {
                "inputs": {"paths": [str(src)]},
                "reader": {"name": "fake-lines"},
                "filters": [{"name": "fake-kind"}],
                "writer": {"name": "fake-jsonl"},
                "output": str(Path(tmp) / "out"),
                "run": {"workers": 1, "progress": "never"},
                "plugins": ["cm_fake"],
            }
            code = CHILD.format(fake=str(FAKE_DIR), spec=spec)
            out = subprocess.run(
                [sys.executable, "-c", code], check=True, capture_output=True, text=True
            ).stdout
            res = json.loads(out.strip().splitlines()[-1])
            size = src.stat().st_size / 1e6
            rate = res["read"] / res["seconds"]
            print(
                f"{n:>10} {size:>9.1f} {res['seconds']:>8.2f} {rate:>9.0f} {res['peak'] / 1e6:>12.1f}"
            )


if __name__ == "__main__":
    main()
