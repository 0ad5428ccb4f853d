/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.commons.jexl3;

public interface JexlScript {
  Object execute(JexlContext context, Object... args);
}
