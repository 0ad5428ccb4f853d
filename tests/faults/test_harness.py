"""Checks of the harness itself: the oracle agrees with the generator, damage is
deterministic, and what a pattern calls untouched is really still in the damaged file."""

from __future__ import annotations

import random
import zlib

import pytest

from .containers import split_units
from .damage import PATTERNS, patterns_for
from .oracle import load_intact
from .readers import all_inputs
from .runner import Runner

SYNTHETIC = [k for k in all_inputs() if not k.sample]


@pytest.fixture(scope="module")
def intacts(tmp_path_factory, need):
    need("warcio")
    need("zstandard")
    root = tmp_path_factory.mktemp("intact")
    return {k.id: k.build(root / k.id.replace("/", "_")) for k in SYNTHETIC}


@pytest.mark.parametrize("kind", [k for k in SYNTHETIC if k.fmt != "clueweb09"], ids=lambda k: k.id)
def test_warcio_spans_match_the_generator(tmp_path, need, kind):
    """warcio's record offsets equal the generator's record boundaries (both oracles agree)."""
    need("warcio")
    path, _ = kind.make(tmp_path)
    data = path.read_bytes()
    units, dec = split_units(
        data,
        "plain"
        if kind.layout == "plain"
        else ("gzip" if kind.layout.startswith("gzip") else kind.layout),
    )
    from . import synth

    recs = synth.warc_records(1) if kind.fmt == "warc" else synth.arc_records(2, name=path.name)
    assert dec == b"".join(recs)
    starts, pos = [], 0
    for r in recs:
        starts.append(pos)
        pos += len(r)
    listed = load_intact(path, kind.fmt)
    assert [r.dstart for r in listed.records] == starts
    assert [r.dend for r in listed.records] == starts[1:] + [len(dec)]


def _lenient_inflate(data: bytes, container: str) -> bytes:
    """Everything a decoder can get out of possibly damaged bytes, member after member."""
    if container == "plain":
        return data
    out, pos = [], 0
    while pos < len(data):
        magic = {"gzip": b"\x1f\x8b", "bzip2": b"BZh"}.get(container, b"\x28\xb5\x2f\xfd")
        i = data.find(magic, pos)
        if i < 0:
            break
        if container == "gzip":
            d = zlib.decompressobj(31)
        elif container == "bzip2":
            import bz2

            d = bz2.BZ2Decompressor()
        else:
            import zstandard

            d = zstandard.ZstdDecompressor().decompressobj()
        got, end = b"", i + 1
        for k in range(i, len(data), 4096):
            chunk = data[k : k + 4096]
            saved = d.copy() if container == "gzip" else None
            try:
                got += d.decompress(chunk)
            except Exception:  # replay the chunk byte by byte: keep what came before the error
                if saved is not None:
                    try:
                        for j in range(len(chunk)):
                            got += saved.decompress(chunk[j : j + 1])
                    except Exception:
                        pass
                break
            if d.eof:
                end = k + len(chunk) - len(d.unused_data)
                break
        out.append(got)
        pos = end
    return b"\0".join(out)


CASES = [
    (k, p)
    for k in SYNTHETIC
    for p in patterns_for(k.layout, False)
    if not p.name.startswith("bomb")
]


@pytest.mark.parametrize(("kind", "pattern"), CASES, ids=[f"{k.id}/{p.name}" for k, p in CASES])
def test_untouched_records_survive_the_damage(intacts, kind, pattern):
    """Deterministic per seed; every record the damage did not touch or remove is still in
    the damaged file byte for byte; touched/removed records exist; the window is in the file."""
    intact = intacts[kind.id]
    for seed in range(3):
        a = pattern.apply(intact, random.Random(f"{kind.id}/{pattern.name}/{seed}"))
        b = pattern.apply(intact, random.Random(f"{kind.id}/{pattern.name}/{seed}"))
        assert a == b
        assert a.data != intact.data
        n = len(intact.records)
        assert a.touched <= set(range(n)) and a.removed <= set(range(n))
        assert not a.touched & a.removed
        lo, hi = a.window
        assert 0 <= lo <= hi <= len(a.data)
        inflated = _lenient_inflate(a.data, intact.container)
        for r in intact.records:
            if r.index not in a.touched | a.removed:
                assert intact.dec[r.dstart : r.dend] in inflated, (
                    f"{a.description}: record {r.index} gone"
                )


def test_a_flipped_length_digit_that_still_holds_needs_no_report(tmp_path, samples, need):
    """The soak's clueweb09/sample-plain/bitflip-header/s8006: record 39's Content-Length
    16552 (counting ClueWeb09's "\\n\\n" separator) flipped to 16550 ends the block right
    before the separator, a length the rule accepts as it stands (the length patterns'
    _declared_still_holds): no report can be required. A flip the bytes disprove still needs one."""
    need("warcio")
    kind = next(k for k in all_inputs() if k.id == "clueweb09/sample-plain")
    intact = kind.build(tmp_path / "intact")
    pattern = next(p for p in PATTERNS if p.name == "bitflip-header")
    held = pattern.apply(intact, random.Random("clueweb09/sample-plain/bitflip-header/s8006"))
    (pos,) = [i for i in range(len(held.data)) if held.data[i] != intact.data[i]]
    assert (intact.data[pos - 4 : pos + 1], held.data[pos - 4 : pos + 1]) == (b"16552", b"16550")
    assert not held.expect_report
    required = [
        pattern.apply(intact, random.Random(f"clueweb09/sample-plain/bitflip-header/s{s}"))
        for s in range(8000, 8006)
    ]
    assert all(d.expect_report for d in required)


@pytest.mark.slow
def test_bomb_patterns_inflate_past_the_bounds(intacts):
    """A bomb unit is small and inflates to BOMB_BYTES, far above the bounds of bomb runs;
    the header bomb is far above max_header_bytes (1 MiB)."""
    from .check import BOUNDS
    from .damage import BOMB_BYTES, HEADER_BOMB_BYTES, _bomb

    for variant in ("zeros", "record"):
        unit = _bomb("gzip", variant, "warc")
        assert len(unit) < BOMB_BYTES // 200
        d, total = zlib.decompressobj(31), 0
        for k in range(0, len(unit), 1 << 16):
            total += len(d.decompress(unit[k : k + (1 << 16)], 1 << 24))
            while d.unconsumed_tail:
                total += len(d.decompress(d.unconsumed_tail, 1 << 24))
        assert d.eof and total == BOMB_BYTES
    assert 2 * BOUNDS["max_decompressed_bytes"] <= BOMB_BYTES
    assert HEADER_BOMB_BYTES >= 64 * (1 << 20)
    pattern = next(p for p in PATTERNS if p.name == "bomb-member")
    dmg = pattern.apply(intacts["warc/gzip"], random.Random(1))
    assert not dmg.touched and not dmg.removed and dmg.bounded


@pytest.mark.parametrize("mode", ["fork", "exec"])
def test_runner_reports_exit_code_and_memory(tmp_path, mode):
    """Both runner modes run the real CLI and measure the child's peak RSS."""
    runner = Runner(mode)
    try:
        ok = runner.run(["--version"], tmp_path, tmp_path / "a")
        bad = runner.run(
            ["convert", str(tmp_path / "missing.warc"), "--to", "warc", "-o", str(tmp_path / "o")],
            tmp_path,
            tmp_path / "b",
        )
    finally:
        runner.close()
    assert ok.rc == 0 and "crawlmill" in ok.stdout
    assert bad.rc == 2 and "missing.warc" in bad.stderr
    assert 10_000 < ok.maxrss_kb < 500_000
