"""Hive DDL text for hive sync (pure string builders).

The statements are those of Hudi's ``QueryBasedDDLExecutor`` and ``HiveSchemaUtil.generateCreateDDL``
(``CREATE EXTERNAL TABLE IF NOT EXISTS ... ROW FORMAT SERDE ... STORED AS INPUTFORMAT ...``,
``ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) LOCATION '...'``, ``... SET LOCATION``,
``... DROP IF EXISTS PARTITION``, ``REPLACE COLUMNS (...) CASCADE``), with one deliberate
difference: Hudi pastes partition values, locations and property values into the SQL as they
are, so a value holding a quote ends the literal. Here every identifier goes through
:func:`quote_identifier` and every value through :func:`quote_string`, so a partition value such
as ``x'); DROP TABLE t; --`` stays data.

Quoting rules (the same for Hive's and Spark's parsers):

* identifiers are backquoted, a backquote inside doubled (```a``b```);
* strings are single-quoted; ``\\`` and ``'`` get a backslash, control characters become
  ``\\uXXXX`` (both parsers unescape it); other characters, non-ASCII included, pass through.
  (``\\%`` and ``\\_`` are never produced: Hive keeps their backslash.)
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
    "drop_partition",
    "input_format_class",
    "partition_spec",
    "quote_identifier",
    "quote_string",
    "replace_columns",
    "set_partition_location",
    "set_serde_properties",
    "set_table_properties",
    "table_name",
    "use_database",
]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

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


def quote_identifier(name: str) -> str:
    """``name`` backquoted, with backquotes doubled."""
    if not name or "\x00" in name:
        raise HudiConfigError(f"{name!r} is not a valid Hive identifier.", help="use a non-empty name without NUL")
    return "`" + name.replace("`", "``") + "`"


_SIMPLE_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote_string(value: str) -> str:
    """*value* as a single-quoted SQL string literal that Hive and Spark read back unchanged."""
    out = []
    for ch in value:
        escaped = _SIMPLE_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def table_name(database: str, table: str) -> str:
    return f"{quote_identifier(database)}.{quote_identifier(table)}"


def partition_spec(keys: Sequence[str], values: Sequence[str]) -> str:
    """``(`k1`='v1',`k2`='v2')``; raises when the counts differ (Hudi's partition clause check)."""
    if len(keys) != len(values):
        raise HudiConfigError(
            f"Partition key parts {list(keys)} do not match partition values {list(values)}.",
            help=f"check {HiveSyncConfig.PARTITION_FIELDS.key} and {HiveSyncConfig.PARTITION_EXTRACTOR_CLASS.key}",
        )
    return "(" + ",".join(f"{quote_identifier(k)}={quote_string(v)}" for k, v in zip(keys, values)) + ")"


def _properties(props: Mapping[str, str]) -> str:
    return ",".join(f"{quote_string(k)}={quote_string(v)}" for k, v in props.items())


def _column_list(columns: Sequence[HiveColumn]) -> str:
    return ", ".join(f"{quote_identifier(c.name)} {c.type_for_ddl}" for c in columns)


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
    return f"CREATE DATABASE IF NOT EXISTS {quote_identifier(database)}"


def create_table(definition: TableDefinition) -> str:
    """``HiveSchemaUtil.generateCreateDDL``."""
    d = definition
    sql = ["CREATE EXTERNAL TABLE IF NOT EXISTS " if d.external else "CREATE TABLE IF NOT EXISTS ",
           table_name(d.database, d.table), "( ", _column_list(d.columns), ")"]
    if d.partition_columns:
        sql.append(" PARTITIONED BY (" + _column_list(d.partition_columns) + ")")
    sql.append(" ROW FORMAT SERDE " + quote_string(d.serde))
    if d.serde_properties:
        sql.append(" WITH SERDEPROPERTIES (" + _properties(d.serde_properties) + ")")
    sql.append(" STORED AS INPUTFORMAT " + quote_string(d.input_format))
    sql.append(" OUTPUTFORMAT " + quote_string(d.output_format))
    sql.append(" LOCATION " + quote_string(d.location))
    if d.table_properties:
        sql.append(" TBLPROPERTIES (" + _properties(d.table_properties) + ")")
    return "".join(sql)


def add_partitions(
    database: str,
    table: str,
    keys: Sequence[str],
    partitions: Sequence[tuple[Sequence[str], str]],
    *,
    batch_num: int = 1000,
) -> list[str]:
    """``ALTER TABLE ... ADD IF NOT EXISTS PARTITION (...) LOCATION '...' ...``, *batch_num* per statement."""
    statements = []
    batch = max(1, batch_num)
    for start in range(0, len(partitions), batch):
        clauses = [f" PARTITION {partition_spec(keys, values)} LOCATION {quote_string(location)}"
                   for values, location in partitions[start:start + batch]]
        statements.append(f"ALTER TABLE {table_name(database, table)} ADD IF NOT EXISTS" + "".join(clauses))
    return statements


def use_database(database: str) -> str:
    return f"USE {quote_identifier(database)}"


def set_partition_location(database: str | None, table: str, keys: Sequence[str], values: Sequence[str],
                           location: str) -> str:
    """``ALTER TABLE ... PARTITION (...) SET LOCATION '...'``.

    With ``database=None`` the table name is unqualified: Hive 2.x applies this statement to
    the session's current database whatever the qualifier says, so Hudi runs ``USE db`` first.
    """
    name = table_name(database, table) if database is not None else quote_identifier(table)
    return f"ALTER TABLE {name} PARTITION {partition_spec(keys, values)} SET LOCATION {quote_string(location)}"


def drop_partition(database: str, table: str, keys: Sequence[str], values: Sequence[str]) -> str:
    return f"ALTER TABLE {table_name(database, table)} DROP IF EXISTS PARTITION {partition_spec(keys, values)}"


def replace_columns(database: str, table: str, columns: Sequence[HiveColumn], *, cascade: bool) -> str:
    """Hudi's schema update: the full data column list; ``CASCADE`` only for partitioned tables."""
    return (f"ALTER TABLE {table_name(database, table)} REPLACE COLUMNS({_column_list(columns)})"
            + (" CASCADE" if cascade else ""))


def add_columns(database: str, table: str, columns: Sequence[HiveColumn], *, cascade: bool = False) -> str:
    return (f"ALTER TABLE {table_name(database, table)} ADD COLUMNS ({_column_list(columns)})"
            + (" CASCADE" if cascade else ""))


def change_column(database: str, table: str, column: HiveColumn, *, cascade: bool = False) -> str:
    name = quote_identifier(column.name)
    return (f"ALTER TABLE {table_name(database, table)} CHANGE COLUMN {name} {name} {column.type_for_ddl}"
            + (" CASCADE" if cascade else ""))


def set_table_properties(database: str, table: str, props: Mapping[str, str]) -> str:
    return f"ALTER TABLE {table_name(database, table)} SET TBLPROPERTIES ({_properties(props)})"


def set_serde_properties(database: str, table: str, props: Mapping[str, str]) -> str:
    return f"ALTER TABLE {table_name(database, table)} SET SERDEPROPERTIES ({_properties(props)})"
