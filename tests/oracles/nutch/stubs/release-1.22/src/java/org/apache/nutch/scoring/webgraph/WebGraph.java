/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.nutch.scoring.webgraph;

public class WebGraph {
  // the folder names of Nutch's WebGraph (release-1.22), used by LinkDumper's job only
  public static final String INLINK_DIR = "inlinks";
  public static final String OUTLINK_DIR = "outlinks/current";
  public static final String NODE_DIR = "nodes";
}
