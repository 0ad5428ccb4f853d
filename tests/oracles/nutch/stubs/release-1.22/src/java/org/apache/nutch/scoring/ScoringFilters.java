/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.scoring;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.Text;
import org.apache.nutch.crawl.CrawlDatum;

public class ScoringFilters {
  public ScoringFilters(Configuration conf) {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public float generatorSortValue(Text url, CrawlDatum datum, float initSort)
      throws ScoringFilterException {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
