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
 *       class's readFields, which must consume it exactly
 *
 * One JSON object per entry on standard output: "key" (seq), "hex" (the value written back by
 * the class's own write), "str" (its toString), or "error" (what Java threw or left unread).
 */

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.PrintStream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.DataInputBuffer;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.SequenceFile;
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
    return "\"hex\":" + json(hex(out.getData(), out.getLength())) + ",\"str\":"
        + json(String.valueOf(value));
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
      SequenceFile.Reader reader = new SequenceFile.Reader(conf,
          SequenceFile.Reader.file(new Path(args[1])));
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
      return;
    }
    Class<?> cls = conf.getClassByName(args[1]);
    try (BufferedReader lines = new BufferedReader(new FileReader(args[2]))) {
      String line;
      while ((line = lines.readLine()) != null) {
        byte[] data = unhex(line.trim());
        DataInputBuffer in = new DataInputBuffer();
        in.reset(data, data.length);
        Writable value = (Writable) ReflectionUtils.newInstance(cls, conf);
        try {
          value.readFields(in);
          if (in.getPosition() != data.length) {
            out.println("{\"error\":" + json("read " + in.getPosition() + " of "
                + data.length + " bytes") + "}");
            continue;
          }
          out.println("{" + rewritten(value) + "}");
        } catch (Exception e) {
          out.println("{\"error\":" + json(e.toString()) + "}");
        }
      }
    }
  }
}
