"""The progress line (issue 24): it names the pass it belongs to in a run of several, and
shows the time left from the bytes done of the bytes to read. The rendered text is a function
of the numbers (:func:`render_status`), tested here without a clock; a two-pass run through
the CLI shows one line per pass, each ending ``done in``."""

from __future__ import annotations

import re

from crawlmill.core.commands.cli import main
from crawlmill.core.run.progress import human_duration, render_status

from tests.helpers import warc_record


def test_the_line_names_the_pass_and_gives_the_eta_from_the_bytes():
    line = render_status("collect for url-dedup", 1, 4, 10_322, 50_000_000, 200_000_000, 20.0)
    assert line == (
        "crawlmill: collect for url-dedup: 1/4 inputs, 10,322 records, 50.0 MB of 200.0 MB "
        "(25%), 516 rec/s, 2.5 MB/s, ETA 1:00"
    )


def test_the_eta_counts_from_the_first_progress_not_the_workers_start_up():
    # 30 s since the start, of which 10 s passed before the workers sent anything: the
    # 50 MB were read in 20 s, so 150 MB more take 60 s (not 90 s)
    line = render_status("write (final pass)", 0, 4, 9, 50_000_000, 200_000_000, 30.0,
                         since_first=(20.0, 50_000_000))  # fmt: skip
    assert line.endswith(", ETA 1:00")


def test_without_sizes_the_eta_comes_from_the_inputs_done():
    line = render_status("shuffle write", 1, 4, 0, 0, 0, 10.0)
    assert line.startswith("crawlmill: shuffle write: 1/4 inputs, ") and line.endswith("ETA 0:30")


def test_before_anything_is_done_after_everything_and_at_the_end():
    assert render_status(None, 0, 2, 0, 0, 2000, 3.0).endswith("ETA --:--")
    assert render_status(None, 2, 2, 5, 2000, 2000, 3.0).endswith(", finishing")
    final = render_status("collect for url-dedup", 2, 2, 5, 2000, 2000, 83.0, final=True)
    assert final.endswith(", done in 1:23")
    # a run of one pass has no label: the line starts as it always did
    assert render_status(None, 1, 2, 10, 1500, 2000, 1.0).startswith(
        "crawlmill: 1/2 inputs, 10 records, 1.5 kB of 2.0 kB (75%), "
    )


def test_durations_read_as_a_clock():
    assert [human_duration(s) for s in (0, 7, 59.6, 750, 7500)] == [
        "0:00", "0:07", "1:00", "12:30", "2:05:00",
    ]  # fmt: skip


def test_a_two_pass_run_shows_a_line_per_pass_each_named(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.warc").write_bytes(warc_record(1) + warc_record(2))
    (src / "b.warc").write_bytes(warc_record(1))  # the same URL again: a duplicate
    args = ["convert", str(src), "--filter", "url-dedup", "-o", str(tmp_path / "out")]
    code = main([*args, "--workers", "1", "--progress", "always"])
    err = capsys.readouterr().err
    assert code == 0, err
    lines = [part.strip() for part in re.split(r"[\r\n]|\x1b\[K", err) if part.strip()]
    finals = [line for line in lines if "done in" in line]
    assert [line.split(":")[1].strip() for line in finals] == [
        "collect for url-dedup",
        "write (final pass)",
    ], err
    assert all(line.split(": ", 2)[2].startswith("2/2 inputs, 3 records") for line in finals[:1])
    assert finals[1].split(": ", 2)[2].startswith("2/2 inputs, 3 records")
    assert "url-dedup:duplicate 1" in err


def test_stopping_the_monitor_wakes_its_thread_and_keeps_every_event():
    """``stop`` wakes the thread waiting on an in-process queue (``Channel.wake``), not only at
    its poll's timeout; the wake-up is no event of the run, and a log line sent before is
    printed. A waiter far longer than any test (60 s) shows the wake-up came from ``wake``."""
    import io
    import queue
    import threading

    from crawlmill.core.run.channel import Channel
    from crawlmill.core.run.progress import ProgressMonitor

    channel = Channel(queue.Queue(), threading.Event())
    got: list[tuple | None] = []
    waiter = threading.Thread(target=lambda: got.append(channel.get(60)), daemon=True)
    waiter.start()
    channel.wake()
    waiter.join(30)
    assert got == [("wake",)]

    out = io.StringIO()
    with ProgressMonitor(channel, out, "never", 1, 0):
        channel.post(("log", "a line from the task"))
    assert out.getvalue() == "a line from the task\n"
    assert channel.get(0) is None  # the wake-up was read, not left for a later monitor
