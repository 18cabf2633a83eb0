"""The ``hudi-sql`` SQL shell for Hudi tables, like ``spark-sql`` (:mod:`hudi_sql.apps.cli` is the entry point).

::

    hudi-sql [-e SQL | -f FILE] [-i INIT ...] [--conf k=v ...] [--master URL]
             [--warehouse DIR] [--state-dir DIR] [--database DB]
             [--output table|tsv|csv|json] [-S] [--verbose]

With neither ``-e`` nor ``-f`` it reads statements interactively (``readline`` history, a
statement may span lines and ends with ``;``; ``quit;`` or Ctrl-D leaves). A script is parsed
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
import csv
import datetime
import decimal
import io
import json
import logging
import os
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from hudi_sql.apps.conf import split_conf
from hudi_sql.sql.session import HudiSession

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

OUTPUT_FORMATS = ("table", "tsv", "csv", "json")
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


# Output ---------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """A JSON-friendly form of a Spark value."""
    from pyspark.sql import Row

    if isinstance(value, Row):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return "X'" + bytes(value).hex().upper() + "'"
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _text(value: Any) -> str:
    if value is None:
        return "NULL"
    plain = _plain(value)
    if isinstance(plain, (dict, list)):
        return json.dumps(plain, default=str, ensure_ascii=False)
    if isinstance(plain, bool):
        return "true" if plain else "false"
    return str(plain)


def format_rows(columns: Sequence[str], rows: Iterable[Sequence[Any]], output: str) -> str:
    """Rows in one of :data:`OUTPUT_FORMATS` (no trailing newline for empty output)."""
    rows = list(rows)
    if output == "json":
        return "".join(
            json.dumps(
                {c: _plain(v) for c, v in zip(columns, row, strict=True)}, default=str, ensure_ascii=False
            )
            + "\n"
            for row in rows
        )
    cells = [[_text(v) for v in row] for row in rows]
    if output in ("csv", "tsv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter="," if output == "csv" else "\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(cells)
        return buffer.getvalue()
    widths = [
        max([len(c)] + [len(line) for r in cells for line in r[i].split("\n")]) for i, c in enumerate(columns)
    ]
    border = "+" + "+".join("-" * (w + 2) for w in widths) + "+\n"

    def line(values: Sequence[str]) -> str:
        return "|" + "|".join(f" {v:<{w}} " for v, w in zip(values, widths, strict=True)) + "|\n"

    out = [border, line(columns), border]
    for row in cells:
        parts = [v.split("\n") for v in row]
        for k in range(max(len(p) for p in parts) if parts else 1):
            out.append(line([p[k] if k < len(p) else "" for p in parts]))
    out.append(border)
    return "".join(out)


def _print_result(df: DataFrame, output: str, stdout: IO[str]) -> int:
    columns = list(df.columns)
    if not columns:
        return 0
    rows = df.collect()
    stdout.write(format_rows(columns, [tuple(r) for r in rows], output))
    stdout.flush()
    return len(rows)


def _error_text(error: BaseException) -> str:
    from hudi_sql.errors import HudiError

    if isinstance(error, HudiError):
        return str(error)
    try:
        from pyspark.errors import PySparkException

        if isinstance(error, PySparkException):
            return str(error).split("\n\tat ")[0].strip()
    except ImportError:  # pragma: no cover
        pass
    text = f"{type(error).__name__}: {error}"
    return "\n".join(text.split("\n")[:20])


class _Shell:
    def __init__(
        self, session: HudiSession, args: argparse.Namespace, stdout: IO[str], stderr: IO[str]
    ) -> None:
        self.session = session
        self.args = args
        self.stdout = stdout
        self.stderr = stderr

    def report(self, error: BaseException) -> None:
        self.stderr.write(f"Error: {_error_text(error)}\n")
        if self.args.verbose:
            traceback.print_exception(error, file=self.stderr)
        self.stderr.flush()

    def run_text(self, text: str) -> bool:
        """Run a script; False (after reporting) at the first failure."""
        try:
            statements = self.session.statements(text)
        except Exception as e:  # noqa: BLE001 - the shell reports every failure and stops
            self.report(e)
            return False
        for statement in statements:
            started = time.time()
            try:
                count = _print_result(self.session.execute(statement), self.args.output, self.stdout)
            except Exception as e:  # noqa: BLE001 - the shell reports every failure and stops
                self.report(e)
                return False
            if not self.args.silent:
                self.stderr.write(
                    f"Time taken: {time.time() - started:.3f} seconds, Fetched {count} row(s)\n"
                )
                self.stderr.flush()
        return True

    def interactive(self, stdin: IO[str], history: Path | None) -> int:
        readline = _readline(history)
        buffer = ""
        try:
            while True:
                try:
                    line = _read_line(PROMPT if not buffer.strip() else CONTINUATION, stdin, self.stdout)
                except EOFError:
                    self.stdout.write("\n")
                    break
                except KeyboardInterrupt:
                    self.stdout.write("\n")
                    buffer = ""
                    continue
                buffer += line + "\n"
                complete, buffer = split_statements(buffer)
                for statement in complete:
                    if statement.strip().lower() in ("quit", "exit"):
                        return 0
                    self.run_text(statement)
        finally:
            if readline is not None and history is not None:
                try:
                    readline.write_history_file(str(history))
                except OSError:
                    pass
        return 0


def _readline(history: Path | None) -> Any:
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return None
    if history is not None and history.exists():
        try:
            readline.read_history_file(str(history))
        except OSError:
            pass
    return readline


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


def _session(
    args: argparse.Namespace, spark_conf: dict[str, str], spark: SparkSession | None
) -> SparkSession:
    from hudi_sql.spark.session import default_state_dir, spark_session

    if spark is not None:
        for key, value in spark_conf.items():
            spark.conf.set(key, value)
        return spark
    state_dir = args.state_dir
    if state_dir is None and args.warehouse:
        state_dir = os.path.join(args.warehouse, ".hudi-sql")
    conf = {"spark.ui.showConsoleProgress": "false", **spark_conf}
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
    # PySpark logs every failed analysis as JSON on stderr; the shell reports errors itself.
    logging.getLogger("DataFrameQueryContextLogger").setLevel(logging.CRITICAL)
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    spark_conf, options = split_conf(args.conf, parser)
    own_session = spark is None
    previous_conf = {} if own_session else {k: spark.conf.get(k, None) for k in spark_conf}  # type: ignore[union-attr]
    try:
        session = _session(args, spark_conf, spark)
    except Exception as e:  # noqa: BLE001 - any failure to start Spark ends the shell with a message
        stderr.write(f"Error: could not start Spark: {_error_text(e)}\n")
        return 1
    original_database = None if own_session else session.catalog.currentDatabase()
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
        state = Path(
            args.state_dir
            or (
                os.path.join(args.warehouse, ".hudi-sql")
                if args.warehouse
                else os.environ.get("HUDI_SQL_HOME", Path.home() / ".hudi-sql")
            )
        )
        history = state.expanduser() / "history" if state.expanduser().exists() else None
        return shell.interactive(stdin or sys.stdin, history)
    finally:
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
