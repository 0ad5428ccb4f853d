"""Resume: completion markers, changed settings, stale temp files, half-committed tasks and a
run killed with SIGKILL part way (compared with an uninterrupted run)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from crawlmill.core.errors import ConfigError
from crawlmill.core.run import engine


def _tree(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file, bookkeeping (``.crawlmill``) left out except the
    quarantine, which is an output of the run too."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and (
            not rel.startswith(".crawlmill/") or rel.startswith(".crawlmill/quarantine/")
        ):
            out[rel] = p.read_bytes()
    return out


def _assert_same_tree(got: dict[str, bytes], want: dict[str, bytes]) -> None:
    """Equal trees, and on failure the paths that differ (not a dump of their bytes)."""
    assert sorted(got) == sorted(want)
    differ = [rel for rel in want if got[rel] != want[rel]]
    assert not differ, f"files differ: {differ}"


def _has_files(folder: Path) -> bool:
    """Whether ``folder`` holds a file now (it changes under our feet while a run goes on)."""
    try:
        return any(p.is_file() for p in folder.rglob("*"))
    except OSError:
        return False


def _inputs(base: Path, n: int, records: int = 5) -> Path:
    for j in range(n):
        lines = [f"R http://ex.com/{j}/{k} response payload{k}" for k in range(records)]
        if j % 7 == 3:
            lines.insert(2, f"D damaged-in-{j}")
        (base / "in").mkdir(parents=True, exist_ok=True)
        (base / "in" / f"{j:03d}.txt").write_text("".join(line + "\n" for line in lines))
    return base / "in"


def test_rerun_after_completion_skips_everything_and_changes_nothing(tmp_path, fake):
    src = _inputs(tmp_path, 6)
    out = tmp_path / "out"
    first = engine.run(fake([src], out, workers=2))
    assert first.inputs_skipped == 0 and first.inputs_done == 6
    before = _tree(out)
    mtimes = {p: p.stat().st_mtime_ns for p in out.glob("*.out")}
    again = engine.run(fake([src], out, workers=1))  # a different worker count still resumes
    assert again.inputs_skipped == 6 and again.inputs_done == 0
    assert again.accounting_line() == first.accounting_line()  # resumed inputs keep their counts
    assert _tree(out) == before
    assert {p: p.stat().st_mtime_ns for p in out.glob("*.out")} == mtimes  # not rewritten


def test_changed_fingerprint_redoes_the_work(tmp_path, fake):
    src = _inputs(tmp_path, 3)
    out = tmp_path / "out"
    engine.run(fake([src], out, filters=[("fake-threshold", {"threshold": 64})]))
    assert "PAYLOAD0" in (out / "000.txt.out").read_text()
    other = fake([src], out, filters=[("fake-threshold", {"threshold": 5})])
    with pytest.raises(ConfigError, match="another pipeline"):  # the root is the first one's
        engine.run(other)
    report = engine.run(
        fake([src], out, filters=[("fake-threshold", {"threshold": 5})], overwrite=True)
    )
    assert report.inputs_skipped == 0 and report.inputs_done == 3
    assert report.dropped == {"fake-threshold": {"too-long": 15}}
    # every record is dropped now, so the writer creates no file: the outputs of the old
    # settings are removed with their markers instead of staying mixed with the new ones
    assert list(out.glob("*.out")) == []
    assert len(list((out / ".crawlmill" / "done").glob("*.json"))) == 3
    report = engine.run(
        fake([src], out, filters=[("fake-threshold", {"threshold": 64})], overwrite=True)
    )
    assert report.inputs_done == 3 and "PAYLOAD0" in (out / "000.txt.out").read_text()


def test_changed_input_is_redone(tmp_path, fake):
    src = _inputs(tmp_path, 2)
    out = tmp_path / "out"
    engine.run(fake([src], out))
    with open(src / "001.txt", "a") as fh:
        fh.write("R http://ex.com/new response added\n")
    report = engine.run(fake([src], out))
    assert report.inputs_skipped == 1 and report.inputs_done == 1
    assert "http://ex.com/new" in (out / "001.txt.out").read_text()


def test_missing_output_or_marker_redoes_the_input_idempotently(tmp_path, fake):
    src = _inputs(tmp_path, 4)
    out = tmp_path / "out"
    engine.run(fake([src], out))
    reference = _tree(out)
    # a task killed after its renames but before its marker: final files, only the pending
    # marker written before the renames, and a stale temp folder
    markers = sorted((out / ".crawlmill" / "done").glob("*.json"))
    victim = next(m for m in markers if json.loads(m.read_text())["input"] == "003.txt")
    data = json.loads(victim.read_text())
    pending = out / ".crawlmill" / "pending" / victim.name
    pending.parent.mkdir(exist_ok=True)
    pending.write_text(
        json.dumps(
            {
                "key": data["key"],
                "state": "committing",
                "outputs": [{"path": o["path"]} for o in data["outputs"]],
                "quarantine": [{"path": o["path"]} for o in data["quarantine"]],
            }
        )
    )
    victim.unlink()
    (out / "003.txt.out").write_bytes(b"half written")
    stale = out / ".crawlmill" / "tmp" / "deadbeef" / "x.out"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"junk")
    (out / "001.txt.out").unlink()  # an output deleted by hand
    report = engine.run(fake([src], out))
    assert report.inputs_skipped == 2 and report.inputs_done == 2
    assert _tree(out) == reference
    assert not (out / ".crawlmill" / "tmp").exists()


def test_resume_off_redoes_everything(tmp_path, fake):
    src = _inputs(tmp_path, 2)
    out = tmp_path / "out"
    engine.run(fake([src], out))
    report = engine.run(fake([src], out, resume=False))
    assert report.inputs_skipped == 0 and report.inputs_done == 2


_RUNNER = """
import sys
sys.path.insert(0, {fake_dir!r})
from crawlmill.core.run import engine
from crawlmill.core.spec import PipelineSpec
spec = PipelineSpec.model_validate_json({spec!r})
report = engine.run(spec)
print(report.accounting_line())
sys.exit(0 if report.ok else 1)
"""


def _spawn_run(spec, fake_dir: str) -> subprocess.Popen:
    code = _RUNNER.format(fake_dir=fake_dir, spec=spec.model_dump_json())
    return subprocess.Popen(
        [sys.executable, "-c", code],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
def test_sigkill_part_way_then_rerun_equals_an_uninterrupted_run(tmp_path, fake):
    fake_dir = str(Path(__file__).resolve().parent / "fake_plugins")
    src = _inputs(tmp_path, 40, records=6)
    killed, clean = tmp_path / "killed", tmp_path / "clean"
    options = {"delay": 0.02}
    spec = fake([src], killed, reader_options=options, workers=2)

    proc = _spawn_run(spec, fake_dir)
    done_dir = killed / ".crawlmill" / "done"
    deadline = time.monotonic() + 120
    tmp_dir = killed / ".crawlmill" / "tmp"
    n_seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        # kill while a task is half way: some markers exist and a temp output is being written
        n_seen = len(list(done_dir.glob("*.json"))) if done_dir.exists() else 0
        if n_seen >= 3 and _has_files(tmp_dir):
            break
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    n_killed = len(list(done_dir.glob("*.json")))
    assert 3 <= n_killed < 40, n_killed
    in_flight = [p for p in tmp_dir.rglob("*") if p.is_file()]
    assert in_flight or n_killed > n_seen  # (a commit may just have raced the kill)
    print(f"killed after {n_killed} markers with {len(in_flight)} temp files in flight")

    rerun = _spawn_run(spec, fake_dir)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()

    # the uninterrupted run in this process, in-process (workers are not its point)
    reference = engine.run(fake([src], clean, reader_options=options, workers=1))
    assert reference.ok
    assert out.decode().strip() == reference.accounting_line()  # same accounting line

    _assert_same_tree(_tree(killed), _tree(clean))
    assert len(_tree(clean)) == 40 + 1 + 2 * 6  # outputs, manifest, quarantine of 6 damaged inputs
    assert not [p for p in killed.rglob("*") if ".tmp" in p.name]
    assert not (killed / ".crawlmill" / "tmp").exists()
    assert len(list(done_dir.glob("*.json"))) == 40
    report = json.loads((killed / ".crawlmill" / "report.json").read_text())
    assert (
        report["inputs_skipped"] >= n_killed
        and report["inputs_skipped"] + report["inputs_done"] == 40
    )


def _warc_inputs(base: Path, n: int, records: int) -> Path:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    folder = base / "warcs"
    folder.mkdir(parents=True)
    for j in range(n):
        with open(folder / f"{j:03d}.warc.gz", "wb") as fh:
            writer = WARCWriter(fh, gzip=True)
            for k in range(records):
                body = f"<html>page {j}/{k} {'x' * (k * 37 % 500)}</html>".encode()
                http = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1"
                )
                rec = writer.create_warc_record(
                    f"http://example.com/{j}/{k}",
                    "response",
                    payload=io.BytesIO(body),
                    http_headers=http,
                    warc_headers_dict={
                        "WARC-Date": "2020-01-02T03:04:05Z",
                        "WARC-Record-ID": f"<urn:uuid:00000000-0000-4000-8000-{j:06d}{k:06d}>",
                    },
                )
                writer.write_record(rec)
    return folder


@pytest.mark.slow
def test_sigkill_resume_with_the_warc_reader_and_writer(tmp_path, fake, need, monkeypatch):
    from crawlmill.core.registry import Registry

    need("warcio")
    registry = Registry.load(["cm_fake"])
    if "warc" not in registry.components["reader"] or "warc" not in registry.components["writer"]:
        pytest.skip("the warc reader/writer plugins are not registered")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1600000000")
    fake_dir = str(Path(__file__).resolve().parent / "fake_plugins")
    src = _warc_inputs(tmp_path, 24, 12)
    killed, clean = tmp_path / "killed", tmp_path / "clean"

    def warc_spec(out, workers=2):
        spec = fake(
            [src], out, reader="warc", filters=[("fake-sleep", {"delay": 0.01})], workers=workers
        )
        # records are compressed anew (not their input members copied), with zlib: ISA-L (the
        # default backend) does not promise the same compressed bytes twice, and this test
        # compares the files byte for byte
        options = {"gzip_backend": "zlib", "reuse_members": False}
        return spec.model_copy(
            update={"writer": spec.writer.model_copy(update={"name": "warc", "options": options})}
        )

    proc = _spawn_run(warc_spec(killed), fake_dir)
    done_dir, tmp_dir = killed / ".crawlmill" / "done", killed / ".crawlmill" / "tmp"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        n_seen = len(list(done_dir.glob("*.json"))) if done_dir.exists() else 0
        if n_seen >= 2 and _has_files(tmp_dir):
            break
        time.sleep(0.01)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 2 <= len(list(done_dir.glob("*.json"))) < 24

    rerun = _spawn_run(warc_spec(killed), fake_dir)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err.decode()
    # the uninterrupted run in this process, in-process (workers are not its point)
    assert engine.run(warc_spec(clean, workers=1)).ok

    got, want = _tree(killed), _tree(clean)
    _assert_same_tree(got, want)
    warcs = [rel for rel in want if rel.endswith(".warc.gz")]
    assert len(warcs) == 24
    assert not [p for p in killed.rglob("*") if ".tmp" in p.name]
    # the resumed output is readable by an independent reader, record for record
    from warcio.archiveiterator import ArchiveIterator

    for rel in warcs:
        with open(killed / rel, "rb") as fh:
            uris = [
                r.rec_headers.get_header("WARC-Target-URI")
                for r in ArchiveIterator(fh)
                if r.rec_type == "response"
            ]
        j = int(Path(rel).name[:3])
        assert uris == [f"http://example.com/{j}/{k}" for k in range(12)]


def test_changed_input_set_redoes_position_named_outputs(tmp_path, fake):
    src = _inputs(tmp_path, 4)
    (src / "000.txt").rename(tmp_path / "held-back.txt")
    out, clean = tmp_path / "out", tmp_path / "clean"
    positional = {"path": "part-{index}.out"}
    engine.run(fake([src], out, writer_options=positional))
    assert sorted(p.name for p in out.glob("*.out")) == ["part-0.out", "part-1.out", "part-2.out"]
    (tmp_path / "held-back.txt").rename(src / "000.txt")  # a new first input shifts the others
    report = engine.run(fake([src], out, writer_options=positional))
    assert report.ok and report.inputs_skipped == 0 and report.inputs_done == 4
    engine.run(fake([src], clean, writer_options=positional))
    assert _tree(out) == _tree(clean)
    assert len(list((out / ".crawlmill" / "done").glob("*.json"))) == 4
    # removing an input again: the remaining ones are renumbered and nothing stale is left
    (src / "002.txt").unlink()
    engine.run(fake([src], out, writer_options=positional))
    assert sorted(p.name for p in out.glob("*.out")) == ["part-0.out", "part-1.out", "part-2.out"]
    assert "http://ex.com/3/0" in (out / "part-2.out").read_text()
