"""Hadoop's own readers and writers as an oracle, many keys per py4j call: the harness
``tests/oracles/hadoop/HadoopLoops.java`` compiled with ``javac`` against the Hadoop jars of
the pyspark wheel (once per session, shared by the xdist workers: tests/shared_build.py) and
loaded into the session SparkContext's JVM (``spark_sc``), where Hadoop's classes already are.

A loop of py4j calls costs a round trip between two processes per call (several per key:
make a Text, set it, get, serialize the value...); the harness runs the loop in the JVM, so a
test of 1,000 keys makes one call. Hadoop's classes answer as before (``MapFile.Reader.get``
and ``seek``, ``MapFileOutputFormat.getEntry`` with ``HashPartitioner``, ``MapFile.Writer``,
``SequenceFile.Reader.next`` and ``nextRaw``, ``Text.hashCode``); keys and values cross as
their serialized bytes. Missing ``javac`` skips (fails under ``CRAWLMILL_REQUIRE_ORACLES=1``).
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import need, need_command
from tests.nutch_oracle import JVM_OPTIONS
from tests.shared_build import built

SOURCE = Path(__file__).resolve().parent / "oracles" / "hadoop" / "HadoopLoops.java"


def blob(items: list[bytes]) -> bytes:
    """``items`` as the harness's blob: each a big-endian int length, then its bytes."""
    return b"".join(struct.pack(">i", len(x)) + bytes(x) for x in items)


def unblob(data: bytes) -> list[bytes | None]:
    """The items of a blob of the harness (``None`` for a length of -1)."""
    out: list[bytes | None] = []
    at = 0
    while at < len(data):
        (n,) = struct.unpack_from(">i", data, at)
        at += 4
        if n < 0:
            out.append(None)
        else:
            out.append(bytes(data[at : at + n]))
            at += n
    return out


def pairs_of(data: bytes) -> list[tuple[bytes, bytes]]:
    """A blob of key, value, key, value... as pairs."""
    items = unblob(data)
    return list(zip(items[::2], items[1::2], strict=True))


class HadoopLoops:
    """The harness in the JVM of ``sc``; its methods take and give Python bytes."""

    def __init__(self, sc: Any, root: Path) -> None:
        pyspark = need("pyspark")
        javac = need_command("javac")
        jars = Path(pyspark.__file__).parent / "jars"
        cp = ":".join(str(j) for j in sorted(jars.glob("hadoop-client-*.jar"))) or str(jars / "*")

        def compile_into(out: Path) -> None:
            subprocess.run([javac, *(f"-J{o}" for o in JVM_OPTIONS), "-nowarn", "-encoding", "UTF-8",
                            "-cp", cp, "-d", str(out), str(SOURCE)], check=True, capture_output=True)  # fmt: skip

        # one class per JVM: py4j caches its methods by class name, so a second class of the
        # same name (another loader) would be called through the first one's methods
        self.java = getattr(sc, "_crawlmill_hadoop_loops", None)
        if self.java is None:
            self.java = self._load(sc, built(root, "hadoop-loops", compile_into))
            sc._crawlmill_hadoop_loops = self.java

    @staticmethod
    def _load(sc: Any, classes: Path) -> Any:
        """An instance of the harness, its class loaded from ``classes`` into ``sc``'s JVM."""
        jvm, gateway = sc._jvm, sc._gateway
        urls = gateway.new_array(jvm.java.net.URL, 1)
        urls[0] = jvm.java.io.File(str(classes)).toURI().toURL()
        # Hadoop's classes as the parent: the harness links against the context's own
        parent = jvm.org.apache.hadoop.io.Text().getClass().getClassLoader()
        cls = jvm.java.net.URLClassLoader(urls, parent).loadClass("HadoopLoops")
        no_types = gateway.new_array(jvm.java.lang.Class, 0)
        no_args = gateway.new_array(jvm.java.lang.Object, 0)
        return cls.getDeclaredConstructor(no_types).newInstance(no_args)

    def get(self, folder: Path | str, keys: list[bytes]) -> list[bytes | None]:
        """``MapFile.Reader.get`` of each serialized key: the serialized value or None."""
        return unblob(self.java.get(str(folder), blob(keys)))

    def seek(self, folder: Path | str, keys: list[bytes]) -> list[bool]:
        """``MapFile.Reader.seek`` of each serialized key."""
        return [b == 1 for b in self.java.seek(str(folder), blob(keys))]

    def entries(self, folder: Path | str, keys: list[bytes]) -> list[bytes | None]:
        """``MapFileOutputFormat.getEntry`` (``HashPartitioner``) over the part folders of
        ``folder`` of each serialized key: the serialized value or None."""
        return unblob(self.java.entries(str(folder), blob(keys)))

    def write(self, folder: Path | str, pairs: list[tuple[bytes, bytes]], key_class: str,
              value_class: str, compression: str) -> None:  # fmt: skip
        """A MapFile written by Hadoop's ``MapFile.Writer`` from serialized pairs
        (``compression``: NONE, RECORD or BLOCK)."""
        items = [x for pair in pairs for x in pair]
        self.java.write(str(folder), blob(items), key_class, value_class, compression)

    def pairs(self, path: Path | str) -> list[tuple[bytes, bytes]]:
        """Every (key, value) ``SequenceFile.Reader.next`` reads, each written again by Hadoop."""
        return pairs_of(self.java.pairs(str(path)))

    def raw_pairs(self, path: Path | str) -> list[tuple[bytes, bytes]]:
        """Every (raw key, uncompressed raw value) ``SequenceFile.Reader.nextRaw`` reads."""
        return pairs_of(self.java.rawPairs(str(path)))

    def text_hash_codes(self, contents: list[bytes]) -> list[int]:
        """Hadoop's ``Text.hashCode`` of each content."""
        data = self.java.textHashCodes(blob(contents))
        return list(struct.unpack(f">{len(data) // 4}i", data))
