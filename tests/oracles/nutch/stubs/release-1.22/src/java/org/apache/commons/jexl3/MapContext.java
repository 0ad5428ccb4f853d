/* crawlmill test stub (not Apache code): only what javac needs to compile the verbatim Nutch
 * sources beside it; no serialization passes through it (see tests/oracles/nutch/README.md). */
package org.apache.commons.jexl3;

public class MapContext implements JexlContext {
  private final java.util.Map<String, Object> map = new java.util.HashMap<>();

  public Object get(String name) {
    return map.get(name);
  }

  public void set(String name, Object value) {
    map.put(name, value);
  }

  public boolean has(String name) {
    return map.containsKey(name);
  }
}
