/* crawlmill test stub (not Apache code): Hadoop's GenericOptionsParser with the unshaded
 * commons-cli signature Nutch's main() methods compile against (the pyspark wheel's Hadoop
 * client shades commons-cli). Only main() methods use it; the oracle never calls them. */
package org.apache.hadoop.util;

import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;

public class GenericOptionsParser {
  public GenericOptionsParser(Configuration conf, Options options, String[] args) {
    throw new UnsupportedOperationException("stub: command-line parsing is not part of the oracle");
  }

  public String[] getRemainingArgs() {
    throw new UnsupportedOperationException("stub: command-line parsing is not part of the oracle");
  }
}
