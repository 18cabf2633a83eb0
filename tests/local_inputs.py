"""Test inputs as Spark local relations: the shared session's ``createDataFrame`` of plain rows.

``spark.createDataFrame(rows, "id int, ...")`` of Python tuples makes an RDD of pickled rows, and a
write evaluates its input three times (the batch's partitions, the workload profile, the write
itself): each time Python workers unpickle the rows again, a fifth of a 20-row upsert on two cores.
The tests build hundreds of such inputs. Called from a test module, with a schema and rows of
exactly the Python types Spark would accept for flat columns, the call hands the same rows to Spark
as an Arrow table instead (hudi-sql's ``local_frame``), which Spark keeps in its plan as a ``LocalRelation`` (what a ``VALUES``
list or a small pandas frame gives): the same rows and types, no Python worker per evaluation.

Anything else goes to Spark's own ``createDataFrame`` unchanged: a ``StructType`` schema (whose
non-null fields a DDL would lose), nested or timestamp columns, rows of another type (``Row``,
lists, dicts), a value of the wrong type or a null in a non-null column (so Spark raises its own
error), extra arguments, and every call made by hudi-sql itself. Tests that
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


def _plain_rows(data: Any, ddl: str) -> bool:
    """Whether *data* is a list of tuples of exactly the Python types Spark takes for *ddl*'s flat
    columns (a null only where the column allows it)."""
    from pyspark.sql.types import StructType

    if not isinstance(data, list):
        return False
    fields = StructType.fromDDL(ddl).fields
    types = [_python_types(f.dataType) for f in fields]
    if any(t is None for t in types):
        return False
    for row in data:
        if type(row) is not tuple or len(row) != len(fields):
            return False
        for value, field, allowed in zip(row, fields, types, strict=True):
            if value is None:
                if not field.nullable:
                    return False
            elif type(value) not in allowed:  # exact: no bool for an int, no datetime for a date
                return False
    return True


def use_local_relations(session: Any) -> None:
    """Route *session*'s ``createDataFrame`` calls of :func:`_plain_rows` with a DDL schema from test
    modules through hudi-sql's own :func:`~hudi_sql.spark.local_frame.local_frame` (whose
    ``createDataFrame`` call, made outside the tests, goes to Spark's)."""
    import sys

    import pyarrow as pa

    from hudi_sql.spark.local_frame import local_frame

    original = session.createDataFrame

    @functools.wraps(original)
    def create(data: Any, schema: Any = None, *args: Any, **kwargs: Any) -> Any:
        if (not args and not kwargs and isinstance(schema, str)
                and sys._getframe(1).f_code.co_filename.startswith(TESTS) and _plain_rows(data, schema)):
            try:
                return local_frame(session, data, schema)
            except (pa.ArrowException, OverflowError, ValueError, TypeError):
                pass  # a value Arrow will not take as is (a decimal's scale, an int out of range)
        return original(data, schema, *args, **kwargs)

    session.createDataFrame = create
