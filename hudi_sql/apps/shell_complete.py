"""Tab completion and history of the interactive ``hudi-sql`` shell (GNU readline).

Completion offers SQL keywords, the tables of the current database, and the columns of the
tables the statement names (``t.`` completes ``t``'s columns). History lives in
``$HUDI_SQL_HISTFILE`` or ``~/.hudi_sql_history``; a statement typed over several lines is one
entry, so that the up arrow brings back the whole statement.

The logic here is plain Python over two callables (table names, and the columns of a table),
so it is tested without a terminal or Spark; :func:`install` wires it into ``readline``.
"""

from __future__ import annotations

__all__ = ["KEYWORDS", "Completer", "HistoryLines", "history_path", "install", "save"]

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

KEYWORDS: tuple[str, ...] = (
    "ADD",
    "ALL",
    "ALTER",
    "ANALYZE",
    "AND",
    "AS",
    "ASC",
    "BETWEEN",
    "BY",
    "CACHE",
    "CALL",
    "CASCADE",
    "CASE",
    "CAST",
    "COLUMNS",
    "COMMENT",
    "CREATE",
    "CROSS",
    "CURRENT_DATE",
    "CURRENT_TIMESTAMP",
    "DATABASE",
    "DATABASES",
    "DELETE",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "DROP",
    "ELSE",
    "END",
    "EXCEPT",
    "EXISTS",
    "EXPLAIN",
    "EXTENDED",
    "FALSE",
    "FORMATTED",
    "FROM",
    "FULL",
    "FUNCTIONS",
    "GROUP",
    "HAVING",
    "IF",
    "IN",
    "INNER",
    "INSERT",
    "INTERSECT",
    "INTO",
    "IS",
    "JOIN",
    "LEFT",
    "LIKE",
    "LIMIT",
    "LOCATION",
    "MATCHED",
    "MERGE",
    "NOT",
    "NULL",
    "ON",
    "OPTIONS",
    "OR",
    "ORDER",
    "OUTER",
    "OVERWRITE",
    "PARTITION",
    "PARTITIONED",
    "PARTITIONS",
    "PURGE",
    "RENAME",
    "REPLACE",
    "RESET",
    "RIGHT",
    "SELECT",
    "SET",
    "SHOW",
    "TABLE",
    "TABLES",
    "TBLPROPERTIES",
    "TEMPORARY",
    "THEN",
    "TIMESTAMP",
    "TO",
    "TRUE",
    "TRUNCATE",
    "UNION",
    "UPDATE",
    "USE",
    "USING",
    "VALUES",
    "VIEW",
    "WHEN",
    "WHERE",
    "WITH",
)

HISTORY_LENGTH = 1000
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Characters that end a word for completion ('.' is kept in the word: ``t.co`` completes).
DELIMITERS = " \t\n`'\"()[]{},;=<>+-*/%|!&~"


class Completer:
    """Completions of a word, given the text of the statement so far.

    Args:
        tables: the table names of the current database.
        columns: the column names of a table (``[]`` when there is no such table).
    """

    def __init__(self, tables: Callable[[], Sequence[str]], columns: Callable[[str], Sequence[str]]) -> None:
        self._tables = tables
        self._columns = columns
        self._table_cache: list[str] | None = None
        self._column_cache: dict[str, list[str]] = {}
        self._matches: list[str] = []

    def invalidate(self) -> None:
        """Forget cached names (after a statement ran: it may have created or altered tables)."""
        self._table_cache = None
        self._column_cache.clear()

    def tables(self) -> list[str]:
        if self._table_cache is None:
            try:
                self._table_cache = sorted(self._tables())
            except Exception:  # noqa: BLE001 - completion never breaks the prompt
                self._table_cache = []
        return self._table_cache

    def columns(self, table: str) -> list[str]:
        key = table.lower()
        if key not in self._column_cache:
            try:
                self._column_cache[key] = list(self._columns(table))
            except Exception:  # noqa: BLE001 - completion never breaks the prompt
                self._column_cache[key] = []
        return self._column_cache[key]

    def candidates(self, word: str, statement: str) -> list[str]:
        """Completions of *word* (the text before the cursor since the last delimiter) in
        *statement* (every line of the statement typed so far, the current one included)."""
        known = {t.lower(): t for t in self.tables()}
        if "." in word:  # t.col: the columns of t (a table, or an alias of one in the statement)
            qualifier, _, prefix = word.rpartition(".")
            table = _aliases(statement, known).get(qualifier.lower(), qualifier)
            names = self.columns(table) if table.lower() in known else []
            return [f"{qualifier}.{c}" for c in names if c.lower().startswith(prefix.lower())]
        lowered = word.lower()
        named = [t for t in _words(statement) if t.lower() in known]
        columns: list[str] = []
        for table in dict.fromkeys(t.lower() for t in named):
            columns += [c for c in self.columns(known[table]) if c not in columns]
        keywords = [k if word[:1].isupper() or not word else k.lower() for k in KEYWORDS]
        found = [n for n in [*columns, *known.values(), *keywords] if n.lower().startswith(lowered)]
        return list(dict.fromkeys(found))

    def complete(self, text: str, state: int, line: str = "") -> str | None:
        """readline's completer protocol: the *state*-th completion of *text*."""
        if state == 0:
            self._matches = self.candidates(text, line)
        return self._matches[state] if state < len(self._matches) else None


def _words(statement: str) -> list[str]:
    return _WORD.findall(statement)


def _aliases(statement: str, known: Mapping[str, str]) -> dict[str, str]:
    """``alias -> table`` for ``FROM t a`` / ``JOIN t AS a`` in *statement* (known tables only)."""
    words = _words(statement)
    aliases: dict[str, str] = {}
    for i, w in enumerate(words[:-1]):
        if w.lower() in known:
            j = i + 2 if words[i + 1].upper() == "AS" and i + 2 < len(words) else i + 1
            if words[j].upper() not in KEYWORDS:
                aliases[words[j].lower()] = known[w.lower()]
    return aliases


class HistoryLines:
    """Collects the lines of one input: the history entry is made when no statement is left
    incomplete, and joins the lines of a multi-line statement into one."""

    def __init__(self) -> None:
        self._lines: list[str] = []

    def add(self, line: str, incomplete: bool) -> str | None:
        """The history entry *line* completes (``None`` while a statement is incomplete)."""
        if line.strip():
            self._lines.append(line.strip())
        if incomplete or not self._lines:
            return None
        entry = " ".join(self._lines)
        self._lines = []
        return entry

    def clear(self) -> None:
        """Drop the lines of an abandoned statement (Ctrl-C)."""
        self._lines = []


def history_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$HUDI_SQL_HISTFILE``, else ``~/.hudi_sql_history``."""
    env = os.environ if environ is None else environ
    override = env.get("HUDI_SQL_HISTFILE")
    return Path(override).expanduser() if override else Path.home() / ".hudi_sql_history"


def install(completer: Completer, history: Path | None, statement: Callable[[], str]) -> Any:
    """Sets up ``readline`` (completion on Tab, history from *history*); ``None`` without
    readline. *statement* gives the earlier lines of the statement being typed."""
    try:
        import readline
    except ImportError:  # pragma: no cover - platforms without readline
        return None
    readline.set_auto_history(False)
    readline.set_history_length(HISTORY_LENGTH)
    if history is not None and history.exists():
        try:
            readline.read_history_file(str(history))
        except OSError:
            pass
    readline.set_completer_delims(DELIMITERS)
    readline.set_completer(
        lambda text, state: completer.complete(text, state, statement() + readline.get_line_buffer())
    )
    if "libedit" in (readline.__doc__ or ""):  # pragma: no cover - macOS
        readline.parse_and_bind("bind ^I rl_complete")
    else:
        readline.parse_and_bind("tab: complete")
    return readline


def save(readline: Any, history: Path | None) -> None:
    """Writes the history file (quietly skipped when it cannot be written)."""
    if readline is None or history is None:
        return
    try:
        history.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(str(history))
    except OSError:
        pass
