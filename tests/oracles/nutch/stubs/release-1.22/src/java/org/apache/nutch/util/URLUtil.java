/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.util;

import java.net.MalformedURLException;
import java.net.URL;

public class URLUtil {
  public static String getDomainName(URL url) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public static String getDomainName(String url) throws MalformedURLException {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public static String getHost(String url) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public static String getHost(URL url) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
