"""Benchmark: SequenceFile read and write throughput for NONE, RECORD and BLOCK with Deflate
(DefaultCodec) and Snappy, beside the raw codec on the same bytes (the ceiling of a read) and
beside Hadoop's own Java reader on the same file, as ratios in one run, with peak memory.

Entries: Text keys (URLs) and BytesWritable values (the real HTML pages of the WARC samples
in ../shared/samples, repeated with distinct keys to ``--mib`` MiB of values). Per case:

* **write**: :class:`SequenceFileWriter` to a file (codec time included);
* **read**: :func:`iter_entries` over the memory-mapped file, every entry consumed (the codec
  layer); **records**: the ``sequencefile`` reader through ``open_reader`` (Records);
* **codec**: the compression library alone (``zlib.decompress``; cramjam's raw Snappy on the
  blocks inside Hadoop's framing) on the same compressed bytes the file holds (each RECORD
  value; each BLOCK block's four buffers); for NONE, reading the file's bytes;
* **java**: ``java -cp <pyspark jars> SeqRead FILE`` (``SequenceFile.Reader.next(key,
  value)`` over every entry), timed from process start to exit (JVM start, Hadoop's class
  loading and configuration included) and, as the program reports it, its read loop alone
  (after the reader is open).

MiB/s count the uncompressed key + value bytes; crawlmill's timings are CPU time (the machine
is shared), the Java process's wall time and, beside it, its CPU time (every JVM thread).
Ratios: read/codec (target: BLOCK files at 0.5 or more) and how many times faster than the
Java reader with its JVM start crawlmill reads (target: above 1 for files under 1 GB), for
the codec layer (read) and for Records (records). Peak RSS:
this process (it holds the entries), a fresh process reading each file's Records (the
largest), and the Java process (its own VmHWM).
Needs Java and pyspark for the Java column (left out without them).

    python benchmarks/bench_sequencefile.py --mib 64
"""

from __future__ import annotations

import argparse
import glob
import mmap
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tree_usage

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT.parent / "shared" / "samples"
FILES = [
    "chatnoir-eu-chatnoir-resiliparse/tests/data/clueweb-quirk.warc.gz",
    "sqs-freequery/test/dumps/ClueWeb09_English_Sample",
    "sqs-freequery/test/dumps/ClueWeb09_Chinese_Sample",
]
H = "org.apache.hadoop.io."
CASES = [("none", None), ("record", "default"), ("record", "snappy"),
         ("block", "default"), ("block", "snappy")]  # fmt: skip
JAVA = r"""
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.util.ReflectionUtils;

public class SeqRead {
  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    Configuration conf = new Configuration();
    SequenceFile.Reader reader = new SequenceFile.Reader(conf, SequenceFile.Reader.file(new Path(args[0])));
    Writable key = (Writable) ReflectionUtils.newInstance(reader.getKeyClass(), conf);
    Writable value = (Writable) ReflectionUtils.newInstance(reader.getValueClass(), conf);
    long opened = System.nanoTime();
    long n = 0;
    while (reader.next(key, value)) n++;
    reader.close();
    double done = (System.nanoTime() - opened) / 1e9;
    String peak = "0";  // VmHWM: the process's own peak RSS (a forked child's ru_maxrss is not)
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("/proc/self/status")))
      if (line.startsWith("VmHWM:")) peak = line.replaceAll("[^0-9]", "");
    System.out.println(n + " " + (opened - start) / 1e9 + " " + done + " " + peak);
  }
}
"""


def entries(mib: int) -> list[tuple[bytes, bytes]]:
    """Serialized (Text key, BytesWritable value) pairs of about ``mib`` MiB of values."""
    import struct

    from crawlmill import open_reader
    from crawlmill.formats.hadoop.vint import encode_vlong

    pages = []
    for rel in FILES:
        with open_reader(str(SAMPLES / rel)) as records:
            pages += [(r.url or "", r.payload) for r in records if r.kind == "response"]
    out, total, n = [], 0, 0
    while total < mib * 2**20:
        url, payload = pages[n % len(pages)]
        key = f"{url}#{n}".encode()
        out.append((encode_vlong(len(key)) + key, struct.pack(">i", len(payload)) + payload))
        total += len(payload)
        n += 1
    return out


def write(path: Path, pairs, compression: str, codec) -> float:
    from crawlmill.formats.hadoop.sequencefile import SequenceFileWriter

    start = time.process_time()
    with open(path, "wb") as fh:
        w = SequenceFileWriter(fh, H + "Text", H + "BytesWritable", compression=compression,
                               codec=codec)  # fmt: skip
        for k, v in pairs:
            w.append(k, v)
        w.close()
    return time.process_time() - start


def read(path: Path) -> tuple[float, int]:
    """CPU seconds of reading every entry, and the entries."""
    from crawlmill.formats.hadoop.sequencefile import iter_entries

    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        start = time.process_time()
        n = sum(1 for _ in iter_entries(data))
        return time.process_time() - start, n


PEAK = r"""
import sys
from crawlmill import open_reader
with open_reader(sys.argv[1], "sequencefile") as found:
    for _ in found:
        pass
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        print(int(line.split()[1]) / 1024)
"""


def read_peak(path: Path) -> float:
    """Peak RSS (MiB) of a fresh process reading the file's Records."""
    done = subprocess.run([sys.executable, "-c", PEAK, str(path)], check=True,
                          capture_output=True, text=True)  # fmt: skip
    return float(done.stdout.split()[-1])


def records(path: Path) -> float:
    from crawlmill import open_reader

    start = time.process_time()
    with open_reader(str(path), "sequencefile") as found:
        for _ in found:
            pass
    return time.process_time() - start


def buffers(pairs, compression: str, codec) -> list[bytes]:
    """The compressed bytes the file holds, made as the writer makes them."""
    from crawlmill.formats.hadoop.sequencefile import BLOCK_SIZE
    from crawlmill.formats.hadoop.vint import encode_vlong

    if compression == "record":
        return [codec.compress(v) for _, v in pairs]
    out, block, size = [], [], 0
    for k, v in [*pairs, (None, None)]:
        if k is not None:
            block.append((k, v))
            size += len(k) + len(v)
        if block and (k is None or size >= BLOCK_SIZE):
            keys, values = zip(*block, strict=True)
            for part in (
                b"".join(encode_vlong(len(x)) for x in keys),
                b"".join(keys),
                b"".join(encode_vlong(len(x)) for x in values),
                b"".join(values),
            ):
                out.append(codec.compress(part))  # fmt: skip
            block, size = [], 0
    return out


def raw_chunks(packed: list[bytes]) -> list[bytes]:
    """The raw Snappy blocks inside Hadoop's block framing (group and chunk lengths)."""
    chunks = []
    for buf in packed:
        pos = 0
        while pos < len(buf):
            ulen = int.from_bytes(buf[pos : pos + 4], "big")
            pos, got = pos + 4, 0
            while got < ulen:
                clen = int.from_bytes(buf[pos : pos + 4], "big")
                chunks.append(buf[pos + 4 : pos + 4 + clen])
                got += cramjam_len(chunks[-1])
                pos += 4 + clen
    return chunks


def cramjam_len(block: bytes) -> int:
    import cramjam

    return cramjam.snappy.decompress_raw_len(block)


def codec_time(path: Path, packed: list[bytes], name: str | None) -> float:
    """The library alone (zlib, cramjam's raw Snappy) on the compressed bytes the file holds;
    for NONE, the file's bytes read."""
    import zlib

    import cramjam

    chunks = raw_chunks(packed) if name == "snappy" else packed
    start = time.process_time()
    if name is None:
        with open(path, "rb") as fh:
            while fh.read(1 << 20):
                pass
    elif name == "snappy":
        for chunk in chunks:
            cramjam.snappy.decompress_raw(chunk)
    else:
        for buf in chunks:
            zlib.decompress(buf)
    return time.process_time() - start


def java_setup(tmp: Path) -> list[str] | None:
    """The command prefix running the compiled SeqRead (``None``: no Java or pyspark)."""
    try:
        import pyspark
    except ImportError:
        return None
    if not shutil.which("java") or not shutil.which("javac"):
        return None
    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    cp = ":".join(sorted(glob.glob(os.path.join(jars, "*.jar"))))
    (tmp / "SeqRead.java").write_text(JAVA)
    subprocess.run(["javac", "-cp", cp, "-d", str(tmp), str(tmp / "SeqRead.java")], check=True,
                   capture_output=True)  # fmt: skip
    return ["java", "-cp", f"{tmp}:{cp}", "SeqRead"]


def java(cmd: list[str], path: Path) -> tuple[float, float, float, int, float]:
    """Wall seconds of the Java process, its CPU seconds (all its threads), the seconds of
    its read loop (wall, as it reports them), the entries it read and its peak RSS (MiB)."""
    env = dict(os.environ, JAVA_TOOL_OPTIONS="-Dlog4j2.level=ERROR")
    done = tree_usage.run([*cmd, str(path)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, cmd, done.stdout, done.stderr)
    total, cpu = done.wall, done.cpu  # the whole process tree
    n, _opening, loop, peak = done.stdout.split()[-4:]
    return total, cpu, float(loop), int(n), int(peak) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=64)
    opts = parser.parse_args()
    from crawlmill.formats.hadoop.codecs import codec_named

    pairs = entries(opts.mib)
    warm = Path(tempfile.gettempdir()) / f"crawlmill-bench-warm-{os.getpid()}.seq"
    write(warm, pairs[:2], "none", None)
    records(warm)  # the registry and the reader's imports, once, outside the timings
    warm.unlink()
    raw = sum(len(k) + len(v) for k, v in pairs) / 2**20
    print(
        f"{len(pairs)} entries, {raw:.1f} MiB of keys and values (real pages, Text/BytesWritable)"
    )
    print(
        "MiB/s of keys and values; ours in CPU time; java+JVM in wall time and, in (), CPU "
        "time of all its threads; java loop: its read loop alone (wall)"
    )
    print(f"{'case':15} {'file MiB':>8} {'write':>6} {'read':>6} {'records':>7} {'codec':>6} "
          f"{'java+JVM':>14} {'java loop':>9} | read/codec  read/java+JVM  records/java+JVM")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        cmd = java_setup(tmp)
        java_peak = alone = 0.0
        for compression, name in CASES:
            codec = codec_named(name) if name else None
            path = tmp / f"{compression}-{name}.seq"
            w = write(path, pairs, compression, codec)
            r, n = read(path)
            alone = max(alone, read_peak(path))
            assert n == len(pairs), (n, len(pairs))
            rec = records(path)
            packed = buffers(pairs, compression, codec) if codec else []
            c = codec_time(path, packed, name)
            del packed
            jt = jc = jl = float("nan")
            if cmd:
                jt, jc, jl, jn, jp = java(cmd, path)
                assert jn == len(pairs)
                java_peak = max(java_peak, jp)
            label = f"{compression} {name or ''}".strip()
            size = path.stat().st_size / 2**20
            print(f"{label:15} {size:8.1f} {raw / w:6.0f} {raw / r:6.0f} {raw / rec:7.0f} "
                  f"{raw / c:6.0f} {raw / jt:6.1f} ({raw / jc:5.1f}) {raw / jl:9.0f} | "
                  f"{c / r:10.2f} {jt / r:8.1f} ({jc / r:4.1f}) {jt / rec:9.1f} ({jc / rec:4.1f})")  # fmt: skip
            path.unlink()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: this process {peak:.0f} MiB (it holds the entries, {raw:.0f} MiB, and "
          f"the compressed buffers of the codec run), a fresh process reading Records {alone:.0f} MiB; "
          f"the Java reader {java_peak:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
