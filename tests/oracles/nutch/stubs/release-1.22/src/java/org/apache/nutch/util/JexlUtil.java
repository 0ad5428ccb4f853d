/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.util;

import org.apache.commons.jexl3.JexlScript;

public class JexlUtil {
  public static JexlScript parseExpression(String expr) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
