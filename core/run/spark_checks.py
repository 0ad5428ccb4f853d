"""What the Spark executor checks and says without Spark's words: a ``spark://`` or ``k8s://``
master answering on its port (a bounded connect, before a JVM starts), and a failed Spark job's
reason in one line (the Python worker's own exception, pulled from the Java trace; a worker
whose Python cannot import crawlmill said so). Imports no pyspark."""

from __future__ import annotations

import os
import re
import socket
from urllib.parse import urlsplit

__all__ = [
    "MASTER_CONNECT_SECONDS",
    "master_addresses",
    "python_exception",
    "spark_failure",
    "unreachable_master",
]

#: how long the connect check waits for a master's port.
MASTER_CONNECT_SECONDS = 5.0

_DEFAULT_PORTS = {"spark": 7077, "k8s": 443}
#: the last line of a Python traceback: ``ModuleNotFoundError: No module named 'x'``.
_EXCEPTION_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))(:.*)?$")


def master_addresses(master: str | None) -> list[tuple[str, int]]:
    """The ``(host, port)`` pairs a master URL names (``spark://h1:7077,h2:7077`` for a
    standby master; ``k8s://https://host:443``); none for ``local``, ``yarn`` and the rest
    (their own client finds them)."""
    if not master:
        return []
    scheme, _, rest = master.partition("://")
    if scheme == "k8s":
        url = urlsplit(rest if "://" in rest else f"https://{rest}")
        return [(url.hostname, url.port or 443)] if url.hostname else []
    if scheme != "spark":
        return []
    found = []
    for part in rest.split("/")[0].split(","):
        host, _, port = part.rpartition(":") if ":" in part else (part, "", "")
        if host:
            found.append(
                (host.strip("[]"), int(port) if port.isdigit() else _DEFAULT_PORTS["spark"])
            )
    return found


def unreachable_master(master: str | None, seconds: float = MASTER_CONNECT_SECONDS) -> str | None:
    """Why ``master`` cannot be used (no address of it accepts a TCP connection within
    ``seconds``), in one line naming it; ``None`` when one answers or it is not checked."""
    addresses = master_addresses(master)
    why = []
    for host, port in addresses:
        try:
            with socket.create_connection((host, port), timeout=seconds):
                return None
        except OSError as exc:
            why.append(f"{host}:{port}: {exc.strerror or exc}")
    if not addresses:
        return None
    return (
        f"cannot reach the Spark master {master} ({'; '.join(why)}; waited at most "
        f"{seconds:g} s): is it running, and is that its address?"
    )


def python_exception(text: str) -> str | None:
    """The Python exception line (``ModuleNotFoundError: No module named 'crawlmill'``) of the
    last Python traceback in ``text`` (a Spark job's error, Java frames and all); ``None``
    when it has none."""
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return None
    found = None
    for line in text[start:].splitlines()[1:]:
        if line.startswith(("\tat ", "\t... ", "Caused by:")):  # the Java trace again
            break
        match = _EXCEPTION_LINE.match(line.rstrip())
        if match:
            found = line.strip()
    return found


def spark_failure(exc: BaseException) -> str:
    """A failed Spark job's reason in one line: the Python worker's exception when the task
    failed in Python (a worker that cannot import crawlmill said so, with the fix), else the
    first line of Spark's own exception."""
    text = str(exc).strip()
    python = python_exception(text)
    if python is not None:
        if re.match(r"(ModuleNotFoundError|ImportError)\b.*'crawlmill[.']", python):
            exe = os.environ.get("PYSPARK_PYTHON") or "python3"
            return (
                f"the Spark worker's Python ({exe}, PYSPARK_PYTHON) cannot import crawlmill: "
                f"{python}; install crawlmill (the driver's version) in that Python on every "
                "worker, or set PYSPARK_PYTHON to a Python that has it"
            )
        return f"the Spark task failed in its Python worker: {python}"
    for line in text.splitlines():
        line = line.strip()
        if "Exception:" in line or "Error:" in line:
            return f"the Spark task failed: {line}"
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"the Spark task failed: {first}"
