/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.util;

import org.apache.hadoop.conf.Configuration;

public final class MimeUtil {
  public MimeUtil(Configuration conf) {
    throw new UnsupportedOperationException("stub: Tika's MIME detection is not part of the oracle");
  }

  public String autoResolveContentType(String typeName, String url, byte[] data) {
    throw new UnsupportedOperationException("stub: Tika's MIME detection is not part of the oracle");
  }
}
