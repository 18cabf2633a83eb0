#!/usr/bin/env bash
# Give the Apache Hudi oracle S3: Hadoop's S3A connector (hadoop-aws, the version of the Hadoop client
# in the oracle's PySpark 3.5) and the AWS SDK bundle it was built against, from Maven Central, so
# that Apache Hudi reads and writes tables in the same bucket as hudi-sql
# (tests/oracle/test_object_store_oracle.py). Idempotent and cached beside the bundles; when Maven
# cannot deliver, it exits 0 and leaves UNAVAILABLE_S3 (the reason), and those tests skip.
#
# Output in the oracle's cache folder: jars/s3/*.jar and READY_S3 ("jars=<comma-separated paths>").
set -uo pipefail

HADOOP_AWS="org.apache.hadoop:hadoop-aws:3.3.4"
AWS_SDK="com.amazonaws:aws-java-sdk-bundle:1.12.262"
ORACLE_DIR="${HUDI_ORACLE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/oracle}"
JARS="$ORACLE_DIR/jars/s3"
mkdir -p "$JARS"

unavailable() {
    echo "Apache Hudi oracle on S3 unavailable: $1" >&2
    printf '%s\n' "$1" >"$ORACLE_DIR/UNAVAILABLE_S3"
    rm -f "$ORACLE_DIR/READY_S3"
    exit 0
}

wanted=("$JARS/hadoop-aws-3.3.4.jar" "$JARS/aws-java-sdk-bundle-1.12.262.jar")
if [[ -f "$ORACLE_DIR/READY_S3" && -s "${wanted[0]}" && -s "${wanted[1]}" ]]; then
    echo "Apache Hudi oracle S3 connector: cached in $JARS"
    exit 0
fi
rm -f "$ORACLE_DIR/UNAVAILABLE_S3"
command -v mvn >/dev/null 2>&1 || unavailable "no mvn on PATH to fetch $HADOOP_AWS"
for artifact in "$HADOOP_AWS" "$AWS_SDK"; do
    mvn -q -B dependency:copy -Dartifact="$artifact" -DoutputDirectory="$JARS" \
        >>"$ORACLE_DIR/mvn_s3.log" 2>&1 || unavailable "mvn could not fetch $artifact (see $ORACLE_DIR/mvn_s3.log)"
done
for jar in "${wanted[@]}"; do
    [[ -s "$jar" ]] || unavailable "mvn finished but $jar is missing"
done
printf 'jars=%s,%s\n' "${wanted[0]}" "${wanted[1]}" >"$ORACLE_DIR/READY_S3"
echo "Apache Hudi oracle S3 connector ready in $JARS"
