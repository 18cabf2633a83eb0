#!/usr/bin/env bash
# Set up Apache Hudi as the test oracle: a virtualenv of its own with PySpark 3.5.x, and the
# Hudi 0.15 Spark 3.5 bundle jar from Maven Central. Idempotent: everything is cached under
# ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/oracle and reused on the next run.
#
# Our package needs Spark 4; Hudi 0.15 runs on Spark 3.5, so the oracle lives in a separate
# interpreter and JVM (tools/oracle/driver.py). When Java, pip or Maven cannot deliver, this
# script still exits 0 and leaves UNAVAILABLE (the reason) in the cache folder: the tests
# marked `oracle` then skip with that reason instead of failing the whole run.
#
# Outputs in the cache folder: venv/ (the interpreter), jars/<bundle>.jar, READY (written
# last, once everything is in place) or UNAVAILABLE.
set -uo pipefail

HUDI_VERSION="0.15.0"
BUNDLE="org.apache.hudi:hudi-spark3.5-bundle_2.12:${HUDI_VERSION}"
JAR_NAME="hudi-spark3.5-bundle_2.12-${HUDI_VERSION}.jar"
PYSPARK_SPEC="pyspark==3.5.*"
# What bench/ needs in this interpreter to run Apache Hudi as a benchmark peer (its worker
# checksums tables with numpy and pyarrow inside Spark's Arrow functions, which need pandas).
BENCH_SPECS=("numpy<2" "pandas<3" "pyarrow<20")

ORACLE_DIR="${HUDI_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/oracle}"
VENV="$ORACLE_DIR/venv"
JARS="$ORACLE_DIR/jars"
mkdir -p "$ORACLE_DIR" "$JARS"

unavailable() {
    echo "Apache Hudi oracle unavailable: $1" >&2
    printf '%s\n' "$1" >"$ORACLE_DIR/UNAVAILABLE"
    rm -f "$ORACLE_DIR/READY"
    exit 0
}

bench_ready() { "$VENV/bin/python" -c 'import numpy, pandas, pyarrow' 2>/dev/null; }

if [[ -f "$ORACLE_DIR/READY" && -x "$VENV/bin/python" && -s "$JARS/$JAR_NAME" ]] && bench_ready; then
    echo "Apache Hudi oracle: cached in $ORACLE_DIR"
    exit 0
fi
rm -f "$ORACLE_DIR/UNAVAILABLE"

command -v java >/dev/null 2>&1 || unavailable "no java on PATH (Apache Hudi ${HUDI_VERSION} needs Java 17)"
JAVA_MAJOR="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)"
[[ -n "$JAVA_MAJOR" && "$JAVA_MAJOR" -ge 11 ]] || unavailable "java ${JAVA_MAJOR:-unknown} is too old for Spark 3.5 (needs 11 or 17)"

PYTHON="${PYTHON:-python3}"
if [[ ! -x "$VENV/bin/python" ]]; then
    "$PYTHON" -m venv "$VENV" || unavailable "could not create the oracle virtualenv with $PYTHON"
fi
if ! "$VENV/bin/python" -c 'import pyspark, sys; sys.exit(0 if pyspark.__version__.startswith("3.5.") else 1)' 2>/dev/null; then
    "$VENV/bin/pip" install -q --upgrade pip >/dev/null 2>&1
    "$VENV/bin/pip" install -q "$PYSPARK_SPEC" || unavailable "pip could not install $PYSPARK_SPEC into $VENV"
fi
if ! bench_ready; then
    "$VENV/bin/pip" install -q "${BENCH_SPECS[@]}" || unavailable "pip could not install ${BENCH_SPECS[*]} into $VENV"
fi

if [[ ! -s "$JARS/$JAR_NAME" ]]; then
    command -v mvn >/dev/null 2>&1 || unavailable "no mvn on PATH to fetch $BUNDLE"
    mvn -q -B dependency:copy -Dartifact="$BUNDLE" -DoutputDirectory="$JARS" \
        >"$ORACLE_DIR/mvn.log" 2>&1 || unavailable "mvn could not fetch $BUNDLE (see $ORACLE_DIR/mvn.log)"
    [[ -s "$JARS/$JAR_NAME" ]] || unavailable "mvn finished but $JARS/$JAR_NAME is missing"
fi

PYSPARK_VERSION="$("$VENV/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
printf 'pyspark=%s\nhudi=%s\njar=%s\n' "$PYSPARK_VERSION" "$HUDI_VERSION" "$JARS/$JAR_NAME" >"$ORACLE_DIR/READY"
echo "Apache Hudi oracle ready: PySpark $PYSPARK_VERSION, $JAR_NAME in $ORACLE_DIR"
