"""How an ``INSERT INTO`` / ``INSERT OVERWRITE`` is written: pure decisions, no Spark.

:func:`plan_insert` chooses Apache Hudi's write operation and options for the statement (the
insert operation keys of every release, the duplicate policies, the overwrite modes), and
:func:`align_insert` maps the query's columns onto the table's as Spark's INSERT does. Both take
the facts :mod:`hudi_sql.sql.planner` gathers and are tested without a JVM
(``tests/sql/test_planner.py``).
"""

from __future__ import annotations

__all__ = ["ColumnSource", "DupPolicy", "InsertPlan", "align_insert", "plan_insert"]

from collections.abc import Mapping
from dataclasses import dataclass, field

from hudi_sql.config import HudiConfigs, HudiWriteConfig, TableType
from hudi_sql.config.scoped import SqlInsertConfig
from hudi_sql.errors import HudiConfigError, HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import HudiTableFacts, write_options
from hudi_sql.write.operation import WriteOperationType


class DupPolicy:
    NONE = "none"
    DROP = "drop"
    FAIL = "fail"


@dataclass(frozen=True)
class InsertPlan:
    """How one ``INSERT`` is written.

    ``operation`` is Hudi's write operation; ``options`` the full write options;
    ``dup_policy`` the duplicate policy in force; ``refused_by`` names the setting that makes an
    existing key an error, checked before writing (``dup.policy=fail``, or the strict insert mode
    of older scripts), empty when none does;
    ``static_partition`` the static values of a static-mode ``INSERT OVERWRITE ... PARTITION (...)``:
    every existing partition they match is replaced, even when the query returns no rows.
    """

    operation: WriteOperationType
    options: Mapping[str, str] = field(hash=False)
    dup_policy: str = DupPolicy.NONE
    static_partition: Mapping[str, str] | None = field(default=None, hash=False)
    refused_by: str = ""


def plan_insert(
    statement: st.InsertInto, table: HudiTableFacts, session: Mapping[str, str], *, spark_overwrite_mode: str
) -> InsertPlan:
    """Hudi's operation choice for ``INSERT INTO`` / ``INSERT OVERWRITE``.

    * ``INSERT OVERWRITE`` (Apache Hudi's ``deduceOverwriteConfig``): the mode is dynamic when
      ``hoodie.datasource.write.operation`` is an overwrite, else
      ``hoodie.datasource.overwrite.mode``, else Spark's ``spark.sql.sources.partitionOverwriteMode``.
      A non-partitioned table, or a partitioned one in static mode without a partition value, is
      replaced whole (``insert_overwrite_table``, or as the operation option says); otherwise
      ``insert_overwrite`` replaces the partitions written and, in static mode, every existing
      partition matching the static values (:attr:`InsertPlan.static_partition`).
    * ``INSERT INTO``: :attr:`HudiWriteConfig.SQL_INSERT_INTO_OPERATION` when set; else, on a
      version 6 table whose session or table sets the older
      :attr:`HudiWriteConfig.SQL_INSERT_MODE`, the operation that mode implies (see
      :func:`_legacy_insert_operation`); else ``upsert`` when a version 6 table has an ordering
      (preCombine) field, ``insert`` otherwise (version 8 and up: Apache Hudi 1.x's default).
      :attr:`HudiWriteConfig.INSERT_DUP_POLICY`: ``drop`` drops incoming records whose key
      exists, ``fail`` refuses the statement if any exists; both need the ``insert`` operation.
    * Either: a batch is deduplicated by key before it is written when the table has an ordering
      field (:attr:`HudiWriteConfig.COMBINE_BEFORE_INSERT` unless set), as Apache Hudi's SQL does.

    Args:
        spark_overwrite_mode: Spark's ``spark.sql.sources.partitionOverwriteMode``.
    """
    probe = write_options(table, session)
    config = SqlInsertConfig.of(HudiConfigs.of(probe, validate=False))
    statement_options: dict[str, str] = {}
    static = {p.column: p.text or "" for p in statement.partition_spec if p.value is not None}
    if statement.overwrite:
        return _plan_overwrite(table, probe, config, static, spark_overwrite_mode)

    policy = config.dup_policy
    explicit = config.insert_into_operation
    legacy_mode = config.legacy_insert_mode
    refused_by = ""
    if explicit:
        operation = WriteOperationType.parse(str(explicit))
    elif legacy_mode and table.table_version < 8:
        # Older scripts' insert mode, honoured only while the newer key is unset (Apache Hudi 0.14+'s
        # rule); Apache Hudi 1.x no longer reads it, so a version 8+ table ignores it too.
        operation = _legacy_insert_operation(str(legacy_mode), table, config)
        if (legacy_mode == "strict" and operation is WriteOperationType.UPSERT
                and table.table_type is TableType.COPY_ON_WRITE):
            # Apache Hudi writes such an upsert with a payload that fails on any stored key.
            refused_by = f"{HudiWriteConfig.SQL_INSERT_MODE.key}=strict"
        policy = DupPolicy.NONE  # the dup policy belongs to the newer flow, as in Apache Hudi
    elif policy != DupPolicy.NONE:
        operation = WriteOperationType.INSERT
    else:
        # Apache Hudi 0.15 upserts into a table with an ordering field; 1.x inserts (an existing
        # key's row stays beside the new one), so a version 8+ table does (checked against 1.2).
        upserts = bool(table.precombine_field) and table.table_version < 8
        operation = WriteOperationType.UPSERT if upserts else WriteOperationType.INSERT
    if policy != DupPolicy.NONE and operation is not WriteOperationType.INSERT:
        raise HudiConfigError(
            f"'{HudiWriteConfig.INSERT_DUP_POLICY.key}={policy}' needs the insert operation, but "
            f"'{HudiWriteConfig.SQL_INSERT_INTO_OPERATION.key}' is {operation.value.lower()}.",
            help=f"set {HudiWriteConfig.SQL_INSERT_INTO_OPERATION.key}=insert, or the dup policy to none",
        )
    statement_options[HudiWriteConfig.OPERATION.key] = operation.value.lower()
    statement_options.update(_combine_default(table, config))
    if policy == DupPolicy.DROP:
        statement_options[HudiWriteConfig.INSERT_DROP_DUPS.key] = "true"
    elif policy == DupPolicy.FAIL:
        refused_by = f"{HudiWriteConfig.INSERT_DUP_POLICY.key}=fail"
    return InsertPlan(operation, {**probe, **statement_options}, dup_policy=policy, refused_by=refused_by)


def _combine_default(table: HudiTableFacts, config: SqlInsertConfig) -> dict[str, str]:
    """Apache Hudi's SQL default of :attr:`HudiWriteConfig.COMBINE_BEFORE_INSERT` (a batch's rows
    of one key combined by the ordering field when the table has one), unless the session or
    table sets it."""
    if config.combine_set:
        return {}
    return {HudiWriteConfig.COMBINE_BEFORE_INSERT.key: str(bool(table.precombine_field)).lower()}


def _legacy_insert_operation(mode: str, table: HudiTableFacts, config: SqlInsertConfig) -> WriteOperationType:
    """The operation Apache Hudi 0.14–0.15 deduce from ``hoodie.sql.insert.mode`` (``upsert``,
    ``strict``, ``non-strict``), ``hoodie.sql.bulk.insert.enable`` and the session's
    ``hoodie.datasource.write.insert.drop.duplicates``: bulk insert only in non-strict mode and
    without dropping duplicates; upsert in the other modes when the table has record key and
    ordering fields; insert otherwise."""
    bulk, drop_duplicates = config.bulk_insert_enabled, config.drop_duplicates
    if bulk and mode != "non-strict":
        raise HudiConfigError(
            f"Table with primaryKey can not use bulk insert in {mode} mode.",
            help=f"{HudiWriteConfig.SQL_ENABLE_BULK_INSERT.key}=true needs {HudiWriteConfig.SQL_INSERT_MODE.key}=non-strict",
        )
    if bulk and drop_duplicates:
        raise HudiConfigError(
            "Bulk insert cannot support drop duplication. "
            f"Please disable {HudiWriteConfig.INSERT_DROP_DUPS.key} and try again.")
    if bulk:
        return WriteOperationType.BULK_INSERT
    if mode != "non-strict" and not drop_duplicates and table.precombine_field and table.record_key_fields:
        return WriteOperationType.UPSERT
    return WriteOperationType.INSERT


def _plan_overwrite(table: HudiTableFacts, probe: Mapping[str, str], config: SqlInsertConfig,
                    static: Mapping[str, str], spark_overwrite_mode: str) -> InsertPlan:
    chosen = config.operation
    if chosen not in (WriteOperationType.INSERT_OVERWRITE, WriteOperationType.INSERT_OVERWRITE_TABLE):
        chosen = None  # only an overwrite operation option decides an INSERT OVERWRITE, as in Apache Hudi
    mode = (config.overwrite_mode or spark_overwrite_mode or "static").upper()
    if mode not in ("STATIC", "DYNAMIC"):
        raise HudiConfigError(
            f"'{HudiWriteConfig.OVERWRITE_MODE.key}' (or spark.sql.sources.partitionOverwriteMode) is '{mode}'.",
            help="use STATIC or DYNAMIC",
        )
    static_mode = chosen is None and mode == "STATIC"
    if chosen is not None:
        operation = chosen
    elif not table.partition_fields or (static_mode and not static):
        operation = WriteOperationType.INSERT_OVERWRITE_TABLE
    else:
        operation = WriteOperationType.INSERT_OVERWRITE
    replace_static = static_mode and operation is WriteOperationType.INSERT_OVERWRITE and bool(static)
    options = {**probe, HudiWriteConfig.OPERATION.key: operation.value.lower(), **_combine_default(table, config)}
    return InsertPlan(operation, options, static_partition=dict(static) if replace_static else None)


@dataclass(frozen=True)
class ColumnSource:
    """Where one target column's value comes from: query column ``position``, a static
    partition ``literal`` (Spark SQL), or NULL when neither (columns an INSERT leaves out)."""

    column: str
    position: int | None = None
    literal: str | None = None


def align_insert(statement: st.InsertInto, table: HudiTableFacts, query_width: int) -> list[ColumnSource]:
    """Map the query's output columns onto the table's columns, as Spark's INSERT does: by
    position over the non-static columns, or by the explicit column list; static
    ``PARTITION (p = v)`` values fill their columns.

    Raises:
        HudiSqlError: a column count mismatch, an unknown column, a static partition column
            that is not a partition column or is also listed.
    """
    target = [f.name for f in table.target_schema().fields]
    where = f"INSERT INTO {table.name}"
    partition_names = {p.lower() for p in table.partition_fields}
    static: dict[str, str] = {}
    for entry in statement.partition_spec:
        column = table.column(entry.column, where)
        if column.lower() not in partition_names:
            raise HudiSqlError(
                f"{where}: '{entry.column}' in PARTITION (...) is not a partition column.",
                help=f"partition columns are {', '.join(table.partition_fields) or '(none)'}",
            )
        if entry.value is not None:
            static[column.lower()] = entry.value
    if statement.columns:
        listed = [table.column(c, where) for c in statement.columns]
        clash = [c for c in listed if c.lower() in static]
        if clash:
            raise HudiSqlError(
                f"{where}: column '{clash[0]}' has a static value in PARTITION (...) and is also listed."
            )
        if len(listed) != query_width:
            raise HudiSqlError(
                f"{where}: the column list names {len(listed)} columns but the query gives {query_width}."
            )
        positions = {c.lower(): i for i, c in enumerate(listed)}
    else:
        expected = [c for c in target if c.lower() not in static]
        if len(expected) != query_width:
            raise HudiSqlError(
                f"{where}: the query gives {query_width} columns but the table expects {len(expected)} "
                f"({', '.join(expected)}).",
                help="list the columns, INSERT INTO t (a, b) SELECT ..., or match the table's column order",
            )
        positions = {c.lower(): i for i, c in enumerate(expected)}
    return [ColumnSource(c, position=positions.get(c.lower()), literal=static.get(c.lower())) for c in target]


# CREATE TABLE --------------------------------------------------------------------------------------
