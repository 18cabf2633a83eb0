"""Spark side of a write, before the index: schema check, keys, delete flags, precombine.

Everything here is Spark column expressions over the input DataFrame; nothing is collected.
"""

from __future__ import annotations

__all__ = ["PreparedInput", "prepare_records", "resolve_table_schema"]

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.errors import HudiKeyError, HudiSchemaError, did_you_mean
from hudi_sql.keygen.auto_key import AUTO_KEY_COLUMN
from hudi_sql.model.schema import META_FIELDS, PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.schema_compat import require_compatible
from hudi_sql.write.combine import ARRIVAL_COLUMN
from hudi_sql.write.handles import IS_DELETE_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

    from hudi_sql.keygen.base import KeyGenerator

HOODIE_IS_DELETED = "_hoodie_is_deleted"
_STORED_KEY = "_hoodie_stored_record_key"


@dataclass(frozen=True)
class PreparedInput:
    records: DataFrame  # data columns + _hoodie_record_key, _hoodie_partition_path, _hoodie_is_delete
    data_schema: StructType  # the table schema after this write (evolved if new columns came)
    combine_in_task: bool = False  # duplicates left for the write tasks (records carry ARRIVAL_COLUMN)


def _nullable(struct: StructType) -> StructType:
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(f.name, f.dataType, True, f.metadata) for f in struct.fields])


def resolve_table_schema(incoming: StructType, table: StructType | None) -> StructType:
    """The table schema after writing *incoming*: new columns are appended (schema evolution);
    a missing column or an incompatible type is an error naming the column."""
    from pyspark.sql.types import StructType

    data = StructType([f for f in incoming.fields if f.name not in META_FIELDS])
    if table is None:
        return _nullable(data)
    require_compatible(data, table, allow_extra_columns=True)
    known = {f.name for f in table.fields}
    return StructType(list(table.fields) + [f for f in _nullable(data).fields if f.name not in known])


def _require_columns(df: DataFrame, columns: tuple[str, ...], what: str) -> None:
    present = set(df.columns)
    for column in columns:
        top = column.split(".")[0]
        if top not in present:
            raise HudiKeyError(
                f"The {what} column '{column}' is not in the input.{did_you_mean(top, present)}",
                help=f"input columns: {', '.join(df.columns)}",
            )


def _key_columns(keygen: KeyGenerator, stored_key: bool) -> list[Column]:
    """``_hoodie_record_key`` and ``_hoodie_partition_path``; with auto-generated keys also the
    marker of keys the write task completes (:mod:`hudi_sql.keygen.auto_key`), and a record
    that has a stored key keeps it."""
    from pyspark.sql import functions as F

    key = keygen.record_key()
    columns = [keygen.partition_path().alias(PARTITION_PATH_FIELD)]
    if not keygen.auto_record_keys:
        return [key.alias(RECORD_KEY_FIELD), *columns]
    stored = F.col(_STORED_KEY) if stored_key else F.lit(None).cast("string")
    return [F.coalesce(stored, key).alias(RECORD_KEY_FIELD), *columns, stored.isNull().alias(AUTO_KEY_COLUMN)]


def prepare_records(
    df: DataFrame,
    *,
    keygen: KeyGenerator,
    table_schema: StructType | None,
    ordering_field: str | None,
    delete_operation: bool,
    dedup: bool,
    global_index: bool,
    delete_marker: tuple[str, str] | None = None,
    combine_by_ordering: bool = True,
) -> PreparedInput:
    """Keyed, flagged and (optionally) deduplicated records, cast to the table schema; duplicates
    of a key combine by *ordering_field* when *combine_by_ordering*, else the latest arrival wins."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    stored_key = keygen.auto_record_keys and RECORD_KEY_FIELD in df.columns
    if stored_key:  # generated keys are not computable from the data: a stored record keeps its key
        df = df.withColumnRenamed(RECORD_KEY_FIELD, _STORED_KEY)
    elif keygen.auto_record_keys and delete_operation:
        raise HudiKeyError(
            "A delete from a table with auto-generated record keys needs the records' "
            f"'{RECORD_KEY_FIELD}' column (its keys cannot be computed from the data).",
            help="select the rows to delete from the table itself, meta columns included",
        )
    df = df.drop(*[c for c in META_FIELDS if c in df.columns])  # key and partition columns: checked by the keygen
    if delete_operation:
        data_schema = table_schema
        if data_schema is None:
            raise HudiSchemaError("A delete needs an existing table.")
        flagged = df.withColumn(IS_DELETE_COLUMN, F.lit(True))
        ordering_present = ordering_field is not None and ordering_field in df.columns
        columns = [F.col(c) for c in df.columns if c in {f.name for f in data_schema.fields}]
        if stored_key:
            columns.append(F.col(_STORED_KEY))
    else:
        if ordering_field:
            _require_columns(df, (ordering_field,), "precombine (ordering)")
        # The SQL layer's deletes inside an upsert (a MERGE): flagged in the write path's own
        # column, which is never a column of the table.
        flagged_deletes = F.coalesce(F.col(IS_DELETE_COLUMN), F.lit(False)) if IS_DELETE_COLUMN in df.columns else None
        data_schema = resolve_table_schema(df.drop(_STORED_KEY, IS_DELETE_COLUMN).schema, table_schema)
        casts = []
        types = {f.name: f.dataType for f in df.schema.fields}
        for field in data_schema.fields:
            if field.name in types:
                column = F.col(field.name)
                casts.append((column if types[field.name] == field.dataType else column.cast(field.dataType))
                             .alias(field.name))
        if stored_key:
            casts.append(F.col(_STORED_KEY))
        if flagged_deletes is not None:
            casts.append(F.col(IS_DELETE_COLUMN))
        flagged = df.select(*casts)
        deleted = F.coalesce(F.col(HOODIE_IS_DELETED).cast("boolean"), F.lit(False)) \
            if HOODIE_IS_DELETED in df.columns else F.lit(False)
        if delete_marker and delete_marker[0] in df.columns:  # the payload's own delete marker (AWS DMS Op = 'D')
            column, value = delete_marker
            deleted = deleted | F.coalesce(F.upper(F.col(column).cast("string")) == value.upper(), F.lit(False))
        if flagged_deletes is not None:
            deleted = deleted | flagged_deletes
        flagged = flagged.withColumn(IS_DELETE_COLUMN, deleted)
        ordering_present = ordering_field is not None
        columns = [F.col(f.name) for f in data_schema.fields if f.name in types]
    keys = _key_columns(keygen, stored_key)
    keyed = flagged.select(*columns, F.col(IS_DELETE_COLUMN), *keys) if delete_operation else flagged.select(
        *[F.col(c) for c in flagged.columns if c != _STORED_KEY], *keys)
    if dedup and not global_index:
        # Every record of a (key, partition) reaches the same write task, which combines them
        # (hudi_sql.write.combine); numbering the arrivals keeps "the later one wins" for ties.
        return PreparedInput(keyed.withColumn(ARRIVAL_COLUMN, F.monotonically_increasing_id()), data_schema,
                             combine_in_task=True)
    if dedup:
        partition_by = [F.col(RECORD_KEY_FIELD)] if global_index else [F.col(RECORD_KEY_FIELD),
                                                                       F.col(PARTITION_PATH_FIELD)]
        order = ([F.col(ordering_field).desc_nulls_last()]
                 if ordering_present and ordering_field and combine_by_ordering else [])
        keyed = keyed.withColumn(ARRIVAL_COLUMN, F.monotonically_increasing_id())
        window = Window.partitionBy(*partition_by).orderBy(*order, F.col(ARRIVAL_COLUMN).desc())
        keyed = (keyed.withColumn("_hoodie_rank", F.row_number().over(window))
                 .where(F.col("_hoodie_rank") == 1).drop("_hoodie_rank", ARRIVAL_COLUMN))
    return PreparedInput(keyed, data_schema)
