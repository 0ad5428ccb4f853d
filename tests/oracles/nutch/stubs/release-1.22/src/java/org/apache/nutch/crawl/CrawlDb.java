/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.crawl;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;

public class CrawlDb {
  // the folder name of Nutch's CrawlDb (release-1.22), used by Generator's job only
  public static final String CURRENT_NAME = "current";

  public static Path lock(Configuration job, Path crawlDb, boolean force) throws IOException {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }

  public static void install(Job job, Path crawlDb) throws IOException {
    throw new UnsupportedOperationException("stub: not part of the oracle");
  }
}
