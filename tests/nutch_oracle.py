"""Nutch's own Writable classes as an oracle: the verbatim sources of
``tests/oracles/nutch/release-*/`` (see its README) compiled with ``javac`` against the Hadoop
jars of the pyspark wheel, with the few stubs of ``tests/oracles/nutch/stubs/release-*/`` (only
what javac needs for the outer classes' jobs; no serialization passes through a stub) and
crawlmill's harness ``CrawlmillOracle``, and run with ``java``.

:class:`NutchJava` compiles each release once per session (lazily), into a folder all
pytest-xdist workers share (tests/shared_build.py); the ``nutch_java`` fixture makes one.
Missing ``javac``, ``java`` or pyspark skips the test (fails under
``CRAWLMILL_REQUIRE_ORACLES=1``), as :func:`tests.conftest.need` says.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import need, need_command
from tests.shared_build import built

ORACLES = Path(__file__).resolve().parent / "oracles" / "nutch"
#: the releases whose LinkDB classes are kept, oldest first; the last is the newest release.
RELEASES = ("1.20", "1.22")
#: the release of the classes Nutch removed since (Loops, its own MapWritable): 1.10.
OLD_RELEASE = "1.10"
#: short-lived JVMs: the client compiler only and the serial collector (no C2 or G1 threads:
#: about a third less CPU for a JVM that runs seconds), no bytecode verification of the jars'
#: classes (a fifth less again to start)
JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:+UnlockDiagnosticVMOptions",
               "-XX:-BytecodeVerificationRemote")  # fmt: skip


class NutchJava:
    """Runs Nutch's classes of a release (compiled into ``root/shared-nutch-<release>`` on
    first use; ``root``: :func:`tests.shared_build.shared_root`)."""

    def __init__(self, root: Path) -> None:
        pyspark = need("pyspark")
        self.javac = need_command("javac")
        self.java = need_command("java")
        jars = Path(pyspark.__file__).parent / "jars"
        # Hadoop's client jars and what they log with: the whole folder starts slower
        wanted = ("hadoop-client-api-", "hadoop-client-runtime-", "slf4j-api-", "commons-logging-",
                  "commons-cli-", "commons-lang3-")  # fmt: skip
        found = sorted(str(j) for j in jars.glob("*.jar") if j.name.startswith(wanted))
        self.jars = os.pathsep.join(found) if len(found) >= 2 else str(jars / "*")
        self.root = root
        self._built: dict[str, Path] = {}

    def classes(self, release: str) -> Path:
        """The folder of the compiled classes of ``release`` (compiled once per session, by the
        first xdist worker that needs it: tests/shared_build.py)."""
        if release not in self._built:
            self._built[release] = built(self.root, f"nutch-{release}",
                                         lambda out: self._compile(release, out))  # fmt: skip
        return self._built[release]

    def _compile(self, release: str, out: Path) -> None:
        sources = sorted(str(p) for p in (ORACLES / f"release-{release}").rglob("*.java"))
        sources += sorted(
            str(p) for p in (ORACLES / "stubs" / f"release-{release}").rglob("*.java")
        )
        sources.append(str(ORACLES / "harness" / "CrawlmillOracle.java"))
        subprocess.run([self.javac, *(f"-J{o}" for o in JVM_OPTIONS), "-nowarn", "-encoding", "UTF-8", "-cp", self.jars,
                        "-d", str(out), *sources], check=True, capture_output=True)  # fmt: skip

    def _run(self, release: str, *args: str) -> list[dict]:
        cp = os.pathsep.join([str(self.classes(release)), self.jars])
        done = subprocess.run([self.java, *JVM_OPTIONS, "-cp", cp, "CrawlmillOracle", *args],
                              capture_output=True, timeout=300)  # fmt: skip
        if done.returncode != 0:
            raise AssertionError(f"java {args}: {done.stderr.decode('utf-8', 'replace')[-3000:]}")
        return [json.loads(line) for line in done.stdout.decode("utf-8").splitlines() if line]

    def read_seq(self, release: str, path: Path) -> list[dict]:
        """Every entry of the SequenceFile ``path`` as Hadoop's reader and Nutch's value
        class of ``release`` read it: ``{"key", "hex", "str"}`` or ``{"error"}``."""
        return self.read_seqs(release, [path])[str(path)]

    def read_seqs(self, release: str, paths: list[Path]) -> dict[str, list[dict]]:
        """:meth:`read_seq` of each of ``paths`` in one JVM: ``{path: entries}``."""
        found: dict[str, list[dict]] = {}
        entries: list[dict] = []
        for line in self._run(release, "seq", *map(str, paths)):
            if set(line) == {"file"}:
                entries = found.setdefault(line["file"], [])
            else:
                entries.append(line)
        return found

    def read_meta(self, release: str, path: Path) -> list[dict]:
        """The header metadata of the SequenceFile ``path`` as Hadoop's reader reads it:
        ``{"key", "value"}`` per pair (``Text.toString``)."""
        return self._run(release, "meta", str(path))

    def read_values(self, release: str, java_class: str, values: list[bytes],
                    tmp: Path) -> list[dict]:  # fmt: skip
        """Each serialized value read by ``java_class`` of ``release`` (which must consume it
        exactly): ``{"hex", "str", "fields"}`` (``hex``: Java's own bytes of it; ``fields``: every
        field Java holds, see ``CrawlmillOracle.fields``) or ``{"error"}``."""
        tmp.mkdir(parents=True, exist_ok=True)
        listing = tmp / f"values-{release}-{java_class.rsplit('.', 1)[-1]}.hex"
        listing.write_text("".join(v.hex() + "\n" for v in values))
        return self._run(release, "value", java_class, str(listing))

    def read_many(self, release: str, values: list[tuple[str, bytes]], tmp: Path) -> list[dict]:
        """As :meth:`read_values`, one JVM for values of several classes: ``(class, bytes)``."""
        tmp.mkdir(parents=True, exist_ok=True)
        listing = tmp / f"values-{release}.txt"
        listing.write_text("".join(f"{cls} {data.hex()}\n" for cls, data in values))
        return self._run(release, "values", str(listing))

    def blank(self, release: str, java_classes: list[str]) -> list[dict]:
        """Each of ``java_classes`` of ``release`` made by its no-argument constructor and never
        read: ``{"hex", "str", "fields"}`` (what Java writes of it) or ``{"error"}``."""
        return self._run(release, "blank", *java_classes)


def assert_round_trip_and_nutch_reads(
    java: NutchJava, name: str, values: list, tmp_path: Path, java_says: str, *, equal: bool = True
) -> None:
    """Each of ``values`` of the Writable ``name`` encodes, decodes and encodes again to the
    same bytes (through plain data and the registered Writable too; ``equal``: decodes to an
    equal value), and Nutch's class of release-1.22 consumes the bytes exactly, writes them
    back unchanged, and its ``toString`` of the first holds ``java_says``."""
    from crawlmill.formats.hadoop.nutch import decode_nutch, encode_nutch, from_plain, to_plain
    from crawlmill.plugins.writables.lookup import find_writable

    encoded = [encode_nutch(name, v) for v in values]
    for value, data in zip(values, encoded, strict=True):
        back = decode_nutch(name, data)
        assert encode_nutch(name, back) == data
        assert encode_nutch(name, from_plain(to_plain(back))) == data
        writable = find_writable(name)()
        assert writable.write(writable.read(data)) == data
        if equal:
            assert back == value
    got = java.read_values("1.22", name, encoded, tmp_path)
    assert [g.get("error") for g in got] == [None] * len(encoded)
    assert [bytes.fromhex(g["hex"]) for g in got] == encoded  # Java writes our bytes
    assert java_says in got[0]["str"]
