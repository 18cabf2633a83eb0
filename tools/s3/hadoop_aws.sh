#!/usr/bin/env bash
# Hadoop's S3A connector for the Hadoop of this virtualenv's PySpark: hadoop-aws of the same version,
# and the AWS SDK v2 bundle and S3 analytics accelerator that release was built against (its
# hadoop-project POM names their versions),
# from Maven Central, once, cached under ${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/hadoop-aws/<version>.
#
# hudi-sql itself needs neither (it reaches S3 through pyarrow); a Hive metastore does, to accept a
# table whose location is s3a:// (it checks the folder through Hadoop's file system), and so does
# Spark's own Parquet reader. Usage: bash tools/s3/hadoop_aws.sh [python]; prints the jars, comma
# separated, for spark.jars or a metastore's classpath, and writes them to READY beside them. When
# Maven cannot deliver it exits 0 and leaves UNAVAILABLE (the reason); the tests needing it skip.
set -uo pipefail

PYTHON="${1:-.venv/bin/python}"
JARS_DIR="$("$PYTHON" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"
CLIENT="$(ls "$JARS_DIR" | sed -n 's/^hadoop-client-api-\(.*\)\.jar$/\1/p' | head -1)"
DIR="${XDG_CACHE_HOME:-$HOME/.cache}/hudi-sql/hadoop-aws/${CLIENT:-unknown}"
mkdir -p "$DIR"

unavailable() {
    echo "Hadoop S3A connector unavailable: $1" >&2
    printf '%s\n' "$1" >"$DIR/UNAVAILABLE"
    rm -f "$DIR/READY"
    exit 0
}

[[ -n "$CLIENT" ]] || unavailable "no hadoop-client-api jar in $JARS_DIR"
if [[ -f "$DIR/READY" ]]; then
    sed -n 's/^jars=//p' "$DIR/READY"
    exit 0
fi
rm -f "$DIR/UNAVAILABLE"
command -v mvn >/dev/null 2>&1 || unavailable "no mvn on PATH to fetch org.apache.hadoop:hadoop-aws:$CLIENT"
fetch() { mvn -q -B dependency:copy -Dartifact="$1" -DoutputDirectory="$DIR" >>"$DIR/mvn.log" 2>&1; }
fetch "org.apache.hadoop:hadoop-project:$CLIENT:pom" || unavailable "mvn could not fetch hadoop-project $CLIENT (see $DIR/mvn.log)"
version_of() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" "$DIR/hadoop-project-$CLIENT.pom" | head -1; }
SDK="$(version_of aws-java-sdk-v2.version)"
[[ -n "$SDK" ]] || unavailable "hadoop-project $CLIENT names no aws-java-sdk-v2.version"
fetch "org.apache.hadoop:hadoop-aws:$CLIENT" || unavailable "mvn could not fetch hadoop-aws $CLIENT (see $DIR/mvn.log)"
fetch "software.amazon.awssdk:bundle:$SDK" || unavailable "mvn could not fetch the AWS SDK bundle $SDK (see $DIR/mvn.log)"
JARS="$DIR/hadoop-aws-$CLIENT.jar,$DIR/bundle-$SDK.jar"
ACCELERATOR="$(version_of amazon-s3-analyticsaccelerator-s3.version)"
if [[ -n "$ACCELERATOR" ]]; then  # Hadoop 3.4.2 and later read S3 through it
    fetch "software.amazon.s3.analyticsaccelerator:analyticsaccelerator-s3:$ACCELERATOR" \
        || unavailable "mvn could not fetch analyticsaccelerator-s3 $ACCELERATOR (see $DIR/mvn.log)"
    JARS="$JARS,$DIR/analyticsaccelerator-s3-$ACCELERATOR.jar"
fi
printf 'jars=%s\n' "$JARS" >"$DIR/READY"
echo "$JARS"
