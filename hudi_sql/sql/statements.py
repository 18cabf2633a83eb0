"""Typed statements: what the analyzer makes of SQL, and all that later layers see of it.

Every class here is a frozen dataclass. What Spark evaluates (queries, conditions, assigned
values, a statement Spark runs itself) travels as :class:`SparkSql`: the analyzer's sqlglot tree,
rendered once, at the Spark boundary, so every identifier and value is quoted by construction.

**Table references.** The analyzer does not know which tables are Hudi tables, so every table
named in a query position (``FROM``, ``JOIN``, ``USING``, subqueries, CTE bodies) becomes a
:class:`TableRef`. In the tree the reference is replaced by a placeholder table
(``__hudi_ref_0``) aliased to the original alias or table name, so column references keep
working::

    SELECT * FROM db.t TIMESTAMP AS OF '20240101' JOIN s ON t.id = s.id
    -> SELECT * FROM __hudi_ref_0 AS t JOIN __hudi_ref_1 AS s ON t.id = s.id

The runner binds each placeholder with :meth:`SparkSql.bind` (or :meth:`Query.bind`): to a
temporary view over a Hudi snapshot, or, for any other table, back to :attr:`TableRef.source`.
Placeholders are unique within one statement and never occur in the user's own text.
"""

from __future__ import annotations

__all__ = [
    "STAR",
    "AlterTableAddColumns",
    "AlterTableDropPartition",
    "AlterTableRename",
    "AlterTableSetProperties",
    "Assignment",
    "Call",
    "CallArg",
    "ColumnDef",
    "CreateTable",
    "CreateView",
    "Delete",
    "DescribeTable",
    "DropTable",
    "Explain",
    "InsertInto",
    "MergeAction",
    "MergeClause",
    "MergeClauseKind",
    "MergeInto",
    "PartitionValue",
    "Passthrough",
    "Query",
    "QueryType",
    "ResetOption",
    "Select",
    "SetOption",
    "ShowCreateTable",
    "ShowOption",
    "ShowPartitions",
    "ShowTableProperties",
    "SparkSql",
    "Star",
    "Statement",
    "TableName",
    "TableRef",
    "TruncateTable",
    "Update",
    "Views",
]

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Literal, NamedTuple

from sqlglot import exp

from hudi_sql.config.read import QueryType
from hudi_sql.config.sql_aliases import (
    PRECOMBINE_FIELD,
    PRIMARY_KEY,
    TYPE,
    SqlAlias,
    resolve_sql_aliases,
    sql_alias,
)
from hudi_sql.config.table import TableType
from hudi_sql.read.skipping import ColumnPredicate
from hudi_sql.sql.spark_sql import SparkSql, Views

CallValue = str | int | float | bool | None


class Statement:
    """Base of every analysed statement (a marker; each subclass is a frozen dataclass)."""

    __slots__ = ()


# Names and references ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TableName:
    """A table identifier as written, optionally qualified by its database."""

    database: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.database}.{self.name}" if self.database else self.name


#: The begin instant of ``hudi_table_changes`` that resumes where the statement's target table
#: last stopped reading the source (:mod:`hudi_sql.sql.operations.pipeline`).
CHECKPOINT_BEGIN = "checkpoint"


@dataclass(frozen=True)
class TableRef:
    """One table reference in a query, as the runner must bind it.

    Attributes:
        name: the table as named; ``None`` when the reference is by path (:attr:`path`).
        alias: the alias written after the reference, if any. The placeholder in the SQL text
            is always aliased (to this alias, else to the table name), so columns qualified by
            either still resolve.
        query_type: ``SNAPSHOT`` / ``READ_OPTIMIZED`` / ``INCREMENTAL`` when a hint or table
            function chose it; ``None`` means the session default (``HudiReadConfig.QUERY_TYPE``).
        begin, end: the incremental range (begin exclusive, end inclusive); ``'earliest'`` is
            turned into ``'000'`` as Hudi does.
        as_of: time travel instant or date-time, as written (``TIMESTAMP AS OF`` or ``AS_OF``).
        placeholder: the identifier standing for this reference in the statement's SQL.
        path: a table base path, for ``hudi_table_changes('/path', ...)`` or ``hudi.`/path```.
        incremental_format: ``'latest_state'`` or ``'cdc'`` for ``hudi_table_changes``.
        table_function: ``'hudi_table_changes'`` / ``'hudi_query'`` / ``'hudi_query_timeline'``
            when the reference is one of Hudi's table-valued functions; such a reference must
            resolve to a Hudi table.
        archived_timeline: ``hudi_query_timeline``'s second argument: the archived timeline too.
        source: the reference as written, without its alias (``db.t``, ``db.t TIMESTAMP AS OF
            '...'``, a table function's call), to bind a table that is not a Hudi table back to
            itself.
        filters: what the query's WHERE clause requires of this table's columns, for data
            skipping (:mod:`hudi_sql.sql.analyzer.filters`).
    """

    name: TableName | None
    alias: str | None
    query_type: QueryType | None = None
    begin: str | None = None
    end: str | None = None
    as_of: str | None = None
    placeholder: str = ""
    path: str | None = None
    incremental_format: str | None = None
    table_function: str | None = None
    archived_timeline: bool = False
    source: exp.Expr | None = field(default=None, compare=False)
    filters: tuple[ColumnPredicate, ...] = ()

    @property
    def visible_name(self) -> str | None:
        """The name columns are qualified with: the alias, else the table name."""
        if self.alias:
            return self.alias
        return self.name.name if self.name else None


@dataclass(frozen=True)
class Query:
    """A query for Spark with placeholders at its table references."""

    sql: SparkSql
    table_refs: tuple[TableRef, ...] = ()

    def bind(self, views: Views) -> str:
        """The SQL with placeholders bound (see :meth:`SparkSql.bind`)."""
        return self.sql.bind(self.table_refs, views)


class PartitionValue(NamedTuple):
    """One entry of a ``PARTITION (...)`` spec.

    ``value`` is the Spark SQL literal (``'2024-01-01'``, ``10``) or ``None`` for a dynamic
    partition column; ``text`` is the value as Spark renders it in a partition path
    (``2024-01-01``, ``10``), ``None`` for a dynamic column or a ``NULL`` value.
    """

    column: str
    value: str | None
    text: str | None


class Assignment(NamedTuple):
    """``column = value`` in UPDATE or MERGE."""

    column: str
    value: SparkSql


class Star(Enum):
    """``UPDATE SET *`` / ``INSERT *`` in a MERGE clause."""

    STAR = "*"


STAR = Star.STAR


# DDL ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnDef:
    """A column of CREATE TABLE or ALTER TABLE ADD COLUMNS; ``data_type`` is a Spark type."""

    name: str
    data_type: str
    nullable: bool = True
    comment: str | None = None


def _split_fields(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


@dataclass(frozen=True)
class CreateView(Statement):
    """``CREATE [OR REPLACE] VIEW [IF NOT EXISTS] name [(columns)] [COMMENT] [TBLPROPERTIES] AS
    query``: a permanent view.

    Spark creates it (``spark_sql``, placeholders bound back to the tables as written) when the
    query reads no Hudi table. A view over a Hudi table is one Spark cannot analyse, so the
    runner stores it itself: ``view_text`` is the query as written (no placeholders), kept in
    the catalog and expanded by hudi-sql whenever the view is queried; ``query`` is the same
    query with placeholders, run once at creation for the view's columns. ``columns`` are the
    ``(name, comment)`` pairs of the column list, if one is written.
    """

    name: TableName
    query: Query
    view_text: str
    spark_sql: SparkSql
    columns: tuple[tuple[str, str | None], ...] = ()
    comment: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    replace: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class CreateTable(Statement):
    """``CREATE TABLE ... USING hudi``, with or without columns, or as a query (CTAS).

    ``properties`` merges ``TBLPROPERTIES`` and ``OPTIONS`` with their keys exactly as written
    (``primaryKey``, ``type``, Hudi option keys); the typed helpers resolve Hudi's SQL short names
    (case-insensitively, as Spark's option maps are) before the ``hoodie.*`` keys.
    """

    name: TableName
    columns: tuple[ColumnDef, ...] = ()
    partitioned_by: tuple[str, ...] = ()
    location: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    if_not_exists: bool = False
    as_query: Query | None = None
    comment: str | None = None
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)

    def _alias_value(self, alias: SqlAlias) -> str | None:
        for key, value in self.properties.items():
            if sql_alias(key) is alias:
                return value
        return None

    @property
    def primary_key(self) -> tuple[str, ...]:
        """Record key fields: ``primaryKey``, else the record key options (write, then table)."""
        for value in (self._alias_value(PRIMARY_KEY), *(self.properties.get(k) for k in PRIMARY_KEY.keys)):
            if value is not None:
                return _split_fields(value)
        return ()

    @property
    def precombine_field(self) -> str | None:
        """Ordering field: ``preCombineField``, else the precombine options (write, then table)."""
        for value in (
            self._alias_value(PRECOMBINE_FIELD),
            *(self.properties.get(k) for k in PRECOMBINE_FIELD.keys),
        ):
            if value:
                return value.strip()
        return None

    @property
    def table_type(self) -> TableType | None:
        """``type`` (``cow`` / ``mor``), else the table's type property, else the write option;
        ``None`` when unset (Hudi then creates a COPY_ON_WRITE table). The analyzer has checked
        it parses."""
        for value in (self._alias_value(TYPE), *(self.properties.get(k) for k in reversed(TYPE.keys))):
            if value:
                return TableType.parse(value)
        return None

    def hoodie_options(self) -> dict[str, str]:
        """The properties with Hudi's SQL short names replaced by their write options
        (``type=mor`` becomes the table type option ``MERGE_ON_READ``); see
        :mod:`hudi_sql.config.sql_aliases`."""
        return resolve_sql_aliases(self.properties)


@dataclass(frozen=True)
class DropTable(Statement):
    name: TableName
    if_exists: bool = False
    purge: bool = False
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class AlterTableAddColumns(Statement):
    table: TableName
    columns: tuple[ColumnDef, ...]
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class AlterTableSetProperties(Statement):
    table: TableName
    properties: Mapping[str, str] = field(default_factory=dict, hash=False)
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class AlterTableRename(Statement):
    table: TableName
    new_name: TableName
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class AlterTableDropPartition(Statement):
    """``ALTER TABLE t DROP [IF EXISTS] PARTITION (..)[, PARTITION (..)] [PURGE]``; every spec
    names columns with constant values."""

    table: TableName
    partitions: tuple[tuple[PartitionValue, ...], ...]
    if_exists: bool = False
    purge: bool = False
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class ShowPartitions(Statement):
    table: TableName
    partition_spec: tuple[PartitionValue, ...] = ()
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class TruncateTable(Statement):
    table: TableName
    partition_spec: tuple[PartitionValue, ...] = ()
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class ShowCreateTable(Statement):
    table: TableName
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class ShowTableProperties(Statement):
    """``SHOW TBLPROPERTIES t [('key')]``."""

    table: TableName
    key: str | None = None
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class DescribeTable(Statement):
    """``DESCRIBE [EXTENDED | FORMATTED] t`` (FORMATTED is EXTENDED, as in Spark)."""

    table: TableName
    extended: bool = False
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


# DML ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InsertInto(Statement):
    """``INSERT INTO|OVERWRITE [TABLE] t [PARTITION (..)] [(cols)] <query>``.

    ``partition_spec`` keeps static (``p='v'``) and dynamic (``p``) entries in order;
    ``columns`` is the explicit column list or ``()``. ``VALUES`` rows arrive as a query.
    ``sql`` is the whole INSERT, for a target that is not a Hudi table.
    """

    table: TableName
    partition_spec: tuple[PartitionValue, ...]
    columns: tuple[str, ...]
    query: Query
    overwrite: bool = False
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


class MergeClauseKind(str, Enum):
    MATCHED = "matched"
    NOT_MATCHED = "not_matched"
    NOT_MATCHED_BY_SOURCE = "not_matched_by_source"


class MergeAction(str, Enum):
    UPDATE = "update"
    DELETE = "delete"
    INSERT = "insert"


@dataclass(frozen=True)
class MergeClause:
    """One ``WHEN ... THEN ...`` clause.

    ``assignments`` is :data:`STAR` for ``UPDATE SET *`` / ``INSERT *``, ``()`` for DELETE, the
    ``SET`` list for UPDATE, and the column/value pairs for ``INSERT (cols) VALUES (vals)``
    (also given as ``insert_columns`` / ``insert_values``). Assigned columns are bare names:
    a target qualifier (``t.a = ...``) is removed.
    """

    kind: MergeClauseKind
    action: MergeAction
    condition: SparkSql | None = None
    assignments: tuple[Assignment, ...] | Literal[Star.STAR] = ()
    insert_columns: tuple[str, ...] = ()
    insert_values: tuple[SparkSql, ...] = ()

    @property
    def is_star(self) -> bool:
        return self.assignments is STAR


@dataclass(frozen=True)
class MergeInto(Statement):
    """``MERGE INTO target [AS x] USING source [AS s] ON cond WHEN ...``.

    ``source`` is always a query: a source table ``s`` becomes ``SELECT * FROM <placeholder>
    AS s``. ``clauses`` keep their order (Spark's grammar: MATCHED, NOT MATCHED, NOT MATCHED BY
    SOURCE). ``table_refs`` lists every placeholder of the statement: the source's and those
    of subqueries inside ``on``, conditions or values.

    What the analyzer read off the ``ON`` condition (so that no later layer parses it again):

    * ``on_equalities``: ``(target column, source expression)`` pairs (column lower case) from the top-level ``AND`` terms ``target.c = <expression of
      source columns only>``; MERGE reads only the target partitions these can match.
    * ``on_column_pairs``: ``(target column, source column)`` pairs (lower case) when ``ON`` is
      nothing but ``AND``-ed equalities of plain target and source columns, else ``None``; a
      MERGE whose pairs are exactly the record key (and partition) columns is an upsert.
    * ``update_source_columns``: ``(target column, source column)`` pairs (lower case) of the
      ``WHEN MATCHED`` ``UPDATE SET`` assignments whose value is a plain column of the source (qualified by the
      source's name, or not qualified); MERGE takes the incoming ordering value from one.
    """

    target: TableName
    target_alias: str | None
    source: Query
    source_alias: str | None
    on: SparkSql
    clauses: tuple[MergeClause, ...]
    table_refs: tuple[TableRef, ...] = ()
    on_equalities: tuple[tuple[str, SparkSql], ...] = ()
    on_column_pairs: tuple[tuple[str, str], ...] | None = None
    update_source_columns: tuple[tuple[str, str], ...] = ()
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class Update(Statement):
    table: TableName
    alias: str | None
    assignments: tuple[Assignment, ...]
    where: SparkSql | None = None
    table_refs: tuple[TableRef, ...] = ()
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class Delete(Statement):
    table: TableName
    alias: str | None
    where: SparkSql | None = None
    table_refs: tuple[TableRef, ...] = ()
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class Select(Query, Statement):
    """A query statement (``SELECT``, set operations, ``VALUES``, ``WITH ...``)."""


# Session, procedures, the rest -------------------------------------------------------------------


@dataclass(frozen=True)
class SetOption(Statement):
    """``SET key=value``: the value as Spark takes it (raw text; one quoted string unquoted)."""

    key: str
    value: str


@dataclass(frozen=True)
class ShowOption(Statement):
    """``SET key`` (one option), ``SET`` (all) or ``SET -v`` (all, with docs)."""

    key: str | None = None
    verbose: bool = False
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class ResetOption(Statement):
    """``RESET key`` or ``RESET`` (every session option)."""

    key: str | None = None


@dataclass(frozen=True)
class CallArg:
    """A CALL argument: ``name`` (lower case) for ``name => value``, ``None`` when positional."""

    name: str | None
    value: CallValue


@dataclass(frozen=True)
class Call(Statement):
    """``CALL procedure(...)``; the procedure name is lower case, qualifiers kept (``a.b``)."""

    procedure: str
    args: tuple[CallArg, ...] = ()

    @property
    def named(self) -> bool:
        return any(arg.name is not None for arg in self.args)


@dataclass(frozen=True)
class Explain(Statement):
    """``EXPLAIN [mode] <statement>``; ``mode`` is lower case (``extended``, ``cost``, ...) or
    ``None``. For a query or passthrough statement, ``sql`` is the Spark EXPLAIN to run (with
    the inner statement's placeholders)."""

    statement: Statement
    mode: str | None = None
    sql: SparkSql = field(default_factory=SparkSql, kw_only=True)


@dataclass(frozen=True)
class Passthrough(Statement):
    """A statement Spark runs itself (views, databases, other formats, USE, SHOW, CACHE, ...).

    ``sql`` is Spark SQL with placeholders at ``table_refs``; ``targets`` names the tables
    the statement creates, alters or addresses by name (not as a query source), so the runner
    can refuse what it cannot do to a Hudi table; ``kind`` names the statement for messages
    (``'CREATE VIEW'``, ``'ALTER TABLE ... DROP COLUMN'``).
    """

    sql: SparkSql
    table_refs: tuple[TableRef, ...] = ()
    targets: tuple[TableName, ...] = ()
    kind: str = ""

    def bind(self, views: Views) -> str:
        return self.sql.bind(self.table_refs, views)
