/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.plugin;

import org.apache.hadoop.conf.Configuration;

public class PluginRepository {
  public static synchronized PluginRepository get(Configuration conf) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
