"""Table version 8 written by hudi-sql, checked by Apache Hudi 1.x (the ``oracle_v1`` driver).

* **Apache Hudi 1.x reads what we write.** hudi-sql creates a version 8 Copy-On-Write table
  (``'hoodie.write.table.version' = '8'``) and a version 9 Merge-On-Read one (9 keeps 8's files and
  timeline; ``test_v9_writes`` has the rest of version 9) and runs the operations and services it supports on
  it (INSERT, UPDATE, DELETE, MERGE, INSERT OVERWRITE, compaction or clustering, clean, a
  rollback); after every step Apache Hudi's snapshot equals ours, meta columns included, and
  so do its incremental and time-travel reads (before the clean) and its read-optimized read
  of the final table; the Rust reader reads the final table too.
* **Mixed writers alternate.** Apache Hudi 1.x creates a Merge-On-Read table (its metadata table
  on, as by default) and the two engines take turns writing it; both read the same rows after
  every turn.
* **Upgrades.** Version 6 tables (ours, and one Apache Hudi 0.15 wrote) upgraded by
  ``CALL upgrade_table`` are read and written by Apache Hudi 1.x; a version 6 table of ours
  that Apache Hudi 1.x upgrades on its first write is read and written by us.
* **Downgrades.** Version 8 tables (ours, and one Apache Hudi 1.x wrote) moved back by
  ``CALL downgrade_table`` are read and written by Apache Hudi 0.15.

Every Apache Hudi write names ``hoodie.write.table.version=8``, so a 1.1 bundle (whose default is
version 9) writes the same table version as 1.0.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from oracle_harness import Oracle, assert_same_rows, ours
from sql_session import fresh_database
from table_helpers import data_rows, our_table, rust_table

import hudi_sql

pytestmark = [pytest.mark.oracle, pytest.mark.spark]

COLUMNS = "id INT, name STRING, price DOUBLE, ts BIGINT, city STRING"
#: Apache Hudi lists files from storage: the metadata table we remove on our first write stays away.
LISTING = {"hoodie.metadata.enable": "false"}
#: Compaction after any number of deltacommits (the trigger's default is 5).
COMPACT_NOW = "hoodie.compact.inline.max.delta.commits=1"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, "oracle_v8_writes") as session:
        yield session


@pytest.fixture(scope="module")
def apache(oracle_v1: Oracle) -> Oracle:
    """The 1.x driver, every SQL write at table version 8."""
    oracle_v1.sql("SET hoodie.write.table.version=8")
    return oracle_v1


def _agree(spark: Any, oracle: Oracle, path: Path, what: str, options: dict[str, str] | None = None) -> list[str]:
    """Our read and Apache Hudi's with the same *options*: the differences, if any."""
    opts = {**LISTING, **(options or {})}
    their_read = oracle.begin([{"read": {"path": str(path), "options": opts}}])
    mine = ours(spark.read.format("hudi").options(**(options or {})).load(str(path)))
    theirs = their_read.results()[0]
    try:
        assert_same_rows(mine, theirs, what=what)
    except AssertionError as exc:
        return [str(exc)]
    return []


def _properties(path: Path) -> dict[str, str]:
    lines = (path / ".hoodie" / "hoodie.properties").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def _completed(path: Path) -> list[tuple[str, str, str]]:
    """(requested time, completion time, action) of the completed instants, in completion order."""
    out = []
    for file in (path / ".hoodie" / "timeline").iterdir():
        stem, _, action = file.name.partition(".")
        if "_" in stem and not file.name.startswith("."):
            requested, completion = stem.split("_")
            out.append((requested, completion, action))
    return sorted(out, key=lambda t: t[1])


def _our_steps(table: str, table_type: str) -> list[str]:
    service = (f"CALL run_compaction(op => 'run', table => '{table}', options => '{COMPACT_NOW}')" if table_type == "mor"
               else f"CALL run_clustering(table => '{table}')")
    return [
        (f"INSERT INTO {table} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'sf'), "
        "(4, 'd', 40.0, 1, 'la')"),
        f"UPDATE {table} SET price = price * 2, ts = 2 WHERE id IN (1, 2)",
        f"DELETE FROM {table} WHERE id = 3",
        (f"MERGE INTO {table} t USING (SELECT 1 AS id, 'late' AS name, 1.0 AS price, 0L AS ts, 'sf' AS city "
         "UNION ALL SELECT 5, 'e', 50.0, 3L, 'nyc' UNION ALL SELECT 4, 'd2', 44.0, 3L, 'la') s "
         "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
        service,
        f"INSERT OVERWRITE {table} PARTITION (city = 'la') SELECT 6, 'f', 60.0, 4L",
        f"CALL run_clean(table => '{table}', retain_commits => 1)",
        f"UPDATE {table} SET name = 'x' WHERE id = 5",
    ]


@pytest.fixture(scope="module", params=[("cow", 8), ("mor", 9)], ids=["cow-v8", "mor-v9"])
def written_by_us(request: pytest.FixtureRequest, spark: Any, db: Any, apache: Oracle,
                  tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A table of version 8 or 9 (9 keeps 8's files and timeline: one table type each) hudi-sql
    created and wrote step by step; the differences after each step."""
    table_type, version = request.param
    table = f"v{version}_ours_{table_type}_{uuid.uuid4().hex[:6]}"
    path = tmp_path_factory.mktemp("v8-ours") / table
    db.sql(f"CREATE TABLE {table} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
           f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts', "
           f"'hoodie.write.table.version' = '{version}', 'hoodie.clustering.plan.strategy.small.file.limit' = '1073741824')")
    failures: list[str] = []
    for index, step in enumerate(_our_steps(table, table_type), 1):
        db.sql(step)
        failures += _agree(spark, apache, path, f"{table}/{index} {step.split('(')[0][:40]}")
        if index == 2:
            logs_after_update = sorted(p.name for p in path.glob("*/.*.log.*"))
        if index == 4:  # before any clean: incremental from the second write on, time travel to it
            second = [t for t in _completed(path) if t[2] in ("commit", "deltacommit")][1]
            for options in ({"hoodie.datasource.query.type": "incremental",
                             "hoodie.datasource.read.begin.instanttime": second[1]}, {"as.of.instant": second[0]}):
                failures += _agree(spark, apache, path, f"{table}/{index} {options}", options)
    # the latest write undone: Apache Hudi must no longer see it (its log file or base file is gone)
    latest = [t for t in _completed(path) if t[2] in ("commit", "deltacommit", "replacecommit")][-1][0]
    logs_before_rollback = sorted(p.name for p in path.glob("*/.*.log.*"))
    db.sql(f"CALL rollback_to_instant(table => '{table}', instant_time => '{latest}')")
    failures += _agree(spark, apache, path, f"{table}/rolled back {latest}")
    return {"table": table, "type": table_type, "version": version, "path": path, "failures": failures,
            "rolled_back": latest,
            "logs_after_update": logs_after_update, "logs_before_rollback": logs_before_rollback,
            "logs_after_rollback": sorted(p.name for p in path.glob("*/.*.log.*"))}


def test_apache_hudi_1x_reads_every_step_of_a_version_8_or_9_table_we_write(written_by_us: dict[str, Any]) -> None:
    assert not written_by_us["failures"], "\n".join(written_by_us["failures"])


def test_our_version_8_or_9_table_is_laid_out_as_apache_hudi_1x_lays_it_out(written_by_us: dict[str, Any]) -> None:
    path: Path = written_by_us["path"]
    props = _properties(path)
    assert (props["hoodie.table.version"], props["hoodie.timeline.layout.version"]) == (
        str(written_by_us["version"]), "2")
    assert props["hoodie.record.merge.mode"] == "EVENT_TIME_ORDERING"
    completed = _completed(path)
    assert all(requested < completion for requested, completion, _ in completed)
    actions = {action for _, _, action in completed}
    assert {"replacecommit", "clean", "rollback"} <= actions
    assert ("deltacommit" if written_by_us["type"] == "mor" else "commit") in actions
    assert not list(path.glob(".hoodie/*.commit")) and not list(path.glob(".hoodie/*.deltacommit"))
    if written_by_us["type"] == "mor":
        # a log file is named by the deltacommit that wrote it (the UPDATE, step 2), version 1 ...
        update = [requested for requested, _, action in completed if action == "deltacommit"][1]
        logs = written_by_us["logs_after_update"]
        assert logs and all(f"_{update}.log.1_" in name for name in logs), logs
        # ... and a rolled-back deltacommit's log files are deleted, not cancelled by a command block
        rolled_back = written_by_us["rolled_back"]
        assert any(f"_{rolled_back}.log." in name for name in written_by_us["logs_before_rollback"])
        assert written_by_us["logs_after_rollback"] == [
            name for name in written_by_us["logs_before_rollback"] if f"_{rolled_back}.log." not in name]


def test_apache_hudi_1x_and_the_rust_reader_read_our_version_8_or_9_table_in_every_query(
        spark: Any, apache: Oracle, written_by_us: dict[str, Any]) -> None:
    """Snapshot, incremental and time travel were compared along the way; here the read-optimized
    query of Apache Hudi and the Rust reader's snapshot of the final table."""
    path: Path = written_by_us["path"]
    if written_by_us["type"] == "mor":
        failures = _agree(spark, apache, path, f"{path.name} read_optimized",
                          {"hoodie.datasource.query.type": "read_optimized"})
        assert not failures, "\n".join(failures)
    assert data_rows(rust_table(str(path)), "id") == data_rows(our_table(spark, str(path)), "id")


@pytest.fixture(scope="module")
def alternating(spark: Any, db: Any, apache: Oracle, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Apache Hudi 1.x creates a Merge-On-Read table (the harder case: log files named by either
    engine, a compaction by us); the two engines alternate writes; differences after each."""
    table_type = "mor"
    name = f"v8_mixed_{table_type}_{uuid.uuid4().hex[:6]}"
    path = tmp_path_factory.mktemp("v8-mixed") / name
    apache.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
               f"TBLPROPERTIES (type = '{table_type}', primaryKey = 'id', preCombineField = 'ts', "
               "'hoodie.write.table.version' = '8')")
    turns: list[tuple[str, str]] = [
        ("apache", f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'la')"),
        ("ours", f"UPDATE {name} SET price = price + 1, ts = 2 WHERE id IN (1, 3)"),
        ("apache", (f"MERGE INTO {name} t USING (SELECT 2 AS id, 'b2' AS name, 22.0 AS price, 3L AS ts, 'nyc' AS city "
                   "UNION ALL SELECT 4, 'd', 40.0, 3L, 'sf') s ON t.id = s.id "
                   "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")),
        ("ours", f"DELETE FROM {name} WHERE id = 1"),
        ("ours", (f"CALL run_compaction(op => 'run', table => '{name}', options => '{COMPACT_NOW}')"
                  if table_type == "mor"
                  else f"INSERT INTO {name} VALUES (5, 'e', 50.0, 4, 'la')")),
        ("apache", f"UPDATE {name} SET name = 'apache', ts = 5 WHERE id IN (2, 4)"),
        ("ours", f"INSERT INTO {name} VALUES (6, 'f', 60.0, 6, 'nyc')"),
    ]
    return {"path": path, "failures": take_turns(spark, db, apache, name, path, turns)}


def take_turns(spark: Any, db: Any, apache: Oracle, name: str, path: Path, turns: list[tuple[str, str]]) -> list[str]:
    """Run each (engine, statement) turn on the table Apache Hudi created; the differences between
    the engines' reads after each turn, and at the end through Apache Hudi's metadata table (its
    default, rebuilt after our writes)."""
    failures: list[str] = []
    registered = False
    for index, (who, statement) in enumerate(turns, 1):
        if who == "apache":
            apache.sql(statement)
        else:
            if not registered:
                db.sql(f"CREATE TABLE {name} USING hudi LOCATION '{path}'")
                registered = True
            db.sql(statement)
        failures += _agree(spark, apache, path, f"{name}/{index}-{who}")
    theirs = apache.read(path, {"hoodie.metadata.enable": "true"})
    try:
        assert_same_rows(ours(spark.read.format("hudi").load(str(path))), theirs, what=f"{name}/metadata table")
    except AssertionError as exc:
        failures.append(str(exc))
    return failures


def test_mixed_writers_alternate_on_a_version_8_table(alternating: dict[str, Any]) -> None:
    assert not alternating["failures"], "\n".join(alternating["failures"])
    assert _properties(alternating["path"])["hoodie.table.version"] == "8"


# -- upgrades: version 6 tables moved to version 8 by one engine, written on by the other -------------


def _v6_mor(db: Any, name: str, path: Path) -> None:
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
           "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')")
    db.sql(f"INSERT INTO {name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'la')")
    db.sql(f"UPDATE {name} SET price = price * 2, ts = 2 WHERE id IN (1, 2)")
    assert _properties(path)["hoodie.table.version"] == "6"


def _register(oracle: Oracle, name: str, path: Path) -> str:
    """Register an existing table in Apache Hudi's catalog, in the database ``hoodie.properties``
    names (Apache Hudi refuses another one)."""
    database = _properties(path).get("hoodie.database.name") or "default"
    oracle.sql(f"CREATE DATABASE IF NOT EXISTS {database}")
    oracle.sql(f"CREATE TABLE IF NOT EXISTS {database}.{name} USING hudi LOCATION '{path}'")
    return f"{database}.{name}"


def test_version_6_tables_upgraded_by_us_are_read_and_written_by_apache_hudi_1x(
        spark: Any, db: Any, oracle: Oracle, apache: Oracle, tmp_path: Path) -> None:
    """Ours and one Apache Hudi 0.15 wrote (both Merge-On-Read, with log files), upgraded by
    ``CALL upgrade_table``; Apache Hudi 1.x then reads them and writes on, and we read that."""
    ours_name, theirs_name = f"up_ours_{uuid.uuid4().hex[:6]}", f"up_theirs_{uuid.uuid4().hex[:6]}"
    ours_path, theirs_path = tmp_path / ours_name, tmp_path / theirs_name
    _v6_mor(db, ours_name, ours_path)
    oracle.sql(f"CREATE TABLE {theirs_name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{theirs_path}' "
               "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')")
    oracle.sql(f"INSERT INTO {theirs_name} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), "
               "(3, 'c', 30.0, 1, 'la')")
    oracle.sql(f"UPDATE {theirs_name} SET price = price * 2, ts = 2 WHERE id IN (1, 2)")
    db.sql(f"CREATE TABLE {theirs_name} USING hudi LOCATION '{theirs_path}'")
    failures: list[str] = []
    for name, path in ((ours_name, ours_path), (theirs_name, theirs_path)):
        # the upgrade compacts the log files: records move to base files, nothing else changes
        before = ours(spark.read.format("hudi").load(str(path)).drop("_hoodie_file_name"))
        db.sql(f"CALL upgrade_table(table => '{name}', to_version => 'EIGHT')")
        assert _properties(path)["hoodie.table.version"] == "8"
        assert_same_rows(ours(spark.read.format("hudi").load(str(path)).drop("_hoodie_file_name")), before,
                         what=f"{name} after upgrade")
        failures += _agree(spark, apache, path, f"{name}/upgraded by us")
        qualified = _register(apache, name, path)
        apache.sql(f"UPDATE {qualified} SET name = 'apache', ts = 9 WHERE id IN (2, 3)")
        failures += _agree(spark, apache, path, f"{name}/then written by Apache Hudi 1.x")
        db.sql(f"INSERT INTO {name} VALUES (4, 'ours', 40.0, 9, 'sf')")
        failures += _agree(spark, apache, path, f"{name}/then written by us")
        assert _properties(path)["hoodie.table.version"] == "8"
    assert not failures, "\n".join(failures)


def test_version_6_table_we_wrote_upgraded_by_apache_hudi_1x_is_read_and_written_by_us(
        spark: Any, db: Any, apache: Oracle, tmp_path: Path) -> None:
    """The other way round: Apache Hudi 1.x's first write upgrades our version 6 table."""
    name = f"up_by_apache_{uuid.uuid4().hex[:6]}"
    path = tmp_path / name
    _v6_mor(db, name, path)
    qualified = _register(apache, name, path)
    apache.sql(f"UPDATE {qualified} SET name = 'apache', ts = 9 WHERE id = 3")
    assert _properties(path)["hoodie.table.version"] == "8"
    failures = _agree(spark, apache, path, f"{name}/upgraded by Apache Hudi 1.x")
    db.sql(f"UPDATE {name} SET name = 'ours', ts = 10 WHERE id IN (1, 3)")
    db.sql(f"DELETE FROM {name} WHERE id = 2")
    failures += _agree(spark, apache, path, f"{name}/then written by us")
    assert not failures, "\n".join(failures)


# -- downgrades: version 8 tables moved back to version 6 by us, written on by Apache Hudi 0.15 --------

#: On Merge-On-Read, the update and the delete go to log files.
_LOGGED_STEPS = ("INSERT INTO {t} VALUES (1, 'a', 10.0, 1, 'sf'), (2, 'b', 20.0, 1, 'nyc'), (3, 'c', 30.0, 1, 'la')",
                 "UPDATE {t} SET price = price * 2, ts = 2 WHERE id IN (1, 2)", "DELETE FROM {t} WHERE id = 3")


def test_version_8_tables_downgraded_by_us_are_read_and_written_by_apache_hudi_0_15(
        spark: Any, db: Any, oracle: Oracle, apache: Oracle, tmp_path: Path) -> None:
    """Ours and one Apache Hudi 1.x wrote (both Merge-On-Read with log files; Apache's with its
    metadata table), moved back by ``CALL downgrade_table``; Apache Hudi 0.15 then reads them and
    writes on, and we read that."""
    ours_name, theirs_name = f"down_ours_{uuid.uuid4().hex[:6]}", f"down_theirs_{uuid.uuid4().hex[:6]}"
    ours_path, theirs_path = tmp_path / ours_name, tmp_path / theirs_name
    # Created at version 8 by a write option, not TBLPROPERTIES: a table property asking for version
    # 8 would upgrade the table again on our next write through the catalog, as it would in Apache Hudi.
    first = spark.createDataFrame([(9, "z", 9.0, 0, "la")], COLUMNS)
    hudi_sql.write(first, str(ours_path), {
        "hoodie.table.name": ours_name, "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.partitionpath.field": "city", "hoodie.datasource.write.hive_style_partitioning": "true",
        "hoodie.write.table.version": "8"})
    db.sql(f"CREATE TABLE {ours_name} USING hudi LOCATION '{ours_path}'")
    for step in _LOGGED_STEPS:
        db.sql(step.format(t=ours_name))
    apache.sql(f"CREATE TABLE {theirs_name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{theirs_path}' "
               "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', 'hoodie.write.table.version' = '8')")
    for step in _LOGGED_STEPS:
        apache.sql(step.format(t=theirs_name))
    db.sql(f"CREATE TABLE {theirs_name} USING hudi LOCATION '{theirs_path}'")
    failures: list[str] = []
    for name, path in ((ours_name, ours_path), (theirs_name, theirs_path)):
        assert _properties(path)["hoodie.table.version"] == "8"
        before = ours(spark.read.format("hudi").load(str(path)).drop("_hoodie_file_name"))
        db.sql(f"CALL downgrade_table(table => '{name}', to_version => 'SIX')")
        props = _properties(path)
        assert (props["hoodie.table.version"], props["hoodie.timeline.layout.version"]) == ("6", "1")
        assert "hoodie.record.merge.mode" not in props and not (path / ".hoodie" / "metadata").exists()
        assert_same_rows(ours(spark.read.format("hudi").load(str(path)).drop("_hoodie_file_name")), before,
                         what=f"{name} after the downgrade")
        failures += _agree(spark, oracle, path, f"{name}/downgraded by us, read by Apache Hudi 0.15")
        qualified = _register(oracle, name, path)
        oracle.sql(f"UPDATE {qualified} SET name = 'apache015', ts = 9 WHERE id = 2")
        oracle.sql(f"INSERT INTO {qualified} VALUES (5, 'e', 50.0, 9, 'la')")
        failures += _agree(spark, oracle, path, f"{name}/then written by Apache Hudi 0.15")
        db.sql(f"UPDATE {name} SET name = 'ours', ts = 10 WHERE id IN (1, 5)")
        failures += _agree(spark, oracle, path, f"{name}/then written by us")
        assert _properties(path)["hoodie.table.version"] == "6"
    assert not failures, "\n".join(failures)


# -- archival: our LSM timeline, read and extended by Apache Hudi 1.x ----------------------------


def _archived_by_apache(oracle: Oracle, path: Path) -> list[str]:
    """The commits in Apache Hudi's own archived timeline of *path* (its Java meta client)."""
    code = ("jvm = spark._jvm\n"
            "conf = jvm.org.apache.hudi.storage.hadoop.HadoopStorageConfiguration(spark._jsc.hadoopConfiguration())\n"
            "meta = jvm.org.apache.hudi.common.table.HoodieTableMetaClient.builder().setConf(conf)"
            ".setBasePath(path).build()\n"
            "times = [str(i.requestedTime()) for i in meta.getArchivedTimeline().getCommitsTimeline().getInstants()]\n"
            "result = spark.createDataFrame([(t,) for t in times], 't string')")
    return sorted(row[0] for row in oracle.python(code, path=str(path))["rows"])


def test_apache_hudi_1x_reads_the_lsm_timeline_we_archive_and_archives_on(
        spark: Any, db: Any, apache: Oracle, tmp_path: Path) -> None:
    """We archive a version 8 table into the LSM timeline; Apache Hudi 1.x lists the same archived
    commits (``show_archived_commits``), reads the same rows, and its own next archivals add to
    the same LSM timeline, which we read back."""
    from hudi_sql.services.archive import read_archived_instants
    from hudi_sql.table.meta_client import TableMetaClient

    name = f"archived_{uuid.uuid4().hex[:6]}"
    path = tmp_path / name
    archival = "'hoodie.keep.min.commits' = '2', 'hoodie.keep.max.commits' = '3', 'hoodie.cleaner.commits.retained' = '1'"
    db.sql(f"CREATE TABLE {name} ({COLUMNS}) USING hudi PARTITIONED BY (city) LOCATION '{path}' "
           f"TBLPROPERTIES (type = 'cow', primaryKey = 'id', preCombineField = 'ts', "
           f"'hoodie.write.table.version' = '8', {archival})")
    for i in range(1, 7):
        db.sql(f"INSERT INTO {name} VALUES ({i}, 'n{i}', {i}.0, {i}, 'sf')")

    def ours_archived() -> list[str]:
        meta = TableMetaClient.load(str(path))
        return sorted(e["commitTime"] for e in read_archived_instants(meta) if e["actionType"] == "commit")

    archived_by_us = ours_archived()
    assert archived_by_us, "our archival archived nothing"
    qualified = _register(apache, name, path)
    theirs = _archived_by_apache(apache, path)
    assert theirs == archived_by_us
    failures = _agree(spark, apache, path, f"{name}/archived by us")
    # Apache Hudi takes these from the session, not from our catalog; without the metadata table,
    # whose missing compactions would hold its archival back.
    archival_settings = ("hoodie.keep.min.commits", "2"), ("hoodie.keep.max.commits", "3"), \
        ("hoodie.cleaner.commits.retained", "1"), ("hoodie.metadata.enable", "false")
    for key, value in archival_settings:
        apache.sql(f"SET {key}={value}")
    try:
        for i in range(7, 10):
            apache.sql(f"INSERT INTO {qualified} VALUES ({i}, 'apache{i}', {i}.0, {i}, 'sf')")
    finally:
        for key, _ in archival_settings:
            apache.sql(f"RESET {key}")
    failures += _agree(spark, apache, path, f"{name}/then written and archived by Apache Hudi 1.x")
    theirs = _archived_by_apache(apache, path)
    assert theirs == ours_archived() and set(archived_by_us) < set(theirs)
    assert not failures, "\n".join(failures)
