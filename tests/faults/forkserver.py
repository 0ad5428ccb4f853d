"""A fork server for the ``crawlmill`` CLI: imports crawlmill once, then for every request
(one JSON line on stdin) forks a child that runs ``crawlmill.core.commands.cli.main(argv)`` exactly as
the console script does, with stdout/stderr redirected to files, and answers with the exit
code and the child's own peak RSS (``os.wait4``: that child and its reaped descendants).

This keeps a harness case at ~0.1 s instead of ~0.7 s of interpreter start and imports, and
the RSS baseline (the server's, shared with each child at fork) stable. With ``"exec"`` in a
request the child execs the console script instead. Either way the child starts from this
small process: Linux keeps a process's peak RSS across fork and exec, so a child forked from
the (large) test process would report the test process's size. Run as a script:
``python forkserver.py``; the harness starts and stops it (:mod:`.runner`)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time


def _child(req: dict) -> None:
    os.setpgid(0, 0)
    fd_in = os.open(os.devnull, os.O_RDONLY)
    fd_out = os.open(req["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    fd_err = os.open(req["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd_in, 0)
    os.dup2(fd_out, 1)
    os.dup2(fd_err, 2)
    os.chdir(req["cwd"])
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if req.get("exec"):  # the installed console script in a fresh interpreter
        try:
            os.execv(req["exec"], [req["exec"], *req["argv"]])
        finally:
            os._exit(127)
    rc = 1
    try:
        from crawlmill.core.commands.cli import main

        sys.argv = ["crawlmill", *req["argv"]]
        rc = main(req["argv"])
    except SystemExit as exc:
        code = exc.code
        rc = code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:  # noqa: BLE001 - an unhandled exception, printed like Python does
        import traceback

        traceback.print_exc()
        rc = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(rc if isinstance(rc, int) else 1)


def _serve_one(req: dict) -> dict:
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(req)
    deadline = started + float(req.get("timeout", 120))
    timed_out = False
    while True:
        wpid, status, usage = os.wait4(pid, os.WNOHANG)
        if wpid == pid:
            break
        if time.monotonic() > deadline and not timed_out:
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        time.sleep(0.005)
    return {
        "rc": os.waitstatus_to_exitcode(status),
        "maxrss_kb": usage.ru_maxrss,
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - started, 3),
    }


def serve() -> None:
    """Answer requests until stdin closes."""
    import crawlmill.core.commands.cli  # noqa: F401 - preload: children start warm
    from crawlmill.core.registry import Registry

    Registry.load([])
    # the registry imports a plugin when a run first uses it (plugins/manifest.py): import every
    # one here, once, and read the installed distributions' metadata once (the fingerprint's
    # versions), so that a child does neither again
    from importlib.metadata import distributions, entry_points

    for ep in entry_points(group="crawlmill"):
        ep.load()
    for dist in distributions():
        dist.metadata["Name"]
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = _serve_one(json.loads(line))
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
