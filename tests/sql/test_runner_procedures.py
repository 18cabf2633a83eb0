"""CALL: the procedure registry, argument binding, and each procedure this capability brings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sql_session import fresh_database

from hudi_sql.errors import HudiSqlError, HudiTimelineError
from hudi_sql.sql.procedures import registry

pytestmark = pytest.mark.spark

DATABASE = "sql_call"


@pytest.fixture(scope="module")
def db(spark: Any) -> Iterator[Any]:
    with fresh_database(spark, DATABASE) as session:
        session.sql(
            "CREATE TABLE mor (id INT, v STRING, ts BIGINT, p STRING) USING hudi PARTITIONED BY (p) "
            "TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts')"
        )
        session.sql("INSERT INTO mor VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'y')")
        session.sql("UPDATE mor SET v = 'a2', ts = 2 WHERE id = 1")
        yield session


def call(db: Any, sql: str) -> list[dict[str, Any]]:
    return [r.asDict() for r in db.sql(sql).collect()]


def test_registry_declares_the_procedures_of_this_capability() -> None:
    names = set(registry())
    assert {
        "help",
        "show_commits",
        "show_commits_metadata",
        "show_timeline",
        "show_fsview_latest",
        "show_table_properties",
        "rollback_to_instant",
        "run_compaction",
        "show_compaction",
        "stats_file_sizes",
    } <= names


def test_show_procedures_named_and_positional(db: Any) -> None:
    commits = call(db, "CALL show_commits(table => 'mor')")
    assert [c["action"] for c in commits] == ["deltacommit", "deltacommit"]
    assert commits[1]["total_records_written"] == 2 and commits[1]["total_files_added"] == 2
    assert call(db, "CALL show_commits('mor', 1)")[0]["commit_time"] == commits[0]["commit_time"]
    files = call(db, f"CALL show_commits_metadata(table => '{DATABASE}.mor')")
    assert {f["partition"] for f in files} == {"p=x", "p=y"}
    timeline = call(db, "CALL show_timeline(table => 'mor')")
    assert [(t["action"], t["state"]) for t in timeline] == [("deltacommit", "COMPLETED")] * 2
    listed = call(db, "CALL show_table_properties(table => 'mor', limit => 100)")
    properties = {r["key"]: r["value"] for r in listed}
    assert properties["hoodie.table.type"] == "MERGE_ON_READ"
    latest = call(db, "CALL show_fsview_latest(table => 'mor')")
    by_partition = {r["partition"]: r for r in latest}
    assert by_partition["p=x"]["num_delta_files"] == 1 and by_partition["p=y"]["num_delta_files"] == 0
    sizes = call(db, "CALL stats_file_sizes(table => 'mor')")
    assert sizes[-1]["commit_time"] == "ALL" and sizes[-1]["num_files"] == 3


def test_show_commit_extra_metadata_of_the_latest_or_a_named_commit(db: Any) -> None:
    commits = [c["commit_time"] for c in call(db, "CALL show_commits(table => 'mor')")]
    latest = call(db, "CALL show_commit_extra_metadata(table => 'mor')")
    assert {r["instant_time"] for r in latest} == {commits[0]} and {r["action"] for r in latest} == {"deltacommit"}
    assert "schema" in {r["metadata_key"] for r in latest}
    first = call(db, f"CALL show_commit_extra_metadata(table => 'mor', instant_time => '{commits[1]}', "
                     "metadata_key => 'schema')")
    assert [(r["instant_time"], r["metadata_key"]) for r in first] == [(commits[1], "schema")]
    assert '"name"' in first[0]["metadata_value"]
    with pytest.raises(HudiTimelineError, match="Commit 20000101000000000 not found"):
        call(db, "CALL show_commit_extra_metadata(table => 'mor', instant_time => '20000101000000000')")


def test_log_file_procedures_show_the_logged_update(db: Any) -> None:
    location = next(r["data_type"] for r in call(db, "DESCRIBE TABLE EXTENDED mor") if r["col_name"] == "Location")
    logs = f"{location.removeprefix('file:')}/*/.*.log.*"
    [block] = call(db, f"CALL show_logfile_metadata(table => 'mor', log_file_path_pattern => '{logs}')")
    update = call(db, "CALL show_commits(table => 'mor', limit => 1)")[0]["commit_time"]
    assert (block["instant_time"], block["record_count"], block["block_type"]) == (update, 1, "AVRO_DATA_BLOCK")
    assert json.loads(block["header_metadata"])["INSTANT_TIME"] == update and block["footer_metadata"] == "{}"
    for merge in (False, True):
        [record] = call(db, f"CALL show_logfile_records(table => 'mor', log_file_path_pattern => '{logs}', "
                            f"merge => {str(merge).lower()})")
        assert record["records"].endswith('"id": 1, "v": "a2", "ts": 2, "p": "x"}'), record
    with pytest.raises(HudiSqlError, match="show_logfile_records: there is no log file matching"):
        db.sql(f"CALL show_logfile_records(table => 'mor', log_file_path_pattern => '{location}/*/*.parquet.log')")


def test_compaction_and_rollback_procedures(db: Any) -> None:
    # Two deltacommits: below the trigger (5 by default), so nothing is scheduled, as in Apache Hudi.
    assert call(db, "CALL run_compaction(op => 'schedule', table => 'mor')") == []
    scheduled = call(db, "CALL run_compaction(op => 'schedule', table => 'mor', "
                         "options => 'hoodie.compact.inline.max.delta.commits=2')")
    assert [(r["operation_size"], r["state"]) for r in scheduled] == [(1, "REQUESTED")]
    done = call(db, "CALL run_compaction(op => 'execute', table => 'mor')")
    assert [(r["timestamp"], r["state"]) for r in done] == [(scheduled[0]["timestamp"], "COMPLETED")]
    assert call(db, "CALL show_compaction(table => 'mor')")[0]["state"] == "COMPLETED"
    assert [r["v"] for r in call(db, "SELECT v FROM mor WHERE id = 1")] == ["a2"]

    db.sql("INSERT INTO mor VALUES (3, 'c', 1, 'x')")
    latest = call(db, "CALL show_commits(table => 'mor', limit => 1)")[0]["commit_time"]
    with pytest.raises(HudiTimelineError, match="not found"):
        call(db, "CALL rollback_to_instant(table => 'mor', instant_time => '20000101000000000')")
    assert call(db, f"CALL rollback_to_instant(table => 'mor', instant_time => '{latest}')") == [
        {"rollback_result": True}
    ]
    assert sorted(r["id"] for r in call(db, "SELECT id FROM mor")) == [1, 2]

    # The rollback is listed with what it removed: the insert's file in p=x.
    [rollback] = call(db, "CALL show_rollbacks(table => 'mor')")
    assert rollback["rollback_instant"] == latest and rollback["total_partitions"] == 1
    assert rollback["total_files_deleted"] == 1 and rollback["time_taken_in_millis"] >= 0
    detail = call(db, f"CALL show_rollback_detail(table => 'mor', instant_time => '{rollback['instant']}')")
    assert [(r["rollback_instant"], r["partition"], r["succeeded"]) for r in detail] == [(f"[{latest}]", "p=x", True)]
    assert not Path(detail[0]["deleted_file"].removeprefix("file:")).exists()
    with pytest.raises(HudiTimelineError, match="Rollback 20000101000000000 not found"):
        call(db, "CALL show_rollback_detail(table => 'mor', instant_time => '20000101000000000')")


def test_help_and_argument_errors(db: Any) -> None:
    listing = call(db, "CALL help()")[0]["result"]
    assert "show_commits" in listing and "run_compaction" in listing
    detail = call(db, "CALL help(cmd => 'show_commits')")[0]["result"]
    assert "limit" in detail and "total_records_written" in detail
    with pytest.raises(HudiSqlError, match="Unknown procedure 'show_comits'. Did you mean 'show_commits'"):
        db.sql("CALL show_comits(table => 'mor')")
    with pytest.raises(HudiSqlError, match="unknown argument 'tabel'. Did you mean 'table'"):
        db.sql("CALL show_commits(tabel => 'mor')")
    with pytest.raises(HudiSqlError, match="argument 'table' is required"):
        db.sql("CALL show_commits(limit => 1)")
    with pytest.raises(HudiSqlError, match="argument 'limit' must be int"):
        db.sql("CALL show_commits(table => 'mor', limit => 'many')")
    with pytest.raises(HudiSqlError, match="unknown op 'compact'"):
        db.sql("CALL run_compaction(op => 'compact', table => 'mor')")
    with pytest.raises(HudiSqlError, match="show_cleans: invalid filter expression 'files_deleted > 0'"):
        db.sql("CALL show_cleans(table => 'mor', filter => 'files_deleted > 0')")
    with pytest.raises(HudiSqlError, match="show_clean_plans: limit must be positive, got 0"):
        db.sql("CALL show_clean_plans(table => 'mor', limit => 0)")
