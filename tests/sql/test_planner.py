"""The SQL planner: pure decisions from statements and table facts (no Spark)."""

from __future__ import annotations

import json

import pytest
from pyspark.sql.types import ByteType, IntegerType, LongType, StringType, StructField, StructType

from hudi_sql.config import QueryType
from hudi_sql.errors import HudiConfigError, HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer import analyze
from hudi_sql.sql.insert_planner import align_insert, plan_insert
from hudi_sql.sql.planner import (
    SQL_KEY_GENERATOR,
    HudiTableFacts,
    plan_create,
    read_options,
    spec_matches,
    sql_table_options,
    write_options,
)
from hudi_sql.write.operation import WriteOperationType

SCHEMA = StructType(
    [
        StructField("id", IntegerType()),
        StructField("name", StringType()),
        StructField("ts", LongType()),
        StructField("p", StringType()),
    ]
)


def facts(
    *,
    precombine: str | None = "ts",
    partitions: str = "p",
    catalog: dict[str, str] | None = None,
    catalog_schema: StructType | None = None,
) -> HudiTableFacts:
    props = {
        "hoodie.table.name": "t",
        "hoodie.table.type": "COPY_ON_WRITE",
        "hoodie.table.recordkey.fields": "id",
        "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        "hoodie.datasource.write.hive_style_partitioning": "true",
    }
    if partitions:
        props["hoodie.table.partition.fields"] = partitions
    if precombine:
        props["hoodie.table.precombine.field"] = precombine
    return HudiTableFacts("t", "/data/t", props, catalog or {}, SCHEMA, catalog_schema)


def insert(sql: str) -> st.InsertInto:
    statement = analyze(sql)[0]
    assert isinstance(statement, st.InsertInto)
    return statement


# INSERT: operation choice ---------------------------------------------------------------------------


def test_plan_insert_with_precombine_upserts_else_inserts() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    assert plan_insert(statement, facts(), {}, spark_overwrite_mode="static").operation is WriteOperationType.UPSERT
    assert (
        plan_insert(statement, facts(precombine=None), {}, spark_overwrite_mode="static").operation
        is WriteOperationType.INSERT
    )


def test_plan_insert_operation_option_layers_table_over_session() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    session = {"hoodie.spark.sql.insert.into.operation": "bulk_insert"}
    assert (
        plan_insert(statement, facts(), session, spark_overwrite_mode="static").operation
        is WriteOperationType.BULK_INSERT
    )
    table = facts(catalog={"hoodie.spark.sql.insert.into.operation": "insert"})
    plan = plan_insert(statement, table, session, spark_overwrite_mode="static")
    assert plan.operation is WriteOperationType.INSERT
    assert plan.options["hoodie.datasource.write.operation"] == "insert"


def test_plan_insert_dup_policy_drop_and_fail_need_insert() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    drop = plan_insert(
        statement, facts(), {"hoodie.datasource.insert.dup.policy": "drop"}, spark_overwrite_mode="static"
    )
    assert drop.operation is WriteOperationType.INSERT
    assert drop.options["hoodie.datasource.write.insert.drop.duplicates"] == "true"
    fail = plan_insert(
        statement, facts(), {"hoodie.datasource.insert.dup.policy": "fail"}, spark_overwrite_mode="static"
    )
    assert (fail.dup_policy, fail.refused_by) == ("fail", "hoodie.datasource.insert.dup.policy=fail")
    with pytest.raises(HudiConfigError, match="needs the insert operation"):
        plan_insert(
            statement,
            facts(),
            {
                "hoodie.datasource.insert.dup.policy": "fail",
                "hoodie.spark.sql.insert.into.operation": "upsert",
            },
            spark_overwrite_mode="static",
        )


def test_plan_insert_deduplicates_the_batch_when_the_table_has_an_ordering_field_unless_set() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    as_insert = {"hoodie.spark.sql.insert.into.operation": "insert"}
    combine = "hoodie.combine.before.insert"
    assert plan_insert(statement, facts(), as_insert, spark_overwrite_mode="static").options[combine] == "true"
    assert plan_insert(statement, facts(precombine=None), as_insert,
                       spark_overwrite_mode="static").options[combine] == "false"
    chosen = plan_insert(statement, facts(), {**as_insert, combine: "false"}, spark_overwrite_mode="static")
    assert chosen.options[combine] == "false"


@pytest.mark.parametrize(
    ("session", "precombine", "operation", "refused_by"),
    [
        ({"hoodie.sql.insert.mode": "upsert"}, "ts", WriteOperationType.UPSERT, ""),
        ({"hoodie.sql.insert.mode": "upsert"}, None, WriteOperationType.INSERT, ""),
        ({"hoodie.sql.insert.mode": "strict"}, "ts", WriteOperationType.UPSERT, "hoodie.sql.insert.mode=strict"),
        ({"hoodie.sql.insert.mode": "non-strict"}, "ts", WriteOperationType.INSERT, ""),
        ({"hoodie.sql.insert.mode": "non-strict", "hoodie.sql.bulk.insert.enable": "true"}, "ts",
         WriteOperationType.BULK_INSERT, ""),
        ({"hoodie.sql.insert.mode": "upsert", "hoodie.datasource.write.insert.drop.duplicates": "true"}, "ts",
         WriteOperationType.INSERT, ""),
        # the newer key wins over the older one
        ({"hoodie.sql.insert.mode": "strict", "hoodie.spark.sql.insert.into.operation": "insert"}, "ts",
         WriteOperationType.INSERT, ""),
    ],
)
def test_plan_insert_legacy_insert_mode_of_older_scripts(
    session: dict[str, str], precombine: str | None, operation: WriteOperationType, refused_by: str
) -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    plan = plan_insert(statement, facts(precombine=precombine), session, spark_overwrite_mode="static")
    assert (plan.operation, plan.refused_by) == (operation, refused_by)
    assert plan.options["hoodie.datasource.write.operation"] == operation.value.lower()


def test_plan_insert_legacy_bulk_insert_outside_non_strict_mode_is_refused_as_apache_hudi_refuses() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    session = {"hoodie.sql.insert.mode": "strict", "hoodie.sql.bulk.insert.enable": "true"}
    with pytest.raises(HudiConfigError, match="Table with primaryKey can not use bulk insert in strict mode"):
        plan_insert(statement, facts(), session, spark_overwrite_mode="static")


def test_plan_insert_legacy_insert_mode_is_ignored_on_table_version_8_as_apache_hudi_1x_ignores_it() -> None:
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    table = facts()
    v8 = HudiTableFacts(table.name, table.location, {**table.table_properties, "hoodie.table.version": "8"},
                        {}, SCHEMA)
    legacy_upsert = {"hoodie.sql.insert.mode": "upsert"}
    assert plan_insert(statement, table, legacy_upsert, spark_overwrite_mode="static").operation is \
        WriteOperationType.UPSERT
    plan = plan_insert(statement, v8, legacy_upsert, spark_overwrite_mode="static")
    assert plan.operation is WriteOperationType.INSERT, "ignored: Apache Hudi 1.x's INSERT INTO inserts"


def test_plan_insert_into_a_table_with_an_ordering_field_upserts_at_version_6_and_inserts_at_8() -> None:
    """Apache Hudi 0.15 upserts an INSERT INTO a table with an ordering field; 1.2 inserts (a stored
    key's row stays beside the new one: checked through the oracle, compatibility §19)."""
    statement = insert("INSERT INTO t VALUES (1, 'a', 1, 'x')")
    table = facts()
    v8 = HudiTableFacts(table.name, table.location, {**table.table_properties, "hoodie.table.version": "8"},
                        {}, SCHEMA)
    assert plan_insert(statement, table, {}, spark_overwrite_mode="static").operation is WriteOperationType.UPSERT
    assert plan_insert(statement, v8, {}, spark_overwrite_mode="static").operation is WriteOperationType.INSERT


@pytest.mark.parametrize(
    ("sql", "dynamic", "operation", "static"),
    [
        ("INSERT OVERWRITE t SELECT 1, 'a', 1, 'x'", False, WriteOperationType.INSERT_OVERWRITE_TABLE, None),
        ("INSERT OVERWRITE t SELECT 1, 'a', 1, 'x'", True, WriteOperationType.INSERT_OVERWRITE, None),
        (
            "INSERT OVERWRITE t PARTITION (p = 'x') SELECT 1, 'a', 1",
            False,
            WriteOperationType.INSERT_OVERWRITE,
            {"p": "x"},
        ),
        # static mode, only dynamic partition columns: every partition is replaced (Spark, Apache Hudi)
        (
            "INSERT OVERWRITE t PARTITION (p) SELECT 1, 'a', 1, 'x'",
            False,
            WriteOperationType.INSERT_OVERWRITE_TABLE,
            None,
        ),
        (
            "INSERT OVERWRITE t PARTITION (p) SELECT 1, 'a', 1, 'x'",
            True,
            WriteOperationType.INSERT_OVERWRITE,
            None,
        ),
    ],
)
def test_plan_insert_overwrite_scope(
    sql: str, dynamic: bool, operation: WriteOperationType, static: dict[str, str] | None
) -> None:
    plan = plan_insert(insert(sql), facts(), {}, spark_overwrite_mode="dynamic" if dynamic else "static")
    assert plan.operation is operation
    assert plan.static_partition == static


@pytest.mark.parametrize(
    ("session", "spark_mode", "operation", "static"),
    [
        # hoodie.datasource.overwrite.mode wins over Spark's partitionOverwriteMode
        ({"hoodie.datasource.overwrite.mode": "DYNAMIC"}, "static", WriteOperationType.INSERT_OVERWRITE, None),
        ({"hoodie.datasource.overwrite.mode": "static"}, "dynamic", WriteOperationType.INSERT_OVERWRITE, {"p": "x"}),
        # an overwrite operation given as an option decides the scope and means dynamic mode
        ({"hoodie.datasource.write.operation": "insert_overwrite_table"}, "static",
         WriteOperationType.INSERT_OVERWRITE_TABLE, None),
        ({"hoodie.datasource.write.operation": "insert_overwrite"}, "static", WriteOperationType.INSERT_OVERWRITE,
         None),
    ],
)
def test_plan_insert_overwrite_mode_precedence(
    session: dict[str, str], spark_mode: str, operation: WriteOperationType, static: dict[str, str] | None
) -> None:
    sql = "INSERT OVERWRITE t PARTITION (p = 'x') SELECT 1, 'a', 1"
    plan = plan_insert(insert(sql), facts(), session, spark_overwrite_mode=spark_mode)
    assert plan.operation is operation
    assert plan.static_partition == static


def test_plan_insert_overwrite_mode_unknown_value_is_refused() -> None:
    with pytest.raises(HudiConfigError, match="STATIC or DYNAMIC"):
        plan_insert(insert("INSERT OVERWRITE t SELECT 1, 'a', 1, 'x'"), facts(), {}, spark_overwrite_mode="sometimes")


def test_plan_insert_overwrite_non_partitioned_replaces_whole_table() -> None:
    plan = plan_insert(
        insert("INSERT OVERWRITE t SELECT 1, 'a', 1, 'x'"), facts(partitions=""), {}, spark_overwrite_mode="dynamic"
    )
    assert plan.operation is WriteOperationType.INSERT_OVERWRITE_TABLE


# INSERT: column alignment ---------------------------------------------------------------------------


def test_align_insert_positional_static_and_column_list() -> None:
    positional = align_insert(insert("INSERT INTO t VALUES (1, 'a', 1, 'x')"), facts(), 4)
    assert [(c.column, c.position, c.literal) for c in positional] == [
        ("id", 0, None),
        ("name", 1, None),
        ("ts", 2, None),
        ("p", 3, None),
    ]
    static = align_insert(insert("INSERT INTO t PARTITION (p = 'x') VALUES (1, 'a', 1)"), facts(), 3)
    assert static[-1].literal == "'x'" and static[-1].position is None
    listed = align_insert(insert("INSERT INTO t (ts, id, p) VALUES (1, 2, 'x')"), facts(), 3)
    assert [(c.column, c.position) for c in listed] == [("id", 1), ("name", None), ("ts", 0), ("p", 2)]


def test_align_insert_errors_name_the_problem() -> None:
    with pytest.raises(HudiSqlError, match=r"gives 3 columns but the table expects 4 \(id, name, ts, p\)"):
        align_insert(insert("INSERT INTO t VALUES (1, 'a', 1)"), facts(), 3)
    with pytest.raises(HudiSqlError, match="column 'nme' is not a column of table t. Did you mean 'name'"):
        align_insert(insert("INSERT INTO t (id, nme) VALUES (1, 'a')"), facts(), 2)
    with pytest.raises(HudiSqlError, match="'name' in PARTITION .* is not a partition column"):
        align_insert(insert("INSERT INTO t PARTITION (name = 'a') VALUES (1, 1, 'x')"), facts(), 3)


def test_target_schema_takes_catalog_order_and_declared_types() -> None:
    catalog = StructType(
        [
            StructField("id", ByteType()),
            StructField("name", StringType()),
            StructField("ts", LongType()),
            StructField("p", StringType()),
        ]
    )
    table = facts(catalog_schema=catalog)
    assert table.target_schema().fields[0].dataType == ByteType()
    stale = facts(catalog_schema=StructType(catalog.fields[:2]))
    assert table.target_schema().names == stale.target_schema().names == ["id", "name", "ts", "p"]
    assert stale.target_schema().fields[0].dataType == IntegerType()


# Options --------------------------------------------------------------------------------------------


def test_sql_table_options_translate_short_names_and_drop_other_keys() -> None:
    assert sql_table_options(
        {
            "primaryKey": "id",
            "preCombineField": "ts",
            "type": "mor",
            "comment": "x",
            "hoodie.metadata.enable": "false",
        }
    ) == {
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.metadata.enable": "false",
    }


def test_write_options_precedence_table_over_session_statement_over_all() -> None:
    table = facts(catalog={"hoodie.parquet.max.file.size": "100", "hoodie.bloom.index.filter.type": "SIMPLE"})
    options = write_options(
        table,
        {
            "hoodie.parquet.max.file.size": "50",
            "hoodie.upsert.shuffle.parallelism": "3",
            "hoodie.datasource.query.type": "incremental",
        },
        {"hoodie.bloom.index.filter.type": "DYNAMIC_V0"},
    )
    assert options["hoodie.parquet.max.file.size"] == "100"
    assert options["hoodie.upsert.shuffle.parallelism"] == "3"
    assert options["hoodie.bloom.index.filter.type"] == "DYNAMIC_V0"
    assert "hoodie.datasource.query.type" not in options
    assert options["hoodie.datasource.write.keygenerator.class"] == SQL_KEY_GENERATOR
    assert options["hoodie.sql.origin.keygen.class"] == "org.apache.hudi.keygen.SimpleKeyGenerator"


def test_read_options_from_hint_time_travel_and_session() -> None:
    base = st.TableRef(st.TableName(None, "t"), None)
    session = {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.read.begin.instanttime": "1",
        "hoodie.write.x": "ignored",
    }
    assert read_options(base, session) == {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.read.begin.instanttime": "1",
    }
    as_of = read_options(st.TableRef(st.TableName(None, "t"), None, as_of="2024-01-01"), session)
    assert as_of == {"hoodie.datasource.query.type": "snapshot", "as.of.instant": "2024-01-01"}
    hinted = read_options(
        st.TableRef(st.TableName(None, "t"), None, query_type=QueryType.INCREMENTAL, begin="5", end="9"), {}
    )
    assert hinted == {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.read.begin.instanttime": "5",
        "hoodie.datasource.read.end.instanttime": "9",
    }
    changes = read_options(st.TableRef(st.TableName(None, "t"), None, query_type=QueryType.INCREMENTAL, begin="5",
                                       incremental_format="cdc"), {})
    assert changes == {
        "hoodie.datasource.query.type": "incremental",
        "hoodie.datasource.query.incremental.format": "cdc",
        "hoodie.datasource.read.begin.instanttime": "5",
    }


# CREATE TABLE ---------------------------------------------------------------------------------------


def create(sql: str) -> st.CreateTable:
    statement = analyze(sql)[0]
    assert isinstance(statement, st.CreateTable)
    return statement


def test_plan_create_hive_style_by_default_partitions_last_and_keygen_inferred() -> None:
    statement = create(
        "CREATE TABLE t (id INT, p STRING, name STRING, q INT) USING hudi PARTITIONED BY (p, q) "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'name', type = 'mor')"
    )
    schema = StructType(
        [
            StructField("id", IntegerType()),
            StructField("p", StringType()),
            StructField("name", StringType()),
            StructField("q", IntegerType()),
        ]
    )
    plan = plan_create(statement, name="t", database="db", schema=schema)
    assert plan.schema.names == ["id", "name", "p", "q"]
    props = plan.table_properties
    assert props["hoodie.datasource.write.hive_style_partitioning"] == "true"
    assert props["hoodie.table.keygenerator.class"] == "org.apache.hudi.keygen.ComplexKeyGenerator"
    assert props["hoodie.table.partition.fields"] == "p,q"
    assert props["hoodie.table.precombine.field"] == "name"
    assert props["hoodie.table.type"] == "MERGE_ON_READ"
    assert props["hoodie.database.name"] == "db"
    assert props["hoodie.compaction.payload.class"].endswith("OverwriteWithLatestAvroPayload")
    assert [f["name"] for f in json.loads(props["hoodie.table.create.schema"])["fields"]] == [
        "id",
        "name",
        "p",
        "q",
    ]
    assert plan.catalog_properties["type"] == "mor"


def test_plan_create_respects_non_hive_style_and_generates_keys_of_keyless_tables() -> None:
    statement = create(
        "CREATE TABLE t (id INT, p STRING) USING hudi PARTITIONED BY (p) TBLPROPERTIES "
        "(primaryKey = 'id', 'hoodie.datasource.write.hive_style_partitioning' = 'false')"
    )
    plan = plan_create(statement, name="t", database="default", schema=SCHEMA)
    assert plan.table_properties["hoodie.datasource.write.hive_style_partitioning"] == "false"
    assert (
        plan.table_properties["hoodie.table.keygenerator.class"]
        == "org.apache.hudi.keygen.SimpleKeyGenerator"
    )
    keyless = plan_create(create("CREATE TABLE t (id INT) USING hudi"), name="t", database="default", schema=SCHEMA)
    assert "hoodie.table.recordkey.fields" not in keyless.table_properties
    assert "primaryKey" not in keyless.catalog_properties


def test_plan_create_table_keygenerator_class_in_tblproperties_is_used_and_options_persisted() -> None:
    statement = create(
        "CREATE TABLE t (id INT, p BIGINT) USING hudi PARTITIONED BY (p) TBLPROPERTIES (primaryKey = 'id', "
        "'hoodie.table.keygenerator.class' = 'org.apache.hudi.keygen.TimestampBasedKeyGenerator', "
        "'hoodie.keygen.timebased.output.dateformat' = 'yyyy/MM/dd')"
    )
    plan = plan_create(statement, name="t", database="default", schema=TS_SCHEMA,
                       session={"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP"})
    props = plan.table_properties
    assert props["hoodie.table.keygenerator.class"] == "org.apache.hudi.keygen.TimestampBasedKeyGenerator"
    assert props["hoodie.keygen.timebased.output.dateformat"] == "yyyy/MM/dd"


TS_SCHEMA = StructType([StructField("id", IntegerType()), StructField("p", LongType())])


def test_plan_create_rejects_unknown_options_with_a_suggestion() -> None:
    statement = create(
        "CREATE TABLE t (id INT, p STRING) USING hudi TBLPROPERTIES (primaryKey = 'id', "
        "'hoodie.parquet.max.file.sise' = '1')"
    )
    with pytest.raises(HudiConfigError, match="Did you mean 'hoodie.parquet.max.file.size'"):
        plan_create(statement, name="t", database="default", schema=SCHEMA)


def test_spec_matches_compares_decoded_values() -> None:
    spec = [st.PartitionValue("P", "'x'", "x")]
    assert spec_matches({"p": "x", "q": "1"}, spec)
    assert not spec_matches({"p": "y"}, spec)
    assert not spec_matches(None, spec)
