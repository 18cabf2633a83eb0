"""Apache Hudi as a test oracle: one long-lived Spark 3.5 + Hudi 0.15 JVM answering JSON requests.

Run by the oracle virtualenv's interpreter (``tools/oracle/setup.sh`` builds it), never by ours:
hudi-sql needs Spark 4, the Hudi 0.15 bundle needs Spark 3.5, so the two engines live in two
processes and talk over pipes.

Protocol (one JSON document per line, both ways):

* request: ``{"steps": [step, ...]}`` (or the bare list), a step being one of
  ``{"sql": "..."}`` -> ``{"columns": [...], "rows": [[...], ...]}`` (empty for commands);
  ``{"write": {"path", "options", "mode", "rows", "schema"}}`` -> ``{"ok": true}``
  (a DataFrame write with ``format("hudi")``; *schema* is a Spark DDL string, *rows* lists
  of JSON values, ISO strings for timestamps and dates, strings for decimals);
  ``{"read": {"path", "options"}}`` -> rows as for ``sql``;
  ``{"python": "code", "vars": {...}}`` runs *code* with ``spark`` and *vars* in scope (a
  user's PySpark snippet, unchanged) -> the rows of the DataFrame it leaves in ``result``, if any.
* response: ``{"results": [...]}`` with one result per step; a step that raises ends the
  request with ``{"error": "...", "step": i, "results": [...the steps before...], "causes": [...]}``
  (``causes``: the Java exception's "Caused by" lines, innermost last) and the process carries on
  with the next request.
* the first line the driver writes is ``{"ready": true, "spark": ..., "pid": ...}``.

Values are rendered so the two engines compare equal when they hold the same data: timestamps as
UTC ISO strings, dates as ISO, decimals as their plain string, bytes as hex, structs as objects.

Everything else the process prints (Spark, log4j, py4j) goes to the log file: file descriptors
1 and 2 are pointed at it before the JVM starts, and the protocol uses a private copy of the
original stdout.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import decimal
import json
import math
import os
import sys
import traceback
from typing import Any


def _protocol_stream(log_path: str) -> Any:
    """Keep the real stdout for the protocol and send fds 1 and 2 (inherited by the JVM) to the log."""
    out_fd = os.dup(1)
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(log_fd)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - lives as long as the process
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115 - lives as long as the process
    return os.fdopen(out_fd, "w", buffering=1)


def _session(jar: str, state_dir: str) -> Any:
    from pyspark.sql import SparkSession

    warehouse = os.path.join(state_dir, "warehouse")
    metastore = os.path.join(state_dir, "metastore_db")
    return (
        SparkSession.builder.master("local[2]")
        .appName("hudi-oracle")
        .config("spark.jars", jar)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.sql.extensions", "org.apache.spark.sql.hudi.HoodieSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.hudi.catalog.HoodieCatalog")
        .config("spark.kryo.registrator", "org.apache.spark.HoodieSparkKryoRegistrar")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        # Apache Hudi's SQL writes sync every commit to the session's Hive metastore when the session
        # uses one (a new metastore client each time: ~40 % of a 20-row INSERT's 3 s here). Nothing the
        # oracle answers comes from the metastore's copy (Hudi's catalog reads schema and partitions
        # from the table), so its sync is off; ours is tested against engines we did not write.
        .config("hoodie.datasource.meta.sync.enable", "false")
        .config("hoodie.datasource.hive_sync.enable", "false")
        # Java 17 closes java.util.concurrent.locks to reflection, which Kryo needs to ship Apache
        # Hudi's metadata table reader to the bloom index's tasks (hoodie.bloom.index.use.metadata).
        .config("spark.driver.extraJavaOptions", f"-Duser.timezone=UTC -Dderby.system.home={state_dir} "
                "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED")
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.local.dir", os.path.join(state_dir, "tmp"))
        .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                f"jdbc:derby:;databaseName={metastore};create=true")
        .config("spark.sql.catalogImplementation", "hive")
        .enableHiveSupport()
        .getOrCreate()
    )


def render(value: Any) -> Any:
    """A JSON value that is the same for the same data in either engine (see the module doc)."""
    from pyspark.sql import Row

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else value
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, datetime.datetime):
        aware = value if value.tzinfo else value.astimezone()
        return aware.astimezone(datetime.timezone.utc).replace(tzinfo=None).isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).hex()
    if isinstance(value, Row):
        return {k: render(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {str(k): render(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render(v) for v in value]
    return str(value)


def _frame_result(df: Any) -> dict[str, Any]:
    columns = list(df.columns)
    return {"columns": columns, "rows": [[render(v) for v in row] for row in df.collect()]}


def _typed_rows(rows: list[Any], schema: Any) -> list[Any]:
    """JSON rows -> Python values Spark accepts for *schema* (top-level timestamps, dates, decimals)."""
    from pyspark.sql import types as T

    converters = []
    for field in schema.fields:
        if isinstance(field.dataType, (T.TimestampType, T.TimestampNTZType)):
            converters.append(lambda v: datetime.datetime.fromisoformat(v) if isinstance(v, str) else v)
        elif isinstance(field.dataType, T.DateType):
            converters.append(lambda v: datetime.date.fromisoformat(v) if isinstance(v, str) else v)
        elif isinstance(field.dataType, T.DecimalType):
            converters.append(lambda v: decimal.Decimal(str(v)) if v is not None else v)
        elif isinstance(field.dataType, T.BinaryType):
            converters.append(lambda v: base64.b16decode(v.upper()) if isinstance(v, str) else v)
        else:
            converters.append(lambda v: v)
    out = []
    for row in rows:
        values = [row.get(f.name) for f in schema.fields] if isinstance(row, dict) else list(row)
        out.append(tuple(conv(v) for conv, v in zip(converters, values)))
    return out


def run_step(spark: Any, step: dict[str, Any]) -> dict[str, Any]:
    if "sql" in step:
        return _frame_result(spark.sql(step["sql"]))
    if "write" in step:
        from pyspark.sql.types import _parse_datatype_string

        spec = step["write"]
        schema = _parse_datatype_string(spec["schema"])
        df = spark.createDataFrame(_typed_rows(spec.get("rows", []), schema), schema)
        (df.write.format("hudi").options(**{k: str(v) for k, v in spec.get("options", {}).items()})
         .mode(spec.get("mode", "append")).save(spec["path"]))
        return {"ok": True}
    if "read" in step:
        spec = step["read"]
        reader = spark.read.format("hudi")
        for key, value in spec.get("options", {}).items():
            reader = reader.option(key, str(value))
        return _frame_result(reader.load(spec["path"]))
    if "python" in step:
        scope: dict[str, Any] = {"spark": spark, **step.get("vars", {})}
        exec(step["python"], scope)  # noqa: S102 - a test's own snippet, run as a user would paste it
        result = scope.get("result")
        return _frame_result(result) if result is not None else {"ok": True}
    raise ValueError(f"unknown step {sorted(step)}: expected one of sql, write, read, python")


def handle(spark: Any, request: Any) -> dict[str, Any]:
    steps = request["steps"] if isinstance(request, dict) else request
    results: list[dict[str, Any]] = []
    for index, step in enumerate(steps):
        try:
            results.append(run_step(spark, step))
        except Exception as exc:  # noqa: BLE001 - the error goes back to the caller; the JVM stays up
            traceback.print_exc()
            message = str(exc).strip().splitlines()
            return {"error": f"{type(exc).__name__}: {message[0] if message else ''}"[:2000],
                    "detail": str(exc)[:8000], "step": index, "results": results,
                    "causes": [line.strip()[:500] for line in str(exc).splitlines()
                               if line.strip().startswith("Caused by:")]}
    return {"results": results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", required=True, help="the hudi-spark3.5-bundle jar (more jars after commas)")
    parser.add_argument("--state-dir", required=True, help="warehouse, metastore and scratch space")
    parser.add_argument("--log", required=True, help="file for everything that is not protocol")
    args = parser.parse_args()
    os.makedirs(args.state_dir, exist_ok=True)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["TZ"] = "UTC"
    out = _protocol_stream(args.log)
    os.chdir(args.state_dir)  # derby.log and spark-warehouse strays land here, not in the caller's cwd
    try:
        spark = _session(args.jar, args.state_dir)
        spark.sparkContext.setLogLevel("WARN")
    except Exception as exc:  # noqa: BLE001 - reported to the caller as a failed start
        traceback.print_exc()
        out.write(json.dumps({"ready": False, "error": f"{type(exc).__name__}: {exc}"[:4000]}) + "\n")
        return 1
    import pyspark

    out.write(json.dumps({"ready": True, "spark": pyspark.__version__, "pid": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            response = handle(spark, json.loads(line))
        except Exception as exc:  # noqa: BLE001 - a malformed request is answered, not fatal
            response = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
        out.write(json.dumps(response) + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
