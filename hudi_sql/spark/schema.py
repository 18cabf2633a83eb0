"""Table schemas between Spark SQL types and their Avro and Arrow forms, as Hudi writes and reads them.

The Spark ``StructType`` is the schema users see. :func:`to_avro_schema` / :func:`avro_schema_json`
write it in Hudi's Avro spellings (``commit`` and ``create`` styles, with or without the meta
columns: see :mod:`hudi_sql.model.schema` for where each spelling is stored and how names are
formed); :func:`from_avro_schema` reads any Avro record schema back. Those paths never repeat,
so every named type is defined exactly once and no Avro name references appear.

The Arrow form matches PySpark's Arrow conversion (``timestamp('us', tz='UTC')`` for
``TIMESTAMP``, ``string`` rather than ``large_string``, list items named ``element``).

Split from the spec core (:mod:`hudi_sql.model.schema`) because it speaks Spark types;
everything here is still pure: ``pyspark.sql.types`` needs no JVM.
"""

from __future__ import annotations

__all__ = [
    "add_meta_fields",
    "avro_schema_json",
    "drop_meta_fields",
    "from_arrow_field",
    "from_arrow_schema",
    "from_arrow_type",
    "from_avro_schema",
    "table_struct",
    "to_arrow_schema",
    "to_arrow_type",
    "to_avro_schema",
]

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
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
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    UserDefinedType,
    VarcharType,
)

from hudi_sql.errors import HudiSchemaError
from hudi_sql.model.schema import (
    AVRO_STYLES,
    META_FIELDS,
    AvroStyle,
    avro_json,
    avro_namespace,
    avro_record_name,
    is_avro_name,
    is_null_branch,
    meta_fields_avro,
    min_bytes_for_precision,
)

#: The Spark field metadata key of a column comment (Avro ``doc``).
_COMMENT_KEY = "comment"


# --------------------------------------------------------------------------------------------
# Spark -> Avro


@dataclass(frozen=True)
class _AvroWriter:
    """One ``toAvroType`` pass; ``commit`` also applies ``getAvroSchemaWithDefaults``."""

    commit_style: bool

    def nullable(self, avro: Any) -> list[Any]:
        return ["null", avro] if self.commit_style else [avro, "null"]

    def field_type(self, dt: DataType, nullable: bool, record_name: str, namespace: str, path: str) -> Any:
        """The Avro type of one value; *record_name*/*namespace* name any record or fixed it defines."""
        avro = self.base_type(dt, record_name, namespace, path)
        if nullable and not isinstance(dt, NullType):
            return self.nullable(avro)
        return avro

    def base_type(self, dt: DataType, record_name: str, namespace: str, path: str) -> Any:
        if isinstance(dt, UserDefinedType):
            return self.base_type(dt.sqlType(), record_name, namespace, path)
        if isinstance(dt, BooleanType):
            return "boolean"
        if isinstance(dt, (ByteType, ShortType, IntegerType)):
            return "int"
        if isinstance(dt, LongType):
            return "long"
        if isinstance(dt, FloatType):
            return "float"
        if isinstance(dt, DoubleType):
            return "double"
        if isinstance(dt, (StringType, CharType, VarcharType)):
            return "string"
        if isinstance(dt, BinaryType):
            return "bytes"
        if isinstance(dt, NullType):
            return "null"
        if isinstance(dt, DateType):
            return {"type": "int", "logicalType": "date"}
        if isinstance(dt, TimestampType):
            return {"type": "long", "logicalType": "timestamp-micros"}
        if isinstance(dt, TimestampNTZType):
            return {"type": "long", "logicalType": "local-timestamp-micros"}
        if isinstance(dt, DecimalType):
            return {
                "type": "fixed",
                "name": "fixed",
                "namespace": f"{namespace}.{record_name}" if namespace else record_name,
                "size": min_bytes_for_precision(dt.precision),
                "logicalType": "decimal",
                "precision": dt.precision,
                "scale": dt.scale,
            }
        if isinstance(dt, ArrayType):
            items = self.field_type(dt.elementType, dt.containsNull, record_name, namespace, path)
            return {"type": "array", "items": items}
        if isinstance(dt, MapType):
            if not isinstance(dt.keyType, StringType):
                raise HudiSchemaError(
                    f"Column '{path}' has type {dt.simpleString()}, but Avro maps need string keys",
                    help="cast the map keys to STRING",
                )
            values = self.field_type(dt.valueType, dt.valueContainsNull, record_name, namespace, path)
            return {"type": "map", "values": values}
        if isinstance(dt, StructType):
            return self.record(dt, record_name, namespace, path)
        raise HudiSchemaError(
            f"Column '{path}' has type {dt.simpleString()}, which has no Avro form in a Hudi table",
            help="cast the column to a supported type (numbers, string, binary, date, timestamp, "
            "decimal, array, map with string keys, struct)",
        )

    def record(
        self,
        struct: StructType,
        name: str,
        namespace: str,
        path: str,
        leading: tuple[dict[str, Any], ...] = (),
    ) -> dict[str, Any]:
        child_namespace = f"{namespace}.{name}" if namespace else name
        fields: list[dict[str, Any]] = list(leading)
        seen: set[str] = {f["name"] for f in leading}
        for field in struct.fields:
            field_path = f"{path}.{field.name}" if path else field.name
            if not is_avro_name(field.name):
                raise HudiSchemaError(
                    f"Column '{field_path}' is not a valid Avro name",
                    help="use letters, digits and '_' only, not starting with a digit",
                )
            if field.name in seen:
                raise HudiSchemaError(f"Column '{field_path}' appears twice", help="rename one of them")
            seen.add(field.name)
            avro_type = self.field_type(
                field.dataType, field.nullable, field.name, child_namespace, field_path
            )
            entry: dict[str, Any] = {"name": field.name, "type": avro_type}
            if self.commit_style:
                comment = (field.metadata or {}).get(_COMMENT_KEY)
                if comment is not None:
                    entry["doc"] = str(comment)
                if isinstance(avro_type, list):
                    entry["default"] = None
            fields.append(entry)
        schema: dict[str, Any] = {"type": "record", "name": name}
        if namespace:
            schema["namespace"] = namespace
        schema["fields"] = fields
        return schema


def to_avro_schema(
    struct: StructType,
    table_name: str,
    *,
    with_meta_fields: bool = False,
    style: AvroStyle = "commit",
) -> dict[str, Any]:
    """The Avro schema Hudi 0.14 writes for *struct*, as a JSON-ready dict in Hudi's key order.

    Args:
        struct: the table's data columns (meta columns are dropped when *with_meta_fields*).
        table_name: ``hoodie.table.name``; it names the record and namespace.
        with_meta_fields: put the five ``_hoodie_*`` columns first, as in log block headers and
            ``parquet.avro.schema``.
        style: ``"commit"`` for ``extraMetadata.schema`` (and the log/footer forms),
            ``"create"`` for ``hoodie.table.create.schema``.

    Raises:
        HudiSchemaError: a column name is not a valid Avro name, or a type has no Avro form.
    """
    if style not in AVRO_STYLES:
        raise HudiSchemaError(f"Unknown Avro schema style '{style}'", help="use 'commit' or 'create'")
    writer = _AvroWriter(commit_style=style == "commit")
    leading: tuple[dict[str, Any], ...] = ()
    if with_meta_fields:
        struct = drop_meta_fields(struct)
        leading = meta_fields_avro()
    return writer.record(struct, avro_record_name(table_name), avro_namespace(table_name), "", leading)


def avro_schema_json(
    struct: StructType,
    table_name: str,
    *,
    with_meta_fields: bool = False,
    style: AvroStyle = "commit",
) -> str:
    """:func:`to_avro_schema` serialised exactly as Java's ``Schema.toString()`` writes it."""
    schema = to_avro_schema(struct, table_name, with_meta_fields=with_meta_fields, style=style)
    return avro_json(schema)



# --------------------------------------------------------------------------------------------
# Avro -> Spark


class _AvroReader:
    """spark-avro's ``SchemaConverters.toSqlType``, with named-type references resolved."""

    def __init__(self) -> None:
        # full name -> (definition, namespace it was defined in), for later references by name
        self.named: dict[str, tuple[dict[str, Any], str]] = {}
        self.in_progress: set[str] = set()

    @staticmethod
    def full_name(schema: dict[str, Any], namespace: str) -> tuple[str, str]:
        name = str(schema.get("name", ""))
        if "." in name:
            return name, name.rsplit(".", 1)[0]
        space = schema.get("namespace", namespace) or ""
        return (f"{space}.{name}" if space else name), space

    def read_reference(self, ref: str, namespace: str, path: str) -> tuple[DataType, bool]:
        for candidate in (f"{namespace}.{ref}" if namespace else ref, ref):
            if candidate in self.named:
                definition, defined_in = self.named[candidate]
                return self.read(definition, defined_in, path)
        raise HudiSchemaError(f"Avro schema for '{path}' refers to unknown type '{ref}'")

    def read(self, schema: Any, namespace: str, path: str) -> tuple[DataType, bool]:
        """The Spark type of *schema*, and whether it admits null."""
        if isinstance(schema, list):
            return self.union(schema, namespace, path)
        if isinstance(schema, str):
            primitive = _AVRO_PRIMITIVES.get(schema)
            if primitive is not None:
                return primitive, schema == "null"
            return self.read_reference(schema, namespace, path)
        if not isinstance(schema, dict):
            raise HudiSchemaError(f"Avro schema for '{path or '<root>'}' is not a type: {schema!r}")
        kind = schema.get("type")
        if isinstance(kind, (dict, list)):
            return self.read(kind, namespace, path)
        logical = schema.get("logicalType")
        if kind == "record":
            return self.record(schema, namespace, path), False
        if kind == "enum":
            self.define(schema, namespace)
            return StringType(), False
        if kind == "fixed":
            self.define(schema, namespace)
            if logical == "decimal":
                return _decimal(schema, path), False
            return BinaryType(), False
        if kind == "array":
            element, contains_null = self.read(schema["items"], namespace, path)
            return ArrayType(element, contains_null), False
        if kind == "map":
            value, value_null = self.read(schema["values"], namespace, path)
            return MapType(StringType(), value, value_null), False
        if kind == "int" and logical == "date":
            return DateType(), False
        if kind == "long" and logical in ("timestamp-micros", "timestamp-millis"):
            return TimestampType(), False
        if kind == "long" and logical in ("local-timestamp-micros", "local-timestamp-millis"):
            return TimestampNTZType(), False
        if kind == "bytes" and logical == "decimal":
            return _decimal(schema, path), False
        if isinstance(kind, str) and kind in _AVRO_PRIMITIVES:
            return _AVRO_PRIMITIVES[kind], kind == "null"
        if isinstance(kind, str):
            return self.read_reference(kind, namespace, path)
        raise HudiSchemaError(f"Avro schema for '{path or '<root>'}' has no type: {schema!r}")

    def define(self, schema: dict[str, Any], namespace: str) -> None:
        full, _ = self.full_name(schema, namespace)
        self.named[full] = (schema, namespace)

    def record(self, schema: dict[str, Any], namespace: str, path: str) -> StructType:
        full, space = self.full_name(schema, namespace)
        if full in self.in_progress:
            raise HudiSchemaError(
                f"Avro record '{full}' at '{path}' is recursive; Spark SQL types cannot represent it"
            )
        self.named[full] = (schema, namespace)
        self.in_progress.add(full)
        fields = []
        for field in schema.get("fields", []):
            name = field["name"]
            field_path = f"{path}.{name}" if path else name
            dt, nullable = self.read(field["type"], space, field_path)
            doc = field.get("doc")
            metadata = {_COMMENT_KEY: doc} if doc else None
            fields.append(StructField(name, dt, nullable, metadata))
        self.in_progress.discard(full)
        return StructType(fields)

    def union(self, branches: list[Any], namespace: str, path: str) -> tuple[DataType, bool]:
        non_null = [b for b in branches if not is_null_branch(b)]
        has_null = len(non_null) < len(branches)
        if not non_null:
            return NullType(), True
        if len(non_null) == 1:
            dt, inner_null = self.read(non_null[0], namespace, path)
            return dt, has_null or inner_null
        read = [self.read(b, namespace, path)[0] for b in non_null]
        kinds = {type(dt) for dt in read}
        if kinds == {IntegerType, LongType}:
            return LongType(), has_null
        if kinds == {FloatType, DoubleType}:
            return DoubleType(), has_null
        members = [StructField(f"member{i}", dt, True) for i, dt in enumerate(read)]
        return StructType(members), has_null


_AVRO_PRIMITIVES: dict[str, DataType] = {
    "null": NullType(),
    "boolean": BooleanType(),
    "int": IntegerType(),
    "long": LongType(),
    "float": FloatType(),
    "double": DoubleType(),
    "bytes": BinaryType(),
    "string": StringType(),
}


def _decimal(schema: dict[str, Any], path: str) -> DecimalType:
    try:
        return DecimalType(int(schema["precision"]), int(schema.get("scale", 0)))
    except (KeyError, TypeError, ValueError) as exc:
        raise HudiSchemaError(f"Decimal column '{path}' has no valid precision/scale: {schema!r}") from exc


def from_avro_schema(avro: str | dict[str, Any]) -> StructType:
    """The Spark schema of an Avro record schema (JSON text or parsed dict).

    Unions with ``null`` in either position are nullable columns. Unknown logical types fall
    back to their base type; enums read as strings, fixed without a logical type as binary.

    Raises:
        HudiSchemaError: the text is not JSON, or the top level is not a record.
    """
    if isinstance(avro, str):
        try:
            avro = json.loads(avro)
        except json.JSONDecodeError as exc:
            raise HudiSchemaError(f"Avro schema is not valid JSON: {exc}") from exc
    if not isinstance(avro, dict) or avro.get("type") != "record":
        raise HudiSchemaError("A table's Avro schema must be a record", help="check the schema source")
    try:
        return _AvroReader().record(avro, "", "")
    except (KeyError, TypeError, AttributeError) as exc:
        raise HudiSchemaError(f"Avro schema is malformed ({type(exc).__name__}: {exc})") from exc



# --------------------------------------------------------------------------------------------
# Meta columns


def add_meta_fields(struct: StructType) -> StructType:
    """*struct* with the five meta columns (nullable strings) first, replacing any it had."""
    meta = [StructField(name, StringType(), True) for name in META_FIELDS]
    return StructType(meta + drop_meta_fields(struct).fields)


def table_struct(schema_json: str | None) -> StructType:
    """The Spark schema of a table's rows as reads give them: the five meta columns, then the data
    columns of the Avro schema *schema_json* (none when it is ``None``)."""
    return add_meta_fields(from_avro_schema(schema_json) if schema_json else StructType([]))


def drop_meta_fields(struct: StructType) -> StructType:
    """*struct* without the ``_hoodie_*`` meta columns."""
    return StructType([f for f in struct.fields if f.name not in META_FIELDS])



# --------------------------------------------------------------------------------------------
# Arrow


def to_arrow_type(dt: DataType) -> pa.DataType:
    """The Arrow type PySpark's Arrow conversion uses for *dt* (timestamps in UTC)."""
    if isinstance(dt, UserDefinedType):
        return to_arrow_type(dt.sqlType())
    simple = _ARROW_SIMPLE.get(type(dt))
    if simple is not None:
        return simple
    if isinstance(dt, DecimalType):
        return pa.decimal128(dt.precision, dt.scale)
    if isinstance(dt, ArrayType):
        return pa.list_(pa.field("element", to_arrow_type(dt.elementType), nullable=dt.containsNull))
    if isinstance(dt, MapType):
        return pa.map_(
            pa.field("key", to_arrow_type(dt.keyType), nullable=False),
            pa.field("value", to_arrow_type(dt.valueType), nullable=dt.valueContainsNull),
        )
    if isinstance(dt, StructType):
        return pa.struct([_arrow_field(f) for f in dt.fields])
    raise HudiSchemaError(f"Type {dt.simpleString()} has no Arrow form in hudi-sql")


_ARROW_SIMPLE: dict[type[DataType], pa.DataType] = {
    BooleanType: pa.bool_(),
    ByteType: pa.int8(),
    ShortType: pa.int16(),
    IntegerType: pa.int32(),
    LongType: pa.int64(),
    FloatType: pa.float32(),
    DoubleType: pa.float64(),
    StringType: pa.string(),
    CharType: pa.string(),
    VarcharType: pa.string(),
    BinaryType: pa.binary(),
    DateType: pa.date32(),
    TimestampType: pa.timestamp("us", tz="UTC"),
    TimestampNTZType: pa.timestamp("us"),
    NullType: pa.null(),
}


def _arrow_field(field: StructField) -> pa.Field:
    return pa.field(field.name, to_arrow_type(field.dataType), nullable=field.nullable)


def to_arrow_schema(struct: StructType, *, with_meta_fields: bool = False) -> pa.Schema:
    """The Arrow schema of *struct*, nullability carried; meta columns first if asked."""
    if with_meta_fields:
        struct = add_meta_fields(struct)
    return pa.schema([_arrow_field(f) for f in struct.fields])


def from_arrow_type(at: pa.DataType) -> DataType:
    """The Spark type of an Arrow type (large and fixed-size variants read as the plain type)."""
    if pa.types.is_boolean(at):
        return BooleanType()
    if pa.types.is_int8(at):
        return ByteType()
    if pa.types.is_int16(at):
        return ShortType()
    if pa.types.is_int32(at):
        return IntegerType()
    if pa.types.is_int64(at):
        return LongType()
    if pa.types.is_float32(at):
        return FloatType()
    if pa.types.is_float64(at):
        return DoubleType()
    if pa.types.is_decimal(at) and at.precision <= 38:
        return DecimalType(at.precision, at.scale)
    if pa.types.is_string(at) or pa.types.is_large_string(at):
        return StringType()
    if pa.types.is_binary(at) or pa.types.is_large_binary(at) or pa.types.is_fixed_size_binary(at):
        return BinaryType()
    if pa.types.is_date32(at):
        return DateType()
    if pa.types.is_timestamp(at):
        return TimestampType() if at.tz is not None else TimestampNTZType()
    if pa.types.is_null(at):
        return NullType()
    if pa.types.is_map(at):
        return MapType(from_arrow_type(at.key_type), from_arrow_type(at.item_type), at.item_field.nullable)
    if pa.types.is_list(at) or pa.types.is_large_list(at) or pa.types.is_fixed_size_list(at):
        return ArrayType(from_arrow_type(at.value_type), at.value_field.nullable)
    if pa.types.is_struct(at):
        return StructType([from_arrow_field(at.field(i)) for i in range(at.num_fields)])
    raise HudiSchemaError(f"Arrow type {at} has no Spark SQL form in hudi-sql")


def from_arrow_field(field: pa.Field) -> StructField:
    return StructField(field.name, from_arrow_type(field.type), field.nullable)


def from_arrow_schema(schema: pa.Schema) -> StructType:
    """The Spark schema of an Arrow schema (the inverse of :func:`to_arrow_schema`)."""
    return StructType([from_arrow_field(f) for f in schema])

