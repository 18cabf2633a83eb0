"""Hive sync's statements (pure builders of sqlglot trees, rendered by :mod:`catalog.dialects`).

The statements are those of Hudi's ``QueryBasedDDLExecutor`` and ``HiveSchemaUtil.generateCreateDDL``
(``CREATE EXTERNAL TABLE IF NOT EXISTS ... ROW FORMAT SERDE ... STORED AS INPUTFORMAT ...``,
``ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) LOCATION '...'``, ``... SET LOCATION``,
``... DROP IF EXISTS PARTITION``, ``REPLACE COLUMNS (...) CASCADE``), with one deliberate
difference: Hudi pastes partition values, locations and property values into the SQL as they
are, so a value holding a quote ends the literal. Here every identifier is an ``exp.Identifier``
and every value an ``exp.Literal`` of one tree, quoted by the renderer, so a partition value
such as ``x'); DROP TABLE t; --`` stays data.
"""

from __future__ import annotations

__all__ = [
    "HUDI_INPUT_FORMATS",
    "INPUT_FORMAT",
    "OUTPUT_FORMAT",
    "REALTIME_INPUT_FORMAT",
    "SERDE_CLASS",
    "TableDefinition",
    "add_columns",
    "add_partitions",
    "change_column",
    "create_database",
    "create_table",
    "describe_formatted",
    "drop_partition",
    "drop_table",
    "input_format_class",
    "partition",
    "replace_columns",
    "set_partition_location",
    "set_serde_properties",
    "set_table_properties",
    "show_partitions",
    "show_table_properties",
    "show_tables",
    "use_database",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from catalog.dialects import (
    AddPartitions,
    ShowPartitionsOf,
    ShowTables,
    ShowTblPropertiesOf,
    identifier,
    render_hive,
    string,
)
from catalog.dialects import table as table_tree
from catalog.hive.config import HiveSyncConfig
from catalog.hive.schema import HiveColumn
from hudi_sql.errors import HudiConfigError, UnsupportedFeatureError

SERDE_CLASS = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
INPUT_FORMAT = "org.apache.hudi.hadoop.HoodieParquetInputFormat"
REALTIME_INPUT_FORMAT = "org.apache.hudi.hadoop.realtime.HoodieParquetRealtimeInputFormat"
OUTPUT_FORMAT = "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat"
_PRE_APACHE_INPUT_FORMAT = "com.uber.hoodie.hadoop.HoodieInputFormat"
_PRE_APACHE_REALTIME_INPUT_FORMAT = "com.uber.hoodie.hadoop.realtime.HoodieRealtimeInputFormat"
#: Every Hudi Hive input format sync may write (Apache and pre-Apache names) -> whether a table
#: stored with it reads read-optimized (base files only) rather than the merged snapshot.
HUDI_INPUT_FORMATS = {
    INPUT_FORMAT: True,
    _PRE_APACHE_INPUT_FORMAT: True,
    REALTIME_INPUT_FORMAT: False,
    _PRE_APACHE_REALTIME_INPUT_FORMAT: False,
}


def input_format_class(base_file_format: str, *, realtime: bool, pre_apache: bool = False) -> str:
    """``HoodieInputFormatUtils.getInputFormatClassName`` for Parquet base files."""
    if base_file_format.upper() != "PARQUET":
        raise UnsupportedFeatureError(f"Hive sync of base file format '{base_file_format}' is not supported.",
                                      help="hudi-sql writes PARQUET base files")
    if realtime:
        return _PRE_APACHE_REALTIME_INPUT_FORMAT if pre_apache else REALTIME_INPUT_FORMAT
    return _PRE_APACHE_INPUT_FORMAT if pre_apache else INPUT_FORMAT


def partition(keys: Sequence[str], values: Sequence[str]) -> exp.Partition:
    """``PARTITION (`k1`='v1', `k2`='v2')``; raises when the counts differ (Hudi's partition clause check)."""
    if len(keys) != len(values):
        raise HudiConfigError(
            f"Partition key parts {list(keys)} do not match partition values {list(values)}.",
            help=f"check {HiveSyncConfig.PARTITION_FIELDS.key} and {HiveSyncConfig.PARTITION_EXTRACTOR_CLASS.key}",
        )
    return exp.Partition(expressions=[exp.EQ(this=exp.column(identifier(k)), expression=string(v))
                                      for k, v in zip(keys, values)])


def _properties(props: Mapping[str, str]) -> list[exp.Property]:
    return [exp.Property(this=string(k), value=string(v)) for k, v in props.items()]


def _column(column: HiveColumn) -> exp.ColumnDef:
    return exp.ColumnDef(this=identifier(column.name), kind=exp.DataType.build(column.type_for_ddl, dialect="hive"))


@dataclass(frozen=True)
class TableDefinition:
    """Everything a new Hive table for a Hudi table carries."""

    database: str
    table: str
    columns: tuple[HiveColumn, ...]
    partition_columns: tuple[HiveColumn, ...]
    location: str
    input_format: str
    output_format: str = OUTPUT_FORMAT
    serde: str = SERDE_CLASS
    serde_properties: Mapping[str, str] = field(default_factory=dict)
    table_properties: Mapping[str, str] = field(default_factory=dict)
    external: bool = True

    @property
    def partition_keys(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.partition_columns)


def create_database(database: str) -> str:
    return render_hive(exp.Create(this=exp.Table(this=identifier(database)), kind="DATABASE", exists=True))


def create_table(definition: TableDefinition) -> str:
    """``HiveSchemaUtil.generateCreateDDL``."""
    d = definition
    properties: list[exp.Expr] = []
    if d.external:
        properties.append(exp.ExternalProperty())
    if d.partition_columns:
        properties.append(exp.PartitionedByProperty(
            this=exp.Schema(expressions=[_column(c) for c in d.partition_columns])))
    properties.append(exp.RowFormatSerdeProperty(
        this=string(d.serde),
        serde_properties=exp.SerdeProperties(expressions=_properties(d.serde_properties), with_=True)
        if d.serde_properties else None))
    properties.append(exp.FileFormatProperty(
        this=exp.InputOutputFormat(input_format=string(d.input_format), output_format=string(d.output_format)),
        hive_format=True))
    properties.append(exp.LocationProperty(this=string(d.location)))
    properties += _properties(d.table_properties)
    return render_hive(exp.Create(
        this=exp.Schema(this=table_tree(d.database, d.table), expressions=[_column(c) for c in d.columns]),
        kind="TABLE", exists=True, properties=exp.Properties(expressions=properties)))


def add_partitions(
    database: str,
    table: str,
    keys: Sequence[str],
    partitions: Sequence[tuple[Sequence[str], str]],
    *,
    batch_num: int = 1000,
) -> list[str]:
    """``ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) LOCATION '...' ...``, *batch_num* per statement."""
    batch = max(1, batch_num)
    return [
        render_hive(AddPartitions(this=table_tree(database, table), expressions=[
            exp.AddPartition(this=partition(keys, values), location=exp.LocationProperty(this=string(location)))
            for values, location in partitions[start:start + batch]]))
        for start in range(0, len(partitions), batch)
    ]


def use_database(database: str) -> str:
    return render_hive(exp.Use(this=exp.Table(this=identifier(database))))


def _alter(database: str | None, table: str, action: exp.Expr, *, cascade: bool = False,
           partition_: exp.Partition | None = None) -> str:
    target = table_tree(database, table)
    if partition_ is not None:
        target.set("partition", partition_)
    return render_hive(exp.Alter(this=target, kind="TABLE", actions=[action], cascade=cascade))


def set_partition_location(database: str | None, table: str, keys: Sequence[str], values: Sequence[str],
                           location: str) -> str:
    """``ALTER TABLE ... PARTITION (...) SET LOCATION '...'``.

    With ``database=None`` the table name is unqualified: Hive 2.x applies this statement to
    the session's current database whatever the qualifier says, so Hudi runs ``USE db`` first.
    """
    return _alter(database, table, exp.AlterSet(location=string(location)), partition_=partition(keys, values))


def drop_partition(database: str, table: str, keys: Sequence[str], values: Sequence[str]) -> str:
    return _alter(database, table, exp.DropPartition(expressions=[partition(keys, values)], exists=True))


def replace_columns(database: str, table: str, columns: Sequence[HiveColumn], *, cascade: bool) -> str:
    """Hudi's schema update: the full data column list; ``CASCADE`` only for partitioned tables."""
    return _alter(database, table, exp.ReplaceColumns(expressions=[_column(c) for c in columns]), cascade=cascade)


def add_columns(database: str, table: str, columns: Sequence[HiveColumn], *, cascade: bool = False) -> str:
    return _alter(database, table, exp.Schema(expressions=[_column(c) for c in columns]), cascade=cascade)


def change_column(database: str, table: str, column: HiveColumn, *, cascade: bool = False) -> str:
    definition = _column(column)
    return _alter(database, table, exp.AlterColumn(this=identifier(column.name), rename_to=identifier(column.name),
                                                   dtype=definition.args["kind"]), cascade=cascade)


def set_table_properties(database: str, table: str, props: Mapping[str, str]) -> str:
    return _alter(database, table, exp.AlterSet(expressions=[exp.Properties(expressions=_properties(props))]))


def set_serde_properties(database: str, table: str, props: Mapping[str, str]) -> str:
    return _alter(database, table, exp.AlterSet(expressions=[exp.Properties(
        expressions=[exp.SerdeProperties(expressions=_properties(props))])]))


def show_tables(database: str) -> str:
    return render_hive(ShowTables(this=exp.Table(this=identifier(database))))


def show_partitions(database: str, table: str) -> str:
    return render_hive(ShowPartitionsOf(this=table_tree(database, table)))


def show_table_properties(database: str, table: str) -> str:
    return render_hive(ShowTblPropertiesOf(this=table_tree(database, table)))


def describe_formatted(database: str, table: str, keys: Sequence[str] = (), values: Sequence[str] | None = None) -> str:
    """``DESCRIBE FORMATTED db.t [PARTITION (...)]``."""
    return render_hive(exp.Describe(this=table_tree(database, table), style="FORMATTED",
                                    partition=partition(keys, values) if values is not None else None))


def drop_table(database: str, table: str) -> str:
    return render_hive(exp.Drop(this=None, tables=[table_tree(database, table)], kind="TABLE"))
