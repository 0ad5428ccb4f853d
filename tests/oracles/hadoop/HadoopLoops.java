import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.MapFile;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.mapreduce.lib.output.MapFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.partition.HashPartitioner;
import org.apache.hadoop.util.ReflectionUtils;

/**
 * crawlmill's test harness around Hadoop's own readers and writers (tests/hadoop_oracle.py):
 * the loops over many keys or entries run here, so a test makes one py4j call where it made
 * several per key. Hadoop's classes (MapFile.Reader.get/seek, MapFileOutputFormat.getEntry
 * with HashPartitioner, MapFile.Writer, SequenceFile.Reader) stay the oracle; this class only
 * moves bytes. A blob is a list of items, each a big-endian int length and that many bytes
 * (length -1: no item, e.g. a key not found).
 */
public class HadoopLoops {
  private final Configuration conf = new Configuration();

  /** MapFile.Reader.get of each key (serialized as the MapFile's key class): each value
   * Hadoop finds written again by Hadoop, or none. */
  public byte[] get(String folder, byte[] keys) throws IOException {
    try (MapFile.Reader reader = new MapFile.Reader(new Path(folder), conf)) {
      WritableComparable<?> key = (WritableComparable<?>) ReflectionUtils.newInstance(reader.getKeyClass(), conf);
      Writable value = (Writable) ReflectionUtils.newInstance(reader.getValueClass(), conf);
      Blob out = new Blob();
      for (byte[] k : items(keys)) {
        fill(key, k);
        Writable got = reader.get(key, value);
        out.add(got == null ? null : bytesOf(got));
      }
      return out.bytes();
    }
  }

  /** MapFile.Reader.seek of each key (serialized as the MapFile's key class): one byte each,
   * 1 when found. */
  public byte[] seek(String folder, byte[] keys) throws IOException {
    try (MapFile.Reader reader = new MapFile.Reader(new Path(folder), conf)) {
      WritableComparable<?> key = (WritableComparable<?>) ReflectionUtils.newInstance(reader.getKeyClass(), conf);
      List<byte[]> all = items(keys);
      byte[] found = new byte[all.size()];
      for (int i = 0; i < found.length; i++) {
        fill(key, all.get(i));
        found[i] = (byte) (reader.seek(key) ? 1 : 0);
      }
      return found;
    }
  }

  /** MapFileOutputFormat.getEntry with Hadoop's HashPartitioner over the part folders of
   * folder, for each key: the value written again by Hadoop, or none. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  public byte[] entries(String folder, byte[] keys) throws IOException {
    MapFile.Reader[] readers = MapFileOutputFormat.getReaders(new Path(folder), conf);
    try {
      WritableComparable key = (WritableComparable) ReflectionUtils.newInstance(readers[0].getKeyClass(), conf);
      Writable value = (Writable) ReflectionUtils.newInstance(readers[0].getValueClass(), conf);
      HashPartitioner partitioner = new HashPartitioner();
      Blob out = new Blob();
      for (byte[] k : items(keys)) {
        fill(key, k);
        Writable got = MapFileOutputFormat.getEntry(readers, partitioner, key, value);
        out.add(got == null ? null : bytesOf(got));
      }
      return out.bytes();
    } finally {
      for (MapFile.Reader r : readers) {
        r.close();
      }
    }
  }

  /** A MapFile written by Hadoop's MapFile.Writer (compression: a SequenceFile
   * CompressionType name) from pairs, a blob of key, value, key, value... each serialized as
   * keyClass and valueClass; the writer refuses keys out of its comparator's order. */
  @SuppressWarnings("deprecation")
  public void write(String folder, byte[] pairs, String keyClass, String valueClass, String compression)
      throws IOException, ClassNotFoundException {
    Class<? extends WritableComparable> kc = conf.getClassByName(keyClass).asSubclass(WritableComparable.class);
    Class<? extends Writable> vc = conf.getClassByName(valueClass).asSubclass(Writable.class);
    WritableComparable<?> key = ReflectionUtils.newInstance(kc, conf);
    Writable value = ReflectionUtils.newInstance(vc, conf);
    try (MapFile.Writer writer = new MapFile.Writer(conf, FileSystem.getLocal(conf), folder, kc, vc,
        SequenceFile.CompressionType.valueOf(compression))) {
      List<byte[]> all = items(pairs);
      for (int i = 0; i + 1 < all.size(); i += 2) {
        fill(key, all.get(i));
        fill(value, all.get(i + 1));
        writer.append(key, value);
      }
    }
  }

  /** Every pair SequenceFile.Reader.next reads from path, key and value each written again
   * by Hadoop: a blob of key, value, key, value... */
  public byte[] pairs(String path) throws IOException {
    try (SequenceFile.Reader reader = new SequenceFile.Reader(conf, SequenceFile.Reader.file(new Path(path)))) {
      Writable key = (Writable) ReflectionUtils.newInstance(reader.getKeyClass(), conf);
      Writable value = (Writable) ReflectionUtils.newInstance(reader.getValueClass(), conf);
      Blob out = new Blob();
      while (reader.next(key, value)) {
        out.add(bytesOf(key));
        out.add(bytesOf(value));
      }
      return out.bytes();
    }
  }

  /** Every pair of path as SequenceFile.Reader.nextRaw reads it (the raw key, the value
   * uncompressed: never deserialized): a blob of key, value, key, value... */
  public byte[] rawPairs(String path) throws IOException {
    try (SequenceFile.Reader reader = new SequenceFile.Reader(conf, SequenceFile.Reader.file(new Path(path)))) {
      DataOutputBuffer key = new DataOutputBuffer();
      DataOutputBuffer value = new DataOutputBuffer();
      SequenceFile.ValueBytes raw = reader.createValueBytes();
      Blob out = new Blob();
      while (reader.nextRaw(key, raw) != -1) {
        value.reset();
        raw.writeUncompressedBytes(value);
        out.add(java.util.Arrays.copyOf(key.getData(), key.getLength()));
        out.add(java.util.Arrays.copyOf(value.getData(), value.getLength()));
        key.reset();
      }
      return out.bytes();
    }
  }

  /** Hadoop's Text.hashCode of each item's bytes (set as a Text's content): big-endian ints. */
  public byte[] textHashCodes(byte[] contents) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    Text text = new Text();
    for (byte[] c : items(contents)) {
      text.set(c);
      out.writeInt(text.hashCode());
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static void fill(Writable w, byte[] serialized) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
    w.readFields(in);
    if (in.available() != 0) {
      throw new IOException(w.getClass().getName() + " left " + in.available() + " of "
          + serialized.length + " bytes unread");
    }
  }

  private static byte[] bytesOf(Writable w) throws IOException {
    DataOutputBuffer buf = new DataOutputBuffer();
    w.write(buf);
    return java.util.Arrays.copyOf(buf.getData(), buf.getLength());
  }

  private static List<byte[]> items(byte[] blob) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(blob));
    List<byte[]> out = new ArrayList<>();
    while (in.available() > 0) {
      int n = in.readInt();
      byte[] item = new byte[n];
      in.readFully(item);
      out.add(item);
    }
    return out;
  }

  /** Items written as a blob. */
  private static final class Blob {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);

    void add(byte[] item) throws IOException {
      if (item == null) {
        out.writeInt(-1);
      } else {
        out.writeInt(item.length);
        out.write(item);
      }
    }

    byte[] bytes() throws IOException {
      out.flush();
      return bytes.toByteArray();
    }
  }
}
