"""Running the shell's statements so that Ctrl-C cancels them, and keeping Spark's logs quiet.

Each statement runs on one worker thread, in a Spark job group of its own. The main thread
waits for it; Ctrl-C there (a ``KeyboardInterrupt``) cancels the group's jobs, waits for the
statement to end, and reports :class:`StatementCancelled`. The statement's own error path runs
as for any failed statement (a write rolls back), and the Py4J connection the statement used is
never cut in the middle of a call, so the next statement works.
"""

from __future__ import annotations

__all__ = ["StatementCancelled", "StatementRunner", "ctrl_c_to_main_thread", "quiet_loggers"]

import concurrent.futures
import contextlib
import itertools
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

T = TypeVar("T")

#: PySpark loggers that write a record (with the JVM stack trace) for every error the shell
#: reports itself.
_PYTHON_LOGGERS = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
#: Spark loggers that log a failed or killed task with its stack trace; the shell reports the
#: statement's error once instead.
_JVM_LOGGERS = ("org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager")
_WAIT_S = 0.25


class StatementCancelled(Exception):
    """The user cancelled the running statement (Ctrl-C)."""

    def __init__(self) -> None:
        super().__init__("Statement cancelled")


class StatementRunner:
    """Runs statements one at a time on a worker thread, each in its own Spark job group."""

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="hudi-sql", initializer=_leave_ctrl_c_to_main_thread
        )
        self._ids = itertools.count(1)

    def run(self, work: Callable[[], T], description: str) -> T:
        """*work*'s result; :class:`StatementCancelled` when Ctrl-C interrupted it."""
        group = f"hudi-sql-{os.getpid()}-{next(self._ids)}"

        def in_group() -> T:
            self.spark.sparkContext.setJobGroup(group, description[:200], interruptOnCancel=True)
            return work()

        future = self._pool.submit(in_group)
        try:
            return _result(future)
        except KeyboardInterrupt:
            pass
        # Cancel, then wait for the statement to end (its failure path runs as usual); each
        # further Ctrl-C cancels the jobs it has started since.
        cancelled = False
        while True:
            self.cancel(group)
            try:
                result = _result(future)
            except KeyboardInterrupt:
                continue
            except Exception:  # noqa: BLE001 - the cancelled statement's failure is the cancellation
                cancelled = True
            break
        if cancelled:
            raise StatementCancelled()
        return result

    def cancel(self, group: str) -> None:
        context = self.spark.sparkContext
        context.cancelJobGroup(group)
        context.cancelAllJobs()  # jobs a statement started on threads of its own

    def close(self) -> None:
        self._pool.shutdown(wait=True)


@contextlib.contextmanager
def ctrl_c_to_main_thread() -> Iterator[None]:
    """Threads started inside this block (Spark's and Py4J's, at session start) leave SIGINT to
    the main thread.

    Ctrl-C on a terminal is a SIGINT to the whole process, and Linux hands it to any thread
    that does not block it. Python's handler only flags it; the main thread notices when it
    next wakes. At the prompt the main thread sleeps in readline's ``select()``, which only a
    signal delivered to that very thread interrupts, so a SIGINT taken by another thread would
    wait there until the next key is typed (and then drop that line). Threads inherit the
    signal mask of the thread that starts them: SIGINT is blocked while they start and
    unblocked again on the main thread only.
    """
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield  # not the main thread, or no POSIX signal masks (Windows)
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _leave_ctrl_c_to_main_thread() -> None:
    """The statement worker (and the threads its statements start) never take SIGINT."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _result(future: concurrent.futures.Future[T]) -> T:
    # A timed wait, so that the main thread sees Ctrl-C promptly.
    while True:
        try:
            return future.result(timeout=_WAIT_S)
        except concurrent.futures.TimeoutError:
            continue


def quiet_loggers(spark: SparkSession | None, verbose: bool) -> None:
    """Silence the records Spark and Py4J write for errors the shell reports itself.

    Args:
        spark: the shell's own session, whose JVM task-failure logging is turned off too
            (``None``: a session the caller owns keeps its logging).
        verbose: keep Py4J's and Spark's task logging (``--verbose``).
    """
    for name in _PYTHON_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    if verbose:
        return
    logging.getLogger("py4j").setLevel(logging.CRITICAL)
    if spark is None:
        return
    try:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        off = jvm.org.apache.logging.log4j.Level.OFF
        for name in _JVM_LOGGERS:
            jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, off)
    except Exception:  # noqa: BLE001, S110 - a logging backend other than log4j 2 keeps its levels
        pass
