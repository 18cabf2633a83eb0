"""Where a catalog table ``USING hudi`` lives, written into its own schema.

Spark 4 gives a Python data source nothing of a catalog table it reads (no location, no
``OPTIONS``, no properties: checked on Spark 4.3) except the table's schema as the metastore
keeps it, field metadata included. So every Hudi table hudi-sql registers (``CREATE TABLE``,
``saveAsTable``, hive sync's datasource form) carries its base path in the metadata of its
first column, under :data:`BASE_PATH_KEY` (and :data:`READ_OPTIMIZED_KEY` for a synced
``_ro`` table). The ``hudi`` data source reads it there when it has no ``path`` option, so
``SELECT * FROM t`` works in any Spark 4 session with hudi-sql installed: plain ``pyspark``,
``spark-sql``, Spark's own Thrift server. hudi-sql's catalog strips the marker from schemas it
reports, and rewrites it whenever the location can change (rename).

Tables registered by Apache Hudi carry no marker; the data source still says so clearly.
"""

from __future__ import annotations

__all__ = ["BASE_PATH_KEY", "READ_OPTIMIZED_KEY", "marked", "marked_field_json", "marker_of", "unmarked"]

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

BASE_PATH_KEY = "hudi_sql.base_path"
READ_OPTIMIZED_KEY = "hudi_sql.read_optimized"


def marked(schema: StructType, base_path: str, *, read_optimized: bool = False) -> StructType:
    """*schema* with the table's marker on its first column (any older marker removed)."""
    from pyspark.sql.types import StructField, StructType

    fields = unmarked(schema).fields
    if not fields:
        return schema
    first = fields[0]
    metadata = {**first.metadata, **_marker(base_path, read_optimized)}
    return StructType([StructField(first.name, first.dataType, first.nullable, metadata), *fields[1:]])


def marked_field_json(field: dict[str, Any], base_path: str, *, read_optimized: bool = False) -> dict[str, Any]:
    """A field of Spark's schema JSON with the marker (for schemas written as JSON text)."""
    return {**field, "metadata": {**field.get("metadata", {}), **_marker(base_path, read_optimized)}}


def _marker(base_path: str, read_optimized: bool) -> dict[str, Any]:
    return {BASE_PATH_KEY: base_path, **({READ_OPTIMIZED_KEY: True} if read_optimized else {})}


def marker_of(schema: StructType | None) -> tuple[str, bool] | None:
    """The base path and read-optimized flag a schema carries, if any."""
    for field in (schema.fields if schema is not None else ()):
        path = field.metadata.get(BASE_PATH_KEY)
        if path:
            return str(path), bool(field.metadata.get(READ_OPTIMIZED_KEY, False))
    return None


def unmarked(schema: StructType) -> StructType:
    """*schema* without the marker (what users see)."""
    from pyspark.sql.types import StructField, StructType

    if marker_of(schema) is None:
        return schema
    return StructType([
        StructField(f.name, f.dataType, f.nullable,
                    {k: v for k, v in f.metadata.items() if k not in (BASE_PATH_KEY, READ_OPTIMIZED_KEY)})
        for f in schema.fields
    ])
