"""Planning at the scale of a real crawl (issue 22 item 3) in bounded driver memory, measured
without timing anything: what the driver holds per planned input (its objects and the
memory Python allocates for them, traced by ``tracemalloc``) is bounded by a constant
(``test_scale_planning.py``: a run holds no completion marker per input)."""

from __future__ import annotations

import gc
import importlib.util
import tracemalloc
from pathlib import Path

import pytest
from crawlmill.core.inputs import PlannedInput
from crawlmill.core.registry import Registry
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec

#: the benchmark's builder of many tiny inputs (benchmarks/synthetic.py: no package)
_spec = importlib.util.spec_from_file_location(
    "crawlmill_bench_synthetic_mem", Path(__file__).parents[2] / "benchmarks" / "synthetic.py"
)
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)

#: bytes Python may allocate per planned input at planning's peak (its path, relpath and stem,
#: its two objects, the writer's planned output, the ownership check's passing maps), from
#: 300 to 600 inputs. It was 1,341 before the planned inputs were made once each, shared
#: their empty maps and ownership held no copy of the planned outputs; 633 after.
PEAK_PER_INPUT = 1_000


def _plan_peak(src: Path, out: Path, registry: Registry) -> tuple[int, list[PlannedInput]]:
    """Bytes traced at the peak of planning ``src`` (what ``convert --dry-run`` and a run do
    before writing anything), above what was allocated before; the planned inputs."""
    spec = PipelineSpec.model_validate(
        {"inputs": {"paths": [str(src)]}, "output": str(out), "writer": {"name": "warc"}}
    )
    gc.collect()
    tracemalloc.start(1)
    try:
        base = tracemalloc.get_traced_memory()[0]
        planned, _ = engine.plan_outputs(spec, registry)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return peak, planned


def test_planning_memory_per_input_is_bounded(tmp_path):
    registry = Registry.load()
    sizes = (20, 300, 600)
    peaks = {}
    for n in sizes:  # the first, small, warms the imports planning does on first use
        src = tmp_path / f"in{n}"
        synthetic.make_tiny_inputs(src, n, per_folder=500)
        peaks[n], planned = _plan_peak(src, tmp_path / f"out{n}", registry)
        assert len(planned) == n
    per_input = (peaks[600] - peaks[300]) / 300
    assert 0 < per_input < PEAK_PER_INPUT, peaks
    # a plain file's input holds no dict of its own: one shared, read-only empty meta/parts
    metas = {id(p.input.meta) for p in planned} | {id(p.input.parts) for p in planned}
    assert len(metas) == 1
    with pytest.raises(TypeError):
        planned[0].input.meta["x"] = 1  # would change every input's
    assert not hasattr(planned[0], "__dict__")  # PlannedInput has slots


def test_an_output_two_inputs_list_still_fails_the_run():
    """The report's check that no two inputs claim one output file, now made on the sorted
    outputs (no map of every output to its input): each later claimant is named."""
    import io

    from crawlmill.core.input_file import InputFile
    from crawlmill.core.messages import Marker, OutputFile
    from crawlmill.core.run.spill import MarkerStore
    from crawlmill.core.stats import RunReport

    outs = [("a", "shared"), ("b", "own-b"), ("c", "shared")]
    planned = [
        PlannedInput(InputFile(f"/in/{n}", n, i), "warc", 1) for i, (n, _) in enumerate(outs)
    ]
    completed = MarkerStore(
        (i, Marker(key=f"k{i}", fingerprint="f", input=n, input_path=f"/in/{n}", index=i,
                   input_count=3, outputs=(OutputFile(o, 1, "x"),)))
        for i, (n, o) in enumerate(outs)
    )  # fmt: skip
    report, stream = RunReport(inputs=3), io.StringIO()
    engine._summarise(report, planned, completed, [], stream)
    errors = [f["error"] for f in report.failures]
    assert errors == ["output shared of /in/c was also written for /in/a"]
    assert report.outputs == ["own-b", "shared", "shared"]
    assert "also written for /in/a" in stream.getvalue()
