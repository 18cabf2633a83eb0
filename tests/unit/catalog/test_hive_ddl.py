"""Hive sync's statements: their shapes, and quoting by construction that keeps every value data (pure)."""

from __future__ import annotations

import re

import pytest

from catalog import dialects
from catalog.hive import ddl
from catalog.hive.schema import HiveColumn
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError

INJECTION = "x'); DROP TABLE t; --"


def _unquote(literal: str) -> str:
    """Read a literal back the way Hive's/Spark's unescapeSQLString does (for the escapes we emit)."""
    assert literal[0] == literal[-1] == "'"
    body, out, i = literal[1:-1], [], 0
    simple = {"\\": "\\", "'": "'", "n": "\n", "r": "\r", "t": "\t"}
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1]
            if nxt == "u":
                out.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(simple[nxt])
            i += 2
            continue
        assert ch != "'", f"unescaped quote in {literal!r}"
        out.append(ch)
        i += 1
    return "".join(out)


_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'")


@pytest.mark.parametrize("value", [INJECTION, "a\\b", "it's", "ü ß/\\%_", "line\nbreak\x01", "--;/* */", "", "`"])
def test_quote_string_round_trips_and_cannot_break_out(value: str) -> None:
    literal = dialects.quote_string(value)
    assert _LITERAL.fullmatch(literal)
    assert _unquote(literal) == value
    assert "\\%" not in literal.replace("\\\\", "") and "\\_" not in literal.replace("\\\\", "")


def test_quote_identifier_doubles_backquotes() -> None:
    assert dialects.render_hive(dialects.identifier("a`b")) == "`a``b`"
    assert dialects.render_hive(dialects.identifier("x'); DROP TABLE t; --")) == "`x'); DROP TABLE t; --`"
    with pytest.raises(HudiConfigError):
        dialects.identifier("")


def test_add_partitions_injection_value_is_one_literal() -> None:
    [sql] = ddl.add_partitions("db", "t", ["p"], [([INJECTION], f"/base/{INJECTION}")])
    assert sql == ("ALTER TABLE `db`.`t` ADD IF NOT EXISTS PARTITION(`p` = 'x\\'); DROP TABLE t; --') "
                   "LOCATION '/base/x\\'); DROP TABLE t; --'")
    # outside the literals only the statement skeleton remains
    assert _LITERAL.sub("?", sql) == "ALTER TABLE `db`.`t` ADD IF NOT EXISTS PARTITION(`p` = ?) LOCATION ?"
    assert [_unquote(m) for m in _LITERAL.findall(sql)] == [INJECTION, f"/base/{INJECTION}"]


def test_add_partitions_batches() -> None:
    parts = [([str(i)], f"/b/{i}") for i in range(5)]
    statements = ddl.add_partitions("db", "t", ["p"], parts, batch_num=2)
    assert len(statements) == 3
    assert statements[-1].count("PARTITION") == 1


def test_partition_spec_arity_mismatch_raises() -> None:
    with pytest.raises(HudiConfigError, match="do not match"):
        ddl.partition(["a", "b"], ["1"])


def test_create_table_cow_statement() -> None:
    definition = ddl.TableDefinition(
        database="db", table="t",
        columns=(HiveColumn("_hoodie_commit_time", "string"), HiveColumn("s", "struct<date:int>", "struct<`date`:int>")),
        partition_columns=(HiveColumn("p", "string"),), location="/data/t",
        input_format=ddl.input_format_class("PARQUET", realtime=False),
        serde_properties={"path": "/data/t", "hoodie.query.as.ro.table": "false"},
        table_properties={"spark.sql.sources.provider": "hudi", "k": "it's"},
    )
    assert ddl.create_table(definition) == (
        "CREATE EXTERNAL TABLE IF NOT EXISTS `db`.`t` (`_hoodie_commit_time` STRING, `s` STRUCT<`date`: INT>)"
        " PARTITIONED BY (`p` STRING)"
        " ROW FORMAT SERDE 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'"
        " WITH SERDEPROPERTIES ('path'='/data/t', 'hoodie.query.as.ro.table'='false')"
        " STORED AS INPUTFORMAT 'org.apache.hudi.hadoop.HoodieParquetInputFormat'"
        " OUTPUTFORMAT 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat'"
        " LOCATION '/data/t'"
        " TBLPROPERTIES ('spark.sql.sources.provider'='hudi', 'k'='it\\'s')"
    )


def test_create_table_managed_unpartitioned_no_props() -> None:
    definition = ddl.TableDefinition("db", "t", (HiveColumn("a", "int"),), (), "/x",
                                     ddl.input_format_class("parquet", realtime=True), external=False)
    sql = ddl.create_table(definition)
    assert sql.startswith("CREATE TABLE IF NOT EXISTS `db`.`t` (`a` INT) ROW FORMAT SERDE")
    assert "'org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat'" in sql
    assert "PARTITIONED BY" not in sql and "TBLPROPERTIES" not in sql and "SERDEPROPERTIES" not in sql


def test_input_format_class_pre_apache_and_unsupported_format() -> None:
    assert ddl.input_format_class("PARQUET", realtime=False, pre_apache=True) == "com.uber.hoodie.hadoop.HoodieInputFormat"
    assert ddl.input_format_class("PARQUET", realtime=True, pre_apache=True) == (
        "com.uber.hoodie.hadoop.realtime.HoodieRealtimeInputFormat")
    with pytest.raises(UnsupportedFeatureError):
        ddl.input_format_class("ORC", realtime=False)


def test_alter_statements() -> None:
    cols = [HiveColumn("a", "int"), HiveColumn("n", "bigint")]
    assert ddl.replace_columns("db", "t", cols, cascade=True) == (
        "ALTER TABLE `db`.`t` REPLACE COLUMNS (`a` INT, `n` BIGINT) CASCADE")
    assert ddl.replace_columns("db", "t", cols, cascade=False).endswith("`n` BIGINT)")
    assert ddl.add_columns("db", "t", cols[1:]) == "ALTER TABLE `db`.`t` ADD COLUMNS (`n` BIGINT)"
    assert ddl.change_column("db", "t", cols[1], cascade=True) == (
        "ALTER TABLE `db`.`t` CHANGE COLUMN `n` `n` BIGINT CASCADE")
    assert ddl.set_partition_location("db", "t", ["p"], [INJECTION], "/b/p") == (
        "ALTER TABLE `db`.`t` PARTITION(`p` = 'x\\'); DROP TABLE t; --') SET LOCATION '/b/p'")
    assert ddl.drop_partition("db", "t", ["p", "q"], ["1", "2"]) == (
        "ALTER TABLE `db`.`t` DROP IF EXISTS PARTITION(`p` = '1', `q` = '2')")
    assert ddl.set_table_properties("db", "t", {"last_commit_time_sync": "1"}) == (
        "ALTER TABLE `db`.`t` SET TBLPROPERTIES ('last_commit_time_sync'='1')")
    assert ddl.set_serde_properties("db", "t", {"path": "/x"}) == (
        "ALTER TABLE `db`.`t` SET SERDEPROPERTIES ('path'='/x')")
    assert ddl.create_database("d`b") == "CREATE DATABASE IF NOT EXISTS `d``b`"


def test_reads_and_session_statements() -> None:
    assert ddl.use_database("d`b") == "USE `d``b`"
    assert ddl.show_tables("d") == "SHOW TABLES IN `d`"
    assert ddl.show_partitions("d", "t") == "SHOW PARTITIONS `d`.`t`"
    assert ddl.show_table_properties("d", "t") == "SHOW TBLPROPERTIES `d`.`t`"
    assert ddl.describe_formatted("d", "t") == "DESCRIBE FORMATTED `d`.`t`"
    assert ddl.describe_formatted("d", "t", ["p"], [INJECTION]) == (
        "DESCRIBE FORMATTED `d`.`t` PARTITION(`p` = 'x\\'); DROP TABLE t; --')")
    assert ddl.drop_table("d", "t") == "DROP TABLE `d`.`t`"


def test_column_types_are_trees_so_nested_field_names_stay_quoted() -> None:
    columns = [HiveColumn("s", "struct<select:int>", "struct<`select`:int>"),
               HiveColumn("m", "map<string,array<decimal(10,2)>>")]
    assert ddl.add_columns("db", "t", columns) == (
        "ALTER TABLE `db`.`t` ADD COLUMNS (`s` STRUCT<`select`: INT>, `m` MAP<STRING, ARRAY<DECIMAL(10, 2)>>)")
