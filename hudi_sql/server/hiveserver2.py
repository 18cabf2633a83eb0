"""A HiveServer2 (Thrift ``TCLIService``) whose statements run through hudi-sql's SQL layer.

Why our own server and not Spark's ``HiveThriftServer2``: Spark's server hands each statement
to Spark's parser, so ``MERGE INTO``, ``UPDATE``, ``DELETE``, ``CALL`` and our read hints
would never reach hudi-sql, and a ``USING hudi`` catalog table gives a Python data source no
options at all (not even its location), so Spark cannot read it correctly by itself. Here
every ``ExecuteStatement`` goes to :meth:`hudi_sql.sql.session.HudiSession.sql`, which binds
each Hudi table to a snapshot planned at that moment: every statement sees the latest
completed commit.

**Sessions.** Each HiveServer2 session (``OpenSession``) gets its own Spark session, cloned
from the server's (``cloneSession``: its own current database, SQL settings and temporary
views, the shared catalog, and the ``hudi`` data source already registered), and its own
:class:`~hudi_sql.sql.session.HudiSession` (its own ``SET hoodie.*`` options), as Spark's
Thrift server gives each connection a session. Calls on one session are serialised.

**Operations.** Statements run synchronously inside ``ExecuteStatement`` (also when the
client asks ``runAsync``): the result is collected at once and ``GetOperationStatus``
reports ``FINISHED_STATE``. A failure is answered in ``ExecuteStatement``'s own status
(``ERROR_STATUS`` with the message and a SQLSTATE), which Beeline prints as
``Error: <message> (state=...,code=0)`` and PyHive raises as ``OperationalError``.
``FetchResults`` pages through the collected rows (``FETCH_NEXT`` / ``FETCH_FIRST``);
log fetches (``fetchType=1``) return no lines.

**Values on the wire** (as Hive and Spark's Thrift server send them): boolean and the
integer types in their typed columns, ``FLOAT`` and ``DOUBLE`` as doubles, ``BINARY`` as bytes,
everything else as strings rendered by Spark in the session time zone (``DECIMAL``,
``DATE``, ``TIMESTAMP``, intervals); ``ARRAY`` / ``MAP`` / ``STRUCT`` as JSON text. Protocol
V6 and later get column-based row sets with null bitmaps, older ones row-based sets.

**Connections** speak SASL PLAIN (authentication NONE, Beeline's and PyHive's default) or
plain binary Thrift (``NOSASL``); :func:`hudi_sql.server.sasl.detect_transport` tells them
apart by the first byte. One thread serves each connection; the sessions a connection
opened are closed when it drops.
"""

from __future__ import annotations

__all__ = [
    "MAX_PROTOCOL_VERSION",
    "ColumnSpec",
    "ResultSet",
    "RunningServer",
    "column_spec",
    "error_status",
    "result_set_from_dataframe",
    "start_thriftserver",
    "table_schema",
    "to_row_set",
]

import functools
import logging
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from TCLIService import TCLIService
from TCLIService import ttypes as tt
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TSocket import TSocket
from thrift.transport.TTransport import TBufferedTransport, TTransportException

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
from hudi_sql.server.sasl import SaslError, SaslServerTransport, TransportKind, detect_transport

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

_log = logging.getLogger(__name__)

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


@dataclass
class ResultSet:
    """Rows ready for the wire: each value is ``None`` or the Python type of its column's
    kind (bool, int, float, bytes or str, see :func:`_value_kind`)."""

    columns: tuple[ColumnSpec, ...]
    rows: list[tuple[Any, ...]] = field(default_factory=list)

    @property
    def has_result_set(self) -> bool:
        return bool(self.columns)


_INTEGRAL_KINDS = {T.TINYINT_TYPE: "byteVal", T.SMALLINT_TYPE: "i16Val", T.INT_TYPE: "i32Val",
                   T.BIGINT_TYPE: "i64Val"}


def _value_kind(type_id: int) -> str:
    """The ``TColumn`` / ``TColumnValue`` field a column's values travel in."""
    if type_id == T.BOOLEAN_TYPE:
        return "boolVal"
    if type_id in _INTEGRAL_KINDS:
        return _INTEGRAL_KINDS[type_id]
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


def result_set_from_dataframe(df: DataFrame) -> ResultSet:
    """Collect *df* (a statement's answer) into a :class:`ResultSet`.

    Values are converted by Spark before collecting (see the module doc), so timestamps are
    rendered in the session time zone, never the Python process's.
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
    binary = [i for i, s in enumerate(specs) if s.type_id == T.BINARY_TYPE]
    rows = []
    for row in wire.collect():
        values = tuple(row)
        if binary:
            values = tuple(bytes(v) if i in binary and v is not None else v for i, v in enumerate(values))
        rows.append(values)
    return ResultSet(specs, rows)


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


def to_row_set(result: ResultSet, start: int, end: int, protocol: int) -> tt.TRowSet:
    """Rows ``[start, end)`` of *result*: column-based from protocol V6, row-based before."""
    rows = result.rows[start:end]
    kinds = [_value_kind(c.type_id) for c in result.columns]
    if protocol >= _COLUMN_BASED_FROM:
        columns = [_column(kind, [row[i] for row in rows]) for i, kind in enumerate(kinds)]
        return tt.TRowSet(startRowOffset=start, rows=[], columns=columns)
    return tt.TRowSet(startRowOffset=start, rows=[tt.TRow([_row_value(k, v) for k, v in zip(kinds, row, strict=True)])
                                                  for row in rows])


def _log_row_set(protocol: int) -> tt.TRowSet:
    """An empty page of operation log lines (one string column)."""
    if protocol >= _COLUMN_BASED_FROM:
        return tt.TRowSet(startRowOffset=0, rows=[], columns=[_column("stringVal", [])])
    return tt.TRowSet(startRowOffset=0, rows=[])


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


class _InvalidHandle(HudiError):
    """A session or operation handle this server does not know (closed, or never opened)."""


def _message(error: BaseException) -> tuple[str, str]:
    """(message, SQLSTATE) for *error*, without JVM stack traces."""
    for cls in type(error).__mro__:
        if cls in _SQL_STATES:
            return str(error), _SQL_STATES[cls]
    try:
        from pyspark.errors import PySparkException

        if isinstance(error, PySparkException):
            state = error.getSqlState() or "HY000"
            return str(error).split("\n\tat ")[0].strip(), state
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


def _is_user_error(error: BaseException) -> bool:
    """Errors that answer a bad statement (ours or Spark's), as opposed to a server fault."""
    from pyspark.errors import PySparkException

    return isinstance(error, (HudiError, PySparkException))


def _ok() -> tt.TStatus:
    return tt.TStatus(statusCode=tt.TStatusCode.SUCCESS_STATUS)


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
_TABLE_TYPE_ALIASES = {"MANAGED_TABLE": "TABLE", "EXTERNAL_TABLE": "TABLE", "VIRTUAL_VIEW": "VIEW",
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


def _matches(pattern: re.Pattern[str] | None, value: str) -> bool:
    return pattern is None or pattern.fullmatch(value) is not None


def _databases(spark: SparkSession, pattern: str | None) -> list[str]:
    regex = jdbc_pattern(pattern)
    return sorted(str(d.name) for d in spark.catalog.listDatabases() if _matches(regex, str(d.name)))


def _tables(spark: SparkSession, schema: str | None, table: str | None) -> list[Any]:
    from catalog.spark_catalog import SparkSessionCatalog

    catalog = SparkSessionCatalog(spark)
    regex = jdbc_pattern(table)
    infos = []
    for database in _databases(spark, schema):
        for ident in catalog.list_tables(database):
            if _matches(regex, ident.name):
                info = catalog.load_table(ident)
                if info is not None:
                    infos.append(info)
    return infos


def _column_row(info: Any, position: int, struct_field: StructField) -> tuple[Any, ...]:
    spec = column_spec(struct_field)
    code, _, precision = _JDBC_TYPES.get(spec.type_id, (1111, "", None))
    qualifiers = dict(spec.qualifiers)
    size = qualifiers.get("precision", qualifiers.get("characterMaximumLength", precision))
    if spec.type_id == T.DATE_TYPE:
        size = 10
    elif spec.type_id == T.TIMESTAMP_TYPE:
        size = 29
    digits = {T.FLOAT_TYPE: 7, T.DOUBLE_TYPE: 15, T.TIMESTAMP_TYPE: 9}.get(spec.type_id)
    if spec.type_id in _INTEGRAL_KINDS:
        digits = 0
    digits = qualifiers.get("scale", digits)
    type_name = struct_field.dataType.simpleString()
    nullable = 1 if struct_field.nullable else 0
    return ("", info.ident.database, info.ident.name, struct_field.name, code,
            type_name.upper() if spec.type_id not in (T.ARRAY_TYPE, T.MAP_TYPE, T.STRUCT_TYPE) else type_name,
            size, None, digits, 10 if spec.type_id in _NUMERIC else None, nullable, spec.comment or "", None,
            None, None, None, position, "YES" if nullable else "NO", None, None, None, None, "NO")


def _type_info_rows() -> list[tuple[Any, ...]]:
    rows = []
    for type_id, (code, name, precision) in _JDBC_TYPES.items():
        numeric = type_id in _NUMERIC
        rows.append((name, code, precision, None, None, None, 1, type_id in (T.STRING_TYPE, T.CHAR_TYPE,
                     T.VARCHAR_TYPE), 3 if type_id not in (T.ARRAY_TYPE, T.MAP_TYPE, T.STRUCT_TYPE) else 0,
                     not numeric, False, False, None, 0, 38 if type_id == T.DECIMAL_TYPE else 0, None, None,
                     10 if numeric else None))
    return rows


# Sessions and operations ---------------------------------------------------------------------------


class SqlSession(Protocol):
    """What one HiveServer2 session runs statements on (:class:`~hudi_sql.sql.session.HudiSession`)."""

    spark: SparkSession

    def sql(self, text: str) -> DataFrame: ...

    def set(self, key: str, value: Any) -> None: ...


@dataclass
class _ExecutorSession:
    """A session over an injected ``executor(text) -> DataFrame``."""

    spark: SparkSession
    executor: Callable[[str], DataFrame]

    def sql(self, text: str) -> DataFrame:
        return self.executor(text)

    def set(self, key: str, value: Any) -> None:
        self.executor(f"SET {key}={value}")


def _clone(spark: SparkSession) -> SparkSession:
    """A Spark session with *spark*'s state copied (``cloneSession``, not ``newSession``: a new
    session lacks the ``hudi`` data source registered on *spark* and cannot register it again,
    as Spark keeps one registry per name)."""
    from pyspark.sql import SparkSession

    return SparkSession(spark.sparkContext, spark._jsparkSession.cloneSession())


@dataclass
class _Session:
    key: bytes
    handle: tt.TSessionHandle
    user: str
    protocol: int
    sql: SqlSession
    connection: _Connection
    lock: threading.RLock = field(default_factory=threading.RLock)
    operations: set[bytes] = field(default_factory=set)


@dataclass
class _Operation:
    key: bytes
    handle: tt.TOperationHandle
    session: _Session
    result: ResultSet
    position: int = 0
    started: int = 0
    completed: int = 0


@dataclass(eq=False)
class _Connection:
    sock: socket.socket
    address: Any
    user: str | None = None
    sessions: set[bytes] = field(default_factory=set)


def _new_handle_id() -> tt.THandleIdentifier:
    return tt.THandleIdentifier(guid=uuid.uuid4().bytes, secret=uuid.uuid4().bytes)


def _guarded(response: type[Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Turn any exception of a call into *response* carrying an error status."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: _Handler, req: Any) -> Any:
            try:
                return method(self, req)
            except Exception as e:  # noqa: BLE001 - every failure goes back to the client as a status
                if _is_user_error(e):
                    _log.debug("%s failed: %s", method.__name__, e)
                else:
                    _log.warning("%s failed", method.__name__, exc_info=True)
                return response(status=error_status(e))

        return call

    return wrap


class _Service:
    """State shared by every connection: sessions and operations by handle id."""

    def __init__(self, session_factory: Callable[[], SqlSession]) -> None:
        self.session_factory = session_factory
        self.lock = threading.Lock()
        self.sessions: dict[bytes, _Session] = {}
        self.operations: dict[bytes, _Operation] = {}

    def session(self, handle: tt.TSessionHandle | None) -> _Session:
        key = handle.sessionId.guid if handle is not None and handle.sessionId is not None else None
        with self.lock:
            session = self.sessions.get(key) if key is not None else None
        if session is None:
            raise _InvalidHandle("Invalid SessionHandle: the session is closed or unknown.",
                                 help="open a new connection")
        return session

    def operation(self, handle: tt.TOperationHandle | None) -> _Operation:
        key = handle.operationId.guid if handle is not None and handle.operationId is not None else None
        with self.lock:
            operation = self.operations.get(key) if key is not None else None
        if operation is None:
            raise _InvalidHandle("Invalid OperationHandle: the operation is closed or unknown.")
        return operation

    def add_operation(self, session: _Session, result: ResultSet, op_type: int, started: int) -> _Operation:
        handle = tt.TOperationHandle(_new_handle_id(), op_type, result.has_result_set)
        operation = _Operation(handle.operationId.guid, handle, session, result, started=started,
                               completed=_now_ms())
        with self.lock:
            self.operations[operation.key] = operation
            session.operations.add(operation.key)
        return operation

    def close_operation(self, operation: _Operation) -> None:
        with self.lock:
            self.operations.pop(operation.key, None)
            operation.session.operations.discard(operation.key)

    def close_session(self, session: _Session) -> None:
        with self.lock:
            self.sessions.pop(session.key, None)
            for key in session.operations:
                self.operations.pop(key, None)
            session.operations.clear()
            session.connection.sessions.discard(session.key)

    def close_all(self) -> None:
        with self.lock:
            self.sessions.clear()
            self.operations.clear()


def _now_ms() -> int:
    return int(time.time() * 1000)


def _quote(identifier: str) -> str:
    return "`" + identifier.replace("`", "``") + "`"


class _Handler(TCLIService.Iface):  # type: ignore[misc]
    """``TCLIService`` calls of one connection."""

    def __init__(self, service: _Service, connection: _Connection) -> None:
        self.service = service
        self.connection = connection

    # Sessions ----------------------------------------------------------------------------------

    @_guarded(tt.TOpenSessionResp)
    def OpenSession(self, req: tt.TOpenSessionReq) -> tt.TOpenSessionResp:
        protocol = min(req.client_protocol if req.client_protocol is not None else MAX_PROTOCOL_VERSION,
                       MAX_PROTOCOL_VERSION)
        user = self.connection.user or req.username or "anonymous"
        sql = self.service.session_factory()
        _configure(sql, req.configuration or {})
        handle = tt.TSessionHandle(_new_handle_id())
        session = _Session(handle.sessionId.guid, handle, user, protocol, sql, self.connection)
        with self.service.lock:
            self.service.sessions[session.key] = session
            self.connection.sessions.add(session.key)
        _log.info("session opened for %s (protocol V%d)", user, protocol + 1)
        return tt.TOpenSessionResp(status=_ok(), serverProtocolVersion=protocol, sessionHandle=handle,
                                   configuration={})

    @_guarded(tt.TCloseSessionResp)
    def CloseSession(self, req: tt.TCloseSessionReq) -> tt.TCloseSessionResp:
        self.service.close_session(self.service.session(req.sessionHandle))
        return tt.TCloseSessionResp(status=_ok())

    @_guarded(tt.TGetInfoResp)
    def GetInfo(self, req: tt.TGetInfoReq) -> tt.TGetInfoResp:
        from hudi_sql import __version__

        session = self.service.session(req.sessionHandle)
        info = tt.TGetInfoType
        values: dict[int, tt.TGetInfoValue] = {
            info.CLI_SERVER_NAME: tt.TGetInfoValue(stringValue=f"{SERVER_NAME} {__version__}"),
            info.CLI_DBMS_NAME: tt.TGetInfoValue(stringValue=DBMS_NAME),
            info.CLI_DBMS_VER: tt.TGetInfoValue(stringValue=str(session.sql.spark.version)),
            info.CLI_USER_NAME: tt.TGetInfoValue(stringValue=session.user),
            info.CLI_IDENTIFIER_QUOTE_CHAR: tt.TGetInfoValue(stringValue="`"),
            info.CLI_MAX_COLUMN_NAME_LEN: tt.TGetInfoValue(lenValue=128),
            info.CLI_MAX_SCHEMA_NAME_LEN: tt.TGetInfoValue(lenValue=128),
            info.CLI_MAX_TABLE_NAME_LEN: tt.TGetInfoValue(lenValue=128),
        }
        if req.infoType not in values:
            name = info._VALUES_TO_NAMES.get(req.infoType, str(req.infoType))
            raise UnsupportedFeatureError(f"not supported: GetInfo({name})")
        return tt.TGetInfoResp(status=_ok(), infoValue=values[req.infoType])

    # Statements ---------------------------------------------------------------------------------

    @_guarded(tt.TExecuteStatementResp)
    def ExecuteStatement(self, req: tt.TExecuteStatementReq) -> tt.TExecuteStatementResp:
        session = self.service.session(req.sessionHandle)
        started = _now_ms()
        with session.lock:
            _log.debug("execute: %s", req.statement)
            result = result_set_from_dataframe(session.sql.sql(req.statement or ""))
        operation = self.service.add_operation(session, result, tt.TOperationType.EXECUTE_STATEMENT, started)
        return tt.TExecuteStatementResp(status=_ok(), operationHandle=operation.handle)

    @_guarded(tt.TGetOperationStatusResp)
    def GetOperationStatus(self, req: tt.TGetOperationStatusReq) -> tt.TGetOperationStatusResp:
        op = self.service.operation(req.operationHandle)
        return tt.TGetOperationStatusResp(status=_ok(), operationState=tt.TOperationState.FINISHED_STATE,
                                          operationStarted=op.started, operationCompleted=op.completed,
                                          hasResultSet=op.result.has_result_set)

    @_guarded(tt.TCancelOperationResp)
    def CancelOperation(self, req: tt.TCancelOperationReq) -> tt.TCancelOperationResp:
        self.service.operation(req.operationHandle)  # finished already: nothing to cancel
        return tt.TCancelOperationResp(status=_ok())

    @_guarded(tt.TCloseOperationResp)
    def CloseOperation(self, req: tt.TCloseOperationReq) -> tt.TCloseOperationResp:
        self.service.close_operation(self.service.operation(req.operationHandle))
        return tt.TCloseOperationResp(status=_ok())

    @_guarded(tt.TGetResultSetMetadataResp)
    def GetResultSetMetadata(self, req: tt.TGetResultSetMetadataReq) -> tt.TGetResultSetMetadataResp:
        op = self.service.operation(req.operationHandle)
        return tt.TGetResultSetMetadataResp(status=_ok(), schema=table_schema(op.result))

    @_guarded(tt.TFetchResultsResp)
    def FetchResults(self, req: tt.TFetchResultsReq) -> tt.TFetchResultsResp:
        op = self.service.operation(req.operationHandle)
        protocol = op.session.protocol
        if req.fetchType == 1:
            return tt.TFetchResultsResp(status=_ok(), hasMoreRows=False, results=_log_row_set(protocol))
        orientation = req.orientation or tt.TFetchOrientation.FETCH_NEXT
        if orientation == tt.TFetchOrientation.FETCH_FIRST:
            op.position = 0
        elif orientation != tt.TFetchOrientation.FETCH_NEXT:
            name = tt.TFetchOrientation._VALUES_TO_NAMES.get(orientation, str(orientation))
            raise UnsupportedFeatureError(f"not supported: fetch orientation {name}",
                                          help="results are read forward (FETCH_NEXT) or from the start")
        size = req.maxRows if req.maxRows and req.maxRows > 0 else DEFAULT_FETCH_SIZE
        start = op.position
        end = min(start + size, len(op.result.rows))
        op.position = end
        return tt.TFetchResultsResp(status=_ok(), hasMoreRows=end < len(op.result.rows),
                                    results=to_row_set(op.result, start, end, protocol))

    @_guarded(tt.TGetLogResp)
    def GetLog(self, req: tt.TGetLogReq) -> tt.TGetLogResp:
        self.service.operation(req.operationHandle)
        return tt.TGetLogResp(status=_ok(), log="")

    # Metadata -----------------------------------------------------------------------------------

    def _metadata(self, handle: tt.TSessionHandle, op_type: int, columns: tuple[ColumnSpec, ...],
                  rows: Callable[[SparkSession], list[tuple[Any, ...]]]) -> tt.TOperationHandle:
        session = self.service.session(handle)
        started = _now_ms()
        with session.lock:
            result = ResultSet(columns, rows(session.sql.spark))
        return self.service.add_operation(session, result, op_type, started).handle

    @_guarded(tt.TGetCatalogsResp)
    def GetCatalogs(self, req: tt.TGetCatalogsReq) -> tt.TGetCatalogsResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_CATALOGS, CATALOGS_SCHEMA, lambda s: [])
        return tt.TGetCatalogsResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetSchemasResp)
    def GetSchemas(self, req: tt.TGetSchemasReq) -> tt.TGetSchemasResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_SCHEMAS, SCHEMAS_SCHEMA,
                                lambda s: [(db, "") for db in _databases(s, req.schemaName)])
        return tt.TGetSchemasResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetTableTypesResp)
    def GetTableTypes(self, req: tt.TGetTableTypesReq) -> tt.TGetTableTypesResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TABLE_TYPES, TABLE_TYPES_SCHEMA,
                                lambda s: [("TABLE",), ("VIEW",)])
        return tt.TGetTableTypesResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetTablesResp)
    def GetTables(self, req: tt.TGetTablesReq) -> tt.TGetTablesResp:
        types = {_TABLE_TYPE_ALIASES.get(t.upper(), t.upper()) for t in req.tableTypes} if req.tableTypes else None

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            return [("", i.ident.database, i.ident.name, i.table_type, i.comment or "", None, None, None, None, None)
                    for i in _tables(spark, req.schemaName, req.tableName) if types is None or i.table_type in types]

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TABLES, TABLES_SCHEMA, rows)
        return tt.TGetTablesResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetColumnsResp)
    def GetColumns(self, req: tt.TGetColumnsReq) -> tt.TGetColumnsResp:
        column_regex = jdbc_pattern(req.columnName)

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            out = []
            for info in _tables(spark, req.schemaName, req.tableName):
                fields = info.schema.fields if info.schema is not None else []
                out += [_column_row(info, i, f) for i, f in enumerate(fields, start=1)
                        if _matches(column_regex, f.name)]
            return out

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_COLUMNS, COLUMNS_SCHEMA, rows)
        return tt.TGetColumnsResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetTypeInfoResp)
    def GetTypeInfo(self, req: tt.TGetTypeInfoReq) -> tt.TGetTypeInfoResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TYPE_INFO, TYPE_INFO_SCHEMA,
                                lambda s: _type_info_rows())
        return tt.TGetTypeInfoResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetFunctionsResp)
    def GetFunctions(self, req: tt.TGetFunctionsReq) -> tt.TGetFunctionsResp:
        regex = jdbc_pattern(req.functionName)

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            names = sorted({str(r[0]) for r in spark.sql("SHOW FUNCTIONS").collect()})
            return [(None, None, n, "", 1, n) for n in names if _matches(regex, n)]

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_FUNCTIONS, FUNCTIONS_SCHEMA, rows)
        return tt.TGetFunctionsResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetPrimaryKeysResp)
    def GetPrimaryKeys(self, req: tt.TGetPrimaryKeysReq) -> tt.TGetPrimaryKeysResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.UNKNOWN, PRIMARY_KEYS_SCHEMA, lambda s: [])
        return tt.TGetPrimaryKeysResp(status=_ok(), operationHandle=handle)

    @_guarded(tt.TGetCrossReferenceResp)
    def GetCrossReference(self, req: tt.TGetCrossReferenceReq) -> tt.TGetCrossReferenceResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.UNKNOWN, CROSS_REFERENCE_SCHEMA, lambda s: [])
        return tt.TGetCrossReferenceResp(status=_ok(), operationHandle=handle)

    # Delegation tokens: there is no Kerberos here -----------------------------------------------

    @_guarded(tt.TGetDelegationTokenResp)
    def GetDelegationToken(self, req: Any) -> Any:
        raise _no_tokens()

    @_guarded(tt.TCancelDelegationTokenResp)
    def CancelDelegationToken(self, req: Any) -> Any:
        raise _no_tokens()

    @_guarded(tt.TRenewDelegationTokenResp)
    def RenewDelegationToken(self, req: Any) -> Any:
        raise _no_tokens()


def _no_tokens() -> UnsupportedFeatureError:
    return UnsupportedFeatureError("not supported: delegation tokens (the server's authentication is NONE)")


def _configure(sql: SqlSession, configuration: Mapping[str, str]) -> None:
    """Apply OpenSession's configuration: ``use:database`` -> ``USE``; ``set:hiveconf:k`` and
    ``set:hivevar:k`` -> ``SET k=v`` (Spark's ``SET hivevar:k=v`` also sets ``k``)."""
    database = None
    for key, value in configuration.items():
        if key == "use:database":
            database = value
        elif key.startswith(("set:hiveconf:", "set:hivevar:")):
            sql.set(key.split(":", 2)[2], value)
        else:
            _log.debug("ignoring session configuration %s", key)
    if database:
        sql.sql(f"USE {_quote(database)}")


# The server ---------------------------------------------------------------------------------------


class RunningServer:
    """A started HiveServer2: :attr:`port` (the bound one, also when 0 was asked), :meth:`stop`."""

    def __init__(self, service: _Service, listener: socket.socket) -> None:
        self._service = service
        self._listener = listener
        self.host, self.port = listener.getsockname()[:2]
        self._stopping = threading.Event()
        self._connections: dict[_Connection, threading.Thread] = {}
        self._lock = threading.Lock()
        self._acceptor = threading.Thread(target=self._accept_loop, name=f"hudi-sql-hs2-{self.port}", daemon=True)
        self._acceptor.start()

    @property
    def url(self) -> str:
        """The JDBC URL Beeline takes (``jdbc:hive2://host:port``)."""
        return f"jdbc:hive2://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return not self._stopping.is_set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop accepting, drop every connection, forget every session (idempotent).

        A statement still running finishes in the background; its connection is closed.
        """
        if self._stopping.is_set():
            return
        self._stopping.set()
        _shutdown(self._listener)
        self._acceptor.join(timeout)
        self._listener.close()
        with self._lock:
            connections = list(self._connections.items())
        deadline = time.monotonic() + timeout
        for connection, _ in connections:
            _shutdown(connection.sock)
        for _, thread in connections:
            thread.join(max(0.0, deadline - time.monotonic()))
        self._service.close_all()
        _log.info("HiveServer2 on %s:%d stopped", self.host, self.port)

    def __enter__(self) -> RunningServer:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, address = self._listener.accept()
            except OSError:
                if self._stopping.is_set():
                    return
                continue
            sock.settimeout(None)
            connection = _Connection(sock, address)
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True,
                                      name=f"hudi-sql-hs2-conn-{address[1] if address else '?'}")
            with self._lock:
                self._connections[connection] = thread
            thread.start()

    def _serve(self, connection: _Connection) -> None:
        sock = connection.sock
        try:
            first = sock.recv(1, socket.MSG_PEEK)
            if not first:
                return
            tsocket = TSocket()
            tsocket.setHandle(sock)
            transport: Any
            if detect_transport(first) is TransportKind.SASL:
                transport = SaslServerTransport(tsocket)
                transport.open()
                connection.user = transport.user
            else:
                transport = TBufferedTransport(tsocket)
            # Not the accelerated protocol: PyHive's generated TCLIService module predates the
            # struct specs thrift's C codec expects.
            protocol = TBinaryProtocol(transport)
            processor = TCLIService.Processor(_Handler(self._service, connection))
            while not self._stopping.is_set():
                processor.process(protocol, protocol)
        except (TTransportException, OSError, EOFError):
            pass  # the client went away (or we are stopping)
        except SaslError as e:
            _log.info("connection from %s refused: %s", connection.address, e)
        except Exception:  # noqa: BLE001 - one bad connection must not stop the server
            _log.exception("connection from %s failed", connection.address)
        finally:
            for key in list(connection.sessions):
                with self._service.lock:
                    session = self._service.sessions.get(key)
                if session is not None:
                    self._service.close_session(session)
            _shutdown(sock)
            sock.close()
            with self._lock:
                self._connections.pop(connection, None)


def _shutdown(sock: socket.socket) -> None:
    """Wake whoever blocks on *sock* (``accept``/``recv`` return); the owner closes it."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def start_thriftserver(spark: SparkSession, *, host: str = "127.0.0.1", port: int = 10000,
                       executor: Callable[[str], DataFrame] | None = None,
                       options: Mapping[str, str] | None = None) -> RunningServer:
    """Start a HiveServer2 over *spark* and return once it listens.

    Args:
        spark: the server's Spark session; each client session works on a clone of it.
        host: the address to bind (loopback by default).
        port: the port; 0 picks a free one (see :attr:`RunningServer.port`).
        executor: run every statement with ``executor(text) -> DataFrame`` on *spark* itself
            instead of a :class:`~hudi_sql.sql.session.HudiSession` per client session.
        options: ``hoodie.*`` session options every client session starts with (as ``SET``).

    Raises:
        HudiError: the address cannot be bound (port in use, unknown host).
    """
    if executor is not None:
        shared = _ExecutorSession(spark, executor)

        def factory() -> SqlSession:
            return shared
    else:
        initial = dict(options or {})

        def factory() -> SqlSession:
            from hudi_sql.sql.session import HudiSession

            return HudiSession(_clone(spark), options=dict(initial))

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(64)
    except OSError as e:
        raise HudiError(f"Cannot listen on {host}:{port}: {e.strerror or e}",
                        help="choose another --port, or stop what is using it") from e
    server = RunningServer(_Service(factory), listener)
    _log.info("HiveServer2 listening on %s:%d", server.host, server.port)
    return server
