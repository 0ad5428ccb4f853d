/*
 * crawlmill's test oracle (our own code, Apache-2.0): Nutch's own Writable classes, compiled
 * from the verbatim sources beside this folder, read bytes that crawlmill wrote.
 *
 *   java CrawlmillOracle seq FILE
 *       every entry of the SequenceFile (or MapFile data) FILE, read by Hadoop's
 *       SequenceFile.Reader with the key and value classes its header names
 *   java CrawlmillOracle meta FILE
 *       the header metadata of the SequenceFile FILE, one {"key", "value"} per pair
 *   java CrawlmillOracle value CLASS FILE
 *       FILE holds one hex-encoded serialized value of CLASS per line; each is read with the
 *       class's readFields, which must consume it exactly; "fields" is every field Java
 *       holds after reading (see fields())
 *   java CrawlmillOracle values FILE
 *       as value, with the class on each line: "CLASS HEX"
 *   java CrawlmillOracle blank CLASS...
 *       a new CLASS made by its no-argument constructor, never read: what Java writes of it
 *       ("hex") and its "fields" (a value Java makes, for crawlmill to read); one line each
 *
 * One JSON object per entry on standard output: "key" (seq), "hex" (the value written back by
 * the class's own write), "str" (its toString), or "error" (what Java threw or left unread).
 */

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.util.ReflectionUtils;

public class CrawlmillOracle {

  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  static String hex(byte[] data, int length) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < length; i++) {
      b.append(String.format("%02x", data[i] & 0xff));
    }
    return b.toString();
  }

  static byte[] unhex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  static String rewritten(Writable value) throws Exception {
    DataOutputBuffer out = new DataOutputBuffer();
    value.write(out);
    String str;
    try {
      str = String.valueOf(value);
    } catch (RuntimeException e) {
      str = "<toString threw " + e + ">";
    }
    return "\"hex\":" + json(hex(out.getData(), out.getLength())) + ",\"str\":" + json(str);
  }

  /**
   * Every instance field of {@code o} (its class and superclasses, by reflection) as JSON,
   * recursively: Text and String as strings, byte[] and BytesWritable as {"hex"}, numbers and
   * booleans as such (non-finite floats as strings), arrays and collections as lists, maps (and
   * Nutch 1.x's own MapWritable, which is no java.util.Map) as lists of [key, value], a
   * Configuration as "<conf>". The values Java read, field by field, for the tests to compare.
   */
  static String fields(Object o, int depth) throws Exception {
    if (o == null) {
      return "null";
    }
    if (depth > 12) {
      return json("<too deep>");
    }
    if (o instanceof String || o instanceof Text || o instanceof Character) {
      return json(o.toString());
    }
    if (o instanceof Boolean) {
      return o.toString();
    }
    if (o instanceof Float || o instanceof Double) {
      double d = ((Number) o).doubleValue();
      return Double.isNaN(d) || Double.isInfinite(d) ? json(o.toString()) : o.toString();
    }
    if (o instanceof Number) {
      return o.toString();
    }
    if (o instanceof byte[]) {
      byte[] b = (byte[]) o;
      return "{\"hex\":" + json(hex(b, b.length)) + "}";
    }
    if (o instanceof BytesWritable) {
      BytesWritable b = (BytesWritable) o;
      return "{\"hex\":" + json(hex(b.getBytes(), b.getLength())) + "}";
    }
    if (o instanceof Configuration) {
      return json("<conf>");
    }
    if (o instanceof Enum) {
      return json(((Enum<?>) o).name());
    }
    StringBuilder b = new StringBuilder();
    if (o.getClass().isArray()) {
      b.append('[');
      for (int i = 0; i < Array.getLength(o); i++) {
        b.append(i > 0 ? "," : "").append(fields(Array.get(o, i), depth + 1));
      }
      return b.append(']').toString();
    }
    if (o instanceof Collection) {
      b.append('[');
      String sep = "";
      for (Object item : (Collection<?>) o) {
        b.append(sep).append(fields(item, depth + 1));
        sep = ",";
      }
      return b.append(']').toString();
    }
    if (o instanceof Map) {
      b.append('[');
      String sep = "";
      for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
        b.append(sep).append('[').append(fields(e.getKey(), depth + 1)).append(',')
            .append(fields(e.getValue(), depth + 1)).append(']');
        sep = ",";
      }
      return b.append(']').toString();
    }
    if (o.getClass().getName().equals("org.apache.nutch.crawl.MapWritable")) {
      Method keys = o.getClass().getMethod("keySet");
      Method get = o.getClass().getMethod("get", Writable.class);
      b.append('[');
      String sep = "";
      for (Object key : (Collection<?>) keys.invoke(o)) {
        b.append(sep).append('[').append(fields(key, depth + 1)).append(',')
            .append(fields(get.invoke(o, key), depth + 1)).append(']');
        sep = ",";
      }
      return b.append(']').toString();
    }
    if (o.getClass().getName().startsWith("java.")) {
      return json(o.toString());
    }
    b.append("{\"@\":").append(json(o.getClass().getName()));
    for (Class<?> c = o.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || f.isSynthetic()) {
          continue;
        }
        f.setAccessible(true);
        b.append(',').append(json(f.getName())).append(':').append(fields(f.get(o), depth + 1));
      }
    }
    return b.append('}').toString();
  }

  static String withFields(Writable value) throws Exception {
    return rewritten(value) + ",\"fields\":" + fields(value, 0);
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    Configuration conf = new Configuration();
    if (args[0].equals("meta")) {
      SequenceFile.Reader reader = new SequenceFile.Reader(conf,
          SequenceFile.Reader.file(new Path(args[1])));
      for (java.util.Map.Entry<org.apache.hadoop.io.Text, org.apache.hadoop.io.Text> e
          : reader.getMetadata().getMetadata().entrySet()) {
        out.println("{\"key\":" + json(e.getKey().toString()) + ",\"value\":"
            + json(e.getValue().toString()) + "}");
      }
      reader.close();
      return;
    }
    if (args[0].equals("seq")) {
      // each file named: {"file": path}, then its entries (one JVM for several files)
      for (int i = 1; i < args.length; i++) {
        out.println("{\"file\":" + json(args[i]) + "}");
        SequenceFile.Reader reader = new SequenceFile.Reader(conf,
            SequenceFile.Reader.file(new Path(args[i])));
        Writable key = (Writable) ReflectionUtils.newInstance(reader.getKeyClass(), conf);
        Writable value = (Writable) ReflectionUtils.newInstance(reader.getValueClass(), conf);
        while (true) {
          String line;
          try {
            if (!reader.next(key, value)) {
              break;
            }
            line = "{\"key\":" + json(key.toString()) + "," + rewritten(value) + "}";
          } catch (Exception e) {
            out.println("{\"error\":" + json(e.toString()) + "}");
            break;
          }
          out.println(line);
        }
        reader.close();
      }
      return;
    }
    if (args[0].equals("blank")) {
      for (int i = 1; i < args.length; i++) {
        try {
          Writable value = (Writable) ReflectionUtils.newInstance(conf.getClassByName(args[i]), conf);
          out.println("{" + withFields(value) + "}");
        } catch (Exception e) {
          out.println("{\"error\":" + json(e.toString()) + "}");
        }
      }
      return;
    }
    boolean named = args[0].equals("values");
    String file = named ? args[1] : args[2];
    try (BufferedReader lines = new BufferedReader(new FileReader(file))) {
      String line;
      while ((line = lines.readLine()) != null) {
        String[] parts = line.trim().split(" ");
        String hexed = named ? (parts.length > 1 ? parts[1] : "") : parts[0];
        byte[] data = unhex(hexed);
        DataInputBuffer in = new DataInputBuffer();
        in.reset(data, data.length);
        try {
          Class<?> cls = conf.getClassByName(named ? parts[0] : args[1]);
          Writable value = (Writable) ReflectionUtils.newInstance(cls, conf);
          value.readFields(in);
          if (in.getPosition() != data.length) {
            out.println("{\"error\":" + json("read " + in.getPosition() + " of "
                + data.length + " bytes") + "}");
            continue;
          }
          out.println("{" + withFields(value) + "}");
        } catch (Exception e) {
          out.println("{\"error\":" + json(e.toString()) + "}");
        }
      }
    }
  }
}
