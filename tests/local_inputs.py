"""Test inputs as Spark local relations: the shared session's ``createDataFrame`` of plain rows.

``spark.createDataFrame(rows, "id int, ...")`` of Python tuples makes an RDD of pickled rows, and a
write evaluates its input three times (the batch's partitions, the workload profile, the write
itself): each time Python workers unpickle the rows again, a fifth of a 20-row upsert on two cores.
The tests build hundreds of such inputs. Called from a test module, with a schema and rows of
exactly the Python types Spark would accept for flat columns, the call hands the same rows to Spark
as an Arrow table instead, which Spark keeps in its plan as a ``LocalRelation`` (what a ``VALUES``
list or a small pandas frame gives): the same rows and types, no Python worker per evaluation.

Anything else goes to Spark's own ``createDataFrame`` unchanged: nested or timestamp columns, rows
of another type (``Row``, lists, dicts), a value of the wrong type or a null in a non-null column
(so Spark raises its own error), extra arguments, and every call made by hudi-sql itself. Tests that
start processes of their own (writers, engines, the oracle) build their inputs the ordinary way.
"""

from __future__ import annotations

import datetime
import decimal
import functools
from pathlib import Path
from typing import Any

TESTS = str(Path(__file__).resolve().parent)


def _python_types(data_type: Any) -> tuple[type, ...] | None:
    """The Python types of a value of *data_type* that go into an Arrow column unchanged."""
    from pyspark.sql import types as T

    if isinstance(data_type, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return (int,)
    if isinstance(data_type, (T.FloatType, T.DoubleType)):
        return (float,)
    if isinstance(data_type, T.StringType):
        return (str,)
    if isinstance(data_type, T.BooleanType):
        return (bool,)
    if isinstance(data_type, T.DateType):
        return (datetime.date,)
    if isinstance(data_type, T.DecimalType):
        return (decimal.Decimal,)
    return None  # nested, binary, timestamps: Spark's own conversion


def _as_arrow(data: Any, schema: Any) -> tuple[Any, Any] | None:
    """*data* as an Arrow table of *schema* (and the schema as a ``StructType``), or None when the
    rows are not plain ones."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import StructType

    if not isinstance(data, list) or not isinstance(schema, (str, StructType)):
        return None
    struct = StructType.fromDDL(schema) if isinstance(schema, str) else schema
    types = [_python_types(f.dataType) for f in struct.fields]
    if any(t is None for t in types):
        return None
    width = len(struct.fields)
    for row in data:
        if type(row) is not tuple or len(row) != width:
            return None
        for value, field, allowed in zip(row, struct.fields, types, strict=True):
            if value is None:
                if not field.nullable:
                    return None
            elif type(value) not in allowed:  # exact: no bool for an int, no datetime for a date
                return None
    arrow = to_arrow_schema(struct)
    columns = list(zip(*data, strict=True)) if data else [() for _ in struct.fields]
    try:
        table = pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(columns, arrow, strict=True)],
                                     schema=arrow)
    except (pa.ArrowException, OverflowError, ValueError, TypeError):
        return None  # a value Arrow will not take as is (a decimal's scale, an int out of range)
    return table, struct


def use_local_relations(session: Any) -> None:
    """Route *session*'s ``createDataFrame`` calls from test modules through :func:`_as_arrow`."""
    import sys

    original = session.createDataFrame

    @functools.wraps(original)
    def create(data: Any, schema: Any = None, *args: Any, **kwargs: Any) -> Any:
        if not args and not kwargs and sys._getframe(1).f_code.co_filename.startswith(TESTS):
            converted = _as_arrow(data, schema)
            if converted is not None:
                table, struct = converted
                return original(table, struct)
        return original(data, schema, *args, **kwargs)

    session.createDataFrame = create
