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

**Operations.** A statement asked with ``runAsync`` (Beeline, the Hive JDBC driver, dbt) runs on
a thread of its own: ``GetOperationStatus`` reports it running and then finished, failed (the
message and a SQLSTATE, which Beeline prints as ``Error: <message> (state=...,code=0)``),
cancelled or timed out, and ``CancelOperation`` or a ``queryTimeout`` interrupt its Spark jobs
(:mod:`.statements`). Without ``runAsync`` (PyHive's default) it runs inside ``ExecuteStatement``,
whose status carries a failure (PyHive raises ``OperationalError``). ``FetchResults`` pages through
the result (``FETCH_NEXT`` / ``FETCH_FIRST``), which Spark computes a wave of partitions at a time
as the client reads, so the server never holds a large result whole; log fetches
(``fetchType=1``, Beeline's query log) and ``GetLog`` return what hudi-sql logged for the
statement so far (:class:`~.sessions.OperationLog`: the write's tagging, files, commit and table
services, warnings) and, at its end, its time.

**Values on the wire** (as Hive and Spark's Thrift server send them): boolean and the
integer types in their typed columns, ``FLOAT`` and ``DOUBLE`` as doubles, ``BINARY`` as bytes,
everything else as strings rendered by Spark in the session time zone (``DECIMAL``,
``DATE``, ``TIMESTAMP``, intervals); ``ARRAY`` / ``MAP`` / ``STRUCT`` as JSON text. Protocol
V6 and later get column-based row sets with null bitmaps, older ones row-based sets.

**Connections** speak SASL PLAIN (authentication NONE, Beeline's and PyHive's default) or
plain binary Thrift (``NOSASL``); :func:`hudi_sql.apps.hiveserver2.sasl.detect_transport` tells them
apart by the first byte. One thread serves each connection; the sessions a connection
opened are closed when it drops.

The module is split: :mod:`.wire` (result sets, Thrift values, error statuses), :mod:`.sessions`
(sessions, operations and their registry), :mod:`.metadata` (the metadata calls), and this one (the
handler and the server).
"""

from __future__ import annotations

__all__ = ["RunningServer", "SqlSession", "start_thriftserver"]

import functools
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from TCLIService import TCLIService
from TCLIService import ttypes as tt
from thrift.protocol.TBinaryProtocol import TBinaryProtocol
from thrift.transport.TSocket import TSocket
from thrift.transport.TTransport import TBufferedTransport, TTransportException

from hudi_sql import __version__
from hudi_sql.apps.hiveserver2.metadata import (
    CATALOGS_SCHEMA,
    COLUMNS_SCHEMA,
    CROSS_REFERENCE_SCHEMA,
    FUNCTIONS_SCHEMA,
    PRIMARY_KEYS_SCHEMA,
    SCHEMAS_SCHEMA,
    TABLE_TYPE_ALIASES,
    TABLE_TYPES_SCHEMA,
    TABLES_SCHEMA,
    TYPE_INFO_SCHEMA,
    column_row,
    databases,
    jdbc_pattern,
    matches,
    primary_key_rows,
    tables,
    type_info_rows,
    visible_columns,
)
from hudi_sql.apps.hiveserver2.sasl import SaslError, SaslServerTransport, TransportKind, detect_transport
from hudi_sql.apps.hiveserver2.sessions import (
    Connection,
    ExecutorSession,
    Service,
    Session,
    SqlSession,
    clone_session,
    configure,
    new_handle_id,
    now_ms,
)
from hudi_sql.apps.hiveserver2.statements import execute_statement, finished, wait_for_status
from hudi_sql.apps.hiveserver2.wire import (
    DBMS_NAME,
    DEFAULT_FETCH_SIZE,
    MAX_PROTOCOL_VERSION,
    SERVER_NAME,
    ColumnSpec,
    ResultSet,
    error_status,
    is_user_error,
    log_row_set,
    ok,
    table_schema,
    to_row_set,
)
from hudi_sql.config.concurrency import shared_writer_defaults
from hudi_sql.errors import HudiError, UnsupportedFeatureError
from hudi_sql.sql.session import HudiSession

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_log = logging.getLogger(__name__)

# The handler --------------------------------------------------------------------------------------


def _guarded(response: type[Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Turn any exception of a call into *response* carrying an error status."""

    def wrap(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: _Handler, req: Any) -> Any:
            try:
                return method(self, req)
            except Exception as e:  # noqa: BLE001 - every failure goes back to the client as a status
                if is_user_error(e):
                    _log.debug("%s failed: %s", method.__name__, e)
                else:
                    _log.warning("%s failed", method.__name__, exc_info=True)
                return response(status=error_status(e))

        return call

    return wrap


class _Handler(TCLIService.Iface):  # type: ignore[misc]
    """``TCLIService`` calls of one connection."""

    def __init__(self, service: Service, connection: Connection) -> None:
        self.service = service
        self.connection = connection

    # Sessions ----------------------------------------------------------------------------------

    @_guarded(tt.TOpenSessionResp)
    def OpenSession(self, req: tt.TOpenSessionReq) -> tt.TOpenSessionResp:
        protocol = min(req.client_protocol if req.client_protocol is not None else MAX_PROTOCOL_VERSION,
                       MAX_PROTOCOL_VERSION)
        user = self.connection.user or req.username or "anonymous"
        sql = self.service.session_factory()
        configure(sql, req.configuration or {})
        handle = tt.TSessionHandle(new_handle_id())
        session = Session(handle.sessionId.guid, handle, user, protocol, sql, self.connection)
        with self.service.lock:
            self.service.sessions[session.key] = session
            self.connection.sessions.add(session.key)
        _log.info("session opened for %s (protocol V%d)", user, protocol + 1)
        return tt.TOpenSessionResp(status=ok(), serverProtocolVersion=protocol, sessionHandle=handle,
                                   configuration={})

    @_guarded(tt.TCloseSessionResp)
    def CloseSession(self, req: tt.TCloseSessionReq) -> tt.TCloseSessionResp:
        self.service.close_session(self.service.session(req.sessionHandle))
        return tt.TCloseSessionResp(status=ok())

    @_guarded(tt.TGetInfoResp)
    def GetInfo(self, req: tt.TGetInfoReq) -> tt.TGetInfoResp:
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
        return tt.TGetInfoResp(status=ok(), infoValue=values[req.infoType])

    # Statements ---------------------------------------------------------------------------------

    @_guarded(tt.TExecuteStatementResp)
    def ExecuteStatement(self, req: tt.TExecuteStatementReq) -> tt.TExecuteStatementResp:
        session = self.service.session(req.sessionHandle)
        operation = execute_statement(self.service, session, req.statement or "", run_async=bool(req.runAsync),
                                      timeout_s=req.queryTimeout or 0)
        return tt.TExecuteStatementResp(status=ok(), operationHandle=operation.handle)

    @_guarded(tt.TGetOperationStatusResp)
    def GetOperationStatus(self, req: tt.TGetOperationStatusReq) -> tt.TGetOperationStatusResp:
        return wait_for_status(self.service.operation(req.operationHandle))

    @_guarded(tt.TCancelOperationResp)
    def CancelOperation(self, req: tt.TCancelOperationReq) -> tt.TCancelOperationResp:
        self.service.operation(req.operationHandle).cancel()
        return tt.TCancelOperationResp(status=ok())

    @_guarded(tt.TCloseOperationResp)
    def CloseOperation(self, req: tt.TCloseOperationReq) -> tt.TCloseOperationResp:
        self.service.close_operation(self.service.operation(req.operationHandle))
        return tt.TCloseOperationResp(status=ok())

    @_guarded(tt.TGetResultSetMetadataResp)
    def GetResultSetMetadata(self, req: tt.TGetResultSetMetadataReq) -> tt.TGetResultSetMetadataResp:
        result = finished(self.service.operation(req.operationHandle))
        return tt.TGetResultSetMetadataResp(status=ok(), schema=table_schema(result))

    @_guarded(tt.TFetchResultsResp)
    def FetchResults(self, req: tt.TFetchResultsReq) -> tt.TFetchResultsResp:
        op = self.service.operation(req.operationHandle)
        protocol = op.session.protocol
        if req.fetchType == 1:  # the operation's log so far, from where the client left off
            if req.orientation == tt.TFetchOrientation.FETCH_FIRST:
                op.log_position = 0
            lines = op.log[op.log_position:]
            op.log_position += len(lines)
            return tt.TFetchResultsResp(status=ok(), hasMoreRows=False, results=log_row_set(protocol, lines))
        result = finished(op)
        orientation = req.orientation or tt.TFetchOrientation.FETCH_NEXT
        if orientation == tt.TFetchOrientation.FETCH_FIRST:
            result.rewind()
        elif orientation != tt.TFetchOrientation.FETCH_NEXT:
            name = tt.TFetchOrientation._VALUES_TO_NAMES.get(orientation, str(orientation))
            raise UnsupportedFeatureError(f"not supported: fetch orientation {name}",
                                          help="results are read forward (FETCH_NEXT) or from the start")
        size = req.maxRows if req.maxRows and req.maxRows > 0 else DEFAULT_FETCH_SIZE
        start, rows, more = result.page(size)
        return tt.TFetchResultsResp(status=ok(), hasMoreRows=more,
                                    results=to_row_set(result.columns, rows, start, protocol))

    @_guarded(tt.TGetLogResp)
    def GetLog(self, req: tt.TGetLogReq) -> tt.TGetLogResp:
        op = self.service.operation(req.operationHandle)
        return tt.TGetLogResp(status=ok(), log="\n".join(op.log))

    # Metadata -----------------------------------------------------------------------------------

    def _metadata(self, handle: tt.TSessionHandle, op_type: int, columns: tuple[ColumnSpec, ...],
                  rows: Callable[[SparkSession], list[tuple[Any, ...]]]) -> tt.TOperationHandle:
        session = self.service.session(handle)
        started = now_ms()
        with session.lock:
            result = ResultSet(columns, rows(session.sql.spark))
        return self.service.add_operation(session, op_type, result=result, started=started).handle

    @_guarded(tt.TGetCatalogsResp)
    def GetCatalogs(self, req: tt.TGetCatalogsReq) -> tt.TGetCatalogsResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_CATALOGS, CATALOGS_SCHEMA, lambda s: [])
        return tt.TGetCatalogsResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetSchemasResp)
    def GetSchemas(self, req: tt.TGetSchemasReq) -> tt.TGetSchemasResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_SCHEMAS, SCHEMAS_SCHEMA,
                                lambda s: [(db, "") for db in databases(s, req.schemaName)])
        return tt.TGetSchemasResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetTableTypesResp)
    def GetTableTypes(self, req: tt.TGetTableTypesReq) -> tt.TGetTableTypesResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TABLE_TYPES, TABLE_TYPES_SCHEMA,
                                lambda s: [("TABLE",), ("VIEW",)])
        return tt.TGetTableTypesResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetTablesResp)
    def GetTables(self, req: tt.TGetTablesReq) -> tt.TGetTablesResp:
        types = {TABLE_TYPE_ALIASES.get(t.upper(), t.upper()) for t in req.tableTypes} if req.tableTypes else None

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            return [("", i.ident.database, i.ident.name, i.table_type, i.comment or "", None, None, None, None, None)
                    for i in tables(spark, req.schemaName, req.tableName) if types is None or i.table_type in types]

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TABLES, TABLES_SCHEMA, rows)
        return tt.TGetTablesResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetColumnsResp)
    def GetColumns(self, req: tt.TGetColumnsReq) -> tt.TGetColumnsResp:
        column_regex = jdbc_pattern(req.columnName)

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            out = []
            for info in tables(spark, req.schemaName, req.tableName):
                out += [column_row(info, i, f) for i, f in enumerate(visible_columns(info), start=1)
                        if matches(column_regex, f.name)]
            return out

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_COLUMNS, COLUMNS_SCHEMA, rows)
        return tt.TGetColumnsResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetTypeInfoResp)
    def GetTypeInfo(self, req: tt.TGetTypeInfoReq) -> tt.TGetTypeInfoResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_TYPE_INFO, TYPE_INFO_SCHEMA,
                                lambda s: type_info_rows())
        return tt.TGetTypeInfoResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetFunctionsResp)
    def GetFunctions(self, req: tt.TGetFunctionsReq) -> tt.TGetFunctionsResp:
        regex = jdbc_pattern(req.functionName)

        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            names = sorted({str(r[0]) for r in spark.sql("SHOW FUNCTIONS").collect()})
            return [(None, None, n, "", 1, n) for n in names if matches(regex, n)]

        handle = self._metadata(req.sessionHandle, tt.TOperationType.GET_FUNCTIONS, FUNCTIONS_SCHEMA, rows)
        return tt.TGetFunctionsResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetPrimaryKeysResp)
    def GetPrimaryKeys(self, req: tt.TGetPrimaryKeysReq) -> tt.TGetPrimaryKeysResp:
        def rows(spark: SparkSession) -> list[tuple[Any, ...]]:
            return [row for info in tables(spark, req.schemaName, req.tableName) for row in primary_key_rows(info)]

        handle = self._metadata(req.sessionHandle, tt.TOperationType.UNKNOWN, PRIMARY_KEYS_SCHEMA, rows)
        return tt.TGetPrimaryKeysResp(status=ok(), operationHandle=handle)

    @_guarded(tt.TGetCrossReferenceResp)
    def GetCrossReference(self, req: tt.TGetCrossReferenceReq) -> tt.TGetCrossReferenceResp:
        handle = self._metadata(req.sessionHandle, tt.TOperationType.UNKNOWN, CROSS_REFERENCE_SCHEMA, lambda s: [])
        return tt.TGetCrossReferenceResp(status=ok(), operationHandle=handle)

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


# The server ---------------------------------------------------------------------------------------


class RunningServer:
    """A started HiveServer2: :attr:`port` (the bound one, also when 0 was asked), :meth:`stop`."""

    def __init__(self, service: Service, listener: socket.socket) -> None:
        self._service = service
        self._listener = listener
        self.host, self.port = listener.getsockname()[:2]
        self._stopping = threading.Event()
        self._connections: dict[Connection, threading.Thread] = {}
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
            connection = Connection(sock, address)
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True,
                                      name=f"hudi-sql-hs2-conn-{address[1] if address else '?'}")
            with self._lock:
                self._connections[connection] = thread
            thread.start()

    def _serve(self, connection: Connection) -> None:
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
        options: ``hoodie.*`` session options every client session starts with (as ``SET``);
            unless they say otherwise, sessions write under optimistic concurrency control
            (:func:`~hudi_sql.config.concurrency.shared_writer_defaults`).

    Raises:
        HudiError: the address cannot be bound (port in use, unknown host).
    """
    if executor is not None:
        shared = ExecutorSession(spark, executor)

        def factory() -> SqlSession:
            return shared
    else:
        initial = {**shared_writer_defaults(options or {}), **dict(options or {})}

        def factory() -> SqlSession:
            return HudiSession(clone_session(spark), options=dict(initial))

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(64)
    except OSError as e:
        raise HudiError(f"Cannot listen on {host}:{port}: {e.strerror or e}",
                        help="choose another --port, or stop what is using it") from e
    server = RunningServer(Service(factory), listener)
    _log.info("HiveServer2 listening on %s:%d", server.host, server.port)
    return server
