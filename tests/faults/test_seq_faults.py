"""The fault-injection run of the SequenceFile family (``sequencefile``, ``mapfile``,
``cc-metadata``; Nutch parts and Hadoop samples among the inputs): every intact input converts
to a SequenceFile with every entry exact, and every damaged one passes :func:`.seq_cases.evaluate`
through the real CLI.

CI runs half of the (input, pattern) pairs, in a rotation that gives every pattern several
inputs and every input several patterns, and every pattern on the BLOCK file with about 40
entries per block (~110 cases); ``CRAWLMILL_FAULT_SEEDS=N`` runs every
pair with seeds 0..N-1 (``CRAWLMILL_FAULT_SEEDS=3``: ~600 cases, minutes)."""

from __future__ import annotations

import os
import random

import pytest

from .seq_cases import SeqCase, SeqHarness, enumerate_seq_cases
from .seq_damage import SEQ_PATTERNS
from .seq_inputs import SEQ_INPUTS

_SWEEP = int(os.environ.get("CRAWLMILL_FAULT_SEEDS", "0") or 0)
#: inputs every pattern runs on in CI.
_EVERY_PATTERN = frozenset({"seq/block-many"})


def _ci_cases() -> list[SeqCase]:
    if _SWEEP:
        return enumerate_seq_cases(range(_SWEEP))
    order = {k.id: i for i, k in enumerate(SEQ_INPUTS)}
    pidx = {p.name: i for i, p in enumerate(SEQ_PATTERNS)}
    # every pattern on the BLOCK file with many entries per block (issue 25), half elsewhere
    return [
        c
        for c in enumerate_seq_cases()
        if c.input in _EVERY_PATTERN or (order[c.input] + pidx[c.pattern]) % 2 == 0
    ]


CASES = _ci_cases()


@pytest.fixture(scope="session")
def seq_harness(tmp_path_factory):
    h = SeqHarness(tmp_path_factory.mktemp("seqfaults"))
    yield h
    h.close()


def _needs_samples(request, input_id: str) -> None:
    if next(k for k in SEQ_INPUTS if k.id == input_id).sample:
        request.getfixturevalue("samples")


@pytest.mark.parametrize("input_id", [k.id for k in SEQ_INPUTS])
def test_intact_input_converts_exactly(request, seq_harness, input_id):
    """The intact input converts with exit 0, no damage, every entry's key and value exact."""
    _needs_samples(request, input_id)
    base = seq_harness.baseline(input_id)
    assert not base.failures, "\n".join(f"{a}: {m}" for a, m in base.failures)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_damaged_input(request, seq_harness, case):
    """No crash or hang (exit 0 or 3); every promised entry exact; damage reported with file
    and offset near it; read = written + dropped + quarantined; memory bounded."""
    _needs_samples(request, case.input)
    result = seq_harness.run_case(case)
    if result.failures:
        lines = [
            f"{case.id}: {result.damaged.description}",
            f"  crawlmill {result.argv} -> exit {result.rc}",
        ]
        lines += [f"  {a}: {m}" for a, m in result.failures]
        raise AssertionError("\n".join(lines))


def test_ci_rotation_covers_every_pattern_and_input():
    """Every pattern runs on at least two inputs and every synthetic input gets patterns."""
    if _SWEEP:
        pytest.skip("the sweep runs every pair")
    by_pattern = {p.name: {c.input for c in CASES if c.pattern == p.name} for p in SEQ_PATTERNS}
    assert all(len(v) >= 2 for v in by_pattern.values()), by_pattern
    assert {k.id for k in SEQ_INPUTS if not k.sample} <= {c.input for c in CASES}


# -- the harness itself ---------------------------------------------------------------------


def _synthetic_files(tmp_path):
    h = SeqHarness(tmp_path)
    return {k.id: h.intact(k.id)[0] for k in SEQ_INPUTS if not k.sample}


def test_promised_entries_are_still_in_the_damaged_bytes(tmp_path):
    """Deterministic per seed; what a pattern promises (entries before the damage, and from
    the first intact sync marker after it) is still in the damaged file byte for byte: a
    NONE/RECORD record's bytes, a BLOCK block's bytes with its sync marker; the report window
    lies in the file; a valid result promises every entry it holds."""
    for fid, f in _synthetic_files(tmp_path).items():
        for p in SEQ_PATTERNS:
            if f.compression not in p.compressions:
                continue
            for seed in range(3):
                a = p.apply(f, random.Random(f"{fid}/{p.name}/{seed}"))
                assert a == p.apply(f, random.Random(f"{fid}/{p.name}/{seed}"))
                assert a.data != f.data
                lo, hi = a.window
                assert 0 <= lo <= hi <= len(a.data)
                if a.clean:  # a valid file: what it holds is promised (a cut removes the rest)
                    assert not a.touched
                for e in f.entries:
                    if e.index in a.touched | a.removed:
                        continue
                    el = f.elements[e.element]
                    assert f.data[el.start : el.end] in a.data, f"{fid} {a.description}: #{e.index}"


def test_the_damage_rule_loses_only_what_lies_between_damage_and_sync(tmp_path):
    """A flipped bit in the lengths of one NONE record puts at risk exactly the records from
    it to the next sync marker; a BLOCK block's damage exactly that block's entries."""
    files = _synthetic_files(tmp_path)
    f = files["seq/none"]
    pattern = next(p for p in SEQ_PATTERNS if p.name == "bitflip-length")
    d = pattern.apply(f, random.Random(3))
    at_risk = sorted(d.touched)
    first = f.entries[at_risk[0]]
    syncs = [e.start for e in f.elements if e.kind == "sync"]
    nxt = min(s for s in syncs if s > f.elements[first.element].start)
    assert all(f.elements[f.entries[i].element].start < nxt for i in at_risk)
    assert at_risk == list(range(at_risk[0], at_risk[-1] + 1))
    after = [e for e in f.entries if f.elements[e.element].start > nxt]
    assert after and not {e.index for e in after} & d.touched
    b = files["seq/block-default"]
    d = pattern.apply(b, random.Random(3))
    blocks = {b.entries[i].element for i in d.touched}
    assert len(blocks) == 1
    assert d.touched == {e.index for e in b.entries if e.element in blocks}


def test_the_checks_fire(tmp_path):
    """A run whose output lacks a promised entry fails ``lost``; a valid file with a damage
    entry fails ``spurious``; a wrong count fails ``accounting``."""
    import json
    from dataclasses import replace

    h = SeqHarness(tmp_path, keep=True)
    try:
        case = SeqCase("seq/none", "truncate-boundary", 0)
        res = h.run_case(case)
        assert res.failures == []
        f, _ = h.intact(case.input)
        work = h.root / "cases" / case.id.replace("/", "_")
        path, out = work / "in" / "none.seq", work / "out"
        from .seq_cases import evaluate

        run = h.runner.run(["--version"], work, work / "logs2")
        run = replace(run, rc=0)
        base = h.baseline(case.input)
        tags = {
            a
            for a, _ in evaluate(f, base, replace(res.damaged, removed=frozenset()), path, run, out)
        }
        assert "lost" in tags
        report = out / ".crawlmill" / "report.json"
        data = json.loads(report.read_text())
        data["written"] += 1
        data["damages"] = [{"path": str(path), "offset": 3, "length": 1, "reason": "x"}]
        report.write_text(json.dumps(data))
        tags = {a for a, _ in evaluate(f, base, res.damaged, path, run, out)}
        assert {"accounting", "spurious"} <= tags
    finally:
        h.close()
