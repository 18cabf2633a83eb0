"""HiveServer2 metadata calls (``GetTables``, ``GetColumns``, ...): result layouts as
``java.sql.DatabaseMetaData`` defines them, and the catalog lookups behind them."""

from __future__ import annotations

__all__ = [
    "CATALOGS_SCHEMA",
    "COLUMNS_SCHEMA",
    "CROSS_REFERENCE_SCHEMA",
    "FUNCTIONS_SCHEMA",
    "PRIMARY_KEYS_SCHEMA",
    "SCHEMAS_SCHEMA",
    "TABLES_SCHEMA",
    "TABLE_TYPES_SCHEMA",
    "TABLE_TYPE_ALIASES",
    "TYPE_INFO_SCHEMA",
    "column_row",
    "databases",
    "jdbc_pattern",
    "matches",
    "tables",
    "type_info_rows",
]

import re
from typing import TYPE_CHECKING, Any

from pyspark.sql.types import StructField, StructType

from catalog.spark_catalog import SparkSessionCatalog
from hudi_sql.apps.hiveserver2.wire import (
    INTEGRAL_KINDS,
    ColumnSpec,
    T,
    column_spec,
)
from hudi_sql.config.sql_aliases import PRIMARY_KEY
from hudi_sql.errors import HudiError
from hudi_sql.model.schema import META_FIELDS
from hudi_sql.spark.schema import add_meta_fields
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Metadata operations ------------------------------------------------------------------------------


def _schema(spec: str) -> tuple[ColumnSpec, ...]:
    """``"NAME:type NAME:type"`` -> column specs (types: string, int, smallint, tinyint, boolean)."""
    ids = {"string": T.STRING_TYPE, "int": T.INT_TYPE, "smallint": T.SMALLINT_TYPE, "tinyint": T.TINYINT_TYPE,
           "boolean": T.BOOLEAN_TYPE}
    return tuple(ColumnSpec(name, ids[kind]) for name, kind in (item.split(":") for item in spec.split()))


# Result-set layouts of the metadata calls (java.sql.DatabaseMetaData, as Hive defines them).
CATALOGS_SCHEMA = _schema("TABLE_CAT:string")
SCHEMAS_SCHEMA = _schema("TABLE_SCHEM:string TABLE_CATALOG:string")
TABLE_TYPES_SCHEMA = _schema("TABLE_TYPE:string")
TABLES_SCHEMA = _schema("TABLE_CAT:string TABLE_SCHEM:string TABLE_NAME:string TABLE_TYPE:string REMARKS:string "
                        "TYPE_CAT:string TYPE_SCHEM:string TYPE_NAME:string SELF_REFERENCING_COL_NAME:string "
                        "REF_GENERATION:string")
COLUMNS_SCHEMA = _schema(
    "TABLE_CAT:string TABLE_SCHEM:string TABLE_NAME:string COLUMN_NAME:string DATA_TYPE:int TYPE_NAME:string "
    "COLUMN_SIZE:int BUFFER_LENGTH:tinyint DECIMAL_DIGITS:int NUM_PREC_RADIX:int NULLABLE:int REMARKS:string "
    "COLUMN_DEF:string SQL_DATA_TYPE:int SQL_DATETIME_SUB:int CHAR_OCTET_LENGTH:int ORDINAL_POSITION:int "
    "IS_NULLABLE:string SCOPE_CATALOG:string SCOPE_SCHEMA:string SCOPE_TABLE:string SOURCE_DATA_TYPE:smallint "
    "IS_AUTO_INCREMENT:string")
TYPE_INFO_SCHEMA = _schema(
    "TYPE_NAME:string DATA_TYPE:int PRECISION:int LITERAL_PREFIX:string LITERAL_SUFFIX:string CREATE_PARAMS:string "
    "NULLABLE:smallint CASE_SENSITIVE:boolean SEARCHABLE:smallint UNSIGNED_ATTRIBUTE:boolean "
    "FIXED_PREC_SCALE:boolean AUTO_INCREMENT:boolean LOCAL_TYPE_NAME:string MINIMUM_SCALE:smallint "
    "MAXIMUM_SCALE:smallint SQL_DATA_TYPE:int SQL_DATETIME_SUB:int NUM_PREC_RADIX:int")
FUNCTIONS_SCHEMA = _schema("FUNCTION_CAT:string FUNCTION_SCHEM:string FUNCTION_NAME:string REMARKS:string "
                           "FUNCTION_TYPE:int SPECIFIC_NAME:string")
PRIMARY_KEYS_SCHEMA = _schema("TABLE_CAT:string TABLE_SCHEM:string TABLE_NAME:string COLUMN_NAME:string "
                              "KEQ_SEQ:int PK_NAME:string")
CROSS_REFERENCE_SCHEMA = _schema(
    "PKTABLE_CAT:string PKTABLE_SCHEM:string PKTABLE_NAME:string PKCOLUMN_NAME:string FKTABLE_CAT:string "
    "FKTABLE_SCHEM:string FKTABLE_NAME:string FKCOLUMN_NAME:string KEQ_SEQ:int UPDATE_RULE:smallint "
    "DELETE_RULE:smallint FK_NAME:string PK_NAME:string DEFERRABILITY:smallint")

#: TTypeId -> (java.sql.Types code, type name, precision or None); the rows of GetTypeInfo.
_JDBC_TYPES: dict[int, tuple[int, str, int | None]] = {
    T.NULL_TYPE: (0, "VOID", None), T.BOOLEAN_TYPE: (16, "BOOLEAN", None), T.TINYINT_TYPE: (-6, "TINYINT", 3),
    T.SMALLINT_TYPE: (5, "SMALLINT", 5), T.INT_TYPE: (4, "INT", 10), T.BIGINT_TYPE: (-5, "BIGINT", 19),
    T.FLOAT_TYPE: (6, "FLOAT", 7), T.DOUBLE_TYPE: (8, "DOUBLE", 15), T.STRING_TYPE: (12, "STRING", None),
    T.CHAR_TYPE: (1, "CHAR", None), T.VARCHAR_TYPE: (12, "VARCHAR", None), T.DATE_TYPE: (91, "DATE", None),
    T.TIMESTAMP_TYPE: (93, "TIMESTAMP", None), T.BINARY_TYPE: (-2, "BINARY", None),
    T.DECIMAL_TYPE: (3, "DECIMAL", 38), T.ARRAY_TYPE: (2003, "ARRAY", None), T.MAP_TYPE: (2000, "MAP", None),
    T.STRUCT_TYPE: (2002, "STRUCT", None),
}
#: Hive's own table type names, as some clients filter GetTables by them.
TABLE_TYPE_ALIASES = {"MANAGED_TABLE": "TABLE", "EXTERNAL_TABLE": "TABLE", "VIRTUAL_VIEW": "VIEW",
                       "MATERIALIZED_VIEW": "VIEW"}
_NUMERIC = frozenset({T.TINYINT_TYPE, T.SMALLINT_TYPE, T.INT_TYPE, T.BIGINT_TYPE, T.FLOAT_TYPE, T.DOUBLE_TYPE,
                      T.DECIMAL_TYPE})


def jdbc_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """A JDBC search pattern (``%`` any run, ``_`` one character, ``\\`` escapes; Hive also
    takes ``*``) as a case-insensitive regex; ``None`` when it matches everything."""
    if pattern is None or pattern in ("", "%", "*"):
        return None
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if c in "%*" else "." if c == "_" else re.escape(c))
        i += 1
    return re.compile("".join(out), re.IGNORECASE)


def matches(pattern: re.Pattern[str] | None, value: str) -> bool:
    return pattern is None or pattern.fullmatch(value) is not None


def databases(spark: SparkSession, pattern: str | None) -> list[str]:
    regex = jdbc_pattern(pattern)
    return sorted(str(d.name) for d in spark.catalog.listDatabases() if matches(regex, str(d.name)))


def tables(spark: SparkSession, schema: str | None, table: str | None) -> list[Any]:
    catalog = SparkSessionCatalog(spark)
    regex = jdbc_pattern(table)
    infos = []
    for database in databases(spark, schema):
        for ident in catalog.list_tables(database):
            if matches(regex, ident.name):
                info = catalog.load_table(ident)
                if info is not None:
                    infos.append(info)
    return infos


def visible_columns(info: Any) -> list[StructField]:
    """The columns a client sees: a Hudi table's five meta columns first, then its columns, as
    ``DESCRIBE`` and Apache Hudi's catalog show them; another table's as the catalog has them."""
    fields = list(info.schema.fields) if info.schema is not None else []
    if not info.is_hudi or any(f.name in META_FIELDS for f in fields):
        return fields
    return list(add_meta_fields(StructType(fields)).fields)


def primary_key_rows(info: Any) -> list[tuple[Any, ...]]:
    """``GetPrimaryKeys``' rows: a Hudi table's record key fields, in order (``primaryKey`` of its
    catalog entry, else its ``hoodie.properties``); none for another table."""
    if not info.is_hudi:
        return []
    declared = str(info.properties.get(PRIMARY_KEY.name) or "")
    keys = [k.strip() for k in declared.split(",") if k.strip()]
    if not keys and info.location:
        try:
            keys = list(TableMetaClient.load(str(info.location)).record_key_fields)
        except HudiError:
            keys = []
    return [("", info.ident.database, info.ident.name, key, sequence, None)
            for sequence, key in enumerate(keys, start=1)]


def column_row(info: Any, position: int, struct_field: StructField) -> tuple[Any, ...]:
    spec = column_spec(struct_field)
    code, _, precision = _JDBC_TYPES.get(spec.type_id, (1111, "", None))
    qualifiers = dict(spec.qualifiers)
    size = qualifiers.get("precision", qualifiers.get("characterMaximumLength", precision))
    if spec.type_id == T.DATE_TYPE:
        size = 10
    elif spec.type_id == T.TIMESTAMP_TYPE:
        size = 29
    digits = {T.FLOAT_TYPE: 7, T.DOUBLE_TYPE: 15, T.TIMESTAMP_TYPE: 9}.get(spec.type_id)
    if spec.type_id in INTEGRAL_KINDS:
        digits = 0
    digits = qualifiers.get("scale", digits)
    type_name = struct_field.dataType.simpleString()
    nullable = 1 if struct_field.nullable else 0
    return ("", info.ident.database, info.ident.name, struct_field.name, code,
            type_name.upper() if spec.type_id not in (T.ARRAY_TYPE, T.MAP_TYPE, T.STRUCT_TYPE) else type_name,
            size, None, digits, 10 if spec.type_id in _NUMERIC else None, nullable, spec.comment or "", None,
            None, None, None, position, "YES" if nullable else "NO", None, None, None, None, "NO")


def type_info_rows() -> list[tuple[Any, ...]]:
    rows = []
    for type_id, (code, name, precision) in _JDBC_TYPES.items():
        numeric = type_id in _NUMERIC
        rows.append((name, code, precision, None, None, None, 1, type_id in (T.STRING_TYPE, T.CHAR_TYPE,
                     T.VARCHAR_TYPE), 3 if type_id not in (T.ARRAY_TYPE, T.MAP_TYPE, T.STRUCT_TYPE) else 0,
                     not numeric, False, False, None, 0, 38 if type_id == T.DECIMAL_TYPE else 0, None, None,
                     10 if numeric else None))
    return rows

