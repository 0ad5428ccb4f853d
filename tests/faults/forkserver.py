"""A fork server for the ``crawlmill`` CLI: imports crawlmill once, then for every request
(one JSON line on stdin) forks a child that runs ``crawlmill.core.commands.cli.main(argv)`` exactly as
the console script does, with stdout/stderr redirected to files, and answers with the exit
code and the child's own peak RSS (``os.wait4``: that child and its reaped descendants).

The server also imports, once, the run machinery a conversion imports (found by one
throwaway conversion at start) and lists the entry points once. This keeps a harness case at
~0.1 s instead of ~0.7 s of interpreter start and imports, and
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
        "cpu": round(usage.ru_utime + usage.ru_stime, 3),
    }


_WARM_UP_BODY = b"warm-up\n"
_WARM_UP_WARC = (
    b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Target-URI: http://example.com/\r\n"
    b"WARC-Date: 2020-01-01T00:00:00Z\r\n"
    b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000001>\r\n"
    b"Content-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n"
    % (len(_WARM_UP_BODY), _WARM_UP_BODY)
)


def _modules_a_run_imports() -> list[str]:
    """The modules a ``convert`` imports beyond what is loaded here (the CLI imports its run
    machinery lazily): one throwaway conversion of a one-record WARC in a forked child, which
    writes their names back through a pipe."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="crawlmill-forkserver-") as tmp:
        src = os.path.join(tmp, "in.warc")
        with open(src, "wb") as fh:
            fh.write(_WARM_UP_WARC)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read_fd)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                before = set(sys.modules)
                from crawlmill.core.commands.cli import main

                main(["convert", src, "--to", "warc", "-o", os.path.join(tmp, "out")])
                os.write(write_fd, "\n".join(sorted(set(sys.modules) - before)).encode())
            finally:
                os._exit(0)
        os.close(write_fd)
        with os.fdopen(read_fd, "rb") as fh:
            names = fh.read().decode().split()
        os.waitpid(pid, 0)
    return [n for n in names if not n.startswith("__")]


def serve() -> None:
    """Answer requests until stdin closes."""
    import importlib

    import crawlmill.core.commands.cli  # noqa: F401 - preload: children start warm
    from crawlmill.core.registry import Registry

    Registry.load([])
    # the registry imports a plugin when a run first uses it (plugins/manifest.py): import every
    # one here, once, and read the installed distributions' metadata once (the fingerprint's
    # versions), so that a child does neither again
    import importlib.metadata as md

    for ep in md.entry_points(group="crawlmill"):
        ep.load()
    for dist in md.distributions():
        dist.metadata["Name"]
    # every run lists the entry points of every installed distribution again (two scans of
    # ~400 metadata folders, ~0.02 s of CPU); nothing is installed on this process's path
    # while it serves, so one listing, made here, answers every child
    listing = md.entry_points()
    md.entry_points = lambda **select: listing.select(**select) if select else listing
    # and the run machinery a conversion imports (~0.1-0.25 s of CPU a child otherwise)
    for name in _modules_a_run_imports():
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = _serve_one(json.loads(line))
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
