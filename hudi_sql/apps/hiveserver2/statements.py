"""Statements of a HiveServer2 session: run on a thread of their own, polled, cancelled, timed out.

``ExecuteStatement`` with ``runAsync`` (Beeline's and the Hive JDBC driver's way, dbt's) starts the
statement on a thread and answers with its handle; ``GetOperationStatus`` then reports
``PENDING`` (waiting for the session's previous statement), ``RUNNING``, and at the end
``FINISHED``, ``ERROR`` (with the message and SQLSTATE), ``CANCELED`` or ``TIMEDOUT``. As in
Hive, a status call waits up to :data:`LONG_POLL_S` for the statement to end before answering,
so a client polling in a loop is answered the moment it ends, neither kept waiting nor spinning.
``ExecuteStatement`` itself waits up to :data:`ASYNC_GRACE_S`: a statement that ends within it
is answered exactly (its handle says whether it has a result set); a longer one's handle says it
has one, as Spark's Thrift server says of every statement. Without ``runAsync`` (PyHive's
default) the statement runs inside ``ExecuteStatement`` and a failure is that call's status.

Every Spark job of a statement runs in its job group (:attr:`Operation.job_group`), so
``CancelOperation`` — and a ``queryTimeout`` — interrupt it. What it logs meanwhile goes to its
log (:class:`~.sessions.OperationLog`), with a line per Spark stage as it completes
(:class:`~hudi_sql.spark.job_groups.GroupProgress`), which Beeline's query log reads while it runs. Its
result is streamed (:class:`~hudi_sql.spark.result_stream.StreamedRows`); the first rows are
read before the statement counts as finished, so a query that fails reading fails the statement.
"""

from __future__ import annotations

__all__ = ["ASYNC_GRACE_S", "LONG_POLL_S", "execute_statement", "finished", "wait_for_status"]

import logging
import threading

from TCLIService import ttypes as tt

from hudi_sql.apps.hiveserver2.sessions import Operation, OperationLog, Service, Session, now_ms
from hudi_sql.apps.hiveserver2.wire import (
    ResultSet,
    error_status,
    is_user_error,
    ok,
    result_set_from_dataframe,
)
from hudi_sql.errors import HudiError
from hudi_sql.spark.job_groups import GroupProgress, job_group

_log = logging.getLogger(__name__)

#: How long ``GetOperationStatus`` waits for a running statement to end (Hive's
#: ``hive.server2.long.polling.timeout``, 5 s by default).
LONG_POLL_S = 5.0
#: How long an asynchronous ``ExecuteStatement`` waits before answering with a running statement.
ASYNC_GRACE_S = 1.0

_S = tt.TOperationState


def execute_statement(service: Service, session: Session, text: str, *, run_async: bool,
                      timeout_s: int = 0) -> Operation:
    """Start *text* on *session* and return its operation (see the module doc).

    Raises:
        Exception: only when not *run_async*: the statement's own failure.
    """
    operation = service.add_operation(session, tt.TOperationType.EXECUTE_STATEMENT)
    timer = None
    if timeout_s and timeout_s > 0:
        timer = threading.Timer(timeout_s, operation.cancel, kwargs={"state": _S.TIMEDOUT_STATE})
        timer.daemon = True
        timer.start()
    if run_async:
        thread = threading.Thread(target=_run, args=(operation, text, timer), daemon=True,
                                  name=f"hudi-sql-hs2-statement-{operation.key.hex()[:8]}")
        thread.start()
        operation.done.wait(ASYNC_GRACE_S)
    else:
        _run(operation, text, timer)
    if operation.done.is_set():
        operation.handle.hasResultSet = operation.has_result_set
        if not run_async and operation.error is not None:
            service.close_operation(operation)
            raise operation.error
    return operation


def wait_for_status(operation: Operation) -> tt.TGetOperationStatusResp:
    """``GetOperationStatus``: the state once the statement ends or :data:`LONG_POLL_S` passed."""
    operation.done.wait(LONG_POLL_S)
    response = tt.TGetOperationStatusResp(status=ok(), operationState=operation.state,
                                          operationStarted=operation.started,
                                          operationCompleted=operation.completed or None,
                                          hasResultSet=operation.has_result_set)
    if operation.state == _S.ERROR_STATE and operation.error is not None:
        failed = error_status(operation.error)
        response.errorMessage, response.sqlState, response.errorCode = failed.errorMessage, failed.sqlState, 0
    return response


def finished(operation: Operation) -> ResultSet:
    """*operation*'s result once it ended (a fetch waits for a running statement); else its failure."""
    operation.done.wait()
    if operation.error is not None and operation.state == _S.ERROR_STATE:
        raise operation.error
    if operation.result is None:
        name = _S._VALUES_TO_NAMES.get(operation.state, str(operation.state)).removesuffix("_STATE").lower()
        raise HudiError(f"The statement has no result: it was {name}",
                        help="run it again; a query timeout or a cancel ends a statement without one")
    return operation.result


def _run(operation: Operation, text: str, timer: threading.Timer | None) -> None:
    session = operation.session
    spark_context = session.sql.spark.sparkContext
    group = (operation.job_group, text)
    try:
        with session.lock:
            if operation.cancel_state is not None:
                raise HudiError("The statement was cancelled before it started")
            operation.state, operation.started = _S.RUNNING_STATE, now_ms()
            _log.debug("execute: %s", text)
            with OperationLog(operation.log), job_group(spark_context, *group), \
                    GroupProgress(spark_context, operation.job_group, operation.log.append):
                result = result_set_from_dataframe(session.sql.sql(text), group=group)
                result.prefetch()
        operation.log.append(f"INFO hiveserver2: finished in {(now_ms() - operation.started) / 1000:.3f} s")
        operation.result, operation.state = result, _S.FINISHED_STATE
    except Exception as e:  # noqa: BLE001 - the failure is the statement's state, reported to the client
        if is_user_error(e) or operation.cancel_state is not None:
            _log.debug("statement failed: %s", e)
        else:
            _log.warning("statement failed", exc_info=True)
        operation.error = e
        operation.state = operation.cancel_state or _S.ERROR_STATE
    finally:
        if timer is not None:
            timer.cancel()
        operation.completed = now_ms()
        operation.done.set()
