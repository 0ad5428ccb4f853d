"""Cases for the Nutch database readers (``nutch-webgraph``, ``nutch-hostdb``): one part's
``data`` file of a database folder damaged by the SequenceFile patterns (:mod:`.seq_damage`),
the whole folder converted with ``crawlmill convert DB --from READER --to sequencefile -o OUT``
through the same runner, and checked by :func:`.seq_cases.evaluate`.

These readers deliver each entry as a metadata record whose payload is the value's fields as
JSON, so an entry's expected output is taken from the intact folder's conversion (the output
file of the damaged part holds one entry per input entry, in order): the promised entries of
the damaged part and every entry of the other parts must come out as they did from the intact
folder (``lost``); the rest (``unreported``/``spurious``, ``offsets``, ``accounting``,
``quarantine``, ``unreadable``, ``memory``) is checked as for any SequenceFile."""

from __future__ import annotations

import random
import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from .cases import Case
from .check import Failure
from .damage import Damaged
from .db_inputs import DB_INPUTS, DbInput
from .runner import Runner
from .seq_cases import SeqBaseline, evaluate, intact_failures
from .seq_damage import SEQ_PATTERNS, seq_patterns_for
from .seq_oracle import SeqEntry, SeqFile, content, parse_seqfile

__all__ = ["DbHarness", "DbResult", "enumerate_db_cases"]

#: the class name :func:`.seq_oracle.content` keeps as it is: forms taken from the baseline.
_RAW = "crawlmill.faults.Raw"


@dataclass
class DbBaseline:
    """The intact folder's conversion: the output form of each entry of the damaged part (in
    order), those of every other part, peak RSS and what failed."""

    part: list[tuple[bytes, bytes]] = field(default_factory=list)
    others: Counter = field(default_factory=Counter)
    rss_kb: int = 0
    failures: list[Failure] = field(default_factory=list)


@dataclass
class DbResult:
    """The outcome of one case."""

    case: Case
    damaged: Damaged
    failures: list[Failure]
    rc: int
    argv: str


def _output_files(out: Path) -> list[SeqFile]:
    files = []
    for path in sorted(out.rglob("*")):
        if path.is_file() and ".crawlmill" not in path.parts and not path.name.startswith("."):
            try:
                files.append(parse_seqfile(path.read_bytes(), str(path.relative_to(out))))
            except ValueError:
                continue  # read_output names it
    return files


class DbHarness:
    """Runs database cases under ``root``, caching intact folders and baselines."""

    def __init__(self, root: Path, runner: Runner | None = None, keep: bool = False) -> None:
        self.root = Path(root)
        self.runner = runner or Runner()
        self.keep = keep
        self.inputs: dict[str, DbInput] = {k.id: k for k in DB_INPUTS}
        self._intact: dict[str, tuple[SeqFile, Path]] = {}
        self._base: dict[str, DbBaseline] = {}

    def intact(self, input_id: str) -> tuple[SeqFile, Path]:
        """The damaged part's intact data file, parsed, and its path."""
        if input_id not in self._intact:
            folder = self.root / "intact" / input_id.replace("/", "_")
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            path = self.inputs[input_id].make(folder)
            self._intact[input_id] = (parse_seqfile(path.read_bytes(), path.name), path)
        return self._intact[input_id]

    def _argv(self, kind: DbInput, path: Path, out: Path) -> list[str]:
        return ["convert", str(kind.root(path)), "--from", kind.reader, "--to", "sequencefile",
                "-o", str(out)]  # fmt: skip

    def baseline(self, input_id: str) -> DbBaseline:
        """Convert the intact folder: exit 0, no damage, one output entry per input entry."""
        if input_id not in self._base:
            kind = self.inputs[input_id]
            f, path = self.intact(input_id)
            work = self.root / "baseline" / input_id.replace("/", "_")
            shutil.rmtree(work, ignore_errors=True)
            out = work / "out"
            run = self.runner.run(self._argv(kind, path, out), work, work / "logs")
            base = DbBaseline(rss_kb=run.maxrss_kb, failures=intact_failures(run, out))
            keys = [content(f.key_class, e.key) for e in f.entries]
            everything: Counter = Counter()
            outputs = [[e.form(o.key_class, o.value_class) for e in o.entries]
                       for o in _output_files(out)]  # fmt: skip
            for forms in outputs:
                everything.update(forms)
                if [k for k, _ in forms] == keys:
                    base.part = forms
            if not base.part and len(outputs) == 1 and len(outputs[0]) == len(keys):
                base.part = outputs[0]  # a host db: its keys (host names) are no URLs
            if not base.part:
                base.failures.append(("lost", "intact: no output file holds the part's entries"))
            base.others = everything - Counter(base.part)
            self._base[input_id] = base
        return self._base[input_id]

    def damage(self, case: Case) -> Damaged:
        """The case's damaged data file (deterministic in the case id)."""
        pattern = next(p for p in SEQ_PATTERNS if p.name == case.pattern)
        return pattern.apply(self.intact(case.input)[0], random.Random(case.id))

    def run_case(self, case: Case) -> DbResult:
        kind = self.inputs[case.input]
        f, intact_path = self.intact(case.input)
        base = self.baseline(case.input)
        dmg = self.damage(case)
        work = self.root / "cases" / case.id.replace("/", "_")
        shutil.rmtree(work, ignore_errors=True)
        db = kind.root(intact_path)
        shutil.copytree(db, work / "in" / db.name)
        path = work / "in" / db.name / intact_path.relative_to(db)
        path.write_bytes(dmg.data)
        out = work / "out"
        argv = self._argv(kind, path, out)
        run = self.runner.run(argv, work, work / "logs")
        # the part's entries, each as the intact conversion delivered it
        entries = [SeqEntry(e.index, k, v, e.element)
                   for e, (k, v) in zip(f.entries, base.part, strict=True)]  # fmt: skip
        # and every entry of the other parts, promised whole (shown at the damaged file's 0)
        entries += [SeqEntry(len(entries) + i, k, v, 0)
                    for i, (k, v) in enumerate(base.others.elements())]  # fmt: skip
        mapped = replace(f, key_class=_RAW, value_class=_RAW, entries=entries)
        fails = evaluate(mapped, SeqBaseline(base.rss_kb), dmg, path, run, out)
        result = DbResult(case, dmg, fails, run.rc, " ".join(argv))
        if not self.keep:
            shutil.rmtree(work, ignore_errors=True)
        return result

    def close(self) -> None:
        self.runner.close()


def enumerate_db_cases(harness: DbHarness, seeds: range | list[int] = range(1)) -> list[Case]:
    """Every applicable (input, pattern) pair, once per seed."""
    out = []
    for kind in DB_INPUTS:
        f, _ = harness.intact(kind.id)
        for p in seq_patterns_for(f):
            out.extend(Case(kind.id, p.name, s) for s in seeds)
    return out
