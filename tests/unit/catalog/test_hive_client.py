"""SQL metastore clients against a recording fake connection (no server, no JVM)."""

from __future__ import annotations

from typing import Any

import pytest

from catalog.hive import ddl
from catalog.hive.client import (
    HiveSyncError,
    JdbcMetastoreClient,
    SqlDialect,
    parse_describe,
    parse_jdbc_url,
)
from catalog.hive.schema import HiveColumn, SchemaDifference
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError

SPARK_DESCRIBE = [
    ("id", "bigint", None), ("s", "struct<a:int>", None), ("p", "string", None),
    ("# Partition Information", "", ""), ("# col_name", "data_type", "comment"), ("p", "string", None),
    ("", "", ""), ("# Detailed Table Information", "", ""), ("Database", "d", ""),
    ("Location", "file:/data/t", ""), ("InputFormat", ddl.INPUT_FORMAT, ""),
    ("# Storage Information", "", ""), ("Location", "file:/elsewhere", ""),
]
HIVE_DESCRIBE = [
    ("# col_name            ", "data_type           ", "comment             "), ("", None, None),
    ("id                  ", "bigint              ", ""), ("", None, None),
    ("# Partition Information", None, None), ("# col_name            ", "data_type", "comment"), ("", None, None),
    ("p                   ", "string              ", ""), ("", None, None),
    ("# Detailed Table Information", None, None), ("Location:           ", "hdfs://nn/data/t", None),
    ("Table Parameters:", None, None), ("", "last_commit_time_sync", "001"),
    ("# Storage Information", None, None), ("InputFormat:        ", ddl.INPUT_FORMAT, None),
    ("Storage Desc Params:", None, None), ("", "path", "/data/t"), ("", "serialization.format", "1"),
]


def test_parse_describe_spark_output() -> None:
    d = parse_describe(SPARK_DESCRIBE)
    assert d.columns == (HiveColumn("id", "bigint"), HiveColumn("s", "struct<a:int>"))
    assert d.partition_columns == (HiveColumn("p", "string"),)
    assert d.info["location"] == "file:/data/t"
    assert d.info["inputformat"] == ddl.INPUT_FORMAT


def test_parse_describe_hive_output() -> None:
    d = parse_describe(HIVE_DESCRIBE)
    assert d.columns == (HiveColumn("id", "bigint"),)
    assert d.partition_columns == (HiveColumn("p", "string"),)
    assert d.info["location"] == "hdfs://nn/data/t"
    assert d.table_parameters == {"last_commit_time_sync": "001"}
    assert d.storage_parameters == {"path": "/data/t", "serialization.format": "1"}


@pytest.mark.parametrize(("url", "host", "port", "db", "params"), [
    ("jdbc:hive2://127.0.0.1:10001/lake", "127.0.0.1", 10001, "lake", {}),
    ("jdbc:hive2://hs2", "hs2", 10000, "default", {}),
    ("jdbc:hive2://hs2:1/;auth=noSasl;user=me", "hs2", 1, "default", {"auth": "noSasl", "user": "me"}),
])
def test_parse_jdbc_url(url: str, host: str, port: int, db: str, params: dict[str, str]) -> None:
    t = parse_jdbc_url(url)
    assert (t.host, t.port, t.database, dict(t.params)) == (host, port, db, params)


def test_parse_jdbc_url_rejects_other_urls() -> None:
    with pytest.raises(HudiConfigError):
        parse_jdbc_url("thrift://127.0.0.1:9083")


class FakeCursor:
    def __init__(self, conn: FakeConnection) -> None:
        self.conn = conn
        self.description: Any = None
        self.rows: list[tuple[Any, ...]] = []

    def execute(self, sql: str) -> None:
        self.conn.statements.append(sql)
        if self.conn.fail_on and self.conn.fail_on in sql:
            raise RuntimeError("rejected")
        for prefix, rows in self.conn.answers.items():
            if sql.startswith(prefix):
                self.rows, self.description = rows, [("c",)]
                return
        self.rows, self.description = [], None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return self.rows

    def close(self) -> None:
        pass


class FakeConnection:
    def __init__(self, answers: dict[str, list[tuple[Any, ...]]] | None = None, fail_on: str = "") -> None:
        self.answers = answers or {}
        self.statements: list[str] = []
        self.fail_on = fail_on
        self.closed = False

    def cursor(self) -> FakeCursor:
        return FakeCursor(self)

    def close(self) -> None:
        self.closed = True


def _definition() -> ddl.TableDefinition:
    return ddl.TableDefinition("d", "t", (HiveColumn("a", "int"),), (HiveColumn("p", "string"),), "/data/t",
                               ddl.INPUT_FORMAT, table_properties={"spark.sql.sources.provider": "hudi", "k": "v"})


def test_jdbc_client_spark_dialect_reads_table_and_partitions() -> None:
    conn = FakeConnection({
        "SHOW DATABASES": [("d",), ("default",)],
        "SHOW TABLES IN `d`": [("d", "t", False)],
        "DESCRIBE FORMATTED `d`.`t` PARTITION": [("# Detailed Partition Information", "", ""),
                                                  ("Location", "file:/data/t/x'y", "")],
        "DESCRIBE FORMATTED `d`.`t`": SPARK_DESCRIBE,
        "SHOW TBLPROPERTIES": [("last_commit_time_sync", "001"), ("option.path", "/data/t")],
        "SHOW PARTITIONS": [("p=x%27y",), ("p=b",)],
    })
    client = JdbcMetastoreClient("jdbc:hive2://h:1/d", dialect="spark", connection=conn)
    assert not client.supports_spark_properties
    table = client.get_table("d", "t")
    assert table is not None
    assert table.properties == {"last_commit_time_sync": "001"}
    assert table.serde_properties == {"path": "/data/t"}
    assert table.location == "file:/data/t"
    assert [p.values for p in client.list_partitions("d", "t")] == [("x'y",), ("b",)]
    assert client.partition_locations("d", "t", ["p"], [["x'y"]]) == {("x'y",): "file:/data/t/x'y"}
    assert conn.statements[-1] == "DESCRIBE FORMATTED `d`.`t` PARTITION(`p` = 'x\\'y')"
    assert client.get_table("nodb", "t") is None


def test_jdbc_client_spark_dialect_create_table_drops_spark_properties() -> None:
    conn = FakeConnection()
    JdbcMetastoreClient("jdbc:hive2://h:1", dialect=SqlDialect.SPARK, connection=conn).create_table(_definition())
    assert "spark.sql." not in conn.statements[0] and "'k'='v'" in conn.statements[0]
    conn2 = FakeConnection()
    JdbcMetastoreClient("jdbc:hive2://h:1", dialect="hive", connection=conn2).create_table(_definition())
    assert "'spark.sql.sources.provider'='hudi'" in conn2.statements[0]


def test_jdbc_client_schema_update_per_dialect() -> None:
    cols = [HiveColumn("a", "int"), HiveColumn("n", "bigint")]
    added = SchemaDifference(added=(HiveColumn("n", "bigint"), HiveColumn("p", "string")))
    hive = FakeConnection()
    JdbcMetastoreClient("jdbc:hive2://h:1", dialect="hive", connection=hive).update_columns(
        "d", "t", cols, added, cascade=True)
    assert hive.statements == ["ALTER TABLE `d`.`t` REPLACE COLUMNS (`a` INT, `n` BIGINT) CASCADE"]
    spark = FakeConnection()
    client = JdbcMetastoreClient("jdbc:hive2://h:1", dialect="spark", connection=spark)
    client.update_columns("d", "t", cols, added, cascade=True)
    assert spark.statements == ["ALTER TABLE `d`.`t` ADD COLUMNS (`n` BIGINT)"]
    with pytest.raises(UnsupportedFeatureError, match="hms"):
        client.update_columns("d", "t", cols, SchemaDifference(updated=(HiveColumn("a", "bigint"),)), cascade=True)


def test_jdbc_client_rejected_statement_raises_hive_sync_error() -> None:
    conn = FakeConnection(fail_on="DROP IF EXISTS")
    client = JdbcMetastoreClient("jdbc:hive2://h:1", dialect="hive", connection=conn)
    with pytest.raises(HiveSyncError, match="rejected"):
        client.drop_partitions("d", "t", ["p"], [["a"]])


def test_jdbc_client_detects_spark_thrift_server() -> None:
    class Info:
        def __init__(self, name: str) -> None:
            self.infoValue = type("V", (), {"stringValue": name})()

    class Client:
        def __init__(self, name: str) -> None:
            self.name = name

        def GetInfo(self, request: Any) -> Info:
            return Info(self.name)

    for name, dialect in (("Spark SQL", SqlDialect.SPARK), ("Apache Hive", SqlDialect.HIVE)):
        conn = FakeConnection()
        conn.client = Client(name)  # type: ignore[attr-defined]
        conn.sessionHandle = None  # type: ignore[attr-defined]
        assert JdbcMetastoreClient("jdbc:hive2://h:1", connection=conn).dialect is dialect


def test_jdbc_client_hive_dialect_set_location_uses_database_first() -> None:
    hive = FakeConnection()
    JdbcMetastoreClient("jdbc:hive2://h:1", dialect="hive", connection=hive).alter_partition_locations(
        "d", "t", ["p"], [(["a"], "/x/a")])
    assert hive.statements == ["USE `d`", "ALTER TABLE `t` PARTITION(`p` = 'a') SET LOCATION '/x/a'"]
    spark = FakeConnection()
    JdbcMetastoreClient("jdbc:hive2://h:1", dialect="spark", connection=spark).alter_partition_locations(
        "d", "t", ["p"], [(["a"], "/x/a")])
    assert spark.statements == ["ALTER TABLE `d`.`t` PARTITION(`p` = 'a') SET LOCATION '/x/a'"]


def test_client_for_modes_needing_spark_raise_without_it() -> None:
    from catalog.hive.client import client_for
    from catalog.hive.config import resolve_sync_settings

    for mode in ("hms", "hiveql"):
        with pytest.raises(HudiConfigError, match="needs a SparkSession"):
            client_for(resolve_sync_settings({"hoodie.datasource.hive_sync.mode": mode}, {"hoodie.table.name": "t"}))
