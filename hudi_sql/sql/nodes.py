"""Our syntax-tree nodes: the statements and hints the Spark grammar of sqlglot does not have.

They are produced by :mod:`hudi_sql.sql.dialect` (which also generates SQL for them through
``Generator.TRANSFORMS``) and consumed only by :mod:`hudi_sql.sql.analyzer`; no node travels
past the analyzer. Every node round-trips: ``parse(generate(node)) == node``.

String payloads that are not SQL expressions (option keys and values, EXPLAIN modes) are kept
as ``exp.Var`` / ``exp.Literal`` children so that node equality and hashing work as for
sqlglot's own nodes.
"""

from __future__ import annotations

__all__ = [
    "HUDI_HINT_NAMES",
    "DropPartitionPurge",
    "ExplainStatement",
    "ProcedureCall",
    "ResetConfig",
    "SetConfig",
    "ShowConfig",
    "ShowCreateTable",
    "ShowPartitions",
    "ShowTblProperties",
    "TableReadHint",
]

from typing import ClassVar

from sqlglot import exp

#: Hint names that select how one table reference is read (``/*+ INCREMENTAL(t, 'b') */``).
HUDI_HINT_NAMES = frozenset({"SNAPSHOT", "READ_OPTIMIZED", "INCREMENTAL", "AS_OF"})


class ProcedureCall(exp.Expression):
    """``CALL name(arg => value, ...)`` or ``CALL name(value, ...)``.

    ``this`` is the (possibly qualified) procedure name as an ``exp.Table``; ``expressions``
    holds the arguments in order, each an ``exp.Kwarg`` (named, name kept as ``exp.Var`` so
    that keywords such as ``table`` or ``order`` need no quoting) or a plain expression.
    """

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expressions": False}


class TableReadHint(exp.Expression):
    """A hint choosing how table references are read: ``SNAPSHOT(t)``, ``READ_OPTIMIZED(t)``,
    ``INCREMENTAL(t, 'begin'[, 'end'])``, ``AS_OF(t, 'instant')``.

    ``this`` is the upper-case hint name; ``expressions`` the arguments as parsed (table names
    as ``exp.Table``, instants as literals). The analyzer checks arity and argument kinds, so
    that a malformed hint gets a Hudi error rather than sqlglot's silent fallback to raw text.
    """

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expressions": False}

    @property
    def name(self) -> str:
        return str(self.args["this"])


class SetConfig(exp.Expression):
    """``SET key=value`` with Spark's lexical rules: the value is the raw text after ``=``
    (a single quoted string or back-quoted identifier is unquoted)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True}


class ShowConfig(exp.Expression):
    """``SET`` (all options), ``SET -v`` (all, verbose) or ``SET key`` (one option)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": False, "verbose": False}


class ResetConfig(exp.Expression):
    """``RESET`` (every session option) or ``RESET key``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": False}


class ExplainStatement(exp.Expression):
    """``EXPLAIN [EXTENDED|CODEGEN|COST|FORMATTED|LOGICAL] <statement>``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "mode": False}


class ShowPartitions(exp.Expression):
    """``SHOW PARTITIONS t [PARTITION (p='v', ...)]``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "partition": False}


class ShowCreateTable(exp.Expression):
    """``SHOW CREATE TABLE t [AS SERDE]``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "as_serde": False}


class ShowTblProperties(exp.Expression):
    """``SHOW TBLPROPERTIES t [('key')]`` (the key a string or a dotted name)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "key": False}


class DropPartitionPurge(exp.DropPartition):
    """The last ``DROP PARTITION`` action of ``ALTER TABLE ... DROP PARTITION (..) PURGE``;
    sqlglot's ``exp.DropPartition`` has no ``purge`` flag and falls back to a Command."""

    arg_types: ClassVar[dict[str, bool]] = {**exp.DropPartition.arg_types, "purge": False}
