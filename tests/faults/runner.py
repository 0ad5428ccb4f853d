"""Run the ``crawlmill`` CLI on a case and measure the run's peak memory.

Two modes with one interface (:meth:`Runner.run`):

* ``fork`` (default): a fork server (:mod:`.forkserver`) imports crawlmill once and forks one
  child per run, which calls ``crawlmill.core.commands.cli.main(argv)`` like the console script;
* ``exec``: the installed ``crawlmill`` console script, exec'd by a child of that server.

Either way the run is its own process, started from the small server (Linux keeps the peak
RSS across fork and exec, so children of the test process would inherit its size), and
``ru_maxrss`` comes from ``os.wait4`` on it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunResult", "Runner"]

_SERVER = Path(__file__).with_name("forkserver.py")


@dataclass
class RunResult:
    """What one CLI run did."""

    argv: list[str]
    rc: int
    maxrss_kb: int
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str


def _crawlmill_script() -> str:
    here = Path(sys.executable).with_name("crawlmill")
    return str(here) if here.exists() else (shutil.which("crawlmill") or "crawlmill")


class Runner:
    """Runs ``crawlmill ARGV`` in a child process (``mode``: ``fork`` or ``exec``)."""

    def __init__(self, mode: str = "fork", timeout: float = 120.0) -> None:
        if mode not in ("fork", "exec"):
            raise ValueError(f"unknown runner mode {mode!r}")
        self.mode = mode
        self.timeout = timeout
        self._server: subprocess.Popen[str] | None = None

    def _ensure_server(self) -> subprocess.Popen[str]:
        if self._server is None or self._server.poll() is not None:
            self._server = subprocess.Popen(
                [sys.executable, str(_SERVER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        return self._server

    def run(self, argv: list[str], cwd: Path, logs: Path) -> RunResult:
        """Run ``crawlmill *argv`` in ``cwd``; stdout/stderr are kept in ``logs``."""
        logs.mkdir(parents=True, exist_ok=True)
        out, err = logs / "stdout.txt", logs / "stderr.txt"
        server = self._ensure_server()
        assert server.stdin is not None and server.stdout is not None
        req = {
            "argv": argv,
            "cwd": str(cwd),
            "stdout": str(out),
            "stderr": str(err),
            "timeout": self.timeout,
            "exec": _crawlmill_script() if self.mode == "exec" else None,
        }
        server.stdin.write(json.dumps(req) + "\n")
        server.stdin.flush()
        line = server.stdout.readline()
        if not line:
            raise RuntimeError("the crawlmill fork server died")
        reply = json.loads(line)
        return RunResult(
            argv,
            reply["rc"],
            reply["maxrss_kb"],
            reply["timed_out"],
            reply["seconds"],
            out.read_text(errors="replace"),
            err.read_text(errors="replace"),
        )

    def close(self) -> None:
        """Stop the fork server (if one was started)."""
        if self._server is not None:
            if self._server.stdin is not None:
                self._server.stdin.close()
            try:
                self._server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._server.kill()
                self._server.wait()
            self._server = None
