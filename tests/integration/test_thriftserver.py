"""The HiveServer2 endpoint, driven by the clients users run: PyHive and Beeline.

The server runs in this process over the shared ``spark`` fixture (port picked free) and is
stopped by its handle; one test runs ``hudi-sql thriftserver`` as its own process and stops it
with SIGTERM by pid. Beeline and that server run in process groups of their own, killed by
that id if they overstay. Tables are written with ``hudi_sql.write`` and registered as hive sync
names them: the Copy-On-Write table as ``hs2_trips``, the Merge-On-Read table as
``hs2_events_ro`` (read-optimized) and ``hs2_events_rt`` (snapshot). The Merge-On-Read table
is also registered as ``hs2_events`` (how ``CREATE TABLE`` in hudi-sql registers it).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from process_helpers import free_port

pytestmark = [pytest.mark.spark]

KEYS = {
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "p",
    "hoodie.datasource.write.precombine.field": "ts",
}
TRIPS_SCHEMA = "id int, name string, fare double, ts long, p string"
EVENTS_SCHEMA = "id int, name string, ts long, p string"
TABLES = ("hs2_trips", "hs2_events", "hs2_events_ro", "hs2_events_rt")


@dataclass
class Tables:
    """The tables the tests share, and what each must hold now (id -> name)."""

    trips_path: str
    events_path: str
    trips: dict[int, str] = field(default_factory=dict)
    events_snapshot: dict[int, str] = field(default_factory=dict)
    events_read_optimized: dict[int, str] = field(default_factory=dict)


def _trips_options() -> dict[str, str]:
    return {**KEYS, "hoodie.table.name": "hs2_trips"}


def _events_options() -> dict[str, str]:
    return {**KEYS, "hoodie.table.name": "hs2_events", "hoodie.datasource.write.table.type": "MERGE_ON_READ"}


@pytest.fixture(scope="module")
def tables(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tables]:
    import hudi_sql

    root = tmp_path_factory.mktemp("thriftserver")
    t = Tables(str(root / "hs2_trips"), str(root / "hs2_events"))
    trips = [(1, "a", 1.5, 1, "p1"), (2, "b", 2.5, 1, "p1"), (3, "c", 3.5, 1, "p2")]
    hudi_sql.write(spark.createDataFrame(trips, TRIPS_SCHEMA), t.trips_path, _trips_options())
    t.trips = {r[0]: r[1] for r in trips}
    events = [(1, "e1", 1, "p1"), (2, "e2", 1, "p1")]
    hudi_sql.write(spark.createDataFrame(events, EVENTS_SCHEMA), t.events_path, _events_options())
    # An update of a Merge-On-Read table goes to a log file: only the snapshot merges it.
    hudi_sql.write(spark.createDataFrame([(1, "e1-v2", 2, "p1")], EVENTS_SCHEMA), t.events_path, _events_options())
    t.events_snapshot = {1: "e1-v2", 2: "e2"}
    t.events_read_optimized = {1: "e1", 2: "e2"}
    db = hudi_sql.connect(spark)
    for name in TABLES:
        db.sql(f"DROP TABLE IF EXISTS {name}")
    db.sql(f"CREATE TABLE hs2_trips USING hudi LOCATION '{t.trips_path}'")
    # hs2_events_ro / _rt as Hive sync registers them: the ro-table property says how each is read
    # (a table's name alone does not, as in Apache Hudi).
    for name, ro in (("hs2_events", None), ("hs2_events_ro", "true"), ("hs2_events_rt", "false")):
        props = f" TBLPROPERTIES ('hoodie.query.as.ro.table' = '{ro}')" if ro else ""
        db.sql(f"CREATE TABLE {name} USING hudi LOCATION '{t.events_path}'{props}")
    yield t
    for name in TABLES:
        spark.sql(f"DROP TABLE IF EXISTS {name}")


@pytest.fixture(scope="module")
def server(spark: Any, tables: Tables) -> Iterator[Any]:
    from hudi_sql.apps.hiveserver2 import start_thriftserver

    running = start_thriftserver(spark, host="127.0.0.1", port=0)
    try:
        yield running
    finally:
        running.stop()
    assert not running.running


def _connect(server: Any, **kwargs: Any) -> Any:
    from pyhive import hive

    return hive.connect(host="127.0.0.1", port=server.port, username="test", **kwargs)


def _query(connection: Any, sql: str) -> list[tuple[Any, ...]]:
    cursor = connection.cursor()
    try:
        cursor.execute(sql)
        return [tuple(r) for r in cursor.fetchall()]
    finally:
        cursor.close()


def _run(connection: Any, sql: str) -> None:
    """A statement whose result (if any) is not needed: DDL, DML."""
    cursor = connection.cursor()
    try:
        cursor.execute(sql)
    finally:
        cursor.close()


def _names(connection: Any, table: str, hint: str = "") -> dict[int, str]:
    return dict(_query(connection, f"SELECT {hint} id, name FROM {table} ORDER BY id"))


# PyHive ------------------------------------------------------------------------------------------


def test_pyhive_cow_and_mor_tables_hudi_correct_rows(server: Any, tables: Tables) -> None:
    connection = _connect(server)
    try:
        assert _names(connection, "hs2_trips") == tables.trips
        assert _names(connection, "hs2_events_rt") == tables.events_snapshot
        assert _names(connection, "hs2_events") == tables.events_snapshot
        assert _names(connection, "hs2_events", "/*+ READ_OPTIMIZED(hs2_events) */") == tables.events_read_optimized
    finally:
        connection.close()


def test_pyhive_ro_table_read_optimized_rows(server: Any, tables: Tables) -> None:
    connection = _connect(server)
    try:
        assert _names(connection, "hs2_events_ro") == tables.events_read_optimized
        assert _names(connection, "hs2_events_rt") == tables.events_snapshot
        hinted = "/*+ SNAPSHOT(hs2_events_ro) */"
        assert _names(connection, "hs2_events_ro", hinted) == tables.events_snapshot  # a hint wins
        assert _names(connection, "hs2_trips_rt") == tables.trips  # only hs2_trips is registered
    finally:
        connection.close()


def test_hudi_sql_sync_in_jdbc_mode_against_this_server_registers_tables_it_reads(
        spark: Any, server: Any, tables: Tables) -> None:
    """The README's ``hudi-sql sync --mode jdbc`` pointed at hudi-sql's own thriftserver."""
    import io

    from hudi_sql.apps.cli import main

    err = io.StringIO()
    spark.sql("DROP DATABASE IF EXISTS hs2_sync_db CASCADE")
    try:
        command = ["sync", "--base-path", tables.events_path, "--mode", "jdbc",
                   "--jdbc-url", f"jdbc:hive2://127.0.0.1:{server.port}", "--database", "hs2_sync_db",
                   "--table", "synced_events"]
        out = io.StringIO()
        status = main(command, stdout=out, stderr=err)
        assert status == 0, err.getvalue()
        said = out.getvalue()  # a line per change, not the plan's repr
        assert "created database hs2_sync_db" in said
        assert "hs2_sync_db.synced_events_ro: registered" in said and "hs2_sync_db.synced_events_rt: registered" in said
        assert "TablePlan(" not in said and len(said) < 1000
        again = io.StringIO()
        assert main([*command, "--output", "json"], stdout=again, stderr=err) == 0, err.getvalue()
        figures = json.loads(again.getvalue())
        assert [t["table"] for t in figures["tables"]] == ["synced_events_ro", "synced_events_rt"]
        assert not figures["database_created"] and figures["error"] is None
        connection = _connect(server)
        try:
            assert _names(connection, "hs2_sync_db.synced_events_rt") == tables.events_snapshot
            assert _names(connection, "hs2_sync_db.synced_events_ro") == tables.events_read_optimized
        finally:
            connection.close()
    finally:
        spark.sql("DROP DATABASE IF EXISTS hs2_sync_db CASCADE")


def test_pyhive_new_commit_visible_in_next_query(spark: Any, server: Any, tables: Tables) -> None:
    import hudi_sql

    connection = _connect(server)
    try:
        assert _names(connection, "hs2_trips") == tables.trips
        hudi_sql.write(spark.createDataFrame([(2, "b-v2", 2.75, 2, "p1"), (4, "d", 4.5, 2, "p2")], TRIPS_SCHEMA),
                       tables.trips_path, _trips_options())
        tables.trips.update({2: "b-v2", 4: "d"})
        assert _names(connection, "hs2_trips") == tables.trips  # same session, no refresh
        hudi_sql.write(spark.createDataFrame([(2, "e2-v2", 3, "p1")], EVENTS_SCHEMA), tables.events_path,
                       _events_options())
        tables.events_snapshot[2] = "e2-v2"
        assert _names(connection, "hs2_events_rt") == tables.events_snapshot
    finally:
        connection.close()


def test_pyhive_types_values_and_nulls(server: Any) -> None:
    import datetime
    import decimal

    connection = _connect(server)
    cursor = connection.cursor()
    try:
        cursor.execute(
            "SELECT 1 AS i, CAST(2 AS BIGINT) AS l, CAST(3 AS SMALLINT) AS s, CAST(4 AS TINYINT) AS t, true AS b, "
            "1.5D AS d, CAST(1.25 AS DECIMAL(10, 2)) AS dec, DATE'2024-01-02' AS dt, "
            "TIMESTAMP'2024-01-02 03:04:05.123' AS ts, X'0102' AS bin, array(1, 2) AS arr, map('k', 1) AS m, "
            "named_struct('a', 1, 'b', 'x') AS st, CAST(NULL AS INT) AS n, 'text' AS str "
            "UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 5, NULL")
        rows = cursor.fetchall()
        types = [(d[0], d[1]) for d in cursor.description]
    finally:
        cursor.close()
        connection.close()
    assert types == [("i", "INT_TYPE"), ("l", "BIGINT_TYPE"), ("s", "SMALLINT_TYPE"), ("t", "TINYINT_TYPE"),
                     ("b", "BOOLEAN_TYPE"), ("d", "DOUBLE_TYPE"), ("dec", "DECIMAL_TYPE"), ("dt", "DATE_TYPE"),
                     ("ts", "TIMESTAMP_TYPE"), ("bin", "BINARY_TYPE"), ("arr", "ARRAY_TYPE"), ("m", "MAP_TYPE"),
                     ("st", "STRUCT_TYPE"), ("n", "INT_TYPE"), ("str", "STRING_TYPE")]
    full, empty = sorted(rows, key=lambda r: r[0] is None)
    assert full == (1, 2, 3, 4, True, 1.5, decimal.Decimal("1.25"), "2024-01-02",
                    datetime.datetime(2024, 1, 2, 3, 4, 5, 123000), b"\x01\x02", "[1,2]", '{"k":1}',
                    '{"a":1,"b":"x"}', None, "text")
    assert empty == (None,) * 13 + (5, None)


def test_pyhive_many_rows_fetched_in_pages(server: Any) -> None:
    connection = _connect(server)
    cursor = connection.cursor(arraysize=300)
    try:
        cursor.execute("SELECT id, CAST(id AS STRING) AS s FROM range(0, 1000)")
        rows = cursor.fetchall()
    finally:
        cursor.close()
        connection.close()
    assert rows == [(i, str(i)) for i in range(1000)]


def _tasks_run(spark: Any, group: str) -> int:
    """How many tasks Spark ran for the statement whose job group is *group*."""
    tracker = spark.sparkContext.statusTracker()
    total = 0
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        for stage in info.stageIds if info else ():
            stage_info = tracker.getStageInfo(stage)
            total += stage_info.numCompletedTasks if stage_info else 0
    return total


def test_pyhive_large_result_is_computed_as_it_is_fetched_not_held_whole(spark: Any, server: Any) -> None:
    """A 20-partition result: the first page needs the first wave of partitions only, the rest
    are computed as the client reads on, and every row arrives once, in order."""
    connection = _connect(server)
    cursor = connection.cursor(arraysize=1000)
    try:
        cursor.execute("SELECT id FROM range(0, 200000, 1, 20)")
        group = f"hudi-sql-hs2-{cursor._operationHandle.operationId.guid.hex()}"
        first = cursor.fetchmany(10)
        assert 0 < _tasks_run(spark, group) <= spark.sparkContext.defaultParallelism < 20
        rest = cursor.fetchall()
    finally:
        cursor.close()
        connection.close()
    assert [r[0] for r in first + rest] == list(range(200000))
    assert _tasks_run(spark, group) == 20


def test_pyhive_async_statement_runs_is_cancelled_or_times_out_and_reports_failures(server: Any) -> None:
    """``runAsync``: the handle comes back while the statement runs; cancel and a query timeout
    stop its Spark jobs and say so; a failure is the status's message and SQLSTATE; the session goes on."""
    from TCLIService import ttypes as tt

    endless = "SELECT max(id) FROM range(0, 1000000000000, 1, 2)"
    connection = _connect(server)
    cursor = connection.cursor()
    try:
        cursor.execute(endless, async_=True)
        cursor.cancel()  # answers once the statement has stopped
        assert cursor.poll().operationState == tt.TOperationState.CANCELED_STATE
        assert _query(connection, "SELECT 1") == [(1,)]  # the session is free again

        request = tt.TExecuteStatementReq(sessionHandle=connection.sessionHandle, statement=endless,
                                          runAsync=True, queryTimeout=1)
        response = connection.client.ExecuteStatement(request)
        assert response.status.statusCode == tt.TStatusCode.SUCCESS_STATUS
        status = connection.client.GetOperationStatus(tt.TGetOperationStatusReq(response.operationHandle))
        while status.operationState in (tt.TOperationState.PENDING_STATE, tt.TOperationState.RUNNING_STATE):
            status = connection.client.GetOperationStatus(tt.TGetOperationStatusReq(response.operationHandle))
        assert status.operationState == tt.TOperationState.TIMEDOUT_STATE

        cursor.execute("SELECT * FROM hs2_no_such_table", async_=True)
        failed = cursor.poll()
        assert failed.operationState == tt.TOperationState.ERROR_STATE
        assert failed.sqlState == "42P01" and "hs2_no_such_table" in failed.errorMessage
        cursor.execute("SELECT 2 AS two", async_=True)
        assert cursor.poll().operationState == tt.TOperationState.FINISHED_STATE
        assert cursor.fetchall() == [(2,)]
    finally:
        cursor.close()
        connection.close()


def test_pyhive_error_status_message_and_sqlstate(server: Any) -> None:
    from pyhive.exc import OperationalError

    connection = _connect(server)
    try:
        with pytest.raises(OperationalError) as missing:
            _query(connection, "SELECT * FROM hs2_no_such_table")
        status = missing.value.args[0].status
        assert status.sqlState == "42P01"
        assert "hs2_no_such_table" in status.errorMessage
        with pytest.raises(OperationalError) as syntax:
            _query(connection, "SELEC 1")
        assert syntax.value.args[0].status.sqlState == "42601"  # Spark's PARSE_SYNTAX_ERROR
        assert "at or near 'SELEC'" in syntax.value.args[0].status.errorMessage
        assert _query(connection, "SELECT 1") == [(1,)]  # the session survives errors
    finally:
        connection.close()


def test_pyhive_session_configuration_sets_options(server: Any, tables: Tables) -> None:
    connection = _connect(server, configuration={"set:hiveconf:hoodie.datasource.query.type": "read_optimized"})
    other = _connect(server)
    try:
        assert _names(connection, "hs2_events") == tables.events_read_optimized
        assert _names(other, "hs2_events") == tables.events_snapshot  # options belong to their session
    finally:
        connection.close()
        other.close()


def test_pyhive_session_keeps_a_table_in_a_bucket_with_the_store_keys_it_sets(server: Any, object_store: Any) -> None:
    """A PyHive session SETs Hadoop's S3A keys, as a Spark SQL user would, and then creates,
    writes and reads a table at an ``s3a://`` location; the objects are in the bucket."""
    connection = _connect(server)
    try:
        for key, value in object_store.hadoop_keys.items():
            _run(connection, f"SET {key}={value}")
        _run(connection, "CREATE TABLE hs2_s3 (id INT, name STRING, ts BIGINT) USING hudi LOCATION 's3a://lake/hs2_s3' "
                         "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')")
        _run(connection, "INSERT INTO hs2_s3 VALUES (1, 'a', 1), (2, 'b', 1)")
        _run(connection, "UPDATE hs2_s3 SET name = 'B', ts = 2 WHERE id = 2")
        assert _names(connection, "hs2_s3") == {1: "a", 2: "B"}
        _run(connection, "DROP TABLE hs2_s3")
    finally:
        connection.close()
    assert "hs2_s3/.hoodie/hoodie.properties" in object_store.keys_under("hs2_s3/.hoodie")


def test_pyhive_sessions_write_one_table_side_by_side_and_lose_no_update(
        server: Any, tmp_path: Path) -> None:
    """Sessions of one server write one table at once (optimistic concurrency control is the
    server's default): updates of different partitions all commit; of updates racing for one
    row, each commits or fails with SQLSTATE 40001, and the row counts exactly the commits."""
    from pyhive.exc import OperationalError

    setup = _connect(server)
    _run(setup, "DROP TABLE IF EXISTS hs2_counters")
    _run(setup, "CREATE TABLE hs2_counters (id INT, n INT, p STRING) USING hudi PARTITIONED BY (p) "
                  f"TBLPROPERTIES (primaryKey = 'id') LOCATION '{tmp_path / 'hs2_counters'}'")
    _run(setup, "INSERT INTO hs2_counters VALUES (1, 0, 'p1'), (2, 0, 'p2'), (3, 0, 'p3')")

    def increment(ids: list[int], outcomes: list[str], start: threading.Barrier) -> None:
        connection = _connect(server)
        try:
            start.wait()
            for row in ids:
                try:
                    _run(connection, f"UPDATE hs2_counters SET n = n + 1 WHERE id = {row}")
                    outcomes.append("commit")
                except OperationalError as exc:
                    outcomes.append(exc.args[0].status.sqlState)
        finally:
            connection.close()

    def run_at_once(work: list[list[int]]) -> list[list[str]]:
        outcomes: list[list[str]] = [[] for _ in work]
        start = threading.Barrier(len(work))
        threads = [threading.Thread(target=increment, args=(ids, out, start)) for ids, out in zip(work, outcomes)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=600)
        return outcomes

    try:
        disjoint = run_at_once([[1, 1], [2, 2], [3, 3]])
        assert disjoint == [["commit", "commit"]] * 3
        assert _query(setup, "SELECT id, n FROM hs2_counters ORDER BY id") == [(1, 2), (2, 2), (3, 2)]

        racing = [o for out in run_at_once([[1, 1], [1, 1]]) for o in out]
        assert set(racing) <= {"commit", "40001"} and "commit" in racing, racing
        assert _query(setup, "SELECT n FROM hs2_counters WHERE id = 1") == [(2 + racing.count("commit"),)]
    finally:
        _run(setup, "DROP TABLE IF EXISTS hs2_counters")
        setup.close()


def test_pyhive_nosasl_binary_transport(server: Any, tables: Tables) -> None:
    connection = _connect(server, auth="NOSASL")
    try:
        assert _names(connection, "hs2_trips") == tables.trips
    finally:
        connection.close()


def test_metadata_calls_list_schemas_tables_columns(server: Any) -> None:
    from TCLIService import ttypes as tt

    connection = _connect(server)
    client, session = connection.client, connection.sessionHandle

    def fetch(response: Any) -> list[tuple[Any, ...]]:
        assert response.status.statusCode == tt.TStatusCode.SUCCESS_STATUS, response.status
        page = client.FetchResults(tt.TFetchResultsReq(response.operationHandle, tt.TFetchOrientation.FETCH_NEXT,
                                                       10_000))
        columns = [next(v for v in vars(c).values() if v is not None).values for c in page.results.columns]
        client.CloseOperation(tt.TCloseOperationReq(response.operationHandle))
        return list(zip(*columns))

    try:
        info = client.GetInfo(tt.TGetInfoReq(session, tt.TGetInfoType.CLI_DBMS_NAME))
        assert info.infoValue.stringValue == "Spark SQL"
        assert ("default", "") in fetch(client.GetSchemas(tt.TGetSchemasReq(session, schemaName="def%")))
        tables = fetch(client.GetTables(tt.TGetTablesReq(session, schemaName="default", tableName="hs2\\_events%")))
        assert sorted(r[2] for r in tables) == ["hs2_events", "hs2_events_ro", "hs2_events_rt"]
        assert {r[3] for r in tables} == {"TABLE"}
        columns = fetch(client.GetColumns(tt.TGetColumnsReq(session, schemaName="default", tableName="hs2_trips")))
        by_name = {r[3]: r for r in columns}
        assert {"id", "name", "fare"} <= set(by_name)
        assert by_name["id"][4] == 4 and by_name["fare"][4] == 8  # java.sql.Types INTEGER, DOUBLE
        # the columns DESCRIBE lists, meta columns first, positions counting them (Beeline's !columns)
        described = [r[0] for r in _query(connection, "DESCRIBE hs2_trips")]
        assert [r[3] for r in sorted(columns, key=lambda r: r[16])] == [c for c in described if c and
                                                                       not c.startswith("#")][:len(columns)]
        assert [r[3] for r in columns][:2] == ["_hoodie_commit_time", "_hoodie_commit_seqno"]
        keys = fetch(client.GetPrimaryKeys(tt.TGetPrimaryKeysReq(session, schemaName="default",
                                                                 tableName="hs2_trips")))
        assert [(r[2], r[3], r[4]) for r in keys] == [("hs2_trips", "id", 1)]  # Beeline's !primarykeys
        assert ("TABLE",) in fetch(client.GetTableTypes(tt.TGetTableTypesReq(session)))
        assert any(r[0] == "DECIMAL" for r in fetch(client.GetTypeInfo(tt.TGetTypeInfoReq(session))))
        assert any(r[2] == "upper" for r in fetch(client.GetFunctions(tt.TGetFunctionsReq(session,
                                                                                          functionName="upp%"))))
        token = client.GetDelegationToken(tt.TGetDelegationTokenReq(session, "test", "test"))
        assert token.status.statusCode == tt.TStatusCode.ERROR_STATUS
    finally:
        connection.close()


# Beeline -----------------------------------------------------------------------------------------


def _beeline() -> list[str]:
    import pyspark

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Beeline needs Java (no java on PATH, no JAVA_HOME)")
    spark_home = os.path.dirname(pyspark.__file__)
    beeline = os.path.join(spark_home, "bin", "beeline")
    if not os.path.exists(beeline):
        pytest.skip(f"no Beeline in the PySpark wheel ({beeline})")
    return [beeline]


def _run_beeline(server: Any, statements: list[str], timeout: float = 180,
                 flags: tuple[str, ...] = ("--silent=true",)) -> subprocess.CompletedProcess[str]:
    import pyspark

    env = {**os.environ, "SPARK_HOME": os.path.dirname(pyspark.__file__), "SPARK_LOCAL_IP": "127.0.0.1"}
    command = _beeline() + ["-u", f"jdbc:hive2://127.0.0.1:{server.port}/default", "-n", "test",
                            "--outputformat=tsv2", *flags, "-e", "; ".join(statements)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own process group (start_new_session)
            proc.wait()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def _result_sets(stdout: str, headers: list[str]) -> dict[str, list[list[str]]]:
    """Rows under each header line of Beeline's ``tsv2`` output, by the header's first columns."""
    results: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    for raw in stdout.splitlines():
        line = re.sub(r"^(?:\d+: jdbc:hive2://\S*> |(?:\. )*\.?> )", "", raw)  # a prompt Beeline echoed
        header = next((h for h in headers if line == h or line.startswith(h + "\t")), None)
        if header is not None and header not in results:
            current = results[header] = []
        elif current is not None and line.strip():
            current.append(line.split("\t"))
    return results


def test_beeline_queries_merge_call_and_errors(server: Any, tables: Tables) -> None:
    trips = "trip_id\ttrip_name"
    snapshot, read_optimized = "rt_id\trt_name", "ro_id\tro_name"
    merged = "num_affected_rows\tnum_inserted_rows\tnum_updated_rows\tnum_deleted_rows\tinstant_time"
    after = "merged_id\tmerged_name"
    commits = "commit_time\tstate_transition_time\taction"
    result = _run_beeline(server, [
        "SELECT id AS trip_id, name AS trip_name FROM hs2_trips ORDER BY id",
        "SELECT id AS rt_id, name AS rt_name FROM hs2_events_rt ORDER BY id",
        "SELECT /*+ READ_OPTIMIZED(hs2_events) */ id AS ro_id, name AS ro_name FROM hs2_events ORDER BY id",
        ("MERGE INTO hs2_trips t USING (SELECT 3 AS id, 'c-merged' AS name, 9.5D AS fare, 10L AS ts, 'p2' AS p "
         "UNION ALL SELECT 5, 'e', 5.5D, 10L, 'p1') s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
        "SELECT id AS merged_id, name AS merged_name FROM hs2_trips ORDER BY id",
        "CALL show_commits(table => 'hs2_trips')",
        "SELECT * FROM hs2_no_such_table",
    ])
    assert result.returncode != 0, "the last statement fails, so Beeline exits non-zero"
    assert "hs2_no_such_table" in result.stderr and "state=42P01" in result.stderr, result.stderr
    results = _result_sets(result.stdout, [trips, snapshot, read_optimized, merged, after, commits])
    assert set(results) == {trips, snapshot, read_optimized, merged, after, commits}, result.stdout + result.stderr
    assert {int(r[0]): r[1] for r in results[trips]} == tables.trips
    assert {int(r[0]): r[1] for r in results[snapshot]} == tables.events_snapshot
    assert {int(r[0]): r[1] for r in results[read_optimized]} == tables.events_read_optimized
    (metrics,) = results[merged]
    assert metrics[:4] == ["2", "1", "1", "0"] and re.fullmatch(r"\d{17}", metrics[4])
    tables.trips.update({3: "c-merged", 5: "e"})
    assert {int(r[0]): r[1] for r in results[after]} == tables.trips
    assert metrics[4] in {r[0] for r in results[commits]}


def test_beeline_verbose_shows_the_statement_log(server: Any, tables: Tables) -> None:
    """Beeline's query log: what the write did and committed, its Spark stages, its time."""
    result = _run_beeline(server, ["INSERT INTO hs2_trips VALUES (7, 'g', 7.5, 11L, 'p1')"], flags=("--verbose=true",))
    assert result.returncode == 0, result.stderr
    tables.trips[7] = "g"
    assert re.search(r"INFO write_client: upsert \d{17} into '.*': 1 inserts, 0 updates, 0 deletes", result.stderr), \
        result.stderr[-3000:]
    assert re.search(r"INFO write_client: Committed commit \d{17} to '", result.stderr), result.stderr[-3000:]
    assert re.search(r"INFO spark: job \d+, stage \d+: (\d+)/\1 tasks done", result.stderr), result.stderr[-3000:]
    assert "INFO hiveserver2: finished in" in result.stderr


# The command -------------------------------------------------------------------------------------


def test_cli_main_serves_until_stopped(spark: Any, tables: Tables) -> None:
    from hudi_sql.apps.hiveserver2 import cli

    stop, out, err = threading.Event(), io.StringIO(), io.StringIO()
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(cli.main(
        ["thriftserver", "--port", "0", "--bind", "127.0.0.1"], spark=spark, stop=stop, stdout=out, stderr=err)))
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while "listening on" not in out.getvalue() and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", out.getvalue())
        assert match, out.getvalue() + err.getvalue()
        from pyhive import hive

        connection = hive.connect(host="127.0.0.1", port=int(match.group(1)), username="test")
        try:
            assert _names(connection, "hs2_trips") == tables.trips
        finally:
            connection.close()
    finally:
        stop.set()
        thread.join(30)
    assert status == [0]
    assert not thread.is_alive()


@pytest.mark.processes
def test_cli_process_serves_hudi_table_stops_on_sigterm(tables: Tables, tmp_path: Path) -> None:
    """``hudi-sql thriftserver`` as its own process (own JVM and metastore), stopped by pid."""
    import sys

    from pyhive import hive

    import hudi_sql

    port = free_port()
    log = tmp_path / "server.log"
    repo = Path(hudi_sql.__file__).resolve().parents[1]
    command = [sys.executable, "-m", "hudi_sql.apps.hiveserver2.cli", "thriftserver", "--port", str(port),
               "--master", "local[1]", "--state-dir", str(tmp_path / "state")]
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=repo, start_new_session=True,
                                env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1"})
    try:
        deadline = time.monotonic() + 240
        while "listening on" not in log.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
        assert f"listening on 127.0.0.1:{port}" in log.read_text(), log.read_text()[-3000:]
        connection = hive.connect(host="127.0.0.1", port=port, username="test")
        try:
            cursor = connection.cursor()
            cursor.execute(f"CREATE TABLE hs2_cli_trips USING hudi LOCATION '{tables.trips_path}'")
            assert cursor.description is None  # DDL: no result set
            cursor.close()
            assert _names(connection, "hs2_cli_trips") == tables.trips
            logged = len(log.read_text())
            cursor = connection.cursor()
            with pytest.raises(Exception, match="CAST_INVALID_INPUT"):  # fails in the tasks, not the planner
                cursor.execute("SELECT CAST(concat('x', name) AS INT) FROM hs2_cli_trips")
            cursor.close()
            grown = log.read_text()[logged:]
            assert len(grown) < 500, f"the server logged {len(grown)} bytes for one failed statement:\n{grown[:2000]}"
        finally:
            connection.close()
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=120) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # its own process group (start_new_session)
            proc.wait()


# Naming rules and wire encoding (no server needed) ----------------------------------------------


def test_hive_table_resolution_suffixes() -> None:
    from hudi_sql.config.hive_naming import hive_table_resolution, synced_query_type
    from hudi_sql.config.read import QueryType

    assert hive_table_resolution("trips_ro") == ("trips", QueryType.READ_OPTIMIZED)
    assert hive_table_resolution("Trips_RT") == ("Trips", QueryType.SNAPSHOT)
    assert hive_table_resolution("trips") is None
    assert hive_table_resolution("_ro") is None
    assert synced_query_type({"hoodie.query.as.ro.table": "true"}) is QueryType.READ_OPTIMIZED
    assert synced_query_type({"hoodie.query.as.ro.table": "false"}) is QueryType.SNAPSHOT
    # A catalog table's name alone does not make it read-optimized (Apache Hudi reads a SQL-created
    # t_ro without the property as a snapshot); the suffix resolves only a name the catalog lacks.
    assert synced_query_type({}) is None


def test_to_row_set_null_bitmap_and_protocols() -> None:
    from TCLIService import ttypes as tt

    from hudi_sql.apps.hiveserver2.metadata import jdbc_pattern
    from hudi_sql.apps.hiveserver2.wire import ColumnSpec, ResultSet, to_row_set

    result = ResultSet((ColumnSpec("i", tt.TTypeId.INT_TYPE), ColumnSpec("s", tt.TTypeId.STRING_TYPE)),
                       [(i if i % 3 else None, str(i)) for i in range(10)])
    start, rows, more = result.page(10)
    assert (start, len(rows), more) == (0, 10, False)
    page = to_row_set(result.columns, rows, start, tt.TProtocolVersion.HIVE_CLI_SERVICE_PROTOCOL_V10)
    ints = page.columns[0].i32Val
    assert ints.values == [0, 1, 2, 0, 4, 5, 0, 7, 8, 0]
    assert ints.nulls == bytes([0b01001001, 0b10])  # rows 0, 3, 6, 9; least significant bit first
    assert page.rows == [] and page.columns[1].stringVal.values == [str(i) for i in range(10)]
    result.rewind()
    assert result.page(8)[2] is True  # FETCH_FIRST: a new pass; two rows follow the first eight
    start, rows, more = result.page(8)
    assert (start, more) == (8, False)
    old = to_row_set(result.columns, rows, start, tt.TProtocolVersion.HIVE_CLI_SERVICE_PROTOCOL_V5)
    assert old.startRowOffset == 8
    assert [[v.i32Val.value if v.i32Val else v.stringVal.value for v in r.colVals] for r in old.rows] == [
        [8, "8"], [None, "9"]]
    assert jdbc_pattern("%") is None
    pattern = jdbc_pattern("hs2\\_e%")
    assert pattern is not None and pattern.fullmatch("HS2_events") and not pattern.fullmatch("hs2xevents")
