"""Cases (input x pattern x seed) for the SequenceFile family and the harness that runs them.

``SeqHarness(root).run_case(case)`` writes the intact input (once per input), converts it once
for the baseline, damages the SequenceFile with the case's seed, runs ``crawlmill convert
TARGET --to sequencefile -o OUT`` through the same runner as the WARC/ARC harness, and
evaluates:

* ``exception``, ``unreported``/``spurious``, ``offsets``, ``accounting`` and ``quarantine``
  as :mod:`.check` does for WARC/ARC;
* ``lost``: every entry the damage rule of :mod:`.seq_damage` promises is in the output with
  its key and value bytes exactly (the content bytes of its classes; see
  :func:`.seq_oracle.content`);
* ``foreign``: entries that are no original entry appear only with a damage report;
* ``unreadable``: every output SequenceFile parses to its end (:mod:`.seq_oracle`);
* ``memory``: peak RSS under the bound of :func:`.check.memory_bound_kb`."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .cases import Case
from .check import (
    Failure,
    _quarantine,
    _report,
    _short,
    memory_bound_kb,
    report_failures,
    run_failures,
)
from .damage import Damaged
from .readers import samples_dir
from .runner import Runner, RunResult
from .seq_damage import SEQ_PATTERNS, seq_patterns_for
from .seq_inputs import SEQ_INPUTS, SeqInput
from .seq_oracle import SeqFile, parse_seqfile, read_output

__all__ = [
    "HEADER_PATTERNS",
    "SeqCase",
    "SeqHarness",
    "enumerate_seq_cases",
    "evaluate",
    "intact_failures",
]

#: patterns that damage the header: run with ``--from`` the reader under test.
HEADER_PATTERNS = frozenset(
    {"bitflip-magic", "bitflip-header", "truncate-header", "garbage-prefix"}
)


#: one damaged run: an input, a pattern, a seed (the WARC/ARC harness's case).
SeqCase = Case


@dataclass
class SeqBaseline:
    """The intact conversion: peak RSS and what failed."""

    rss_kb: int = 0
    failures: list[Failure] = field(default_factory=list)


@dataclass
class SeqResult:
    """The outcome of one case."""

    case: SeqCase
    damaged: Damaged
    failures: list[Failure]
    rc: int
    argv: str
    stderr: str


class SeqHarness:
    """Runs SequenceFile cases under ``root``, caching intact inputs and baselines."""

    def __init__(self, root: Path, runner: Runner | None = None, keep: bool = False) -> None:
        self.root = Path(root)
        self.runner = runner or Runner()
        self.keep = keep
        self.inputs = {k.id: k for k in SEQ_INPUTS}
        self._intact: dict[str, tuple[SeqFile, Path]] = {}
        self._base: dict[str, SeqBaseline] = {}

    def intact(self, input_id: str) -> tuple[SeqFile, Path]:
        """The parsed intact file and its path."""
        if input_id not in self._intact:
            folder = self.root / "intact" / input_id.replace("/", "_")
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            path = self.inputs[input_id].make(folder)
            f = parse_seqfile(path.read_bytes(), path.name)
            f.unchecked = self.inputs[input_id].unchecked
            self._intact[input_id] = (f, path)
        return self._intact[input_id]

    def _argv(self, kind: SeqInput, path: Path, out: Path, pattern: str = "") -> list[str]:
        argv = ["convert", str(kind.target(path)), "--to", "sequencefile", "-o", str(out)]
        # damage in the header hides the format from detection (exit 2, "name a reader with
        # --from"): the user names it, as the message says
        src = kind.reader if pattern in HEADER_PATTERNS else kind.from_reader
        return argv + (["--from", src] if src else [])

    def baseline(self, input_id: str) -> SeqBaseline:
        """Convert the intact input: exit 0, no damage, every entry delivered exactly."""
        if input_id not in self._base:
            f, path = self.intact(input_id)
            work = self.root / "baseline" / input_id.replace("/", "_")
            shutil.rmtree(work, ignore_errors=True)
            out = work / "out"
            run = self.runner.run(self._argv(self.inputs[input_id], path, out), work, work / "logs")
            base = SeqBaseline(run.maxrss_kb, intact_failures(run, out))
            forms, bad = read_output(str(out))
            want = Counter(e.form(f.key_class, f.value_class) for e in f.entries)
            missing = want - Counter(forms)
            if missing:
                base.failures.append(
                    ("lost", f"intact: {sum(missing.values())} entries not delivered")
                )
            if bad:
                base.failures.append(("unreadable", "; ".join(bad)))
            self._base[input_id] = base
        return self._base[input_id]

    def damage(self, case: SeqCase) -> Damaged:
        """The case's damaged file (deterministic in the case id)."""
        pattern = next(p for p in SEQ_PATTERNS if p.name == case.pattern)
        return pattern.apply(self.intact(case.input)[0], random.Random(case.id))

    def run_case(self, case: SeqCase) -> SeqResult:
        kind = self.inputs[case.input]
        f, intact_path = self.intact(case.input)
        base = self.baseline(case.input)
        dmg = self.damage(case)
        work = self.root / "cases" / case.id.replace("/", "_")
        shutil.rmtree(work, ignore_errors=True)
        src_dir = intact_path.parent
        shutil.copytree(src_dir, work / "in")
        path = work / "in" / intact_path.relative_to(src_dir)
        path.write_bytes(dmg.data)
        out = work / "out"
        argv = self._argv(kind, path, out, case.pattern)
        run = self.runner.run(argv, work, work / "logs")
        fails = evaluate(f, base, dmg, path, run, out)
        result = SeqResult(case, dmg, fails, run.rc, " ".join(argv), run.stderr[-2000:])
        if not self.keep:
            shutil.rmtree(work, ignore_errors=True)
        return result

    def close(self) -> None:
        self.runner.close()


def intact_failures(run: RunResult, out: Path) -> list[Failure]:
    """What failed in the conversion of an intact input: the run's own failures, an exit
    other than 0, any damage reported."""
    report = _report(out)
    fails = run_failures(run, report)
    if run.rc != 0:
        fails.append(("exception", f"intact input: exit {run.rc}"))
    if report and report.get("damages"):
        fails.append(("spurious", f"intact: {report['damages'][:2]}"))
    return fails


def evaluate(
    f: SeqFile, base: SeqBaseline, dmg: Damaged, path: Path, run: RunResult, out: Path
) -> list[Failure]:
    """All failed assertions of one damaged run (empty: the case passes)."""
    report = _report(out)
    fails = run_failures(run, report)
    report = report or {}
    forms, bad = read_output(str(out))
    have = Counter(forms)
    lost = []
    for e in f.entries:
        if e.index in dmg.touched or e.index in dmg.removed:
            continue
        form = e.form(f.key_class, f.value_class)
        if have[form] > 0:
            have[form] -= 1
        else:
            lost.append(f"#{e.index} at {f.elements[e.element].start}")
    if lost:
        fails.append(("lost", f"{len(lost)} promised entries not delivered: {_short(lost)}"))
    fails.extend(report_failures(report, dmg, path, len(forms), bool(bad)))
    known = Counter(e.form(f.key_class, f.value_class) for e in f.entries)
    foreign = Counter(forms) - known
    if foreign and not report.get("damages") and dmg.expect_report:
        fails.append(("foreign", f"{sum(foreign.values())} entries match no original entry"))
    if bad:
        fails.append(("unreadable", _short(bad, 2)))
    bound = memory_bound_kb(base.rss_kb, len(dmg.data), False)
    if run.maxrss_kb > bound:
        fails.append(("memory", f"peak RSS {run.maxrss_kb // 1024} MiB > {bound // 1024} MiB"))
    fails.extend(_quarantine(out, dmg, path))
    return fails


def enumerate_seq_cases(seeds: range | list[int] = range(1), harness: SeqHarness | None = None,
                        include_samples: bool = True) -> list[SeqCase]:  # fmt: skip
    """Every applicable (input, pattern) pair, once per seed. The patterns that apply depend
    on the file (its compression, whether it has sync markers), so inputs are parsed; without
    a harness, in a scratch folder."""
    import tempfile

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        h = harness or SeqHarness(Path(tmp), runner=None)
        for kind in SEQ_INPUTS:
            if kind.sample and not (include_samples and samples_dir().is_dir()):
                continue
            f, _ = h.intact(kind.id)
            for p in seq_patterns_for(f):
                out.extend(SeqCase(kind.id, p.name, s) for s in seeds)
    return out
