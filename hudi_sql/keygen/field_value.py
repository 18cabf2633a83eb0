"""Field values as the strings Hudi 0.14 puts into record keys and partition paths.

Hudi's Spark writer (INSERT / UPSERT through the datasource or Spark SQL) converts each row to
Avro and asks the key generator for ``HoodieAvroUtils.getNestedFieldValAsString``: the Avro
value after ``convertValueForAvroLogicalTypes``, then ``toString()``. So the string of a value
depends on its Spark type:

==================  ================================  ====================================
Spark type          Avro value                        string
==================  ================================  ====================================
string              Utf8                              the value
byte/short/int      int                               decimal digits (``10``)
long                long                              decimal digits
boolean             boolean                           ``true`` / ``false``
float / double      float / double                    Java ``Float/Double.toString``
                                                      (``1.0``, ``1.0E7``, ``1.0E-5``)
decimal(p, s)       fixed -> ``BigDecimal``           ``BigDecimal.toString()``: plain, but
                                                      scientific when the adjusted exponent
                                                      is below -6 (``1.0E-7``, ``0E-8``)
date                int -> ``LocalDate``              ISO ``2023-04-01``
timestamp           long, **micros since the epoch**  ``1680350460000000`` (the logical type
                                                      is *not* converted while
                                                      ``hoodie.datasource.write.keygenerator.
                                                      consistent.logical.timestamp.enabled``
                                                      is false, its default)
==================  ================================  ====================================

Spark's ``CAST(x AS STRING)`` agrees with this for every type except timestamp (Spark gives
``2023-04-01 12:01:00``) and decimals with a scale above 6 (Spark never uses an exponent), so
those two get their own expressions. Binary, complex types and ``timestamp_ntz`` have no
meaningful key string in Hudi (a ``ByteBuffer`` or record ``toString``) and are refused.

Nested fields ``a.b.c`` are supported, as in Hudi: any null on the way gives null.
"""

from __future__ import annotations

__all__ = [
    "check_key_type",
    "field_column",
    "field_type",
    "hudi_string",
    "java_decimal_string",
    "timestamp_micros",
    "top_level_column",
]

from pyspark.sql import Column
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BooleanType,
    CharType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegralType,
    NullType,
    StringType,
    StructType,
    TimestampType,
    VarcharType,
)

from hudi_sql.errors import HudiKeyError, did_you_mean

_PLAIN_CAST_TYPES = (
    StringType,
    CharType,
    VarcharType,
    IntegralType,
    BooleanType,
    FloatType,
    DoubleType,
    DateType,
    NullType,
)


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def top_level_column(path: str) -> str:
    """The top-level column a (possibly nested) field path reads: ``a`` for ``a.b.c``."""
    return path.split(".", 1)[0]


def field_column(path: str) -> Column:
    """The column for a field path; ``a.b`` is field ``b`` of struct column ``a`` (as in Hudi)."""
    head, *rest = path.split(".")
    column = F.col(_quote(head))
    for part in rest:
        column = column.getField(part)
    return column


def field_type(schema: StructType, path: str, *, role: str) -> DataType:
    """The Spark type of a field path in *schema* (:func:`resolve_field`)."""
    return resolve_field(schema, path, role=role)[1]


def resolve_field(schema: StructType, path: str, *, role: str) -> tuple[str, DataType]:
    """A field path of *schema* as declared (``NestedCol.A1`` for ``nestedcol.a1``) and its type.

    Names match exactly first, then case-insensitively when that is unambiguous (Spark's
    default resolution).

    Raises:
        HudiKeyError: the field does not exist; *role* ("record key", "partition path") names
            which option refers to it.
    """
    current: DataType = schema
    walked: list[str] = []
    for part in path.split("."):
        if not isinstance(current, StructType):
            raise HudiKeyError(
                f"{role.capitalize()} field '{path}' does not exist in the input record: "
                f"'{'.'.join(walked)}' is not a struct.",
                help="nested fields are written a.b and need struct columns",
            )
        by_name = {f.name: f for f in current.fields}
        found = by_name.get(part)
        if found is None:
            folded = [f for f in current.fields if f.name.lower() == part.lower()]
            found = folded[0] if len(folded) == 1 else None
        if found is None:
            raise HudiKeyError(
                f"{role.capitalize()} field '{path}' does not exist in the input record."
                f"{did_you_mean(part, by_name)}",
                help=f"columns available here: {', '.join(by_name) or '(none)'}",
            )
        walked.append(found.name)
        current = found.dataType
    return ".".join(walked), current


def timestamp_micros(column: Column) -> Column:
    """Micros since the epoch of a ``timestamp`` column: the long Hudi's Avro record holds."""
    return F.unix_micros(column)


def java_decimal_string(column: Column, scale: int) -> Column:
    """``java.math.BigDecimal.toString()`` of a Spark decimal with this *scale*.

    Java switches to scientific notation when ``adjusted = digits(unscaled) - 1 - scale`` is
    below -6; a Spark decimal has ``scale >= 0``, so that needs ``scale >= 7``. The coefficient
    keeps every digit of the unscaled value (``0.00000010`` is ``1.0E-7``; zero at scale 8 is
    ``0E-8``).
    """
    plain = column.cast("string")
    if scale <= 6:
        return plain
    digits = F.regexp_replace(F.regexp_replace(plain, r"[-.]", ""), r"^0+", "")
    unscaled = F.when(digits == F.lit(""), F.lit("0")).otherwise(digits)
    length = F.length(unscaled)
    adjusted = length - F.lit(1 + scale)
    coefficient = F.when(
        length > F.lit(1),
        F.concat(unscaled.substr(F.lit(1), F.lit(1)), F.lit("."), unscaled.substr(F.lit(2), length)),
    ).otherwise(unscaled)
    sign = F.when(column < F.lit(0), F.lit("-")).otherwise(F.lit(""))
    scientific = F.concat(sign, coefficient, F.lit("E"), adjusted.cast("string"))
    return (
        F.when(column.isNull(), F.lit(None).cast("string"))
        .when(adjusted < F.lit(-6), scientific)
        .otherwise(plain)
    )


def check_key_type(data_type: DataType | None, *, path: str, role: str) -> None:
    """Refuse types with no key string in Hudi (binary, array, map, struct, timestamp_ntz, ...).

    Raises:
        HudiKeyError: naming the field, its type and the option it comes from.
    """
    if data_type is None or isinstance(data_type, (*_PLAIN_CAST_TYPES, DecimalType, TimestampType)):
        return
    raise HudiKeyError(
        f"{role.capitalize()} field '{path}' has type {data_type.simpleString()}, which cannot be part of a "
        f"{role}.",
        help="use a string, number, boolean, date or timestamp column",
    )


def hudi_string(column: Column, data_type: DataType | None, *, path: str, role: str) -> Column:
    """The string Hudi makes of a field value (table in the module doc); null stays null.

    Args:
        column: the field's column.
        data_type: its Spark type, or ``None`` when the key generator has no schema bound; then
            a plain cast is used, which is right for strings, integers, booleans, floats and
            dates but not for timestamps or decimals with a scale above 6.
        path: the field path, for error messages.
        role: "record key" or "partition path", for error messages.

    Raises:
        HudiKeyError: the type has no key string in Hudi (see :func:`check_key_type`).
    """
    check_key_type(data_type, path=path, role=role)
    if isinstance(data_type, DecimalType):
        return java_decimal_string(column, data_type.scale)
    if isinstance(data_type, TimestampType):
        return timestamp_micros(column).cast("string")
    return column.cast("string")
