"""Round trips through the HudiSpark dialect, in sqlglot's ``validate_identity`` style.

Every extension of sqlglot in :mod:`hudi_sql.sql.dialect` has cases here: parse, generate,
and parse again must give the same tree (and, where the text is canonical, the same text).
sqlglot's ``_parse_*`` helpers are internal, so these tests are what tells us an upgrade broke
an override.
"""

from __future__ import annotations

import pytest
from sqlglot import exp

from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import nodes
from hudi_sql.sql.dialect import HudiSpark, generate, parse, parse_statements


def parse_one(sql: str) -> exp.Expr:
    trees = parse(sql)
    assert len(trees) == 1, trees
    return trees[0]


def validate_identity(sql: str, expected: str | None = None) -> exp.Expr:
    """Parses *sql*, checks the generated text, and checks that the text parses back to the tree."""
    tree = parse_one(sql)
    generated = generate(tree)
    assert generated == (expected or sql)
    assert parse_one(generated) == tree
    return tree


# CALL --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "CALL show_commits(table => 'db.t', limit => 10)",
        "CALL run_clustering(table => 't', order => 'ts', path => '/data/t', predicate => 'a > 1')",
        "CALL p(select => 1, from => 2, where => 3, partition => 'x', options => 'k=v')",
        "CALL rollback_to_instant(table => 't', instant_time => '20240101000000000')",
        "CALL p(a => -1.5, b => TRUE, c => NULL, d => 'it\\'s')",
        "CALL p(1, 'a', FALSE)",
        "CALL p()",
        "CALL system.p(1)",
        "CALL spark_catalog.system.p(x => 1)",
    ],
)
def test_call_roundtrip_identical(sql: str) -> None:
    tree = validate_identity(sql)
    assert isinstance(tree, nodes.ProcedureCall)


def test_call_keyword_argument_names_parse_as_kwargs() -> None:
    tree = parse_one("call show_commits(TABLE => 't', Order => 'x', `limit` => 3)")
    assert isinstance(tree, nodes.ProcedureCall)
    names = [arg.this.name for arg in tree.expressions]
    assert names == ["TABLE", "Order", "limit"]
    assert all(isinstance(arg, exp.Kwarg) for arg in tree.expressions)
    assert parse_one(generate(tree)) == tree


@pytest.mark.parametrize(
    ("sql", "call"),
    [
        ("SCHEDULE COMPACTION ON db.t", "CALL run_compaction(op => 'schedule', table => 'db.t')"),
        ("run compaction on t at 20240101000000000",
         "CALL run_compaction(op => 'run', table => 't', timestamp => 20240101000000000)"),
        ("RUN COMPACTION ON '/data/t'", "CALL run_compaction(op => 'run', path => '/data/t')"),
        ("SHOW COMPACTION ON t LIMIT 5", "CALL show_compaction(table => 't', limit => 5)"),
        ("SHOW COMPACTION ON '/data/t'", "CALL show_compaction(path => '/data/t')"),
    ],
)
def test_older_compaction_statements_are_the_procedure_calls_apache_hudi_runs_for_them(sql: str, call: str) -> None:
    tree = parse_one(sql)
    assert isinstance(tree, nodes.ProcedureCall)
    assert generate(tree) == call


def test_call_is_no_longer_a_command_keyword() -> None:
    assert "CALL" not in HudiSpark.Tokenizer.KEYWORDS
    assert "EXPLAIN" not in HudiSpark.Tokenizer.KEYWORDS
    validate_identity("SELECT call, explain FROM t")


# EXPLAIN, SET, RESET, SHOW, ALTER ... PURGE ------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("EXPLAIN SELECT * FROM t", None),
        ("EXPLAIN EXTENDED SELECT * FROM t", None),
        ("explain cost DELETE FROM t WHERE a = 1", "EXPLAIN COST DELETE FROM t WHERE a = 1"),
        ("EXPLAIN FORMATTED MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", None),
    ],
)
def test_explain_roundtrip(sql: str, expected: str | None) -> None:
    tree = validate_identity(sql, expected)
    assert isinstance(tree, nodes.ExplainStatement)


@pytest.mark.parametrize(
    ("sql", "expected", "node"),
    [
        ("SET hoodie.datasource.query.type=incremental", None, nodes.SetConfig),
        (
            "SET hoodie.datasource.query.type = incremental",
            "SET hoodie.datasource.query.type=incremental",
            nodes.SetConfig,
        ),
        ("SET hoodie.x = 'a b'", "SET hoodie.x='a b'", nodes.SetConfig),
        ("SET `hoodie.x`=1", "SET hoodie.x=1", nodes.SetConfig),
        (
            "SET hoodie.write.lock.provider=org.apache.hudi.client.transaction.lock.InProcessLockProvider",
            None,
            nodes.SetConfig,
        ),
        ("SET hoodie.base.path=/data/a/b", None, nodes.SetConfig),
        ("SET hoodie.x='a;b'", None, nodes.SetConfig),
        ("SET k=", None, nodes.SetConfig),
        ("SET hoodie.x", None, nodes.ShowConfig),
        ("SET", None, nodes.ShowConfig),
        ("SET -v", None, nodes.ShowConfig),
        ("RESET", None, nodes.ResetConfig),
        ("RESET hoodie.x", None, nodes.ResetConfig),
    ],
)
def test_session_options_roundtrip(sql: str, expected: str | None, node: type[exp.Expr]) -> None:
    tree = validate_identity(sql, expected)
    assert isinstance(tree, node)


def test_set_value_keeps_raw_text_and_unquotes_one_string() -> None:
    raw = parse_one("SET hoodie.x = 2024-01-01 10:00")
    assert isinstance(raw, nodes.SetConfig)
    assert raw.expression.name == "2024-01-01 10:00"
    quoted = parse_one("SET hoodie.x = 'it\\'s'")
    assert quoted.expression.name == "it's"
    assert parse_one(generate(quoted)) == quoted


def test_set_time_zone_stays_spark_statement() -> None:
    tree = parse_one("SET TIME ZONE 'UTC'")
    assert not isinstance(tree, (nodes.SetConfig, nodes.ShowConfig))


@pytest.mark.parametrize(
    ("sql", "expected", "node"),
    [
        ("SHOW PARTITIONS db.t", None, nodes.ShowPartitions),
        ("SHOW PARTITIONS t PARTITION (p='v')", "SHOW PARTITIONS t PARTITION(p = 'v')", nodes.ShowPartitions),
        ("SHOW CREATE TABLE t", None, nodes.ShowCreateTable),
        ("SHOW CREATE TABLE db.t AS SERDE", None, nodes.ShowCreateTable),
        ("SHOW TABLES IN db LIKE 'a*'", None, exp.Command),
    ],
)
def test_show_roundtrip(sql: str, expected: str | None, node: type[exp.Expr]) -> None:
    tree = validate_identity(sql, expected)
    assert isinstance(tree, node)


def test_alter_drop_partition_purge_roundtrip() -> None:
    tree = validate_identity(
        "ALTER TABLE t DROP IF EXISTS PARTITION (p='v', q=1), PARTITION (p='w') PURGE",
        "ALTER TABLE t DROP IF EXISTS PARTITION(p = 'v', q = 1), PARTITION(p = 'w') PURGE",
    )
    assert isinstance(tree, exp.Alter)
    assert isinstance(tree.args["actions"][-1], nodes.DropPartitionPurge)


def test_alter_drop_partition_without_purge_is_plain() -> None:
    tree = validate_identity("ALTER TABLE t DROP PARTITION(p = 'v')")
    assert type(tree.args["actions"][0]) is exp.DropPartition


# Hints and time travel ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT /*+ SNAPSHOT(t) */ * FROM t", None),
        ("SELECT /*+ READ_OPTIMIZED(t) */ * FROM t", None),
        ("SELECT /*+ INCREMENTAL(t, '20240101000000000') */ * FROM t", None),
        ("SELECT /*+ INCREMENTAL(t, '001', '002') */ * FROM t", None),
        ("SELECT /*+ AS_OF(x, '2024-01-01 00:00:00') */ * FROM t AS x", None),
        ("SELECT /*+ SNAPSHOT(db.t) */ * FROM db.t", None),
        (
            "SELECT /*+ snapshot(t) broadcast(s) */ * FROM t JOIN s ON t.id = s.id",
            "SELECT /*+ SNAPSHOT(t), BROADCAST(s) */ * FROM t JOIN s ON t.id = s.id",
        ),
        (
            (
                "SELECT /*+ SNAPSHOT(a), READ_OPTIMIZED(b), INCREMENTAL(c, '1'), AS_OF(d, '2'), "
                "BROADCAST(b) */ * "
                "FROM a CROSS JOIN b CROSS JOIN c CROSS JOIN d"
            ),
            None,
        ),
        ("SELECT /*+ REPARTITION(3, c), SNAPSHOT(t) */ * FROM t", None),
    ],
)
def test_read_hints_roundtrip(sql: str, expected: str | None) -> None:
    tree = validate_identity(sql, expected)
    hint = tree.args["hint"]
    assert any(isinstance(h, nodes.TableReadHint) for h in hint.expressions)


def test_read_hint_arguments_are_tables_and_literals() -> None:
    tree = parse_one("SELECT /*+ INCREMENTAL(db.t, '001', '002'), BROADCAST(s) */ * FROM db.t, s")
    ours, spark = tree.args["hint"].expressions
    assert isinstance(ours, nodes.TableReadHint) and ours.name == "INCREMENTAL"
    table, begin, end = ours.expressions
    assert isinstance(table, exp.Table) and (table.db, table.name) == ("db", "t")
    assert (begin.name, end.name) == ("001", "002")
    assert isinstance(spark, exp.JoinHint)


def test_read_hint_names_stay_ordinary_functions_outside_hints() -> None:
    tree = validate_identity("SELECT SNAPSHOT(a), AS_OF(b, 1) FROM t")
    assert not list(tree.find_all(nodes.TableReadHint))


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("SELECT * FROM t TIMESTAMP AS OF '20240101000000000'", None),
        ("SELECT * FROM t TIMESTAMP AS OF '2024-01-01 00:00:00' AS x", None),
        (
            "SELECT * FROM t FOR SYSTEM_TIME AS OF '2024-01-01'",
            "SELECT * FROM t TIMESTAMP AS OF '2024-01-01'",
        ),
        ("SELECT * FROM t VERSION AS OF 3", None),
        (
            "SELECT * FROM hudi_table_changes('db.t', 'cdc', 'earliest') AS c",
            "SELECT * FROM HUDI_TABLE_CHANGES('db.t', 'cdc', 'earliest') AS c",
        ),
    ],
)
def test_time_travel_and_table_functions_roundtrip(sql: str, expected: str | None) -> None:
    validate_identity(sql, expected)


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TABLE t (a INT) USING org.apache.hudi",
        "CREATE TABLE t USING HUDI TBLPROPERTIES ('primaryKey'='a') AS SELECT 1 AS a",
    ],
)
def test_create_using_provider_roundtrip(sql: str) -> None:
    validate_identity(sql)


# MERGE, UPDATE, DELETE, INSERT -------------------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        (
            "MERGE INTO t AS x USING (SELECT * FROM s WHERE a > 1) AS s ON x.id = s.id "
            "WHEN MATCHED AND s.op = 'd' THEN DELETE "
            "WHEN MATCHED AND s.op = 'u' THEN UPDATE SET x.a = s.a, b = s.b + 1 "
            "WHEN MATCHED THEN UPDATE SET * "
            "WHEN NOT MATCHED AND s.a > 0 THEN INSERT (id, a) VALUES (s.id, s.a) "
            "WHEN NOT MATCHED THEN INSERT * "
            "WHEN NOT MATCHED BY SOURCE AND x.a < 0 THEN DELETE "
            "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET x.a = 0"
        ),
        "MERGE INTO db.t USING db.s TIMESTAMP AS OF '20240101' AS s ON t.id = s.id WHEN MATCHED THEN DELETE",
        "UPDATE t AS x SET a = 1, x.b = b + 1 WHERE id IN (SELECT id FROM s)",
        "DELETE FROM t AS x WHERE x.a = 1",
        "INSERT OVERWRITE TABLE t PARTITION(p = 'v') SELECT * FROM s",
        "INSERT INTO t PARTITION(p = 'v', q) (a, b) SELECT x, y, q FROM s",
        "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
        "INSERT INTO t PARTITION(dt = DATE '2024-01-01') SELECT * FROM s",
    ],
)
def test_dml_roundtrip(sql: str) -> None:
    validate_identity(sql)


def test_merge_clause_kinds_parse_in_order() -> None:
    tree = parse_one(
        "MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE "
        "WHEN NOT MATCHED BY TARGET THEN INSERT * WHEN NOT MATCHED BY SOURCE THEN DELETE"
    )
    whens = tree.args["whens"].expressions
    assert [(w.args["matched"], bool(w.args.get("source"))) for w in whens] == [
        (True, False),
        (False, False),
        (False, True),
    ]


# Scripts -----------------------------------------------------------------------------------------


def test_parse_splits_statements_and_keeps_their_text() -> None:
    script = "-- a comment\nSELECT 1;\n\n;CALL p(a => 1);\nSET hoodie.x=1;"
    parsed = parse_statements(script)
    assert [p.text for p in parsed] == ["SELECT 1", "CALL p(a => 1)", "SET hoodie.x=1"]
    assert [type(p.expression) for p in parsed] == [exp.Select, nodes.ProcedureCall, nodes.SetConfig]


def test_parse_empty_script_is_empty() -> None:
    assert parse("  -- nothing\n ; ") == []


def test_parse_error_keeps_line_and_column() -> None:
    with pytest.raises(HudiSqlError) as info:
        parse("SELECT 1;\nSELECT * FROM t WHERE a = = 1")
    assert (info.value.line, info.value.col) == (2, 27)
