"""The one error hierarchy of hudi-sql.

Every error the project raises on purpose derives from :class:`HudiError`, so a caller can
catch all of them in one ``except``. Where it is natural an error also subclasses the
matching builtin (``ValueError``, ``LookupError``), so generic handlers keep working.

Messages name the offending value (a column, an option key, a path, a position in the SQL)
and, where a fix is known, end with a ``Help:`` line.

Commit failures follow the split that matters for cleanup:

* :class:`CommitConflictError` - the commit certainly did not land; files written for it
  may be deleted and the write retried.
* :class:`CommitStateUnknownError` - the outcome is unknown; nothing may be deleted.
"""

from __future__ import annotations

__all__ = [
    "CommitConflictError",
    "CommitStateUnknownError",
    "ConcurrentWriterError",
    "HudiConfigError",
    "HudiError",
    "HudiFileFormatError",
    "HudiKeyError",
    "HudiSchemaError",
    "HudiSqlError",
    "HudiTimelineError",
    "LockTimeoutError",
    "NotInstalledError",
    "PathOutsideTableError",
    "StorageError",
    "TableAlreadyExistsError",
    "TableNotFoundError",
    "UnsupportedFeatureError",
    "did_you_mean",
]

import difflib
from collections.abc import Iterable


class HudiError(Exception):
    """Root of every error hudi-sql raises on purpose."""

    def __init__(self, message: str, *, help: str | None = None) -> None:
        self.message = message  # without the help line: for an error that wraps this one
        self.help = help
        super().__init__(f"{message}\nHelp: {help}" if help else message)


class HudiConfigError(HudiError, ValueError):
    """An option key is unknown, or its value does not parse or is not allowed."""


class HudiSqlError(HudiError, ValueError):
    """A statement does not parse or cannot be analysed; keeps the position when known.

    ``sql_state`` is the SQLSTATE a client sees (``42601`` for a syntax error, as Spark's
    ``PARSE_SYNTAX_ERROR``; ``42000`` for any other statement it refuses); a syntax error's
    message names it, as Spark's do."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        col: int | None = None,
        sql: str | None = None,
        help: str | None = None,
        sql_state: str = "42000",
    ) -> None:
        self.line = line
        self.col = col
        self.sql_state = sql_state
        if sql_state != "42000":
            message = f"{message} SQLSTATE: {sql_state}"
        if sql is not None and line is not None and col is not None:
            lines = sql.splitlines() or [""]
            text = lines[min(max(line, 1), len(lines)) - 1]
            caret = " " * max(col - 1, 0) + "^"
            message = f"{message} (line {line}, column {col})\n  {text}\n  {caret}"
        super().__init__(message, help=help)


class TableNotFoundError(HudiError, LookupError):
    """A path holds no Hudi table, or a catalog has no table of that name."""


class TableAlreadyExistsError(HudiError, ValueError):
    """A table is created where one already exists."""


class HudiTimelineError(HudiError):
    """The timeline under ``.hoodie/`` is inconsistent, or an instant is not where expected."""


class HudiFileFormatError(HudiError):
    """A file (properties, commit metadata, log block, parquet footer) does not parse."""


class HudiSchemaError(HudiError, ValueError):
    """A batch does not fit the table schema (missing column, incompatible type)."""


class HudiKeyError(HudiError, ValueError):
    """A record key or partition path cannot be computed (missing field, null value)."""


class PathOutsideTableError(HudiError, ValueError):
    """A path built from data or from a request (partition value, marker name) leaves the table."""


class CommitConflictError(HudiError):
    """The commit surely did not land: its files may be deleted and the write retried."""


class CommitStateUnknownError(HudiError):
    """The commit may or may not have landed: delete nothing, inspect the timeline."""


class ConcurrentWriterError(CommitConflictError):
    """Another writer's pending instant is alive (its heartbeat is fresh): this write did not start."""


class LockTimeoutError(HudiError, TimeoutError):
    """The table's lock was not acquired in time; the message names its holder."""


class UnsupportedFeatureError(HudiError, NotImplementedError):
    """A valid request for something hudi-sql does not support (yet)."""


class StorageError(HudiError, OSError):
    """A table's storage cannot be reached: no backend for its scheme, no such bucket, refused
    credentials, or a request the store failed. The message names the path."""


class NotInstalledError(HudiError, ImportError):
    """An optional dependency is missing; the message names the pip extra."""


def did_you_mean(value: str, candidates: Iterable[str]) -> str:
    """A ``did you mean 'x'?`` suffix for *value* among *candidates*, or the empty string."""
    close = difflib.get_close_matches(value, list(candidates), n=1, cutoff=0.6)
    return f" Did you mean '{close[0]}'?" if close else ""
