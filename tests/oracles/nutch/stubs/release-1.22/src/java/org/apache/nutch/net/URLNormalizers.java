/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.net;

import java.net.MalformedURLException;
import org.apache.hadoop.conf.Configuration;

public final class URLNormalizers {
  public static final String SCOPE_GENERATE_HOST_COUNT = "generate_host_count";
  public static final String SCOPE_PARTITION = "partition";

  public URLNormalizers(Configuration conf, String scope) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public String normalize(String urlString, String scope) throws MalformedURLException {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
