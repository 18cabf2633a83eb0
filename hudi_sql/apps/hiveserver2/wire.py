"""HiveServer2 values on the wire: result sets, Thrift types, row sets and error statuses.

See :mod:`hudi_sql.apps.hiveserver2.server` for how statements are served.
"""

from __future__ import annotations

__all__ = [
    "DBMS_NAME",
    "DEFAULT_FETCH_SIZE",
    "INTEGRAL_KINDS",
    "MAX_PROTOCOL_VERSION",
    "SERVER_NAME",
    "ColumnSpec",
    "InvalidHandle",
    "ResultSet",
    "T",
    "column_spec",
    "error_status",
    "is_user_error",
    "log_row_set",
    "ok",
    "result_set_from_dataframe",
    "table_schema",
    "to_row_set",
]


import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from TCLIService import ttypes as tt

from hudi_sql.apps.shell_output import spark_message
from hudi_sql.errors import (
    CommitConflictError,
    CommitStateUnknownError,
    HudiConfigError,
    HudiError,
    HudiKeyError,
    HudiSchemaError,
    HudiSqlError,
    TableAlreadyExistsError,
    TableNotFoundError,
    UnsupportedFeatureError,
)
from hudi_sql.spark.result_stream import StreamedRows

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructField


T = tt.TTypeId
#: The newest protocol this server speaks (the newest PyHive's ``TCLIService`` module knows).
MAX_PROTOCOL_VERSION = max(tt.TProtocolVersion._VALUES_TO_NAMES)
_COLUMN_BASED_FROM = tt.TProtocolVersion.HIVE_CLI_SERVICE_PROTOCOL_V6
DEFAULT_FETCH_SIZE = 1000
SERVER_NAME = "hudi-sql"
#: What ``GetInfo(CLI_DBMS_NAME)`` answers: clients (and hudi-sql's jdbc hive sync) speak
#: Spark SQL to this server.
DBMS_NAME = "Spark SQL"



# Result sets and type mapping --------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnSpec:
    """One result column as the protocol describes it: a name, a ``TTypeId``, the type's
    qualifiers (``precision``/``scale``, ``characterMaximumLength``) and a comment."""

    name: str
    type_id: int
    qualifiers: tuple[tuple[str, int], ...] = ()
    comment: str | None = None


class ResultSet:
    """A result's columns and rows, read forward in pages by ``FetchResults``.

    *rows* is re-iterable (``FETCH_FIRST`` starts a new pass): a list for metadata answers, or
    a statement's :class:`~hudi_sql.spark.result_stream.StreamedRows`, so a large result is
    never held whole in the server. Each value is ``None`` or the Python type of its column's
    kind (bool, int, float, bytes or str, see :func:`_value_kind`).
    """

    def __init__(self, columns: tuple[ColumnSpec, ...], rows: Iterable[tuple[Any, ...]] = ()) -> None:
        self.columns = columns
        self._rows = rows
        self._iterator: Iterator[tuple[Any, ...]] | None = None
        self._ahead: list[tuple[Any, ...]] = []
        self.position = 0  #: rows sent so far

    @property
    def has_result_set(self) -> bool:
        return bool(self.columns)

    def page(self, size: int) -> tuple[int, list[tuple[Any, ...]], bool]:
        """The next *size* rows: (offset of the first, the rows, whether more follow)."""
        if self._iterator is None:
            self._iterator = iter(self._rows)
        rows = self._ahead[:size]
        del self._ahead[:size]
        rows += itertools.islice(self._iterator, size - len(rows))
        if not self._ahead:
            self._ahead = list(itertools.islice(self._iterator, 1))
        start, self.position = self.position, self.position + len(rows)
        return start, rows, bool(self._ahead)

    def prefetch(self) -> None:
        """Read up to the first row now: a query's failure belongs to its statement, not to a fetch."""
        if self._iterator is None:
            self.page(0)

    def rewind(self) -> None:
        """Back to the first row (a new pass over the rows)."""
        self.close()
        self.position = 0

    def close(self) -> None:
        """Stop the current pass (a streamed result's remaining partitions are never run)."""
        close = getattr(self._iterator, "close", None)
        if close is not None:
            close()
        self._iterator, self._ahead = None, []


@dataclass(frozen=True)
class _WireRows:
    """Spark's rows as tuples, binary columns as ``bytes`` (Spark hands them over as ``bytearray``);
    re-iterable, as :class:`ResultSet` needs."""

    rows: Iterable[Any]
    binary: frozenset[int]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for row in self.rows:
            values = tuple(row)
            if self.binary:
                values = tuple(bytes(v) if i in self.binary and v is not None else v for i, v in enumerate(values))
            yield values


INTEGRAL_KINDS = {T.TINYINT_TYPE: "byteVal", T.SMALLINT_TYPE: "i16Val", T.INT_TYPE: "i32Val",
                   T.BIGINT_TYPE: "i64Val"}


def _value_kind(type_id: int) -> str:
    """The ``TColumn`` / ``TColumnValue`` field a column's values travel in."""
    if type_id == T.BOOLEAN_TYPE:
        return "boolVal"
    if type_id in INTEGRAL_KINDS:
        return INTEGRAL_KINDS[type_id]
    if type_id in (T.FLOAT_TYPE, T.DOUBLE_TYPE):
        return "doubleVal"
    if type_id == T.BINARY_TYPE:
        return "binaryVal"
    return "stringVal"


def column_spec(struct_field: StructField) -> ColumnSpec:
    """The protocol's description of a Spark result column."""
    from pyspark.sql import types as st

    dt = struct_field.dataType
    comment = struct_field.metadata.get("comment") if struct_field.metadata else None
    qualifiers: tuple[tuple[str, int], ...] = ()
    simple: list[tuple[type[Any], int]] = [
        (st.BooleanType, T.BOOLEAN_TYPE), (st.ByteType, T.TINYINT_TYPE), (st.ShortType, T.SMALLINT_TYPE),
        (st.IntegerType, T.INT_TYPE), (st.LongType, T.BIGINT_TYPE), (st.FloatType, T.FLOAT_TYPE),
        (st.DoubleType, T.DOUBLE_TYPE), (st.StringType, T.STRING_TYPE), (st.BinaryType, T.BINARY_TYPE),
        (st.DateType, T.DATE_TYPE), (st.TimestampType, T.TIMESTAMP_TYPE), (st.TimestampNTZType, T.TIMESTAMP_TYPE),
        (st.ArrayType, T.ARRAY_TYPE), (st.MapType, T.MAP_TYPE), (st.StructType, T.STRUCT_TYPE),
        (st.NullType, T.NULL_TYPE),
    ]
    type_id = T.STRING_TYPE  # intervals, variant, UDTs, ...: rendered as text
    if isinstance(dt, st.DecimalType):
        type_id, qualifiers = T.DECIMAL_TYPE, (("precision", dt.precision), ("scale", dt.scale))
    elif isinstance(dt, (st.CharType, st.VarcharType)):
        type_id = T.CHAR_TYPE if isinstance(dt, st.CharType) else T.VARCHAR_TYPE
        qualifiers = (("characterMaximumLength", dt.length),)
    else:
        type_id = next((tid for cls, tid in simple if isinstance(dt, cls)), type_id)
    return ColumnSpec(struct_field.name, type_id, qualifiers, comment)


def _wire_expr(col: Column, dt: DataType, spec: ColumnSpec, *, json: bool = True) -> Column:
    """A Spark expression giving *col*'s values in the Python type its wire kind needs."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as st

    kind = _value_kind(spec.type_id)
    if kind != "stringVal" or isinstance(dt, st.StringType):
        return col
    if json and spec.type_id in (T.ARRAY_TYPE, T.MAP_TYPE, T.STRUCT_TYPE):
        return F.to_json(col, {"timestampFormat": "yyyy-MM-dd HH:mm:ss.SSSSSS", "dateFormat": "yyyy-MM-dd"})
    return col.cast("string")


def result_set_from_dataframe(df: DataFrame, group: tuple[str, str] | None = None) -> ResultSet:
    """*df* (a statement's answer) as a :class:`ResultSet` whose rows are streamed from Spark.

    Values are converted by Spark before they leave it (see the module doc), so timestamps are
    rendered in the session time zone, never the Python process's. *group* is the job group
    (id, description) the result's Spark jobs run in.
    """
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    fields = list(df.schema.fields)
    specs = tuple(column_spec(f) for f in fields)
    if not fields:
        return ResultSet(())
    names = [f"_c{i}" for i in range(len(fields))]
    positional = df.toDF(*names)  # result columns may repeat a name

    def project(json: bool) -> DataFrame:
        return positional.select(*[_wire_expr(F.col(n), f.dataType, s, json=json).alias(n)
                                   for n, f, s in zip(names, fields, specs, strict=True)])

    try:
        wire = project(json=True)
    except AnalysisException:  # a complex type to_json refuses: fall back to Spark's text
        wire = project(json=False)
    binary = frozenset(i for i, s in enumerate(specs) if s.type_id == T.BINARY_TYPE)
    return ResultSet(specs, _WireRows(StreamedRows(wire, group=group), binary))


def table_schema(result: ResultSet) -> tt.TTableSchema:
    """``GetResultSetMetadata``'s schema: primitive type entries, as Hive sends for every type."""
    columns = []
    for position, spec in enumerate(result.columns, start=1):
        qualifiers = (tt.TTypeQualifiers({k: tt.TTypeQualifierValue(i32Value=v) for k, v in spec.qualifiers})
                      if spec.qualifiers else None)
        entry = tt.TTypeEntry(primitiveEntry=tt.TPrimitiveTypeEntry(spec.type_id, qualifiers))
        columns.append(tt.TColumnDesc(spec.name, tt.TTypeDesc([entry]), position, spec.comment))
    return tt.TTableSchema(columns)


_COLUMN_TYPES: dict[str, tuple[type[Any], Any]] = {
    "boolVal": (tt.TBoolColumn, False), "byteVal": (tt.TByteColumn, 0), "i16Val": (tt.TI16Column, 0),
    "i32Val": (tt.TI32Column, 0), "i64Val": (tt.TI64Column, 0), "doubleVal": (tt.TDoubleColumn, 0.0),
    "stringVal": (tt.TStringColumn, ""), "binaryVal": (tt.TBinaryColumn, b""),
}
_VALUE_TYPES: dict[str, type[Any]] = {
    "boolVal": tt.TBoolValue, "byteVal": tt.TByteValue, "i16Val": tt.TI16Value, "i32Val": tt.TI32Value,
    "i64Val": tt.TI64Value, "doubleVal": tt.TDoubleValue, "stringVal": tt.TStringValue,
}


def _column(kind: str, values: Sequence[Any]) -> tt.TColumn:
    """A typed column; bit *i* of the null bitmap (least significant bit first) marks row *i*."""
    column_type, placeholder = _COLUMN_TYPES[kind]
    nulls = bytearray((len(values) + 7) // 8)
    out = []
    for i, value in enumerate(values):
        if value is None:
            nulls[i >> 3] |= 1 << (i & 7)
            out.append(placeholder)
        else:
            out.append(value)
    return tt.TColumn(**{kind: column_type(values=out, nulls=bytes(nulls.rstrip(b"\x00")))})


def _row_value(kind: str, value: Any) -> tt.TColumnValue:
    if kind == "binaryVal":  # before V6 binary values travelled as strings
        kind, value = "stringVal", None if value is None else value.decode("utf-8", errors="replace")
    return tt.TColumnValue(**{kind: _VALUE_TYPES[kind](value=value)})


def to_row_set(columns: Sequence[ColumnSpec], rows: Sequence[tuple[Any, ...]], start: int,
               protocol: int) -> tt.TRowSet:
    """*rows* (the first at offset *start*): column-based from protocol V6, row-based before."""
    kinds = [_value_kind(c.type_id) for c in columns]
    if protocol >= _COLUMN_BASED_FROM:
        columns = [_column(kind, [row[i] for row in rows]) for i, kind in enumerate(kinds)]
        return tt.TRowSet(startRowOffset=start, rows=[], columns=columns)
    return tt.TRowSet(startRowOffset=start, rows=[tt.TRow([_row_value(k, v) for k, v in zip(kinds, row, strict=True)])
                                                  for row in rows])


def log_row_set(protocol: int, lines: Sequence[str] = ()) -> tt.TRowSet:
    """A page of operation log lines (one string column)."""
    if protocol >= _COLUMN_BASED_FROM:
        return tt.TRowSet(startRowOffset=0, rows=[], columns=[_column("stringVal", list(lines))])
    return tt.TRowSet(startRowOffset=0, rows=[tt.TRow(colVals=[tt.TColumnValue(stringVal=tt.TStringValue(line))])
                                              for line in lines])


# Errors --------------------------------------------------------------------------------------------

#: SQLSTATE per hudi-sql error class (the nearest class in the error's MRO wins).
_SQL_STATES: dict[type[BaseException], str] = {
    HudiSqlError: "42000",
    TableNotFoundError: "42P01",
    TableAlreadyExistsError: "42P07",
    UnsupportedFeatureError: "0A000",
    HudiConfigError: "22023",
    HudiSchemaError: "42804",
    HudiKeyError: "22004",
    CommitConflictError: "40001",
    CommitStateUnknownError: "40003",
    HudiError: "HY000",
}


class InvalidHandle(HudiError):
    """A session or operation handle this server does not know (closed, or never opened)."""


def _message(error: BaseException) -> tuple[str, str]:
    """(message, SQLSTATE) for *error*, without JVM stack traces."""
    if isinstance(error, HudiSqlError):
        return str(error), error.sql_state
    for cls in type(error).__mro__:
        if cls in _SQL_STATES:
            return str(error), _SQL_STATES[cls]
    try:
        from pyspark.errors import PySparkException

        if isinstance(error, PySparkException):
            state = error.getSqlState() or "HY000"
            return spark_message(str(error)), state
    except ImportError:  # pragma: no cover - pyspark is a dependency
        pass
    text = str(error).split("\n\tat ")[0].strip()
    text = re.sub(r"^An error occurred while calling [\w.]+\.\n: ", "", text)
    return f"{type(error).__name__}: {text}", "HY000"


def error_status(error: BaseException) -> tt.TStatus:
    """A ``TStatus`` reporting *error* (message and SQLSTATE; no info messages, which Hive's
    JDBC driver would try to parse as a stack trace)."""
    message, state = _message(error)
    return tt.TStatus(statusCode=tt.TStatusCode.ERROR_STATUS, errorMessage=message, sqlState=state, errorCode=0)


def is_user_error(error: BaseException) -> bool:
    """Errors that answer a bad statement (ours or Spark's), as opposed to a server fault."""
    from pyspark.errors import PySparkException

    return isinstance(error, (HudiError, PySparkException))


def ok() -> tt.TStatus:
    return tt.TStatus(statusCode=tt.TStatusCode.SUCCESS_STATUS)

