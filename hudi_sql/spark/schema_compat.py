"""Whether an incoming batch fits a table's schema: the column-by-column check a write runs first.

A write accepts a batch whose columns can be written into the table's without loss
(:func:`coercible`); anything else is refused before any file or instant is written, with every
problem named (missing columns with a "did you mean", extra columns, incompatible types).

Split from :mod:`hudi_sql.spark.schema` (the form conversions): this is the write path's policy
on Spark types, not a conversion.
"""

from __future__ import annotations

__all__ = ["check_compatible", "coercible", "require_compatible"]

from dataclasses import dataclass
from typing import Literal

from pyspark.sql.types import (
    ArrayType,
    ByteType,
    CharType,
    DataType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructType,
    VarcharType,
)

from hudi_sql.errors import HudiSchemaError, did_you_mean
from hudi_sql.spark.schema import drop_meta_fields

_INTEGRAL_RANK = {ByteType: 0, ShortType: 1, IntegerType: 2, LongType: 3}
_CONTAINERS = (StructType, ArrayType, MapType)


def coercible(from_type: DataType, to_type: DataType) -> bool:
    """Whether values of *from_type* can be written into a column of *to_type* without loss.

    Allowed: the same type; integral widening (byte -> short -> int -> long); int/long ->
    double; float -> double; decimal widening (neither integer digits nor scale shrink);
    NULL into anything; and the same rules element-wise inside arrays, maps and structs
    (a struct must supply every field of the target, by name). String stays string: nothing
    else becomes a string, and a string becomes nothing else. Nullability is not checked here;
    Spark enforces NOT NULL when it writes.
    """
    return not _type_problems(from_type, to_type, "")


def _type_problems(incoming: DataType, table: DataType, path: str) -> list[_Problem]:
    if isinstance(incoming, NullType):
        return []
    if isinstance(table, StructType) and isinstance(incoming, StructType):
        return _struct_problems(incoming, table, path, allow_extra=False)
    if isinstance(table, ArrayType) and isinstance(incoming, ArrayType):
        element_path = f"{path}.element" if path else "element"
        return _type_problems(incoming.elementType, table.elementType, element_path)
    if isinstance(table, MapType) and isinstance(incoming, MapType):
        key_path = f"{path}.key" if path else "key"
        value_path = f"{path}.value" if path else "value"
        return _type_problems(incoming.keyType, table.keyType, key_path) + _type_problems(
            incoming.valueType, table.valueType, value_path
        )
    if _scalar_coercible(incoming, table):
        return []
    return [_Problem(path, "incompatible", incoming, table)]


def _scalar_coercible(incoming: DataType, table: DataType) -> bool:
    if isinstance(incoming, (CharType, VarcharType)):
        incoming = StringType()
    if isinstance(table, (CharType, VarcharType)):
        table = StringType()
    if isinstance(incoming, DecimalType) and isinstance(table, DecimalType):
        return incoming.scale <= table.scale and (incoming.precision - incoming.scale) <= (
            table.precision - table.scale
        )
    if type(incoming) in _INTEGRAL_RANK and type(table) in _INTEGRAL_RANK:
        return _INTEGRAL_RANK[type(incoming)] <= _INTEGRAL_RANK[type(table)]
    if isinstance(table, DoubleType):
        return type(incoming) in _INTEGRAL_RANK or isinstance(incoming, (FloatType, DoubleType))
    if isinstance(incoming, _CONTAINERS) or isinstance(table, _CONTAINERS):
        return False
    return type(incoming) is type(table)


@dataclass(frozen=True)
class _Problem:
    column: str
    kind: Literal["missing", "extra", "incompatible"]
    incoming: DataType | None
    table: DataType | None
    hint: str = ""

    def __str__(self) -> str:
        if self.kind == "missing":
            assert self.table is not None
            return f"missing column '{self.column}' (table type {self.table.simpleString()}){self.hint}"
        if self.kind == "extra":
            assert self.incoming is not None
            return f"column '{self.column}' is not in the table schema{self.hint}"
        assert self.incoming is not None and self.table is not None
        return (
            f"column '{self.column}' has incompatible type {self.incoming.simpleString()}"
            f" (table type {self.table.simpleString()})"
        )


def _name_hint(name: str, candidates: list[str]) -> str:
    same_but_case = [c for c in candidates if c.lower() == name.lower()]
    if same_but_case:
        return f" Did you mean '{same_but_case[0]}'? Column names are case-sensitive."
    return did_you_mean(name, candidates)


def _struct_problems(
    incoming: StructType, table: StructType, path: str, *, allow_extra: bool
) -> list[_Problem]:
    problems: list[_Problem] = []
    incoming_fields = {f.name: f for f in incoming.fields}
    table_names = [f.name for f in table.fields]
    for field in table.fields:
        column = f"{path}.{field.name}" if path else field.name
        source = incoming_fields.get(field.name)
        if source is None:
            hint = _name_hint(field.name, list(incoming_fields))
            problems.append(_Problem(column, "missing", None, field.dataType, hint))
            continue
        problems.extend(_type_problems(source.dataType, field.dataType, column))
    if not allow_extra:
        for field in incoming.fields:
            if field.name not in table_names:
                column = f"{path}.{field.name}" if path else field.name
                hint = _name_hint(field.name, table_names)
                problems.append(_Problem(column, "extra", field.dataType, None, hint))
    return problems


def _problems(incoming: StructType, table: StructType, allow_extra_columns: bool) -> list[_Problem]:
    return _struct_problems(
        drop_meta_fields(incoming), drop_meta_fields(table), "", allow_extra=allow_extra_columns
    )


def check_compatible(
    incoming: StructType, table: StructType, *, allow_extra_columns: bool = False
) -> list[str]:
    """Every reason *incoming* cannot be written into a table with schema *table*; empty if none.

    Each entry names the column (dotted path for nested fields): a table column the batch lacks,
    a batch column the table lacks (unless *allow_extra_columns*), or a type that is not
    :func:`coercible` to the table's. The ``_hoodie_*`` meta columns are ignored on both sides:
    the writer fills them.
    """
    return [str(p) for p in _problems(incoming, table, allow_extra_columns)]


def require_compatible(
    incoming: StructType, table: StructType, *, allow_extra_columns: bool = False
) -> None:
    """Raise unless :func:`check_compatible` finds nothing.

    Raises:
        HudiSchemaError: naming the first offending column and both types.
    """
    problems = _problems(incoming, table, allow_extra_columns)
    if not problems:
        return
    first = problems[0]
    incoming_type = first.incoming.simpleString() if first.incoming is not None else "<absent>"
    table_type = first.table.simpleString() if first.table is not None else "<absent>"
    more = ""
    if len(problems) > 1:
        more = f" ({len(problems) - 1} more: {'; '.join(str(p) for p in problems[1:4])})"
    helps = {
        "missing": "add the column to the query (NULL if unknown) or drop it from the table",
        "extra": "drop the column from the query or add it to the table first",
        "incompatible": "cast the column to the table type",
    }
    raise HudiSchemaError(
        f"Incoming data does not fit the table schema: column '{first.column}' is {incoming_type} "
        f"in the incoming data and {table_type} in the table{first.hint}{more}",
        help=helps[first.kind],
    )
