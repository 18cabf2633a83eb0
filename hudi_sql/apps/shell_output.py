"""What the ``hudi-sql`` shell prints: result rows in each output format, and error messages.

An error is printed once, as one message: Spark's own text without the JVM stack trace and
without the logical plan Spark appends to analysis errors, and without the names of the
temporary views the SQL layer binds Hudi tables to (``__hudi_view_0_1a2b3c4d AS t`` is the
user's ``t``), which mean nothing to the user.
"""

from __future__ import annotations

__all__ = ["OUTPUT_FORMATS", "error_text", "format_rows"]

import csv
import datetime
import decimal
import io
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from hudi_sql.errors import HudiError

OUTPUT_FORMATS = ("table", "tsv", "csv", "json")

# "...SQLSTATE: 42703; line 1 pos 7;\n'Project [...]": the position (in the SQL Spark ran, which
# is not the user's text) and the plan after it.
_POSITION_AND_PLAN = re.compile(r";\s*line \d+ pos \d+;?(\n.*)?\Z", re.DOTALL)
# '== DataFrame ==\n"cast" was called from\n<file>:<line>' (Spark's DataFrame query context): it names
# the line of hudi-sql's source that built the expression, which is not the user's statement.
_DATAFRAME_CONTEXT = re.compile(r"\n?== DataFrame ==\n.*?(?=\n== |\Z)", re.DOTALL)
# "== SQL (line 1, position 8) ==\n<fragment>\n<carets>" (Spark's query context).
_SQL_CONTEXT = re.compile(r"\n?== SQL[^\n]*==\n[^\n]*\n?[ ^]*(\n|\Z)")
_INTERNAL_VIEW = r"`?__hudi_(?:view|kept)_\d+_[0-9a-f]+`?"
_VIEW_WITH_ALIAS = re.compile(_INTERNAL_VIEW + r"\s+AS\s+", re.IGNORECASE)
# A "Did you mean one of the following? [...]" list, whose items may name internal columns.
_LIST = re.compile(r"\[([^\[\]\n]*)\]")
_INTERNAL_NAME = re.compile(r"`?__hudi_\w+`?")


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


def without_internal_names(text: str) -> str:
    """*text* with the SQL layer's internal view and column names taken out: a bound view
    becomes the alias it stands for, a suggestion naming an internal column is dropped, and a
    query context quoting the SQL Spark ran (which the user did not write) is left out."""
    if "__hudi_" not in text:
        return text
    text = _SQL_CONTEXT.sub(lambda m: "\n" if "__hudi_" in m.group(0) else m.group(0), text)
    text = _VIEW_WITH_ALIAS.sub("", text)
    text = _LIST.sub(
        lambda m: "[" + ", ".join(i for i in m.group(1).split(", ") if "__hudi_" not in i) + "]", text
    )
    return _INTERNAL_NAME.sub("<internal>", text).strip()


def spark_message(text: str) -> str:
    """Spark's message of an error: up to the JVM stack trace, without the analysed plan and
    without a DataFrame query context (which points into hudi-sql's source)."""
    text = text.split("\n\tat ")[0].split("\n\nJVM stacktrace:")[0].strip()
    text = _DATAFRAME_CONTEXT.sub("", text)
    return _POSITION_AND_PLAN.sub("", text).strip()


def error_text(error: BaseException) -> str:
    """The one message the shell prints for *error*."""
    if isinstance(error, HudiError):
        return without_internal_names(str(error))
    try:
        from pyspark.errors import PySparkException

        if isinstance(error, PySparkException):
            return without_internal_names(spark_message(str(error)))
    except ImportError:  # pragma: no cover
        pass
    try:
        from py4j.protocol import Py4JJavaError

        if isinstance(error, Py4JJavaError):
            return without_internal_names(spark_message(str(error.java_exception.toString())))
    except ImportError:  # pragma: no cover
        pass
    text = f"{type(error).__name__}: {error}"
    return without_internal_names("\n".join(text.split("\n")[:20]))
