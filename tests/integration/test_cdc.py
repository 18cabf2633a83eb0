"""Change data capture: the changes a CDC query returns equal those an independent model computes.

The model knows nothing of CDC logs or splits: after every statement it reads the table's
snapshot, and the changes of a commit are the difference between the snapshots before and after
it (a key that appears is an insert, one that changes an update, one that goes a delete). Each
case runs inserts, an update, a delete, a MERGE INTO, a table service that changes no data
(compaction on Merge-On-Read, clustering on Copy-On-Write), another update and a clean, on one
logging mode. Apache Hudi's reading of the same tables is checked in
``tests/oracle/test_cdc_differential.py``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cdc_steps import STATEMENTS as CDC_STATEMENTS
from cdc_steps import create_cdc_table
from sql_session import fresh_database

from hudi_sql.errors import HudiTimelineError

#: (table type, logging mode, table version): the two ends of the modes on Copy-On-Write, whose
#: rewrites write CDC logs, and Merge-On-Read, whose log appends are read back by merging, the latter
#: on version 8 too, whose log files are named by the deltacommit that wrote them (every mode is
#: compared with Apache Hudi in tests/oracle/test_cdc_differential.py).
CASES = [("cow", "data_before_after", 6), ("cow", "op_key_only", 6), ("mor", "op_key_only", 6),
         ("mor", "op_key_only", 8)]

#: the shared statements, with a table service that changes no data before the last update
STATEMENTS = [*CDC_STATEMENTS[:4], "INSERT INTO {t} VALUES (4, 'd', 40.0, 1000, 'p1')", "{service}", CDC_STATEMENTS[4]]
SERVICES = {
    "mor": "CALL run_compaction(op => 'run', table => '{t}', options => 'hoodie.compact.inline.max.delta.commits=1')",
    "cow": "CALL run_clustering(table => '{t}', order => 'id')",
}

Change = tuple[str, str, int, Any, Any]  # (commit, op, id, before, after)


@dataclass
class CdcCase:
    db: Any
    table: str
    path: Path
    commits: list[str] = field(default_factory=list)  # the commit of each statement
    expected: list[Change] = field(default_factory=list)


def _snapshot(db: Any, table: str) -> dict[int, dict[str, Any]]:
    return {r["id"]: {k: r[k] for k in ("id", "name", "price", "ts", "dt")}
            for r in db.sql(f"SELECT * FROM {table}").collect()}


def _latest_commit(db: Any, table: str) -> str:
    return db.sql(f"CALL show_commits(table => '{table}', limit => 1)").collect()[0]["commit_time"]


def _model_changes(commit: str, before: dict[int, Any], after: dict[int, Any]) -> list[Change]:
    changes: list[Change] = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old is None:
            changes.append((commit, "i", key, None, new))
        elif new is None:
            changes.append((commit, "d", key, old, None))
        elif old != new:
            changes.append((commit, "u", key, old, new))
    return changes


def _data(image: str | None) -> dict[str, Any] | None:
    """A CDC image's data columns (images recovered from files also carry the meta columns)."""
    if image is None:
        return None
    return {k: v for k, v in json.loads(image).items() if not k.startswith("_hoodie_")}


def _cdc(db: Any, table: str, *bounds: str) -> list[Change]:
    args = ", ".join(f"'{b}'" for b in bounds)
    out = []
    for row in db.sql(f"SELECT * FROM hudi_table_changes('{table}', 'cdc', {args})").collect():
        before, after = _data(row["before"]), _data(row["after"])
        out.append((row["ts_ms"], row["op"], (after or before)["id"], before, after))
    return sorted(out, key=lambda c: (c[0], c[2]))


@pytest.fixture(scope="module", params=CASES, ids=[f"{t}-{m}-v{v}" for t, m, v in CASES])
def case(spark: Any, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[CdcCase]:
    table_type, mode, version = request.param
    name = f"cdc_{table_type}_{mode}_v{version}"
    path = tmp_path_factory.mktemp("cdc") / name
    with fresh_database(spark, f"{name}_db") as db:
        db.sql(create_cdc_table(name, path, table_type, mode, version))
        result = CdcCase(db, name, path)
        state: dict[int, Any] = {}
        for statement in STATEMENTS:
            db.sql(statement.format(t=name, service=SERVICES[table_type].format(t=name)))
            commit, after = _latest_commit(db, name), _snapshot(db, name)
            result.commits.append(commit)
            result.expected += _model_changes(commit, state, after)
            state = after
        yield result


def test_the_changes_of_every_commit_equal_the_snapshot_differences(case: CdcCase) -> None:
    assert _cdc(case.db, case.table, "earliest") == sorted(case.expected, key=lambda c: (c[0], c[2]))
    ops = {op for _, op, *_ in case.expected}
    assert ops == {"i", "u", "d"}, "the sequence makes every kind of change"


def test_a_range_returns_the_changes_of_its_commits_only(case: CdcCase) -> None:
    begin, end = case.commits[1], case.commits[3]  # the delete and the merge, not the update before them
    wanted = [c for c in case.expected if begin < c[0] <= end]
    assert _cdc(case.db, case.table, begin, end) == sorted(wanted, key=lambda c: (c[0], c[2]))
    assert {c[0] for c in wanted} == {case.commits[2], case.commits[3]}


def test_a_table_service_adds_no_changes(case: CdcCase) -> None:
    service_commit = case.commits[5]
    assert service_commit != case.commits[4], "the service made a commit of its own"
    assert _cdc(case.db, case.table, case.commits[4], service_commit) == []


def test_the_dataframe_reader_returns_the_same_changes(spark: Any, case: CdcCase) -> None:
    import hudi_sql

    frame = hudi_sql.read(spark, str(case.path), {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.query.incremental.format": "cdc",
        "hoodie.datasource.read.begin.instanttime": case.commits[3],
    })
    assert frame.columns == ["op", "ts_ms", "before", "after"]
    assert sorted((r["ts_ms"], r["op"]) for r in frame.collect()) == sorted(
        (c[0], c[1]) for c in case.expected if c[0] > case.commits[3])


def _cdc_files(path: Path) -> set[str]:
    return {str(p) for p in path.rglob("*.cdc")}


def _base_files(path: Path) -> set[tuple[str, str]]:
    """(file id, instant) of every base file on disk."""
    out = set()
    for p in path.rglob("*.parquet"):
        file_id, _, rest = p.name.partition("_")
        out.add((file_id, rest.rsplit("_", 1)[-1].removesuffix(".parquet")))
    return out


def test_clean_deletes_cdc_logs_with_their_slices_and_refuses_ranges_it_cut(case: CdcCase) -> None:
    before = _cdc_files(case.path)
    case.db.sql(f"CALL run_clean(table => '{case.table}', retain_commits => 1)")
    left = _cdc_files(case.path)
    bases = _base_files(case.path)
    for cdc in left:  # .<file id>_<commit>.log.1_<token>.cdc lives as long as the base file of <commit>
        file_id, _, rest = os.path.basename(cdc)[1:].partition("_")
        assert (file_id, rest.split(".")[0]) in bases, f"{cdc} outlived its slice"
    if case.table.startswith("cdc_cow"):
        assert len(left) < len(before), "the clean removed the CDC logs of the slices it removed"
        with pytest.raises(HudiTimelineError, match="cleaner already deleted"):
            _cdc(case.db, case.table, "earliest")
    last = case.commits[-1]
    assert _cdc(case.db, case.table, case.commits[-2]) == sorted(
        [c for c in case.expected if c[0] == last], key=lambda c: (c[0], c[2]))


def _crash_before_commit(*_: Any, **__: Any) -> None:
    raise RuntimeError("simulated crash between the write tasks and the completed instant")


def test_a_failed_write_leaves_no_changes_and_its_rollback_deletes_its_cdc_log(
        spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hudi_sql.commit.transaction import Transaction
    from hudi_sql.model.instant import Action
    from hudi_sql.table.meta_client import TableMetaClient

    path = tmp_path / "failed"
    with fresh_database(spark, "cdc_failed_db") as db:
        db.sql(f"CREATE TABLE failed (id INT, name STRING, price DOUBLE, ts BIGINT, dt STRING) USING hudi "
               f"PARTITIONED BY (dt) LOCATION '{path}' TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', "
               "'hoodie.table.cdc.enabled' = 'true')")
        db.sql(STATEMENTS[0].format(t="failed"))
        committed = _cdc(db, "failed", "earliest")
        monkeypatch.setattr(Transaction, "complete", _crash_before_commit)
        with pytest.raises(RuntimeError, match="simulated crash"):
            db.sql(STATEMENTS[1].format(t="failed"))  # the SQL statement rolls its failed write back
        monkeypatch.undo()

        meta = TableMetaClient.load(str(path))
        (rollback,) = meta.timeline.completed().with_actions(Action.ROLLBACK)
        deleted = json.dumps(meta.rollback_metadata(rollback.instant_time))
        assert ".cdc" in deleted, "the rollback deleted the CDC log the failed update wrote"
        assert _cdc_files(path) == set()
        assert _cdc(db, "failed", "earliest") == committed, "the failed write has no changes"

        db.sql(STATEMENTS[2].format(t="failed"))
        assert [op for _, op, *_ in _cdc(db, "failed", "earliest")] == ["i", "i", "i", "d"]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_table_without_meta_fields_changes_pair_images_by_key_fields(spark: Any, tmp_path: Path,
                                                                     table_type: str) -> None:
    # _hoodie_record_key is null in such a table: the CDC log's keys (COW) and the log records
    # met with their stored rows (MOR) must come from the key field, or images pair up wrongly.
    import hudi_sql

    path = str(tmp_path / "no_meta")
    options = {"hoodie.table.name": "no_meta", "hoodie.datasource.write.recordkey.field": "id",
               "hoodie.datasource.write.partitionpath.field": "p", "hoodie.datasource.write.precombine.field": "ts",
               "hoodie.datasource.write.table.type": table_type, "hoodie.populate.meta.fields": "false",
               "hoodie.table.cdc.enabled": "true", "hoodie.table.cdc.supplemental.logging.mode": "op_key_only"}
    schema = "id int, v string, ts int, p string"
    hudi_sql.write(spark.createDataFrame([(1, "a", 1, "x"), (2, "b", 1, "x"), (3, "c", 1, "x")], schema), path, options)
    hudi_sql.write(spark.createDataFrame([(1, "a2", 2, "x")], schema), path, options)
    hudi_sql.write(spark.createDataFrame([(2, "b", 3, "x")], schema), path,
                   {**options, "hoodie.datasource.write.operation": "delete"})
    changes = hudi_sql.read(spark, path, {"hoodie.datasource.query.type": "incremental",
                                          "hoodie.datasource.read.begin.instanttime": "earliest",
                                          "hoodie.datasource.query.incremental.format": "cdc"})

    def image(text: str | None) -> tuple[int, str] | None:
        data = _data(text)
        return None if data is None else (data["id"], data["v"])

    assert sorted((r["op"], image(r["before"]), image(r["after"])) for r in changes.collect()) == [
        ("d", (2, "b"), None), ("i", None, (1, "a")), ("i", None, (2, "b")), ("i", None, (3, "c")),
        ("u", (1, "a"), (1, "a2"))]
