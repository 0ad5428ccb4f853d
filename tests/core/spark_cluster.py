"""A Spark standalone cluster on 127.0.0.1 for the tests: a master and workers started from the
pyspark package (``spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``
with pyspark's ``SPARK_HOME``), each worker with its own working folder (``SPARK_WORKER_DIR``,
``--work-dir``) and temporary folder (``SPARK_LOCAL_DIRS``, ``java.io.tmpdir``), daemons of
small memory (``SPARK_DAEMON_MEMORY``). Each daemon runs in its own process group, so
:meth:`StandaloneCluster.stop` ends it with the executors and Python workers it started, and a
test can kill one worker JVM (:meth:`StandaloneCluster.kill_worker`) as a lost machine."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path

from tests.core.conftest import JVM_OPTIONS

__all__ = ["StandaloneCluster", "can_hide", "hiding", "spark_home"]

#: how long a daemon may take to come up on a loaded machine.
START_SECONDS = 180


def spark_home() -> str:
    """pyspark's ``SPARK_HOME`` (the package folder: jars/, bin/spark-class)."""
    from pyspark.find_spark_home import _find_spark_home

    return _find_spark_home()


def hiding(folders: tuple[Path, ...]) -> list[str]:
    """The command prefix that runs a command in a mount namespace of its own where each of
    ``folders`` is an empty tmpfs (``unshare -m``: the command is exec'd, its pid is the
    command's)."""
    mounts = " && ".join(
        f'mount -t tmpfs -o size=1m none "${{{i + 1}}}"' for i in range(len(folders))
    )
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            f'{mounts} && shift {len(folders)} && exec "$@"', "hide",
            *map(str, folders)]  # fmt: skip


def can_hide(folder: Path) -> bool:
    """Whether this machine lets :func:`hiding` hide ``folder`` (root, or the capability to
    make mount namespaces)."""
    import shutil

    if shutil.which("unshare") is None:
        return False
    probe = [*hiding((folder,)), "sh", "-c", f'test ! -e "{folder}/.probe"']
    (folder / ".probe").write_text("")
    try:
        return subprocess.run(probe, capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        (folder / ".probe").unlink()


class StandaloneCluster:
    """A master and ``workers`` workers of ``cores`` cores each, under ``root``."""

    def __init__(
        self,
        root: Path,
        workers: int = 2,
        cores: int = 1,
        memory: str = "640m",
        hide: tuple[Path, ...] = (),
    ) -> None:
        self.root = root
        #: folders the workers must not see: each worker daemon runs in a mount namespace of
        #: its own with an empty tmpfs mounted on each (when :func:`can_hide`).
        self.hide = hide
        self.workers = workers
        self.cores = cores
        self.memory = memory
        self.master_url = ""
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, Path] = {}

    def _env(self, name: str) -> dict[str, str]:
        home = spark_home()
        conf = self.root / "conf"  # empty: none of a user's spark-defaults or log4j settings
        conf.mkdir(parents=True, exist_ok=True)
        tmp = self.root / name / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
        env.update(
            SPARK_HOME=home,
            SPARK_CONF_DIR=str(conf),
            SPARK_LOCAL_IP="127.0.0.1",
            SPARK_LOCAL_DIRS=str(tmp),
            SPARK_DAEMON_MEMORY="160m",
            SPARK_DAEMON_JAVA_OPTS=f"-Djava.io.tmpdir={tmp} {JVM_OPTIONS}",
            SPARK_LOG_DIR=str(self.root / name),
            SPARK_PID_DIR=str(self.root / name),
        )
        return env

    def _spawn(self, name: str, args: list[str], env: dict[str, str], hide: bool = False) -> None:
        log = self.root / f"{name}.log"
        self.logs[name] = log
        command = [os.path.join(spark_home(), "bin", "spark-class"), *args]
        if hide and self.hide:
            command = [*hiding(self.hide), *command]
        with open(log, "wb") as fh:
            self.procs[name] = subprocess.Popen(
                command,
                stdout=fh, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )  # fmt: skip

    def _wait_for(self, name: str, pattern: str) -> re.Match:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            text = self.logs[name].read_text(errors="replace")
            found = re.search(pattern, text)
            if found:
                return found
            if self.procs[name].poll() is not None:
                raise RuntimeError(f"spark {name} exited: {text[-2000:]}")
            time.sleep(0.2)
        raise RuntimeError(f"spark {name} did not start in {START_SECONDS} s")

    def start(self) -> StandaloneCluster:
        """Start the master, then the workers; return once every worker registered."""
        master = "org.apache.spark.deploy.master.Master"
        self._spawn(
            "master",
            [master, "--host", "127.0.0.1", "--port", "0", "--webui-port", "0"],
            self._env("master"),
        )
        self.master_url = self._wait_for("master", r"Starting Spark master at (spark://\S+)")[1]
        for n in range(1, self.workers + 1):
            name = f"worker{n}"
            work = self.root / name / "work"
            work.mkdir(parents=True, exist_ok=True)
            env = self._env(name)
            env["SPARK_WORKER_DIR"] = str(work)
            self._spawn(
                name,
                ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--cores", str(self.cores), "--memory", self.memory, "--webui-port", "0",
                 "--work-dir", str(work), self.master_url],
                env, hide=True,
            )  # fmt: skip
        for n in range(1, self.workers + 1):
            self._wait_for(f"worker{n}", r"Successfully registered with master")
        return self

    def worker_pid(self, n: int) -> int:
        """The JVM of worker ``n`` (spark-class execs java)."""
        return self.procs[f"worker{n}"].pid

    def kill_worker(self, n: int) -> None:
        """``kill -9`` worker ``n``'s JVM (its executors notice and exit, as on a lost machine)."""
        os.kill(self.worker_pid(n), signal.SIGKILL)

    def stop(self) -> None:
        """End every daemon and what it started (its process group)."""
        for proc in self.procs.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        for proc in self.procs.values():
            proc.wait(timeout=30)
