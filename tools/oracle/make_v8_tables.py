"""Write small table-version-8 (and 9) tables with Apache Hudi 1.x, and record Apache Hudi's own reads of them.

Run by the oracle virtualenv's interpreter (PySpark 3.5) with the 1.x bundle that
``tools/oracle/setup_v1.sh`` fetches, never by ours::

    python tools/oracle/make_v8_tables.py --jar <hudi-spark3.5-bundle 1.x> --out <dir> --log <file> [--versions 8 9]

It writes ``<dir>/<table>/`` for each case of :data:`TABLES` and each table version asked for
(``v8_cow_p``, ``v9_cow_p``, ...; version 9 needs Apache Hudi 1.1+) through Apache Hudi's SQL, then
``<dir>/expected.json``: per table its path, type, the completed write instants
(requested and completion time, read from ``.hoodie/timeline/``) and, for every read the
tests replay on our side (snapshot, read-optimized, incremental, time travel), the options
and the rows Apache Hudi returned, rendered as ``tools/oracle/driver.py`` renders them.

The Spark session and the value rendering are the driver's (imported from the same folder),
so rows compare the same way in every oracle test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from driver import _frame_result, _protocol_stream, _session

COLUMNS = "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING"

# name -> (table type, partitioned, ordering field or None, SQL steps)
TABLES: dict[str, tuple[str, bool, str | None, list[str]]] = {
    "v8_cow_p": ("cow", True, "ts", [
        "INSERT INTO {t} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'sf')",
        "UPDATE {t} SET price = price * 2, ts = 2 WHERE id IN (1, 2)",
        "DELETE FROM {t} WHERE id = 3",
        "INSERT INTO {t} VALUES (4, 'd', 40.0, 3, 'la')",
    ]),
    "v8_cow_np": ("cow", False, None, [
        "INSERT INTO {t} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc')",
        "UPDATE {t} SET name = 'a2' WHERE id = 1",
        "INSERT INTO {t} VALUES (3, 'c', 30.0, 1, 'sf')",
    ]),
    "v8_mor_p": ("mor", True, "ts", [
        ("INSERT INTO {t} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'sf'), "
         "(4, 'd', 40.0, 1, 'la')"),
        "UPDATE {t} SET price = price * 2, ts = 2 WHERE id IN (1, 2)",
        "DELETE FROM {t} WHERE id = 3",
        # event-time ordering: the late record (ts 0 < 2) must lose to the stored one for id 1
        ("MERGE INTO {t} t USING (SELECT 1 AS id, 'late' AS name, 1.0 AS price, 0L AS ts, 'sf' AS city "
         "UNION ALL SELECT 5, 'e', 50.0, 3L, 'nyc' UNION ALL SELECT 4, 'd2', 44.0, 3L, 'la') s "
         "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
    ]),
    "v8_cow_archived": ("cow", True, "ts", [
        f"INSERT INTO {{t}} VALUES ({i}, 'n{i}', {i}.0, {i}, '{city}')"
        for i, city in enumerate(["sf", "nyc", "sf", "la", "nyc"], 1)
    ] + ["UPDATE {t} SET name = 'late', ts = 9 WHERE id = 1"]),
    "v8_mor_np": ("mor", False, None, [
        "INSERT INTO {t} VALUES (1, 'a', 10.0, 5, 'sf'), (2, 'b', 20.0, 5, 'nyc'), (3, 'c', 30.0, 5, 'sf')",
        # commit-time ordering (no ordering field): the later write wins whatever its ts
        "UPDATE {t} SET name = 'a2', ts = 1 WHERE id = 1",
        "DELETE FROM {t} WHERE id = 2",
    ]),
}


#: Table properties of cases beyond the defaults: archival after a few commits, so that Apache
#: Hudi moves the oldest instants into the LSM timeline (``.hoodie/timeline/history/``).
EXTRA_PROPERTIES: dict[str, dict[str, str]] = {
    "v8_cow_archived": {"hoodie.keep.min.commits": "2", "hoodie.keep.max.commits": "3",
                        "hoodie.cleaner.commits.retained": "1", "hoodie.metadata.enable": "false"},
}


#: The cases also written at version 9: the merge descriptions it changes (event time with logs
#: holding updates and deletes, commit time), each on Merge-On-Read, and a Copy-On-Write table;
#: the others would add time, not coverage (version 9 keeps version 8's files and timeline).
VERSION_9_CASES = ("v8_cow_p", "v8_mor_p", "v8_mor_np")


def versioned(name: str, version: int) -> str:
    """The name of a :data:`TABLES` case written at *version* (the cases are named for version 8)."""
    return name.replace("v8_", f"v{version}_", 1)


def _create(spark: Any, name: str, path: Path, table_type: str, partitioned: bool, ordering: str | None,
            version: int) -> None:
    case = name.replace(f"v{version}_", "v8_", 1)
    props = [f"type = '{table_type}'", "primaryKey = 'id'", f"'hoodie.write.table.version' = '{version}'",
             *(f"'{key}' = '{value}'" for key, value in EXTRA_PROPERTIES.get(case, {}).items())]
    if ordering:
        props.append(f"preCombineField = '{ordering}'")
    spark.sql(f"DROP TABLE IF EXISTS {name}")
    spark.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi {'PARTITIONED BY (city) ' if partitioned else ''}"
              f"LOCATION '{path}' TBLPROPERTIES ({', '.join(props)})")


def completed_writes(path: Path) -> list[dict[str, str]]:
    """Completed commit / deltacommit / replacecommit instants of a layout-2 timeline, oldest first."""
    out = []
    timeline = path / ".hoodie" / "timeline"
    for entry in sorted(os.listdir(timeline)):
        stem, _, action = entry.partition(".")
        if action in ("commit", "deltacommit", "replacecommit") and "_" in stem:
            requested, completion = stem.split("_", 1)
            out.append({"requested": requested, "completion": completion, "action": action})
    return sorted(out, key=lambda i: i["completion"])


def archived_commits(spark: Any, path: str) -> list[str]:
    """The requested times of the commits in Apache Hudi's own archived timeline of *path* (its
    ``HoodieTableMetaClient.getArchivedTimeline``, through the session's JVM)."""
    jvm = spark._jvm
    conf = jvm.org.apache.hudi.storage.hadoop.HadoopStorageConfiguration(spark._jsc.hadoopConfiguration())
    meta = jvm.org.apache.hudi.common.table.HoodieTableMetaClient.builder().setConf(conf).setBasePath(path).build()
    return sorted(str(i.requestedTime()) for i in meta.getArchivedTimeline().getCommitsTimeline().getInstants())


def _reads(table_type: str, writes: list[dict[str, str]], archived: bool = False) -> list[tuple[str, dict[str, str]]]:
    reads: list[tuple[str, dict[str, str]]] = [("snapshot", {})]
    if archived:  # the cleaner removed what older reads need: only the latest writes stay readable
        incr = {"hoodie.datasource.query.type": "incremental",
                "hoodie.datasource.read.begin.instanttime": writes[-2]["completion"]}
        return [*reads, ("incremental_after_last_but_one", incr),
                ("time_travel_completion_last", {"as.of.instant": writes[-1]["completion"]})]
    if table_type == "mor":
        reads.append(("read_optimized", {"hoodie.datasource.query.type": "read_optimized"}))
    incr = {"hoodie.datasource.query.type": "incremental"}
    reads.append(("incremental_all", {**incr, "hoodie.datasource.read.begin.instanttime": "000"}))
    for i, instant in enumerate(writes[:-1]):
        reads.append((f"incremental_after_{i}",
                      {**incr, "hoodie.datasource.read.begin.instanttime": instant["completion"]}))
    if len(writes) > 2:
        reads.append(("incremental_window_1", {**incr,
                                               "hoodie.datasource.read.begin.instanttime": writes[0]["completion"],
                                               "hoodie.datasource.read.end.instanttime": writes[1]["completion"]}))
    for i, instant in enumerate(writes):
        # both times of each write: which one time travel compares with is part of what is checked
        reads.append((f"time_travel_completion_{i}", {"as.of.instant": instant["completion"]}))
        reads.append((f"time_travel_requested_{i}", {"as.of.instant": instant["requested"]}))
    return reads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jar", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--only", nargs="*", help="table names (default: all)")
    parser.add_argument("--versions", nargs="*", type=int, default=[8], help="table versions to write (default: 8)")
    args = parser.parse_args()
    out_dir = Path(args.out).resolve()
    state = out_dir / "_state"
    state.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["TZ"] = "UTC"
    protocol = _protocol_stream(args.log)
    os.chdir(state)
    try:
        spark = _session(args.jar, str(state))
        spark.sparkContext.setLogLevel("WARN")
        expected: dict[str, Any] = {}
        cases = [(versioned(case, version), version, spec) for version in args.versions
                 for case, spec in TABLES.items() if version == 8 or case in VERSION_9_CASES]
        for name, version, (table_type, partitioned, ordering, steps) in cases:
            if args.only and name not in args.only:
                continue
            path = out_dir / name
            _create(spark, name, path, table_type, partitioned, ordering, version)
            for step in steps:
                spark.sql(step.format(t=name))
            writes = completed_writes(path)
            reads = []
            for label, options in _reads(table_type, writes, archived=name.endswith("_archived")):
                reader = spark.read.format("hudi")
                for key, value in options.items():
                    reader = reader.option(key, value)
                reads.append({"label": label, "options": options, "result": _frame_result(reader.load(str(path)))})
            expected[name] = {"path": str(path), "version": version, "type": table_type, "partitioned": partitioned,
                              "ordering": ordering, "writes": writes, "reads": reads,
                              "archived": archived_commits(spark, str(path))}
        (out_dir / "expected.json").write_text(json.dumps(expected, indent=1))
        spark.stop()
    except Exception as exc:  # noqa: BLE001 - reported to the caller, details in the log
        traceback.print_exc()
        protocol.write(json.dumps({"ok": False, "error": f"{type(exc).__name__}: {exc}"[:4000]}) + "\n")
        return 1
    protocol.write(json.dumps({"ok": True, "tables": sorted(expected)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
