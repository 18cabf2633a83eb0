"""The ``hudi-sql`` SQL shell for Hudi tables, like ``spark-sql`` (:mod:`hudi_sql.apps.cli` is the entry point).

::

    hudi-sql [-e SQL | -f FILE] [-i INIT ...] [--conf k=v ...] [--master URL]
             [--warehouse DIR] [--state-dir DIR] [--database DB]
             [--output table|tsv|csv|json] [-S] [--verbose]

With neither ``-e`` nor ``-f`` it reads statements interactively, as ``spark-sql`` does: a
statement may span lines and ends with ``;``; Tab completes keywords, tables and columns, and
history (a multi-line statement is one entry) is kept in ``~/.hudi_sql_history`` or
``$HUDI_SQL_HISTFILE`` (:mod:`.shell_complete`); Spark's progress bar shows on a terminal unless
``-S``. Ctrl-C cancels the running statement's Spark jobs and returns to the prompt
(:mod:`.shell_jobs`), or drops the statement being typed; ``quit;`` or Ctrl-D leaves. A script is parsed
whole before anything runs; then statements run in order and the first failure stops the run:
the error goes to stderr and the exit status is 1.

Results go to stdout: ``table`` (boxed, the default), ``tsv`` and ``csv`` (with a header row),
``json`` (one JSON object per row). Statements with no result columns (DDL) print nothing.
Timing lines ("Time taken: ...") go to stderr unless ``-S``.

``--conf hoodie.*=v`` sets a session option (as ``SET``); any other ``--conf`` is a Spark
setting. ``--warehouse DIR`` keeps the embedded metastore in ``DIR/.hudi-sql`` (unless
``--state-dir`` says otherwise), so that each warehouse has its own catalog.

:func:`main` also runs in-process on an existing SparkSession (``main(argv, spark=spark)``),
which is how the tests drive it without starting a JVM per run; the session's current database
and the settings ``--conf`` changed are put back afterwards.
"""

from __future__ import annotations

__all__ = ["format_rows", "main", "split_statements"]

import argparse
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from catalog.base import TableIdent
from hudi_sql.apps.conf import split_conf, state_dir_for
from hudi_sql.apps.shell_complete import Completer, HistoryLines, history_path, install, save
from hudi_sql.apps.shell_jobs import StatementCancelled, StatementRunner, ctrl_c_to_main_thread, quiet_loggers
from hudi_sql.apps.shell_output import OUTPUT_FORMATS, error_text, format_rows
from hudi_sql.engine.session import default_state_dir, spark_session
from hudi_sql.spark.task_errors import translated_task_errors
from hudi_sql.sql.session import HudiSession

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

PROMPT = "hudi-sql> "
CONTINUATION = "       > "


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hudi-sql", description="SQL shell for Apache Hudi tables on Spark."
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("-e", dest="execute", metavar="SQL", help="run the SQL statements and exit")
    source.add_argument("-f", dest="file", metavar="FILE", help="run the SQL script FILE and exit")
    parser.add_argument(
        "-i",
        dest="init",
        metavar="INIT",
        action="append",
        default=[],
        help="run the SQL script INIT first (may repeat)",
    )
    parser.add_argument(
        "--conf",
        metavar="K=V",
        action="append",
        default=[],
        help="a Spark setting, or a hoodie.* session option (may repeat)",
    )
    parser.add_argument("--master", metavar="URL", help="Spark master (default local[*])")
    parser.add_argument("--warehouse", metavar="DIR", help="warehouse folder for managed tables")
    parser.add_argument("--state-dir", metavar="DIR", help="folder of the embedded metastore")
    parser.add_argument("--database", metavar="DB", help="the current database to start in")
    parser.add_argument(
        "--output", choices=OUTPUT_FORMATS, default="table", help="result format (default table)"
    )
    parser.add_argument("-S", "--silent", action="store_true", help="no timing lines on stderr")
    parser.add_argument("--verbose", action="store_true", help="print stack traces of errors")
    return parser


# Splitting statements --------------------------------------------------------------------------------


def split_statements(text: str) -> tuple[list[str], str]:
    """Complete ``;``-terminated statements of *text*, and the incomplete rest.

    Quotes (``'``, ``"``, `````), ``--`` line comments and ``/* */`` block comments are
    honoured, so a ``;`` inside them does not end a statement.
    """
    statements: list[str] = []
    start = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" and c != "`" else 1
            i = j + 1
            continue
        if text.startswith("--", i):
            newline = text.find("\n", i)
            i = n if newline < 0 else newline + 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                break
            i = end + 2
            continue
        if c == ";":
            statement = text[start:i].strip()
            if statement:
                statements.append(statement)
            start = i + 1
        i += 1
    return statements, text[start:]


# Running statements ----------------------------------------------------------------------------------


class _Shell:
    def __init__(
        self, session: HudiSession, args: argparse.Namespace, stdout: IO[str], stderr: IO[str]
    ) -> None:
        self.session = session
        self.args = args
        self.stdout = stdout
        self.stderr = stderr
        self.runner = StatementRunner(session.spark)
        self.completer = Completer(self._table_names, self._column_names)

    def report(self, error: BaseException) -> None:
        self.stderr.write(f"Error: {error_text(error)}\n")
        if self.args.verbose:
            traceback.print_exception(error, file=self.stderr)
        self.stderr.flush()

    def run_text(self, text: str) -> bool:
        """Run a script; False (after reporting) at the first failure or cancellation."""
        try:
            statements = self.session.statements(text)
        except Exception as e:  # noqa: BLE001 - the shell reports every failure and stops
            self.report(e)
            return False
        for statement in statements:
            started = time.time()
            try:
                columns, rows = self.runner.run(
                    lambda s=statement: self._fetch(s), str(getattr(statement, "sql", "")) or text
                )
            except (StatementCancelled, KeyboardInterrupt):
                self.stderr.write("Statement cancelled\n")
                self.stderr.flush()
                return False
            except Exception as e:  # noqa: BLE001 - the shell reports every failure and stops
                self.report(e)
                return False
            finally:
                self.completer.invalidate()
            if columns:
                self.stdout.write(format_rows(columns, rows, self.args.output))
                self.stdout.flush()
            if not self.args.silent:
                self.stderr.write(
                    f"Time taken: {time.time() - started:.3f} seconds, Fetched {len(rows)} row(s)\n"
                )
                self.stderr.flush()
        return True

    def _fetch(self, statement: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Runs on the statement worker: all of the statement's Spark work, rows collected."""
        df = self.session.execute(statement)
        columns = list(df.columns)
        if not columns:
            return columns, []
        with translated_task_errors():  # a damaged file met by the query is named, not a Py4J trace
            return columns, [tuple(r) for r in df.collect()]

    def _table_names(self) -> list[str]:
        catalog = self.session.catalog
        return [t.name for t in catalog.list_tables(catalog.current_database())]

    def _column_names(self, table: str) -> list[str]:
        catalog = self.session.catalog
        info = catalog.load_table(TableIdent(catalog.current_database(), table.lower()))
        if info is None or info.schema is None:
            return []
        return [f.name for f in info.schema.fields]

    def interactive(self, stdin: IO[str], history: Path | None) -> int:
        buffer = ""
        lines = HistoryLines()
        readline = None
        if stdin is sys.stdin and stdin.isatty():
            readline = install(self.completer, history, lambda: buffer)
        try:
            while True:
                try:
                    line = _read_line(PROMPT if not buffer.strip() else CONTINUATION, stdin, self.stdout)
                except EOFError:  # Ctrl-D
                    self.stdout.write("\n")
                    break
                except KeyboardInterrupt:  # Ctrl-C at the prompt: the statement typed so far is dropped
                    self.stdout.write("\n")
                    buffer = ""
                    lines.clear()
                    continue
                buffer += line + "\n"
                complete, buffer = split_statements(buffer)
                entry = lines.add(line, incomplete=bool(buffer.strip()))
                if entry is not None and readline is not None:
                    readline.add_history(entry)
                for statement in complete:
                    if statement.strip().lower() in ("quit", "exit"):
                        return 0
                    try:
                        self.run_text(statement)
                    except KeyboardInterrupt:  # between statements: back to the prompt
                        self.stderr.write("Statement cancelled\n")
                        break
        finally:
            save(readline, history)
        return 0

    def close(self) -> None:
        self.runner.close()


def _read_line(prompt: str, stdin: IO[str], stdout: IO[str]) -> str:
    if stdin is sys.stdin and stdin.isatty():
        return input(prompt)
    if stdin is not sys.stdin:  # a stream given by the caller shows the prompts; a pipe does not
        stdout.write(prompt)
        stdout.flush()
    line = stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


def show_progress(args: argparse.Namespace, stdin: IO[str], stdout: IO[str]) -> bool:
    """Whether Spark's console progress bar is on: in an interactive session on a terminal,
    unless ``--silent`` (a ``--conf spark.ui.showConsoleProgress=...`` still decides)."""
    interactive = args.execute is None and args.file is None
    return interactive and not args.silent and _isatty(stdin) and _isatty(stdout)


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _session(
    args: argparse.Namespace, spark_conf: dict[str, str], spark: SparkSession | None, progress: bool
) -> SparkSession:
    if spark is not None:
        for key, value in spark_conf.items():
            spark.conf.set(key, value)
        return spark
    state_dir = state_dir_for(args.state_dir, args.warehouse)
    conf = {"spark.ui.showConsoleProgress": "true" if progress else "false", **spark_conf}
    return spark_session(
        master=args.master, state_dir=state_dir or default_state_dir(), warehouse=args.warehouse, conf=conf
    )


def main(
    argv: Sequence[str] | None = None,
    *,
    spark: SparkSession | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the shell; returns the exit status (0, or 1 on the first failing statement).

    Args:
        argv: command-line arguments (default ``sys.argv[1:]``).
        spark: run on this session instead of starting one (its current database is restored
            afterwards, and it is not stopped).
        stdin, stdout, stderr: streams (default the process's).
    """
    arguments = list(argv) if argv is not None else sys.argv[1:]
    parser = _parser()
    args = parser.parse_args(arguments)
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    spark_conf, options = split_conf(args.conf, parser)
    own_session = spark is None
    previous_conf = {} if own_session else {k: spark.conf.get(k, None) for k in spark_conf}  # type: ignore[union-attr]
    try:
        with ctrl_c_to_main_thread():
            session = _session(args, spark_conf, spark, show_progress(args, stdin, stdout))
    except Exception as e:  # noqa: BLE001 - any failure to start Spark ends the shell with a message
        stderr.write(f"Error: could not start Spark: {error_text(e)}\n")
        return 1
    # PySpark and Spark log every failed statement with its stack trace; the shell reports it once.
    quiet_loggers(session if own_session else None, args.verbose)
    original_database = None if own_session else session.catalog.currentDatabase()
    shell: _Shell | None = None
    try:
        shell = _Shell(HudiSession(session, options=options), args, stdout, stderr)
        if args.database:
            if not session.catalog.databaseExists(args.database):
                stderr.write(f"Error: database '{args.database}' does not exist.\n")
                return 1
            session.catalog.setCurrentDatabase(args.database)
        for init in args.init:
            if not shell.run_text(Path(init).read_text()):
                return 1
        if args.execute is not None:
            return 0 if shell.run_text(args.execute) else 1
        if args.file is not None:
            try:
                text = Path(args.file).read_text()
            except OSError as e:
                stderr.write(f"Error: cannot read '{args.file}': {e.strerror}\n")
                return 1
            return 0 if shell.run_text(text) else 1
        return shell.interactive(stdin, history_path())
    finally:
        if shell is not None:
            shell.close()
        if own_session:
            session.stop()
        else:
            if original_database is not None:
                session.catalog.setCurrentDatabase(original_database)
            for key, value in previous_conf.items():
                if value is None:
                    session.conf.unset(key)
                else:
                    session.conf.set(key, value)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
