"""CALL procedures of the table services: savepoints, restore, archived commits, clustering."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from table_helpers import rows_of, rust_table

import hudi_sql
from hudi_sql.errors import HudiSqlError

pytestmark = pytest.mark.spark


def test_call_savepoint_restore_and_archived_commits_list_every_instant(spark: Any, tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    path = tmp_path / "svc"
    db.sql(f"""CREATE TABLE svc_t (id INT, v STRING, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p)
               LOCATION '{path}' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts',
               'hoodie.keep.min.commits' = '2', 'hoodie.keep.max.commits' = '3',
               'hoodie.cleaner.commits.retained' = '1')""")
    db.sql("INSERT INTO svc_t VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'y')")
    assert db.sql("CALL create_savepoint(table => 'svc_t')").collect()[0][0] is True
    (saved,) = [r[0] for r in db.sql("CALL show_savepoints(table => 'svc_t')").collect()]
    expected = rows_of(rust_table(str(path)))
    for i in range(3, 7):
        db.sql(f"INSERT INTO svc_t VALUES ({i}, 'n', {i}, 'x')")
    active = {r[0] for r in db.sql("CALL show_commits(table => 'svc_t', limit => 100)").collect()}
    archived = {r[0] for r in db.sql("CALL show_archived_commits(table => 'svc_t', limit => 100)").collect()
                if r[1] in ("commit", "deltacommit", "replacecommit")}
    assert len(active | archived) == 5 and saved in active | archived

    assert db.sql(f"CALL rollback_to_savepoint(table => 'svc_t', instant_time => '{saved}')").collect()[0][0]
    assert rows_of(rust_table(str(path))) == expected
    assert sorted(r.id for r in db.sql("SELECT id FROM svc_t").collect()) == [1, 2]
    assert db.sql(f"CALL delete_savepoint(table => 'svc_t', instant_time => '{saved}')").collect()[0][0]
    assert db.sql("CALL show_savepoints(table => 'svc_t')").collect() == []


def test_call_savepoint_procedures_by_path_default_to_the_newest_savepoint(spark: Any, tmp_path: Path) -> None:
    """As Apache Hudi's procedures: ``path =>`` instead of ``table =>``, and without ``instant_time``
    a rollback or a delete takes the newest savepoint; with none there, the call says so."""
    db = hudi_sql.connect(spark)
    path = tmp_path / "sp"
    db.sql(f"CREATE TABLE sp_t (id INT, ts BIGINT) USING hudi LOCATION '{path}' "
           "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')")
    db.sql("INSERT INTO sp_t VALUES (1, 1)")
    assert db.sql(f"CALL create_savepoint(path => '{path}')").collect()[0][0] is True
    db.sql("INSERT INTO sp_t VALUES (2, 1)")
    assert db.sql(f"CALL create_savepoint(path => '{path}')").collect()[0][0] is True
    newest = max(r[0] for r in db.sql(f"CALL show_savepoints(path => '{path}')").collect())
    db.sql("INSERT INTO sp_t VALUES (3, 1)")

    assert db.sql(f"CALL rollback_to_savepoint(path => '{path}')").collect()[0][0] is True
    assert sorted(r.id for r in db.sql("SELECT id FROM sp_t").collect()) == [1, 2]
    assert db.sql(f"CALL delete_savepoint(path => '{path}')").collect()[0][0] is True
    remaining = [r[0] for r in db.sql(f"CALL show_savepoints(path => '{path}')").collect()]
    assert len(remaining) == 1 and newest not in remaining
    db.sql(f"CALL delete_savepoint(path => '{path}')")
    with pytest.raises(hudi_sql.HudiSqlError, match="the table has no savepoint"):
        db.sql(f"CALL rollback_to_savepoint(path => '{path}')")


def test_call_archive_commits_archives_with_its_own_limits_and_keeps_the_rows(spark: Any, tmp_path: Path) -> None:
    """Apache Hudi's ``archive_commits``: the limits come from the call, not from the table
    (whose defaults, 20 and 30 commits, would archive nothing here). The metadata table is
    compacted every two commits: archival never passes its latest compaction."""
    db = hudi_sql.connect(spark)
    path = tmp_path / "arch"
    db.sql(f"""CREATE TABLE arch_t (id INT, v STRING, ts BIGINT) USING hudi LOCATION '{path}'
               TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', 'hoodie.archive.automatic' = 'false',
               'hoodie.metadata.compact.max.delta.commits' = '2')""")
    for i in range(6):
        db.sql(f"INSERT INTO arch_t VALUES ({i}, 'v', {i})")
    commits = {r[0] for r in db.sql("CALL show_commits(table => 'arch_t', limit => 100)").collect()}
    assert len(commits) == 6
    assert db.sql("CALL archive_commits(table => 'arch_t', min_commits => 2, max_commits => 3, "
                  "retain_commits => 1)").collect() == [(0,)]
    active = {r[0] for r in db.sql("CALL show_commits(table => 'arch_t', limit => 100)").collect()}
    archived = {r[0] for r in db.sql("CALL show_archived_commits(table => 'arch_t', limit => 100)").collect()
                if r[1] == "commit"}
    assert 2 <= len(active) < 6 and active | archived == commits and not active & archived
    assert sorted(r.id for r in db.sql("SELECT id FROM arch_t").collect()) == list(range(6))
    assert rows_of(rust_table(str(path)), ["id"]) == [{"id": i} for i in range(6)]


def test_call_run_clustering_rewrites_small_files_sorted(spark: Any, tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    path = tmp_path / "cl"
    db.sql(f"""CREATE TABLE cl_t (id INT, v STRING, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p)
               LOCATION '{path}' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts',
               'hoodie.parquet.small.file.limit' = '0')""")
    for i in range(3):
        db.sql(f"INSERT INTO cl_t VALUES ({10 - i}, 'v', 1, 'x')")
    before = rows_of(rust_table(str(path)), ["id", "v", "ts", "p"], key="id")
    (row,) = db.sql("CALL run_clustering(table => 'cl_t', order => 'id')").collect()
    assert row.state == "COMPLETED" and row.involved_partitions == "p=x"
    assert rows_of(rust_table(str(path)), ["id", "v", "ts", "p"], key="id") == before
    ids = [r.id for r in spark.read.parquet(*[str(f) for f in path.rglob(f"*_{row.timestamp}.parquet")]).collect()]
    assert ids == sorted(ids)


def test_call_run_clustering_of_partitions_named_or_satisfying_a_predicate(spark: Any, tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    db.sql(f"""CREATE TABLE cl_sel (id INT, ts BIGINT, region STRING, dt STRING) USING hudi
               PARTITIONED BY (region, dt) LOCATION '{tmp_path / "cl_sel"}'
               TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', 'hoodie.parquet.small.file.limit' = '0')""")
    for i in range(2):  # two files in each of three partitions
        db.sql(f"INSERT INTO cl_sel VALUES ({i}, 1, 'eu', '01'), ({i + 10}, 1, 'eu', '02'), ({i + 20}, 1, 'us', '01')")

    def clustered(call: str) -> list[str]:
        return [r.involved_partitions for r in db.sql(call).collect()]

    assert clustered("CALL run_clustering(table => 'cl_sel', predicate => \"region = 'eu' AND dt > '01'\")") == [
        "region=eu/dt=02"]
    assert clustered("CALL run_clustering(table => 'cl_sel', selected_partitions => 'region=us/dt=01', "
                     "predicate => \"region = 'eu'\")") == ["region=us/dt=01"]  # names win over a predicate
    assert clustered("CALL run_clustering(table => 'cl_sel', predicate => \"region = 'none'\")") == []
    assert clustered("CALL run_clustering(table => 'cl_sel', "
                     "options => 'hoodie.clustering.plan.strategy.partition.regex.pattern=region=eu/.*')") == [
        "region=eu/dt=01,region=eu/dt=02"]  # a lone small file is a group too (single-group clustering)
    with pytest.raises(HudiSqlError, match="predicate 'no_such_column = 1' cannot be evaluated"):
        db.sql("CALL run_clustering(table => 'cl_sel', predicate => 'no_such_column = 1')")
    assert sorted(r.id for r in db.sql("SELECT id FROM cl_sel").collect()) == [0, 1, 10, 11, 20, 21]


def test_call_run_clustering_executes_the_pending_clusterings_instants_names(spark: Any, tmp_path: Path) -> None:
    db = hudi_sql.connect(spark)
    db.sql(f"""CREATE TABLE cl_inst (id INT, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p)
               LOCATION '{tmp_path / "cl_inst"}'
               TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', 'hoodie.parquet.small.file.limit' = '0')""")
    for i in range(2):
        db.sql(f"INSERT INTO cl_inst VALUES ({i}, 1, 'x'), ({i + 10}, 1, 'y')")
    (x,) = db.sql("CALL run_clustering(table => 'cl_inst', op => 'schedule', selected_partitions => 'p=x')").collect()
    (y,) = db.sql("CALL run_clustering(table => 'cl_inst', op => 'schedule', selected_partitions => 'p=y')").collect()
    ran = db.sql(f"CALL run_clustering(table => 'cl_inst', op => 'execute', instants => '{y.timestamp}')").collect()
    assert [(r.timestamp, r.state, r.involved_partitions) for r in ran] == [(y.timestamp, "COMPLETED", "p=y")]
    from hudi_sql.services.pending_clustering import pending_clustering_instants
    from hudi_sql.table.meta_client import TableMetaClient

    pending = pending_clustering_instants(TableMetaClient.load(str(tmp_path / "cl_inst"))).times()
    assert list(pending) == [x.timestamp], "the clustering not named stays pending"
    with pytest.raises(HudiSqlError, match="needs op => 'execute'"):
        db.sql(f"CALL run_clustering(table => 'cl_inst', instants => '{x.timestamp}')")
    assert sorted(r.id for r in db.sql("SELECT id FROM cl_inst").collect()) == [0, 1, 10, 11]
