"""Table schema -> Hive column types, exactly as Hudi's ``HiveSchemaUtil`` writes them (pure).

Hudi derives the Hive schema from the Parquet form of the table's Avro schema, meta columns
first. Starting from the Spark ``StructType`` that :func:`hudi_sql.model.schema.from_avro_schema`
reads out of that Avro schema, the Parquet step reduces to these rules:

===============================  =====================================================
Spark type (from Avro)           Hive type
===============================  =====================================================
string                           ``string``
boolean / int / bigint           ``boolean`` / ``int`` / ``bigint`` (byte, short -> ``int``)
float / double                   ``float`` / ``double``
binary                           ``binary``
decimal(p, s)                    ``decimal(p,s)``
date                             ``date``
timestamp, timestamp_ntz         ``bigint``; ``timestamp`` with ``support_timestamp``
array<T>                         ``array<T>``
map<string, T>                   ``map<string,T>``
struct<a: T, ...>                ``struct<a:T,...>`` (``$`` in nested names -> ``_dollar_``)
===============================  =====================================================

Types are in the canonical form the metastore stores (lower case, no spaces), which is also
what ``DESCRIBE`` returns; :func:`to_hive_type` with ``quote_names=True`` backquotes struct
field names for DDL. Partition columns leave the column list and take the type of the
same-named column, or ``string`` when the schema has no such column
(``HiveSchemaUtil.getPartitionKeyType``).

:func:`schema_difference` is ``HiveSchemaUtil.getSchemaDifference``: columns compared by lower
case name and by type ignoring case, spaces and backquotes; a type may only widen int ->
bigint, float -> double, or change inside a struct.

The ``SchemaToHiveConverter`` of pyiceberg's Hive catalog is the model: a visitor with no I/O.
"""

from __future__ import annotations

__all__ = [
    "HiveColumn",
    "HiveSchema",
    "SchemaDifference",
    "hive_schema",
    "is_type_update_allowed",
    "schema_difference",
    "spark_schema_json",
    "spark_table_properties",
    "table_schema",
    "to_hive_type",
]

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    CharType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
)

from hudi_sql.errors import HudiSchemaError
from hudi_sql.spark.schema import add_meta_fields, drop_meta_fields, from_avro_schema
from hudi_sql.spark.table_marker import marked_field_json

if TYPE_CHECKING:
    from hudi_sql.table.meta_client import TableMetaClient


@dataclass(frozen=True)
class HiveColumn:
    """One Hive column: its name and canonical Hive type (``decimal(10,5)``, ``array<int>``).

    ``ddl_type`` is the same type with struct field names backquoted, for DDL text; it is
    left out of equality.
    """

    name: str
    type: str
    ddl_type: str = field(default="", compare=False, repr=False)

    @property
    def type_for_ddl(self) -> str:
        return self.ddl_type or self.type


@dataclass(frozen=True)
class HiveSchema:
    """The Hive form of a table schema: data columns (partition columns excluded) and partition keys."""

    columns: tuple[HiveColumn, ...]
    partition_columns: tuple[HiveColumn, ...]

    def all_columns(self) -> tuple[HiveColumn, ...]:
        return self.columns + self.partition_columns


@dataclass(frozen=True)
class SchemaDifference:
    """What changed between the metastore's columns and the table's (``SchemaDifference``)."""

    added: tuple[HiveColumn, ...] = ()
    updated: tuple[HiveColumn, ...] = ()
    deleted: tuple[str, ...] = field(default=())

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.updated or self.deleted)


_PRIMITIVES: dict[type[DataType], str] = {
    StringType: "string",
    CharType: "string",
    VarcharType: "string",
    BooleanType: "boolean",
    ByteType: "int",
    ShortType: "int",
    IntegerType: "int",
    LongType: "bigint",
    FloatType: "float",
    DoubleType: "double",
    BinaryType: "binary",
    DateType: "date",
}


def _nested_name(name: str) -> str:
    """``ColumnNameXLator.translateNestedColumn``: ``$`` becomes ``_dollar_``."""
    return name.replace("$", "_dollar_")


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def to_hive_type(dt: DataType, *, support_timestamp: bool = False, quote_names: bool = False,
                 path: str = "") -> str:
    """The Hive type of one Spark type (see the module table).

    Args:
        dt: the column type.
        support_timestamp: timestamps become ``timestamp`` rather than ``bigint``.
        quote_names: backquote struct field names (for DDL text).
        path: the column path, named in errors.

    Raises:
        HudiSchemaError: the type has no Hive form (a null type, a map with non-string keys).
    """
    primitive = _PRIMITIVES.get(type(dt))
    if primitive is not None:
        return primitive
    if isinstance(dt, (TimestampType, TimestampNTZType)):
        return "timestamp" if support_timestamp else "bigint"
    if isinstance(dt, DecimalType):
        return f"decimal({dt.precision},{dt.scale})"
    if isinstance(dt, ArrayType):
        element = to_hive_type(dt.elementType, support_timestamp=support_timestamp, quote_names=quote_names,
                               path=f"{path}[]")
        return f"array<{element}>"
    if isinstance(dt, MapType):
        if not isinstance(dt.keyType, StringType):
            raise HudiSchemaError(f"Column '{path}' is a map with {dt.keyType.simpleString()} keys; "
                                  "Hudi tables only have string map keys")
        value = to_hive_type(dt.valueType, support_timestamp=support_timestamp, quote_names=quote_names,
                             path=f"{path}{{}}")
        return f"map<string,{value}>"
    if isinstance(dt, StructType):
        if not dt.fields:
            raise HudiSchemaError(f"Column '{path}' is an empty struct, which Hive cannot store")
        parts = []
        for f in dt.fields:
            name = _nested_name(f.name)
            inner = to_hive_type(f.dataType, support_timestamp=support_timestamp, quote_names=quote_names,
                                 path=f"{path}.{f.name}" if path else f.name)
            parts.append(f"{_quote(name) if quote_names else name}:{inner}")
        # HiveSchemaUtil.createHiveStruct: "Struct cannot have - in them".
        return ("struct<" + ",".join(parts) + ">").replace("-", "_")
    raise HudiSchemaError(
        f"Column '{path}' has type {dt.simpleString()}, which has no Hive form",
        help="cast it to a supported type (numbers, string, binary, date, timestamp, decimal, array, map, struct)",
    )


def hive_schema(
    struct: StructType,
    partition_fields: Sequence[str],
    *,
    support_timestamp: bool = False,
    with_meta_fields: bool = True,
) -> HiveSchema:
    """The Hive columns of a table whose data columns are *struct*.

    Args:
        struct: the table's data columns (from its Avro schema); meta columns are replaced.
        partition_fields: the Hive partition columns, in order.
        support_timestamp: see :func:`to_hive_type`.
        with_meta_fields: put the five ``_hoodie_*`` columns first (unless ``omit_metadata_fields``).
    """
    full = add_meta_fields(struct) if with_meta_fields else drop_meta_fields(struct)
    cols = {
        f.name: HiveColumn(
            f.name,
            to_hive_type(f.dataType, support_timestamp=support_timestamp, path=f.name),
            to_hive_type(f.dataType, support_timestamp=support_timestamp, quote_names=True, path=f.name),
        )
        for f in full.fields
    }
    columns = tuple(cols[f.name] for f in full.fields if f.name not in partition_fields)
    partitions = tuple(HiveColumn(name, cols[name].type, cols[name].ddl_type) if name in cols
                       else HiveColumn(name, "string") for name in partition_fields)
    return HiveSchema(columns, partitions)


def _normalize(hive_type: str) -> str:
    return re.sub(r"\s+", "", hive_type).replace("`", "").lower()


def is_type_update_allowed(previous: str, new: str) -> bool:
    """``HiveSchemaUtil.isSchemaTypeUpdateAllowed``: widenings Hive can read old files with."""
    prev, nxt = _normalize(previous), _normalize(new)
    if not prev or not nxt:
        return False
    return (prev == nxt or (prev, nxt) in {("int", "bigint"), ("float", "double")}
            or ("struct" in prev and "struct" in nxt))


def schema_difference(
    expected: HiveSchema,
    table_columns: Mapping[str, str],
    partition_keys: Sequence[str],
) -> SchemaDifference:
    """How the metastore's columns (*table_columns*: data and partition columns) differ from *expected*.

    Raises:
        HudiSchemaError: a column changed type in a way Hive cannot read (e.g. string -> int).
    """
    new = {c.name.lower(): c for c in expected.all_columns()}
    keys = {k.lower() for k in partition_keys}
    seen: set[str] = set()
    updated: list[HiveColumn] = []
    deleted: list[str] = []
    for name, table_type in table_columns.items():
        lowered = name.lower()
        column = new.get(lowered)
        if column is None:
            if lowered not in keys:
                deleted.append(lowered)
            seen.add(lowered)
            continue
        if _normalize(table_type) != _normalize(column.type):
            if not is_type_update_allowed(table_type, column.type):
                raise HudiSchemaError(
                    f"Could not convert field type from {table_type} to {column.type} for field {lowered}",
                    help="Hive can only widen int to bigint, float to double, or change struct fields; "
                    "recreate the Hive table to change the type",
                )
            updated.append(column)
        seen.add(lowered)
    added = tuple(c for c in expected.all_columns() if c.name.lower() not in seen)
    return SchemaDifference(added, tuple(updated), tuple(deleted))


# --------------------------------------------------------------------------------------------
# spark.sql.sources.* table properties (sync_as_datasource)


def _spark_type_json(dt: DataType) -> Any:
    """Spark's ``DataType.jsonValue`` with Scala's key order (pyspark sorts keys)."""
    if isinstance(dt, StructType):
        return {"type": "struct", "fields": [_spark_field_json(f) for f in dt.fields]}
    if isinstance(dt, ArrayType):
        return {"type": "array", "elementType": _spark_type_json(dt.elementType), "containsNull": dt.containsNull}
    if isinstance(dt, MapType):
        return {"type": "map", "keyType": _spark_type_json(dt.keyType), "valueType": _spark_type_json(dt.valueType),
                "valueContainsNull": dt.valueContainsNull}
    if isinstance(dt, (ByteType, ShortType)):
        return "integer"  # Avro has no 8/16-bit ints; Hudi's Parquet schema reads them back as int32
    return dt.jsonValue()


def _spark_field_json(f: StructField) -> dict[str, Any]:
    # Parquet2SparkSchemaUtils writes empty metadata (no comments).
    return {"name": f.name, "type": _spark_type_json(f.dataType), "nullable": f.nullable, "metadata": {}}


def spark_schema_json(struct: StructType, partition_fields: Sequence[str], *, with_meta_fields: bool = True,
                      base_path: str | None = None, read_optimized: bool = False) -> str:
    """The ``spark.sql.sources.schema`` JSON Hudi writes: data columns, then partition columns.

    A partition field missing from the schema is a non-null string (``getSparkTableProperties``).
    With *base_path*, the first column carries hudi-sql's location marker
    (:mod:`hudi_sql.spark.table_marker`), the one difference from Apache Hudi's JSON: it lets the
    ``hudi`` data source of any Spark 4 session find the table.
    """
    full = add_meta_fields(struct) if with_meta_fields else drop_meta_fields(struct)
    by_name = {f.name: f for f in full.fields}
    data = [f for f in full.fields if f.name not in partition_fields]
    parts = [by_name.get(name, StructField(name, StringType(), False)) for name in partition_fields]
    fields = [_spark_field_json(f) for f in data + parts]
    if base_path is not None and fields:
        fields[0] = marked_field_json(fields[0], base_path, read_optimized=read_optimized)
    return json.dumps({"type": "struct", "fields": fields}, separators=(",", ":"), ensure_ascii=False)


def spark_table_properties(
    struct: StructType,
    partition_fields: Sequence[str],
    *,
    spark_version: str = "",
    threshold: int = 4000,
    with_meta_fields: bool = True,
    base_path: str | None = None,
    read_optimized: bool = False,
) -> dict[str, str]:
    """``SparkDataSourceTableUtils.getSparkTableProperties``: provider, version, schema in parts."""
    props = {"spark.sql.sources.provider": "hudi"}
    if spark_version:
        props["spark.sql.create.version"] = spark_version
    schema = spark_schema_json(struct, partition_fields, with_meta_fields=with_meta_fields,
                               base_path=base_path, read_optimized=read_optimized)
    threshold = max(1, threshold)
    num_parts = (len(schema) + threshold - 1) // threshold
    props["spark.sql.sources.schema.numParts"] = str(num_parts)
    for i in range(num_parts):
        props[f"spark.sql.sources.schema.part.{i}"] = schema[i * threshold:(i + 1) * threshold]
    if partition_fields:
        props["spark.sql.sources.schema.numPartCols"] = str(len(partition_fields))
        for i, name in enumerate(partition_fields):
            props[f"spark.sql.sources.schema.partCol.{i}"] = name
    return props


def table_schema(meta_client: TableMetaClient) -> StructType:
    """The Spark schema a sync registers: the latest commit's (an error before any commit)."""
    avro = meta_client.latest_schema()
    if not avro:
        raise HudiSchemaError(f"The table at '{meta_client.base_path}' has no completed commit with a schema to sync.",
                              help="write to the table before syncing it")
    return from_avro_schema(avro)
