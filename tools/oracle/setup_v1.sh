#!/usr/bin/env bash
# Add Apache Hudi 1.x (table version 8) to the test oracle: the Spark 3.5 bundle of the latest
# 1.x release Maven Central serves, next to the 0.15 bundle that tools/oracle/setup.sh fetches.
# The same virtualenv (PySpark 3.5) runs both jars, one JVM each; only the jar differs.
#
# Idempotent: the jar is cached in ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/oracle/jars and
# READY_V1 (hudi=<version>, jar=<path>) is written last; when the jar cannot be fetched the script
# still exits 0 and leaves UNAVAILABLE_V1 (the reason), so tests marked `oracle` that need 1.x
# skip with that reason.
#
# Candidates are tried newest first. Apache Hudi 1.1+ writes table version 9 by default; the
# generator (tools/oracle/make_v8_tables.py) asks for each version explicitly
# (hoodie.write.table.version), and writes version 9 tables too when the bundle is 1.1+.
set -uo pipefail

CANDIDATES="${HUDI_V1_VERSIONS:-1.2.0 1.1.1 1.0.2}"
ORACLE_DIR="${HUDI_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/oracle}"
JARS="$ORACLE_DIR/jars"
HERE="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$ORACLE_DIR" "$JARS"

unavailable() {
    echo "Apache Hudi 1.x oracle unavailable: $1" >&2
    printf '%s\n' "$1" >"$ORACLE_DIR/UNAVAILABLE_V1"
    rm -f "$ORACLE_DIR/READY_V1"
    exit 0
}

# Cached only when it is the newest candidate: a cache of an older release is replaced.
if [[ -f "$ORACLE_DIR/READY_V1" ]]; then
    jar="$(sed -n 's/^jar=//p' "$ORACLE_DIR/READY_V1")"
    cached="$(sed -n 's/^hudi=//p' "$ORACLE_DIR/READY_V1")"
    if [[ -s "$jar" && -x "$ORACLE_DIR/venv/bin/python" && "$cached" == "${CANDIDATES%% *}" ]]; then
        echo "Apache Hudi 1.x oracle: cached ($jar)"
        exit 0
    fi
fi
rm -f "$ORACLE_DIR/UNAVAILABLE_V1"

# The virtualenv with PySpark 3.5 (and Java) comes from the 0.15 setup.
if [[ ! -x "$ORACLE_DIR/venv/bin/python" ]]; then
    bash "$HERE/setup.sh" || true
fi
[[ -x "$ORACLE_DIR/venv/bin/python" ]] || \
    unavailable "the oracle virtualenv is missing: $(cat "$ORACLE_DIR/UNAVAILABLE" 2>/dev/null || echo 'run tools/oracle/setup.sh')"

chosen=""
for version in $CANDIDATES; do
    name="hudi-spark3.5-bundle_2.12-${version}.jar"
    if [[ ! -s "$JARS/$name" ]]; then
        command -v mvn >/dev/null 2>&1 || unavailable "no mvn on PATH to fetch the Apache Hudi 1.x bundle"
        mvn -q -B dependency:copy -Dartifact="org.apache.hudi:hudi-spark3.5-bundle_2.12:${version}" \
            -DoutputDirectory="$JARS" >"$ORACLE_DIR/mvn_v1.log" 2>&1 || continue
    fi
    if [[ -s "$JARS/$name" ]]; then
        chosen="$version"
        break
    fi
done
[[ -n "$chosen" ]] || unavailable "mvn could fetch none of hudi-spark3.5-bundle_2.12 ${CANDIDATES} (see $ORACLE_DIR/mvn_v1.log)"

printf 'hudi=%s\njar=%s\n' "$chosen" "$JARS/hudi-spark3.5-bundle_2.12-${chosen}.jar" >"$ORACLE_DIR/READY_V1"
echo "Apache Hudi 1.x oracle ready: hudi-spark3.5-bundle_2.12-${chosen}.jar in $JARS"
