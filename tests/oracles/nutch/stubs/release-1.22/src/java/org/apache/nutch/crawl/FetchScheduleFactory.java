/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.crawl;

import org.apache.hadoop.conf.Configuration;

public class FetchScheduleFactory {
  public static synchronized FetchSchedule getFetchSchedule(Configuration conf) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
