"""Soak run of the fault-injection harness (tests/faults): the same cases as CI, with more
seeds, and a summary table.

    python benchmarks/fault_soak.py --seeds 20                # 20 cases per (input, pattern)
    python benchmarks/fault_soak.py --seeds 5 --only arc/ --pattern length-
    python benchmarks/fault_soak.py --mode exec               # the console script, not the fork server
    python benchmarks/fault_soak.py --json soak.json          # every case's outcome

Per pattern it prints the cases, the failing ones (known: listed in
tests/faults/known_failures.py for that input and pattern; new: not listed), the known ones
that passed, and the untouched records lost; then failures by first failing assertion and the
new failures with their first message. Exit status 1 when there is a new failure.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.faults.cases import Harness, enumerate_cases  # noqa: E402
from tests.faults.known_failures import known_failure  # noqa: E402
from tests.faults.readers import all_inputs  # noqa: E402
from tests.faults.runner import Runner  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the soak and print the summary; 1 when a failure is not a known one."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seeds", type=int, default=10, help="cases per (input, pattern) (default 10)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument(
        "--only", action="append", default=[], metavar="TEXT", help="inputs whose id contains TEXT"
    )
    ap.add_argument(
        "--pattern", action="append", default=[], metavar="TEXT", help="patterns containing TEXT"
    )
    ap.add_argument("--mode", choices=["fork", "exec"], default="fork")
    ap.add_argument("--keep", metavar="DIR", help="keep every case's files under DIR")
    ap.add_argument("--json", metavar="FILE", help="write every case's outcome as JSON")
    ap.add_argument("--quiet", action="store_true", help="no line per case")
    args = ap.parse_args(argv)

    kinds = [k for k in all_inputs() if not args.only or any(o in k.id for o in args.only)]
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    cases = [
        c
        for c in enumerate_cases(seeds, kinds)
        if not args.pattern or any(p in c.pattern for p in args.pattern)
    ]
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="crawlmill-soak-"))
    harness = Harness(root, Runner(args.mode), keep=bool(args.keep))
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_assertion: collections.Counter = collections.Counter()
    new, outcomes = [], []
    started = time.monotonic()
    try:
        for kind in kinds:
            if harness.available(kind.id):
                base = harness.baseline(kind.id)
                for a, m in base.failures:
                    print(f"INTACT {kind.id}: {a}: {m}")
        for case in cases:
            if not harness.available(case.input):
                continue
            res = harness.run_case(case)
            known = known_failure(case.input, case.pattern, case.seed)
            row = rows[case.pattern]
            row["cases"] += 1
            row["lost"] += res.lost
            first = res.failures[0] if res.failures else None
            if first:
                row["failing"] += 1
                row["known" if known else "new"] += 1
                by_assertion[first[0]] += 1
                if not known:
                    new.append((case.id, first))
            elif known:
                row["known passed"] += 1
            outcomes.append(
                {
                    "case": case.id,
                    "rc": res.rc,
                    "failures": res.failures,
                    "known": known,
                    "lost": res.lost,
                    "damage": res.damaged.description,
                    "maxrss_kb": res.maxrss_kb,
                    "seconds": res.seconds,
                }
            )
            if not args.quiet:
                status = (
                    "ok"
                    if not first
                    else f"{'KNOWN' if known else 'NEW'} {first[0]}: {first[1][:100]}"
                )
                print(f"{case.id:55s} exit {res.rc} {res.seconds:5.2f}s {status}", flush=True)
    finally:
        harness.close()

    cols = ["cases", "failing", "known", "new", "known passed", "lost"]
    print(f"\n{'pattern':24s}" + "".join(f"{c:>14s}" for c in cols))
    total: collections.Counter = collections.Counter()
    for pattern in sorted(rows):
        total.update(rows[pattern])
        print(f"{pattern:24s}" + "".join(f"{rows[pattern][c]:14d}" for c in cols))
    print(f"{'TOTAL':24s}" + "".join(f"{total[c]:14d}" for c in cols))
    print(
        "\nfirst failing assertion: " + ", ".join(f"{a} {n}" for a, n in by_assertion.most_common())
    )
    print(
        f"{len(outcomes)} cases in {time.monotonic() - started:.0f}s; untouched records lost: {total['lost']}"
    )
    if new:
        print("\nnew failures (not in tests/faults/known_failures.py):")
        for cid, (a, m) in new:
            print(f"  {cid}: {a}: {m[:160]}")
    if args.json:
        Path(args.json).write_text(json.dumps(outcomes, indent=1))
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
