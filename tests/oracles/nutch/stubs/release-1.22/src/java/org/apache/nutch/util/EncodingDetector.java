/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.util;

public class EncodingDetector {
  public static String resolveEncodingAlias(String encoding) {
    throw new UnsupportedOperationException("stub: ICU's charset detection is not part of the oracle");
  }
}
