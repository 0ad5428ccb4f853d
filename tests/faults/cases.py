"""Cases (input x pattern x seed) and the harness that runs them through the CLI.

``Harness(root).run_case(case)`` builds the intact input (once per input), converts it once
for the baseline, damages it with the case's seed, runs ``crawlmill convert DAMAGED --to warc
-o OUT`` (bombs: ``crawlmill run`` with a config that lowers the bounds), and evaluates
:mod:`.check`. The same code serves the CI test and the soak script."""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .check import BOUNDS, Baseline, Failure, baseline_of, evaluate
from .damage import PATTERNS, Damaged, patterns_for
from .oracle import Intact
from .readers import InputKind, all_inputs, samples_dir
from .runner import Runner

__all__ = ["Case", "CaseResult", "Harness", "enumerate_cases"]

#: cases per (input, pattern) in CI.
CI_SEEDS = 1


@dataclass(frozen=True)
class Case:
    """One damaged run: an input, a pattern, a seed."""

    input: str
    pattern: str
    seed: int

    @property
    def id(self) -> str:
        return f"{self.input}/{self.pattern}/s{self.seed}"


def enumerate_cases(
    seeds: range | list[int] = range(CI_SEEDS), inputs: list[InputKind] | None = None
) -> list[Case]:
    """Every applicable (input, pattern) pair, once per seed."""
    out = []
    for kind in inputs or all_inputs():
        for p in patterns_for(kind.layout, kind.sample):
            if p.name in kind.skip:
                continue
            out.extend(Case(kind.id, p.name, s) for s in seeds)
    return out


@dataclass
class CaseResult:
    """The outcome of one case."""

    case: Case
    damaged: Damaged
    failures: list[Failure]
    rc: int
    maxrss_kb: int
    seconds: float
    lost: int = 0
    delivered: int = 0
    logs: dict[str, str] = field(default_factory=dict)


class Harness:
    """Runs cases under ``root`` (a scratch folder), caching intact inputs and baselines."""

    def __init__(self, root: Path, runner: Runner | None = None, keep: bool = False) -> None:
        self.root = Path(root)
        self.runner = runner or Runner()
        self.keep = keep
        self._kinds = {k.id: k for k in all_inputs()}
        self._intact: dict[str, Intact] = {}
        self._paths: dict[str, Path] = {}
        self._base: dict[str, Baseline] = {}

    def kind(self, input_id: str) -> InputKind:
        return self._kinds[input_id]

    def available(self, input_id: str) -> bool:
        """False for a sample whose file is absent."""
        kind = self._kinds[input_id]
        return not kind.sample or samples_dir().is_dir()

    def intact(self, input_id: str) -> Intact:
        if input_id not in self._intact:
            folder = self.root / "intact" / input_id.replace("/", "_")
            self._intact[input_id] = self.kind(input_id).build(folder)
            self._paths[input_id] = folder / self._intact[input_id].name
        return self._intact[input_id]

    def baseline(self, input_id: str) -> Baseline:
        if input_id not in self._base:
            intact = self.intact(input_id)
            work = self.root / "baseline" / input_id.replace("/", "_")
            shutil.rmtree(work, ignore_errors=True)
            run = self.runner.run(
                self._argv(self._paths[input_id], work / "out", input_id), work, work / "logs"
            )
            self._base[input_id] = baseline_of(intact, run, work / "out")
        return self._base[input_id]

    def _argv(self, path: Path, out: Path, input_id: str) -> list[str]:
        argv = ["convert", str(path), "--to", "warc", "-o", str(out)]
        src = self.kind(input_id).from_reader
        return argv + (["--from", src] if src else [])

    def damage(self, case: Case) -> Damaged:
        """The case's damaged input (deterministic in the case id)."""
        pattern = next(p for p in PATTERNS if p.name == case.pattern)
        return pattern.apply(self.intact(case.input), random.Random(case.id))

    def run_case(self, case: Case) -> CaseResult:
        intact = self.intact(case.input)
        base = self.baseline(case.input)
        dmg = self.damage(case)
        work = self.root / "cases" / case.id.replace("/", "_")
        shutil.rmtree(work, ignore_errors=True)
        (work / "in").mkdir(parents=True)
        path = work / "in" / intact.name
        path.write_bytes(dmg.data)
        out = work / "out"
        if dmg.bounded:
            cfg = {
                "version": 1,
                "inputs": [str(path)],
                "reader": self.kind(case.input).from_reader,
                "writer": "warc",
                "output": str(out),
                "run": {"workers": 1, **BOUNDS},
            }
            if cfg["reader"] is None:
                del cfg["reader"]
            (work / "pipeline.json").write_text(json.dumps(cfg))
            argv = ["run", str(work / "pipeline.json")]
        else:
            argv = self._argv(path, out, case.input)
        run = self.runner.run(argv, work, work / "logs")
        fails = evaluate(intact, base, dmg, path, run, out)
        required = [
            r
            for r in intact.records
            if r.index not in dmg.touched | dmg.removed and r.index in base.exact
        ]
        lost = 0
        for f in fails:
            if f[0] in ("lost", "changed"):
                lost += int(f[1].split(" ", 1)[0])
        result = CaseResult(
            case, dmg, fails, run.rc, run.maxrss_kb, run.seconds, lost, len(required) - lost
        )
        result.logs = {"argv": " ".join(argv), "stderr": run.stderr[-2000:], "work": str(work)}
        if not self.keep:
            shutil.rmtree(work, ignore_errors=True)
        return result

    def close(self) -> None:
        self.runner.close()
