"""The analyzer: each statement form gives the expected typed statement; each error is a Hudi error."""

from __future__ import annotations

import dataclasses
import pickle
import re
from pathlib import Path
from typing import Any

import pytest
from fixture_tables import fixtures_root

from hudi_sql.config.read import QueryType
from hudi_sql.config.table import TableType
from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.read.skipping import ColumnPredicate
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer import analyze
from hudi_sql.sql.dialect import generate
from hudi_sql.sql.statements import (
    STAR,
    Assignment,
    ColumnDef,
    MergeAction,
    MergeClause,
    MergeClauseKind,
    PartitionValue,
    Query,
    TableName,
    TableRef,
)

GOLDEN = Path(__file__).parent / "golden"


def one(sql: str) -> st.Statement:
    statements = analyze(sql)
    assert len(statements) == 1, statements
    return statements[0]


def ref(name: str, alias: str | None = None, n: int = 0, **changes: Any) -> TableRef:
    """A TableRef for ``db.t`` / ``t`` with placeholder ``__hudi_ref_<n>``; *changes* set other fields."""
    database, _, table = name.rpartition(".")
    base = TableRef(name=TableName(database or None, table), alias=alias, placeholder=f"__hudi_ref_{n}")
    return dataclasses.replace(base, **changes)


def S(text: str) -> st.SparkSql:
    """Spark SQL as the statement should say it (a :class:`~hudi_sql.sql.statements.SparkSql`
    equals another that renders the same text)."""
    return st.SparkSql(text=text)


def source_sql(reference: TableRef) -> str:
    """The reference's relation as Spark SQL (how a table that is not Hudi's is bound back)."""
    assert reference.source is not None
    return generate(reference.source)


# CREATE TABLE ------------------------------------------------------------------------------------


def test_create_table_all_clauses_any_order() -> None:
    statement = one(
        "CREATE TABLE IF NOT EXISTS db.t (id INT NOT NULL COMMENT 'key', ts BIGINT, dt STRING) "
        "USING hudi TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts', "
        "'hoodie.metadata.enable' = 'false', hoodie.parquet.small.file.limit = 0) "
        "LOCATION '/data/t' COMMENT 'trips' PARTITIONED BY (dt)"
    )
    assert isinstance(statement, st.CreateTable)
    assert statement == st.CreateTable(
        name=TableName("db", "t"),
        columns=(
            ColumnDef("id", "INT", nullable=False, comment="key"),
            ColumnDef("ts", "BIGINT"),
            ColumnDef("dt", "STRING"),
        ),
        partitioned_by=("dt",),
        location="/data/t",
        properties={
            "type": "mor",
            "primaryKey": "id",
            "preCombineField": "ts",
            "hoodie.metadata.enable": "false",
            "hoodie.parquet.small.file.limit": "0",
        },
        if_not_exists=True,
        comment="trips",
        sql=statement.sql,
    )
    assert str(statement.sql).startswith("CREATE TABLE IF NOT EXISTS db.t (id INT NOT NULL COMMENT 'key'")
    assert statement.primary_key == ("id",)
    assert statement.precombine_field == "ts"
    assert statement.table_type is TableType.MERGE_ON_READ
    assert statement.hoodie_options() == {
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.metadata.enable": "false",
        "hoodie.parquet.small.file.limit": "0",
    }


def test_create_table_options_and_hoodie_keys_resolve() -> None:
    statement = one(
        "CREATE TABLE t (a INT, b INT, c STRING) USING HUDI OPTIONS ("
        "'hoodie.datasource.write.recordkey.field' = 'a,b', 'hoodie.table.type' = 'COPY_ON_WRITE', "
        "'hoodie.datasource.write.precombine.field' = 'c')"
    )
    assert isinstance(statement, st.CreateTable)
    assert statement.primary_key == ("a", "b")
    assert statement.precombine_field == "c"
    assert statement.table_type is TableType.COPY_ON_WRITE


def test_create_table_as_select_carries_a_query() -> None:
    statement = one(
        "CREATE TABLE t USING hudi PARTITIONED BY (dt) TBLPROPERTIES (primaryKey = 'id') "
        "AS SELECT s.id, s.dt FROM src AS s WHERE s.id > 0"
    )
    assert isinstance(statement, st.CreateTable)
    assert statement.columns == ()
    assert statement.as_query == Query(
        S("SELECT s.id, s.dt FROM __hudi_ref_0 AS s WHERE s.id > 0"),
        (ref("src", "s", filters=(ColumnPredicate("id", ">", (0,)),)),)
    )
    assert statement.table_type is None


def test_create_table_from_location_without_columns() -> None:
    statement = one("CREATE TABLE t USING hudi LOCATION '/data/t'")
    assert isinstance(statement, st.CreateTable)
    assert statement == st.CreateTable(TableName(None, "t"), location="/data/t", sql=statement.sql)


def test_create_table_using_the_hudi_package_name() -> None:
    statement = one("CREATE TABLE t (a INT) USING org.apache.hudi")
    assert isinstance(statement, st.CreateTable)
    assert statement.columns == (ColumnDef("a", "INT"),)


def test_create_table_of_another_format_passes_through() -> None:
    statement = one("CREATE TABLE p (a INT) USING parquet")
    assert statement == st.Passthrough(
        S("CREATE TABLE p (a INT) USING parquet"), (), (TableName(None, "p"),), "CREATE TABLE"
    )


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("CREATE TABLE t (a INT) USING hudi TBLPROPERTIES (primaryKey = 'id')", "primaryKey field 'id'"),
        ("CREATE TABLE t (a INT) USING hudi TBLPROPERTIES (preCombineField = 'ts')", "preCombineField 'ts'"),
        ("CREATE TABLE t (a INT) USING hudi PARTITIONED BY (dt)", "partition column 'dt'"),
        ("CREATE TABLE t (a INT) USING hudi TBLPROPERTIES (type = 'xyz')", "not a table type"),
        ("CREATE TABLE t (a INT, A STRING) USING hudi", "declared twice"),
        ("CREATE TABLE t (a INT) USING hudi AS SELECT 1 AS a", "cannot also declare columns"),
        ("CREATE TABLE t USING hudi", "needs columns"),
        ("CREATE TABLE t (a INT) USING hudi TBLPROPERTIES ('k' = 'a', k = 'b')", "given twice"),
    ],
)
def test_create_table_errors(sql: str, message: str) -> None:
    with pytest.raises(HudiSqlError, match=message):
        analyze(sql)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE OR REPLACE TABLE t (a INT) USING hudi",
        "CREATE TABLE t (a INT) USING hudi PARTITIONED BY (b STRING)",
        "CREATE TABLE t (a INT DEFAULT 1) USING hudi",
        "CREATE TABLE t (a INT) USING hudi CLUSTERED BY (a) INTO 4 BUCKETS",
        "CREATE TABLE spark_catalog2.db.t (a INT) USING hudi",
    ],
)
def test_create_table_unsupported(sql: str) -> None:
    with pytest.raises(UnsupportedFeatureError, match="not supported: "):
        analyze(sql)


# Other DDL ---------------------------------------------------------------------------------------


def test_drop_table() -> None:
    assert one("DROP TABLE IF EXISTS db.t PURGE") == st.DropTable(
        TableName("db", "t"), if_exists=True, purge=True, sql=S("DROP TABLE IF EXISTS db.t PURGE")
    )
    assert one("DROP TABLE t") == st.DropTable(TableName(None, "t"), sql=S("DROP TABLE t"))


def test_drop_view_passes_through() -> None:
    assert one("DROP VIEW IF EXISTS v") == st.Passthrough(
        S("DROP VIEW IF EXISTS v"), (), (TableName(None, "v"),), "DROP VIEW"
    )


def test_alter_table_forms() -> None:
    assert one("ALTER TABLE t ADD COLUMNS (a INT COMMENT 'x', b STRING NOT NULL)") == st.AlterTableAddColumns(
        TableName(None, "t"),
        (ColumnDef("a", "INT", comment="x"), ColumnDef("b", "STRING", nullable=False)),
        sql=S("ALTER TABLE t ADD COLUMNS (a INT COMMENT 'x', b STRING NOT NULL)"),
    )
    assert one("ALTER TABLE db.t SET TBLPROPERTIES ('hoodie.x' = '1', k = 2)") == st.AlterTableSetProperties(
        TableName("db", "t"),
        {"hoodie.x": "1", "k": "2"},
        sql=S("ALTER TABLE db.t SET TBLPROPERTIES ('hoodie.x' = '1', k = 2)"),
    )
    assert one("ALTER TABLE t RENAME TO db.u") == st.AlterTableRename(
        TableName(None, "t"), TableName("db", "u"), sql=S("ALTER TABLE t RENAME TO db.u")
    )


def test_alter_table_drop_partitions() -> None:
    statement = one(
        "ALTER TABLE t DROP IF EXISTS PARTITION (dt = '2024-01-01', h = 1), PARTITION (dt = NULL) PURGE"
    )
    assert isinstance(statement, st.AlterTableDropPartition)
    assert statement.partitions == (
        (PartitionValue("dt", "'2024-01-01'", "2024-01-01"), PartitionValue("h", "1", "1")),
        (PartitionValue("dt", "NULL", None),),
    )
    assert statement.if_exists and statement.purge
    plain = one("ALTER TABLE t DROP PARTITION (dt = DATE '2024-01-01')")
    assert isinstance(plain, st.AlterTableDropPartition)
    assert plain.partitions == ((PartitionValue("dt", "DATE '2024-01-01'", "2024-01-01"),),)
    assert str(plain.sql) == "ALTER TABLE t DROP PARTITION (dt = DATE '2024-01-01')"
    assert not plain.if_exists and not plain.purge


def test_alter_table_other_actions_pass_through_with_target() -> None:
    statement = one("ALTER TABLE db.t DROP COLUMN a")
    assert statement == st.Passthrough(
        S("ALTER TABLE db.t DROP COLUMN a"), (), (TableName("db", "t"),), "ALTER TABLE ... DROP COLUMN"
    )


def test_partition_values_must_be_constants() -> None:
    with pytest.raises(HudiSqlError, match="partition column 'dt' must be a constant"):
        analyze("ALTER TABLE t DROP PARTITION (dt = current_date())")
    with pytest.raises(HudiSqlError, match="needs a value"):
        analyze("ALTER TABLE t DROP PARTITION (dt)")


def test_show_truncate_describe() -> None:
    assert one("SHOW PARTITIONS db.t") == st.ShowPartitions(TableName("db", "t"), sql=S("SHOW PARTITIONS db.t"))
    assert one("SHOW PARTITIONS t PARTITION (p = 'v')") == st.ShowPartitions(
        TableName(None, "t"), (PartitionValue("p", "'v'", "v"),), sql=S("SHOW PARTITIONS t PARTITION (p = 'v')")
    )
    assert one("TRUNCATE TABLE t") == st.TruncateTable(TableName(None, "t"), sql=S("TRUNCATE TABLE t"))
    assert one("SHOW CREATE TABLE t") == st.ShowCreateTable(TableName(None, "t"), sql=S("SHOW CREATE TABLE t"))
    assert one("DESCRIBE EXTENDED db.t") == st.DescribeTable(
        TableName("db", "t"), extended=True, sql=S("DESCRIBE EXTENDED db.t")
    )
    assert one("DESC FORMATTED t") == st.DescribeTable(
        TableName(None, "t"), extended=True, sql=S("DESC FORMATTED t")
    )
    assert one("DESCRIBE t") == st.DescribeTable(TableName(None, "t"), sql=S("DESCRIBE t"))
    # Spark's optional TABLE keyword (the oracle tests' DESCRIBE TABLE EXTENDED was refused on Hudi tables)
    assert one("DESCRIBE TABLE EXTENDED db.t") == st.DescribeTable(
        TableName("db", "t"), extended=True, sql=S("DESCRIBE TABLE EXTENDED db.t")
    )
    assert isinstance(one("DESCRIBE DATABASE db"), st.Passthrough)


# INSERT ------------------------------------------------------------------------------------------


def test_insert_into_with_partition_spec_and_columns() -> None:
    statement = one("INSERT INTO db.t PARTITION (dt = '2024-01-01', h) (a, b) SELECT x, y, h FROM s")
    assert statement == st.InsertInto(
        table=TableName("db", "t"),
        partition_spec=(PartitionValue("dt", "'2024-01-01'", "2024-01-01"), PartitionValue("h", None, None)),
        columns=("a", "b"),
        query=Query(S("SELECT x, y, h FROM __hudi_ref_0 AS s"), (ref("s"),)),
        overwrite=False,
        sql=S("INSERT INTO db.t PARTITION(dt = '2024-01-01', h) (a, b) SELECT x, y, h FROM __hudi_ref_0 AS s"),
    )


def test_insert_overwrite_and_values() -> None:
    overwrite = one("INSERT OVERWRITE t PARTITION (p = 1) SELECT * FROM db.s WHERE db.s.a > 0")
    assert isinstance(overwrite, st.InsertInto) and overwrite.overwrite
    assert overwrite.query == Query(S("SELECT * FROM __hudi_ref_0 AS s WHERE s.a > 0"), (ref("db.s"),))
    values = one("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    assert isinstance(values, st.InsertInto) and not values.overwrite
    assert values.query == Query(S("VALUES (1, 'a'), (2, 'b')"))


def test_insert_with_cte_moves_the_cte_into_the_query() -> None:
    statement = one("WITH c AS (SELECT * FROM s) INSERT INTO t SELECT * FROM c")
    assert isinstance(statement, st.InsertInto)
    assert statement.query == Query(
        S("WITH c AS (SELECT * FROM __hudi_ref_0 AS s) SELECT * FROM c"), (ref("s"),)
    )


def test_insert_unsupported_forms() -> None:
    with pytest.raises(UnsupportedFeatureError):
        analyze("INSERT INTO t BY NAME SELECT * FROM s")
    with pytest.raises(HudiSqlError, match="appears twice"):
        analyze("INSERT INTO t (a, a) VALUES (1, 2)")


# MERGE -------------------------------------------------------------------------------------------

FULL_MERGE = (
    "MERGE INTO db.t AS x USING (SELECT * FROM s WHERE a > 1) AS s ON x.id = s.id "
    "WHEN MATCHED AND s.op = 'd' THEN DELETE "
    "WHEN MATCHED AND s.op = 'u' THEN UPDATE SET x.a = s.a, b = s.b + 1 "
    "WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED AND s.a > 0 THEN INSERT (id, a) VALUES (s.id, s.a) "
    "WHEN NOT MATCHED BY TARGET THEN INSERT * "
    "WHEN NOT MATCHED BY SOURCE AND x.a < 0 THEN DELETE "
    "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET x.a = 0"
)


def test_merge_with_every_clause_kind_keeps_order() -> None:
    statement = one(FULL_MERGE)
    assert isinstance(statement, st.MergeInto)
    assert statement.target == TableName("db", "t")
    assert statement.target_alias == "x"
    assert statement.source == Query(S("SELECT * FROM __hudi_ref_0 AS s WHERE a > 1"),
                                     (ref("s", filters=(ColumnPredicate("a", ">", (1,)),)),))
    assert statement.source_alias == "s"
    assert str(statement.on) == "x.id = s.id"
    matched, not_matched, by_source = (
        MergeClauseKind.MATCHED,
        MergeClauseKind.NOT_MATCHED,
        MergeClauseKind.NOT_MATCHED_BY_SOURCE,
    )
    assert statement.clauses == (
        MergeClause(matched, MergeAction.DELETE, S("s.op = 'd'")),
        MergeClause(
            matched, MergeAction.UPDATE, S("s.op = 'u'"), (Assignment("a", S("s.a")), Assignment("b", S("s.b + 1")))
        ),
        MergeClause(matched, MergeAction.UPDATE, None, STAR),
        MergeClause(
            not_matched,
            MergeAction.INSERT,
            S("s.a > 0"),
            (Assignment("id", S("s.id")), Assignment("a", S("s.a"))),
            ("id", "a"),
            (S("s.id"), S("s.a")),
        ),
        MergeClause(not_matched, MergeAction.INSERT, None, STAR),
        MergeClause(by_source, MergeAction.DELETE, S("x.a < 0")),
        MergeClause(by_source, MergeAction.UPDATE, None, (Assignment("a", S("0")),)),
    )
    assert statement.clauses[2].is_star and not statement.clauses[1].is_star
    assert statement.table_refs == statement.source.table_refs
    assert "USING (SELECT * FROM __hudi_ref_0 AS s WHERE a > 1) AS s" in str(statement.sql)


def test_merge_with_source_table_becomes_a_query() -> None:
    statement = one(
        "MERGE INTO t USING db.s TIMESTAMP AS OF '20240101' ON t.id = s.id WHEN MATCHED THEN DELETE"
    )
    assert isinstance(statement, st.MergeInto)
    source_ref = ref("db.s", as_of="20240101")
    assert statement.source == Query(S("SELECT * FROM __hudi_ref_0 AS s"), (source_ref,))
    assert source_sql(statement.source.table_refs[0]) == "db.s TIMESTAMP AS OF '20240101'"
    assert statement.source_alias == "s"
    assert statement.target_alias is None
    assert str(statement.sql) == "MERGE INTO t USING __hudi_ref_0 AS s ON t.id = s.id WHEN MATCHED THEN DELETE"


def test_merge_subqueries_in_conditions_get_placeholders() -> None:
    statement = one(
        "MERGE INTO t USING s AS src ON t.id = src.id "
        "WHEN MATCHED AND src.id IN (SELECT id FROM blocked) THEN DELETE"
    )
    assert isinstance(statement, st.MergeInto)
    assert str(statement.clauses[0].condition) == "src.id IN (SELECT id FROM __hudi_ref_1 AS blocked)"
    assert statement.table_refs == (ref("s", "src"), ref("blocked", n=1))


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        (
            "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT * WHEN MATCHED THEN DELETE",
            "MERGE clause order",
        ),
        (
            (
                "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN DELETE "
                "WHEN NOT MATCHED THEN INSERT *"
            ),
            "MERGE clause order",
        ),
        (
            ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE "
            "WHEN MATCHED AND s.a = 1 THEN UPDATE SET *"),
            "only the last MATCHED clause can omit the condition",
        ),
        (
            ("MERGE INTO t USING s ON t.id = s.id "
            "WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED THEN INSERT *"),
            "only the last NOT MATCHED clause can omit the condition",
        ),
        ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN INSERT *", "is not allowed"),
        ("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN DELETE", "is not allowed"),
        (
            "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *",
            "needs a source row",
        ),
        (
            "MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)",
            "names 2 columns but gives 1 values",
        ),
        ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = 1, t.a = 2", "assigned twice"),
        (
            "MERGE INTO t TIMESTAMP AS OF '1' USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
            "as of the past",
        ),
    ],
)
def test_merge_errors(sql: str, message: str) -> None:
    with pytest.raises(HudiSqlError, match=message):
        analyze(sql)


def test_merge_assignment_to_other_qualifier_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeatureError, match=r"assignment to 's\.a'"):
        analyze("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET s.a = 1")


# UPDATE / DELETE ---------------------------------------------------------------------------------


def test_update() -> None:
    statement = one("UPDATE db.t AS x SET a = 1, x.b = b + 1 WHERE id IN (SELECT id FROM s)")
    assert statement == st.Update(
        TableName("db", "t"),
        "x",
        (Assignment("a", S("1")), Assignment("b", S("b + 1"))),
        S("id IN (SELECT id FROM __hudi_ref_0 AS s)"),
        (ref("s"),),
        sql=S("UPDATE db.t AS x SET a = 1, x.b = b + 1 WHERE id IN (SELECT id FROM __hudi_ref_0 AS s)"),
    )
    plain = one("UPDATE t SET t.a = 1")
    assert plain == st.Update(TableName(None, "t"), None, (Assignment("a", S("1")),), sql=S("UPDATE t SET t.a = 1"))


def test_delete() -> None:
    assert one("DELETE FROM t x WHERE x.a = 1") == st.Delete(
        TableName(None, "t"), "x", S("x.a = 1"), sql=S("DELETE FROM t x WHERE x.a = 1")
    )
    assert one("DELETE FROM db.t") == st.Delete(TableName("db", "t"), None, sql=S("DELETE FROM db.t"))


# Queries -----------------------------------------------------------------------------------------


def test_select_joins_hudi_and_other_tables_with_hints_and_time_travel() -> None:
    statement = one(
        "SELECT /*+ READ_OPTIMIZED(t), BROADCAST(s) */ t.id, s.v FROM db.t "
        "JOIN s TIMESTAMP AS OF '2024-01-01' ON t.id = s.id"
    )
    assert statement == st.Select(
        S("SELECT /*+ BROADCAST(s) */ t.id, s.v FROM __hudi_ref_0 AS t JOIN __hudi_ref_1 AS s ON t.id = s.id"),
        (
            ref("db.t", query_type=QueryType.READ_OPTIMIZED),
            ref("s", n=1, as_of="2024-01-01"),
        ),
    )
    assert source_sql(statement.table_refs[1]) == "s TIMESTAMP AS OF '2024-01-01'"


def test_select_incremental_and_as_of_hints_by_alias() -> None:
    statement = one(
        "SELECT /*+ INCREMENTAL(a, 'earliest', '20240102'), AS_OF(b, '20240101') */ * FROM t AS a, t AS b"
    )
    assert isinstance(statement, st.Select)
    assert statement.table_refs == (
        ref("t", "a", query_type=QueryType.INCREMENTAL, begin="000", end="20240102"),
        ref("t", "b", n=1, as_of="20240101"),
    )
    assert "/*+" not in str(statement.sql)


def test_hints_apply_within_their_select_only() -> None:
    statement = one("SELECT * FROM t WHERE id IN (SELECT /*+ SNAPSHOT(t) */ id FROM t)")
    assert isinstance(statement, st.Select)
    assert [r.query_type for r in statement.table_refs] == [None, QueryType.SNAPSHOT]


def test_cte_names_are_not_table_references() -> None:
    statement = one("WITH c AS (SELECT * FROM t) SELECT * FROM c JOIN u ON c.id = u.id")
    assert isinstance(statement, st.Select)
    assert str(statement.sql) == (
        "WITH c AS (SELECT * FROM __hudi_ref_0 AS t) SELECT * FROM c JOIN __hudi_ref_1 AS u ON c.id = u.id"
    )
    assert [str(r.name) for r in statement.table_refs] == ["t", "u"]


def test_hudi_table_functions() -> None:
    statement = one(
        "SELECT * FROM hudi_table_changes('db.t', 'cdc', 'earliest') AS c "
        "JOIN hudi_table_changes('/data/t', 'latest_state', '001', '002') AS p ON c.id = p.id "
        "JOIN hudi_query('u', 'read_optimized') AS q ON q.id = c.id"
    )
    assert isinstance(statement, st.Select)
    c, p, q = statement.table_refs
    assert (c.name, c.alias, c.query_type, c.incremental_format, c.begin, c.end, c.table_function) == (
        TableName("db", "t"),
        "c",
        QueryType.INCREMENTAL,
        "cdc",
        "000",
        None,
        "hudi_table_changes",
    )
    assert (p.name, p.path, p.incremental_format, p.begin, p.end) == (
        None,
        "/data/t",
        "latest_state",
        "001",
        "002",
    )
    assert (q.name, q.query_type, q.table_function) == (
        TableName(None, "u"),
        QueryType.READ_OPTIMIZED,
        "hudi_query",
    )
    assert str(statement.sql) == (
        "SELECT * FROM __hudi_ref_0 AS c JOIN __hudi_ref_1 AS p ON c.id = p.id "
        "JOIN __hudi_ref_2 AS q ON q.id = c.id"
    )


def test_table_by_path() -> None:
    statement = one("SELECT * FROM hudi.`/data/t` TIMESTAMP AS OF '1' AS x")
    assert statement == st.Select(
        S("SELECT * FROM __hudi_ref_0 AS x"),
        (
            TableRef(
                None,
                "x",
                as_of="1",
                placeholder="__hudi_ref_0",
                path="/data/t",
            ),
        ),
    )
    assert source_sql(statement.table_refs[0]) == "hudi.`/data/t` TIMESTAMP AS OF '1'"


def test_files_of_other_formats_are_not_table_references() -> None:
    assert one("SELECT * FROM parquet.`/data/p`") == st.Select(S("SELECT * FROM parquet.`/data/p`"))


def test_source_sql_is_the_relation_only() -> None:
    pivot = one("SELECT * FROM db.t PIVOT (SUM(v) FOR k IN ('a', 'b'))")
    assert isinstance(pivot, st.Select)
    assert pivot.table_refs == (ref("db.t"),)
    assert pivot.bind({}) == "SELECT * FROM db.t AS t PIVOT(SUM(v) FOR k IN ('a', 'b'))"
    sample = one("SELECT * FROM t TABLESAMPLE (10 PERCENT) AS x")
    assert isinstance(sample, st.Select)
    assert sample.table_refs == (ref("t", "x"),)
    assert sample.bind({}) == "SELECT * FROM t TABLESAMPLE (10 PERCENT) AS x"


def test_bind_replaces_placeholders_or_restores_sources() -> None:
    statement = one("SELECT * FROM db.t JOIN s TIMESTAMP AS OF '1' ON t.id = s.id")
    assert isinstance(statement, st.Select)
    assert statement.bind({"__hudi_ref_0": "hudi_view_7"}) == (
        "SELECT * FROM hudi_view_7 AS t JOIN s TIMESTAMP AS OF '1' AS s ON t.id = s.id"
    )


def test_placeholder_prefix_avoids_user_text() -> None:
    statement = one("SELECT '__hudi_ref_0' AS x FROM t")
    assert isinstance(statement, st.Select)
    placeholder = statement.table_refs[0].placeholder
    assert placeholder != "__hudi_ref_0" and placeholder.endswith("__hudi_ref_0")
    assert statement.bind({placeholder: "v"}) == "SELECT '__hudi_ref_0' AS x FROM v AS t"


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT /*+ SNAPSHOT(x) */ * FROM t", "names no table of its query"),
        ("SELECT /*+ INCREMENTAL(t) */ * FROM t", "bad hint INCREMENTAL"),
        ("SELECT /*+ AS_OF(t, '1', '2') */ * FROM t", "bad hint AS_OF"),
        ("SELECT /*+ SNAPSHOT(t, '1') */ * FROM t", "bad hint SNAPSHOT"),
        ("SELECT /*+ SNAPSHOT(t), READ_OPTIMIZED(t) */ * FROM t", "conflicts with SNAPSHOT"),
        ("SELECT /*+ INCREMENTAL(t, '1') */ * FROM t TIMESTAMP AS OF '2'", "conflicts with the time travel"),
        ("SELECT /*+ AS_OF(t, '1') */ * FROM t TIMESTAMP AS OF '2'", "conflicts with the time travel"),
        ("SELECT /*+ SNAPSHOT(c) */ * FROM hudi_table_changes('t', 'cdc', '1') AS c", "cannot apply"),
        ("SELECT * FROM hudi_table_changes('t', 'full', '1')", "bad arguments for hudi_table_changes"),
        ("SELECT * FROM hudi_table_changes('t', 'cdc')", "bad arguments for hudi_table_changes"),
        ("SELECT * FROM hudi_query('t', 'incremental')", "bad arguments for hudi_query"),
        ("SELECT * FROM t TIMESTAMP AS OF current_timestamp()", "must be a literal"),
    ],
)
def test_query_errors(sql: str, message: str) -> None:
    with pytest.raises(HudiSqlError, match=message):
        analyze(sql)


def test_version_as_of_is_unsupported() -> None:
    with pytest.raises(UnsupportedFeatureError, match="not supported: time travel"):
        analyze("SELECT * FROM t VERSION AS OF 3")


# Session options, CALL, EXPLAIN ------------------------------------------------------------------


def test_session_options() -> None:
    assert analyze(
        "SET hoodie.datasource.query.type=incremental; SET hoodie.x = 'a b'; SET hoodie.x; SET; SET -v; "
        "RESET hoodie.x; RESET"
    ) == [
        st.SetOption("hoodie.datasource.query.type", "incremental"),
        st.SetOption("hoodie.x", "a b"),
        st.ShowOption("hoodie.x", sql=S("SET hoodie.x")),
        st.ShowOption(sql=S("SET")),
        st.ShowOption(verbose=True, sql=S("SET -v")),
        st.ResetOption("hoodie.x"),
        st.ResetOption(),
    ]


def test_call_named_and_positional() -> None:
    assert one(
        "CALL Show_Commits(TABLE => 'db.t', limit => 10, `order` => -1.5, b => true, c => null)"
    ) == st.Call(
        "show_commits",
        (
            st.CallArg("table", "db.t"),
            st.CallArg("limit", 10),
            st.CallArg("order", -1.5),
            st.CallArg("b", True),
            st.CallArg("c", None),
        ),
    )
    positional = one("CALL system.p('t', 3)")
    assert positional == st.Call("system.p", (st.CallArg(None, "t"), st.CallArg(None, 3)))
    assert isinstance(positional, st.Call) and not positional.named
    assert one("CALL p()") == st.Call("p")


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("CALL", "Expected a procedure name after CALL"),
        ("CALL p", "Expected '\\(' after the procedure name"),
        ("CALL p(a => )", "Expected a value for argument 'a'"),
        ("CALL p(a => 1", "Expecting \\)"),
        ("CALL p(1, b => 2)", "named and positional arguments cannot be mixed"),
        ("CALL p(a => 1, A => 2)", "argument 'a' is given twice"),
        ("CALL p(a => x + 1)", "argument 'a' must be a literal"),
        ("CALL p(1 + 1)", "a positional argument must be a literal"),
    ],
)
def test_bad_call_syntax(sql: str, message: str) -> None:
    with pytest.raises(HudiSqlError, match=message):
        analyze(sql)


def test_explain() -> None:
    query = one("EXPLAIN SELECT * FROM t")
    assert query == st.Explain(
        st.Select(S("SELECT * FROM __hudi_ref_0 AS t"), (ref("t"),)),
        None,
        sql=S("EXPLAIN SELECT * FROM __hudi_ref_0 AS t"),
    )
    dml = one("EXPLAIN EXTENDED DELETE FROM t WHERE a = 1")
    assert dml == st.Explain(
        st.Delete(TableName(None, "t"), None, S("a = 1"), sql=S("DELETE FROM t WHERE a = 1")), "extended"
    )
    with pytest.raises(UnsupportedFeatureError):
        analyze("EXPLAIN CALL p()")


# Passthrough and errors --------------------------------------------------------------------------


def test_passthrough_statements() -> None:
    statements = analyze(
        "USE db; SHOW TABLES; CACHE TABLE t; REFRESH TABLE t; ADD JAR '/x.jar'; CLEAR CACHE; "
        "CREATE TEMPORARY VIEW v AS SELECT * FROM t; CREATE DATABASE IF NOT EXISTS d"
    )
    assert all(isinstance(s, st.Passthrough) for s in statements)
    assert [str(s.sql) for s in statements] == [  # type: ignore[attr-defined]
        "USE db",
        "SHOW TABLES",
        "CACHE TABLE t",
        "REFRESH TABLE t",
        "ADD JAR '/x.jar'",
        "CLEAR CACHE",
        "CREATE TEMPORARY VIEW v AS SELECT * FROM __hudi_ref_0 AS t",
        "CREATE DATABASE IF NOT EXISTS d",
    ]
    view = statements[6]
    assert isinstance(view, st.Passthrough)
    assert (
        view.table_refs == (ref("t"),)
        and view.targets == (TableName(None, "v"),)
        and view.kind == "CREATE VIEW"
    )


def test_permanent_views_keep_their_text_as_written_and_a_bindable_query() -> None:
    [view] = analyze(
        "CREATE OR REPLACE VIEW db.v (a COMMENT 'the id', b) COMMENT 'c' TBLPROPERTIES ('k' = 'v') "
        "AS SELECT id, name FROM t WHERE id > 1"
    )
    assert isinstance(view, st.CreateView)
    assert view.name == TableName("db", "v") and view.replace and not view.if_not_exists
    assert view.view_text == "SELECT id, name FROM t WHERE id > 1"
    assert str(view.query.sql) == "SELECT id, name FROM __hudi_ref_0 AS t WHERE id > 1"
    assert view.query.table_refs == (ref("t", filters=(ColumnPredicate("id", ">", (1,)),)),)
    assert view.columns == (("a", "the id"), ("b", None))
    assert view.comment == "c" and dict(view.properties) == {"k": "v"}
    assert str(view.spark_sql).startswith("CREATE OR REPLACE VIEW db.v")


@pytest.mark.parametrize("sql", ["VACUUM t", "GRANT SELECT ON t TO u", "ALTER TABLE t RECOVER PARTITIONS"])
def test_unsupported_statements(sql: str) -> None:
    with pytest.raises(UnsupportedFeatureError, match=r"^not supported: "):
        analyze(sql)


def test_not_a_statement() -> None:
    with pytest.raises(HudiSqlError, match="'FOO BAR' is not a statement"):
        analyze("FOO BAR")


def test_parse_error_has_line_column_and_caret() -> None:
    sql = "SELECT 1;\nSELECT a,\n  b FROM t WHERE (a > 1"
    with pytest.raises(HudiSqlError) as info:
        analyze(sql)
    error = info.value
    assert (error.line, error.col) == (3, 23)
    lines = str(error).splitlines()
    assert lines[0] == "syntax error: Expecting ). SQLSTATE: 42601 (line 3, column 23)"
    assert error.sql_state == "42601"
    assert lines[1] == "    b FROM t WHERE (a > 1"
    assert lines[2] == "  " + " " * 22 + "^"


def test_a_misspelt_statement_word_is_named_where_it_is_with_the_word_meant() -> None:
    with pytest.raises(HudiSqlError) as info:
        analyze("SELECT 1;\nSELEC uuid FROM trips")
    assert (info.value.line, info.value.col) == (2, 1), "the caret under SELEC, not under FROM"
    assert str(info.value).splitlines()[0] == (
        "syntax error at or near 'SELEC': no statement starts with it. Did you mean 'SELECT'? SQLSTATE: 42601 "
        "(line 2, column 1)")


def test_unterminated_string_error_points_at_the_quote() -> None:
    with pytest.raises(HudiSqlError, match="unterminated quoted text") as info:
        analyze("SELECT 1;\n  SELECT 'abc")
    assert (info.value.line, info.value.col) == (2, 10)
    assert str(info.value).splitlines()[-1] == "  " + " " * 9 + "^"


def test_statements_are_picklable_values() -> None:
    statements = analyze(
        FULL_MERGE + "; SELECT /*+ SNAPSHOT(t) */ * FROM t; CALL p(a => 1); CREATE TABLE t (a INT) USING hudi"
    )
    assert pickle.loads(pickle.dumps(statements)) == statements


# Golden Passthrough / query regeneration ---------------------------------------------------------


def load_sql_pairs(path: Path) -> list[tuple[str, str]]:
    """Input/expected pairs: consecutive statements, each ending with ``;`` at a line end;
    whole-line ``--`` comments are skipped."""
    text = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    chunks = [c.strip() for c in re.split(r";[ \t]*(?:\n|$)", text) if c.strip()]
    assert len(chunks) % 2 == 0, f"{path.name}: odd number of statements"
    return list(zip(chunks[::2], chunks[1::2], strict=True))


GOLDEN_PAIRS = [
    pytest.param(source, expected, id=f"{path.stem}-{i}")
    for path in sorted(GOLDEN.glob("*.sql"))
    for i, (source, expected) in enumerate(load_sql_pairs(path))
]


@pytest.mark.parametrize(("source", "expected"), GOLDEN_PAIRS)
def test_golden_regeneration(source: str, expected: str) -> None:
    statement = one(source)
    assert isinstance(statement, (st.Passthrough, st.Select, st.CreateView)), statement
    sql = statement.spark_sql if isinstance(statement, st.CreateView) else statement.sql
    assert str(sql) == expected


# Fixture scripts ---------------------------------------------------------------------------------


def _fixture_scripts() -> list[str]:
    """The ``.sql`` scripts next to the Apache Hudi fixture tables, relative to ``hudi-tables``."""
    root = fixtures_root()
    if root is None:
        return []
    tables = root / "hudi-tables"
    return sorted(str(path.relative_to(tables)) for path in tables.rglob("*.sql"))


@pytest.mark.parametrize("script", _fixture_scripts())
def test_fixture_scripts_analyse(script: str) -> None:
    root = fixtures_root()
    assert root is not None
    statements = analyze((root / "hudi-tables" / script).read_text())
    assert statements and isinstance(statements[0], st.CreateTable)
    assert statements[0].primary_key


def test_fixture_scripts_present_or_skipped() -> None:
    if fixtures_root() is None:
        pytest.skip(
            "Apache Hudi fixture tables not found: "
            "set HUDI_FIXTURES or place shared/fixtures beside the project"
        )
    assert _fixture_scripts()


def _merge_on(on: str, target: str = "t", source: str = "s") -> st.MergeInto:
    (statement,) = analyze(
        f"MERGE INTO db.tbl {target} USING src {source} ON {on} WHEN MATCHED THEN DELETE"
    )
    assert isinstance(statement, st.MergeInto)
    return statement


def test_merge_on_equalities_finds_target_columns_equated_with_source_expressions() -> None:
    on = "t.id = s.id AND UPPER(s.q) = t.`p x` AND (t.a = 1 OR s.b = 2) AND t.w = s.w + t.w AND id = s.k"
    assert dict(_merge_on(on, "T").on_equalities) == {"id": S("s.id"), "p x": S("UPPER(s.q)")}
    assert _merge_on("lower(t.email) = lower(s.mail)").on_equalities == ()
    assert _merge_on("t.p = (SELECT max(p) FROM x)").on_equalities == ()


def test_merge_on_column_pairs_only_when_on_is_nothing_but_column_equalities() -> None:
    def pairs(on: str, target: str = "t") -> dict[str, str] | None:
        found = _merge_on(on, target).on_column_pairs
        return None if found is None else dict(found)

    assert pairs("t.id = s.id AND s.P = t.p", "T") == {"id": "id", "p": "p"}
    assert pairs("t.id = s.key") == {"id": "key"}
    assert pairs("t.id = s.id AND t.p = 'x'") is None
    assert pairs("t.id = s.id OR t.p = s.p") is None
    assert pairs("t.id = s.id + 1") is None
    assert pairs("t.id = s.id AND t.id = s.other") is None
    assert pairs("id = s.id") is None


def test_merge_on_pairs_without_alias_use_the_table_name() -> None:
    (statement,) = analyze("MERGE INTO db.tbl USING (SELECT 1 AS id) ON tbl.id = __hudi_source.id "
                           "WHEN MATCHED THEN DELETE")
    assert isinstance(statement, st.MergeInto)
    assert statement.on_column_pairs == (("id", "id"),)
