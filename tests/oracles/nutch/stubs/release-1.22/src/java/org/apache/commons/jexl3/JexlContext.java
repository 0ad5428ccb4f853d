/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.commons.jexl3;

public interface JexlContext {
  Object get(String name);

  void set(String name, Object value);

  boolean has(String name);
}
