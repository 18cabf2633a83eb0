"""HiveServer2 sessions and operations: what the handler keeps between Thrift calls.

A :class:`Session` is one ``OpenSession``: its own Spark session (cloned from the server's),
its own hudi-sql session and its own lock, owned by the :class:`Connection` that opened it. An
:class:`Operation` is one statement or metadata call: its state, its result (streamed from
Spark), its log and fetch positions. The :class:`Service` finds both by handle id for every connection.
"""

from __future__ import annotations

__all__ = [
    "CANCEL_WAIT_S",
    "Connection",
    "ExecutorSession",
    "Operation",
    "OperationLog",
    "Service",
    "Session",
    "SqlSession",
    "clone_session",
    "configure",
    "new_handle_id",
    "now_ms",
]

import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sqlglot import exp
from TCLIService import ttypes as tt

from hudi_sql.apps.hiveserver2.wire import InvalidHandle, ResultSet
from hudi_sql.sql.dialect import generate
from hudi_sql.sql.nodes import SetConfig

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

_log = logging.getLogger(__name__)

#: How long a cancel keeps interrupting a statement's Spark jobs before it answers.
CANCEL_WAIT_S = 10.0


class SqlSession(Protocol):
    """What one HiveServer2 session runs statements on (:class:`~hudi_sql.sql.session.HudiSession`)."""

    spark: SparkSession

    def sql(self, text: str) -> DataFrame: ...

    def set(self, key: str, value: Any) -> None: ...


@dataclass
class ExecutorSession:
    """A session over an injected ``executor(text) -> DataFrame``."""

    spark: SparkSession
    executor: Callable[[str], DataFrame]

    def sql(self, text: str) -> DataFrame:
        return self.executor(text)

    def set(self, key: str, value: Any) -> None:
        self.executor(generate(SetConfig(this=exp.var(key), expression=exp.Literal.string(str(value)))))


def clone_session(spark: SparkSession) -> SparkSession:
    """A Spark session with *spark*'s state copied (``cloneSession``, not ``newSession``: a new
    session lacks the ``hudi`` data source registered on *spark* and cannot register it again,
    as Spark keeps one registry per name)."""
    from pyspark.sql import SparkSession

    return SparkSession(spark.sparkContext, spark._jsparkSession.cloneSession())


@dataclass
class Session:
    key: bytes
    handle: tt.TSessionHandle
    user: str
    protocol: int
    sql: SqlSession
    connection: Connection
    lock: threading.RLock = field(default_factory=threading.RLock)
    operations: set[bytes] = field(default_factory=set)


@dataclass(eq=False)
class Operation:
    """One statement or metadata call: its state, its result once there is one, and its log.

    A metadata call's operation is finished when it is made; a statement's runs (see
    :mod:`.statements`) and ends in ``FINISHED``, ``ERROR``, ``CANCELED`` or ``TIMEDOUT``,
    setting :attr:`done`.
    """

    key: bytes
    handle: tt.TOperationHandle
    session: Session
    result: ResultSet | None = None
    state: int = tt.TOperationState.FINISHED_STATE
    error: BaseException | None = None
    started: int = 0
    completed: int = 0
    #: the statement's log lines (:class:`OperationLog`), growing while it runs, and how far a client has fetched them
    log: list[str] = field(default_factory=list)
    log_position: int = 0
    done: threading.Event = field(default_factory=threading.Event)
    #: the state a cancel asked for (``CANCELED``, or ``TIMEDOUT`` for a query timeout)
    cancel_state: int | None = None

    @property
    def job_group(self) -> str:
        """The Spark job group of the statement's jobs (Spark's UI shows it; cancel interrupts it)."""
        return f"hudi-sql-hs2-{self.key.hex()}"

    @property
    def has_result_set(self) -> bool:
        return self.result.has_result_set if self.result is not None else bool(self.handle.hasResultSet)

    def cancel(self, state: int = tt.TOperationState.CANCELED_STATE, wait: float = CANCEL_WAIT_S) -> None:
        """Interrupt a running statement: its Spark jobs are cancelled (again, as it starts new
        ones) until it ends or *wait* seconds pass. It ends in *state*, unless it completed
        anyway (a write that had committed stays ``FINISHED``: the state says what happened)."""
        if self.done.is_set():
            return
        self.cancel_state = state
        spark_context = self.session.sql.spark.sparkContext
        deadline = time.monotonic() + wait
        while not self.done.is_set() and time.monotonic() < deadline:
            spark_context.cancelJobGroup(self.job_group)
            self.done.wait(0.05)

    def close(self) -> None:
        """Cancel the statement if it runs, and stop reading its result."""
        self.cancel()
        if self.done.is_set() and self.result is not None:
            self.result.close()


@dataclass(eq=False)
class Connection:
    sock: socket.socket
    address: Any
    user: str | None = None
    sessions: set[bytes] = field(default_factory=set)


def new_handle_id() -> tt.THandleIdentifier:
    return tt.THandleIdentifier(guid=uuid.uuid4().bytes, secret=uuid.uuid4().bytes)


class Service:
    """State shared by every connection: sessions and operations by handle id."""

    def __init__(self, session_factory: Callable[[], SqlSession]) -> None:
        self.session_factory = session_factory
        self.lock = threading.Lock()
        self.sessions: dict[bytes, Session] = {}
        self.operations: dict[bytes, Operation] = {}

    def session(self, handle: tt.TSessionHandle | None) -> Session:
        key = handle.sessionId.guid if handle is not None and handle.sessionId is not None else None
        with self.lock:
            session = self.sessions.get(key) if key is not None else None
        if session is None:
            raise InvalidHandle("Invalid SessionHandle: the session is closed or unknown.",
                                 help="open a new connection")
        return session

    def operation(self, handle: tt.TOperationHandle | None) -> Operation:
        key = handle.operationId.guid if handle is not None and handle.operationId is not None else None
        with self.lock:
            operation = self.operations.get(key) if key is not None else None
        if operation is None:
            raise InvalidHandle("Invalid OperationHandle: the operation is closed or unknown.")
        return operation

    def add_operation(self, session: Session, op_type: int, *, result: ResultSet | None = None,
                      started: int | None = None) -> Operation:
        """Register an operation: finished with *result* (a metadata call), or still to run (a
        statement, whose handle says it has a result set until it is known, as Spark's Thrift server says)."""
        handle = tt.TOperationHandle(new_handle_id(), op_type, result.has_result_set if result is not None else True)
        operation = Operation(handle.operationId.guid, handle, session, result, started=started or now_ms())
        if result is not None:
            operation.completed = now_ms()
            operation.done.set()
        else:
            operation.state = tt.TOperationState.PENDING_STATE
        with self.lock:
            self.operations[operation.key] = operation
            session.operations.add(operation.key)
        return operation

    def close_operation(self, operation: Operation) -> None:
        with self.lock:
            self.operations.pop(operation.key, None)
            operation.session.operations.discard(operation.key)
        operation.close()

    def close_session(self, session: Session) -> None:
        with self.lock:
            self.sessions.pop(session.key, None)
            operations = [self.operations.pop(key) for key in session.operations if key in self.operations]
            session.operations.clear()
            session.connection.sessions.discard(session.key)
        for operation in operations:
            operation.close()

    def close_all(self) -> None:
        with self.lock:
            self.sessions.clear()
            self.operations.clear()


class OperationLog(logging.Handler):
    """The log lines of one statement, for Beeline's query log (``GetLog`` / a log fetch).

    hudi-sql's loggers say what a statement does (what a write tagged, the files it writes, the
    instant it committed, the table services after it, warnings); while a statement runs, the
    records its thread writes are appended to *lines* as ``LEVEL logger: message`` lines, so a
    client reads them while the statement still runs. Other threads' records (other sessions'
    statements) are not its.
    """

    _LOGGER = "hudi_sql"

    def __init__(self, lines: list[str]) -> None:
        super().__init__(logging.INFO)
        self.thread = threading.get_ident()
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.lines.append(f"{record.levelname} {record.name.rsplit('.', 1)[-1]}: {record.getMessage()}")

    def __enter__(self) -> OperationLog:  # noqa: PYI034 - a final class
        logger = logging.getLogger(self._LOGGER)
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)  # INFO reaches this handler; the root's handlers keep their own levels
        logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger(self._LOGGER).removeHandler(self)


def now_ms() -> int:
    return int(time.time() * 1000)


def configure(sql: SqlSession, configuration: Mapping[str, str]) -> None:
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
        sql.sql(generate(exp.Use(this=exp.Table(this=exp.to_identifier(database, quoted=True)))))
