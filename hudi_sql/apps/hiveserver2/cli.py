"""``hudi-sql thriftserver``: serve hudi-sql to Beeline, PyHive and JDBC clients.

::

    hudi-sql thriftserver [--port 10000] [--bind 127.0.0.1] [--metastore thrift://HOST:9083]
                          [--master URL] [--warehouse DIR] [--state-dir DIR] [--conf k=v ...] [--detach]
    hudi-sql thriftserver [--port 10000] [--warehouse DIR] [--state-dir DIR] --stop

Starts the embedded Spark session (:func:`hudi_sql.spark_session`; with ``--metastore`` it
uses that Hive metastore, so tables hive sync registered there are queryable), then a
HiveServer2 on ``--bind:--port`` (:func:`hudi_sql.apps.hiveserver2.start_thriftserver`), and serves
until SIGTERM or SIGINT; then it stops the server and Spark and exits 0. A line
``hudi-sql thriftserver listening on HOST:PORT`` on stdout says it is ready. ``--detach`` runs
it in the background and returns once it listens; ``--stop`` stops that one
(:mod:`.daemon`).

``--conf hoodie.*=v`` is a session option every client session starts with (as ``SET``);
any other ``--conf`` is a Spark setting. Connect with
``beeline -u jdbc:hive2://127.0.0.1:10000`` or ``pyhive.hive.connect("127.0.0.1", 10000)``.

:func:`main` also runs on an existing session (``main(argv, spark=spark, stop=event)``,
serving until *event* is set), which is how the tests drive it without a second JVM.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType
from typing import IO, TYPE_CHECKING, Any

from hudi_sql.apps.conf import split_conf, state_dir_for
from hudi_sql.apps.hiveserver2.daemon import detach, stop_detached
from hudi_sql.apps.hiveserver2.server import start_thriftserver
from hudi_sql.apps.shell_jobs import quiet_loggers
from hudi_sql.engine.session import default_state_dir, spark_session
from hudi_sql.errors import HudiError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hudi-sql thriftserver",
                                     description="HiveServer2 (Beeline, PyHive, JDBC) over hudi-sql.")
    parser.add_argument("--port", type=int, default=10000, help="port to listen on (default 10000; 0: any free)")
    parser.add_argument("--bind", default="127.0.0.1", metavar="HOST", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--metastore", metavar="URIS", help="Hive metastore URIs (thrift://host:9083)")
    parser.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    parser.add_argument("--warehouse", metavar="DIR", help="warehouse folder for managed tables")
    parser.add_argument("--state-dir", metavar="DIR", help="folder of the embedded metastore")
    parser.add_argument("--verbose", action="store_true",
                        help="keep Spark's and Py4J's logging of failed statements and tasks (stack traces)")
    parser.add_argument("--conf", metavar="K=V", action="append", default=[],
                        help="a Spark setting, or a hoodie.* session option (may repeat)")
    background = parser.add_mutually_exclusive_group()
    background.add_argument("--detach", action="store_true",
                            help="run in the background; return once it listens (log and pid in the state folder)")
    background.add_argument("--stop", action="store_true", help="stop the server --detach started on --port")
    return parser


def _state_dir(args: argparse.Namespace) -> str:
    return str(state_dir_for(args.state_dir, args.warehouse) or default_state_dir())


def _start_spark(args: argparse.Namespace, spark_conf: dict[str, str]) -> SparkSession:
    conf = {"spark.ui.showConsoleProgress": "false", **spark_conf}
    return spark_session(master=args.master, state_dir=_state_dir(args), warehouse=args.warehouse,
                         metastore_uris=args.metastore, conf=conf)


def main(argv: Sequence[str] | None = None, *, spark: SparkSession | None = None,
         stop: threading.Event | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """Run the server until SIGTERM/SIGINT (or *stop* is set); the exit status.

    Args:
        argv: the arguments after ``thriftserver`` (a leading ``thriftserver`` is skipped).
        spark: serve this session instead of starting one (it is not stopped afterwards;
            ``--master``, ``--metastore``, ``--warehouse``, ``--state-dir`` and Spark
            ``--conf`` settings are then ignored).
        stop: an event that ends the serving when set.
        stdout, stderr: streams (default the process's).
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["thriftserver"]:
        arguments = arguments[1:]
    parser = _parser()
    args = parser.parse_args(arguments)
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    spark_conf, options = split_conf(args.conf, parser)
    if args.stop:
        return stop_detached(args.port, _state_dir(args), stdout, stderr)
    if args.detach:
        return detach([a for a in arguments if a != "--detach"], args.port, _state_dir(args), stdout, stderr)
    own_session = spark is None
    try:
        session = _start_spark(args, spark_conf) if spark is None else spark
    except Exception as e:  # noqa: BLE001 - reported, exit status 1
        stderr.write(f"Error: could not start Spark: {e}\n")
        return 1
    # A failed statement is answered to its client (message and SQLSTATE); the server's log does
    # not repeat it with a stack trace per statement, unless asked.
    quiet_loggers(session if own_session else None, args.verbose)
    stop = stop or threading.Event()
    previous = _install_signal_handlers(stop)
    try:
        try:
            server = start_thriftserver(session, host=args.bind, port=args.port, options=options)
        except HudiError as e:
            stderr.write(f"Error: {e}\n")
            return 1
        try:
            stdout.write(f"hudi-sql thriftserver listening on {server.host}:{server.port} ({server.url})\n")
            stdout.flush()
            while not stop.wait(0.5):
                pass
        finally:
            server.stop()
        return 0
    finally:
        _restore_signal_handlers(previous)
        if own_session:
            session.stop()


def _install_signal_handlers(stop: threading.Event) -> dict[int, Any]:
    """SIGTERM and SIGINT set *stop* (only the main thread may install handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous[signum] = signal.signal(signum, handler)
    return previous


def _restore_signal_handlers(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
