"""Writes from SQL: INSERT INTO / INSERT OVERWRITE, UPDATE, DELETE and MERGE INTO.

Every statement becomes DataFrames computed by Spark over a snapshot of the target read when
the statement starts, written with :func:`hudi_sql.write` using the options
:mod:`hudi_sql.sql.planner` chose. The result is one row of metrics
(``num_affected_rows, num_inserted_rows, num_updated_rows, num_deleted_rows, instant_time``).

A statement that fails leaves the table as it was: checks that can fail (duplicate keys under
``dup.policy=fail``, a target row matched by two source rows) run before anything is written;
a write that fails before its commit is rolled back at once; and when a statement needs a
second commit (deletes next to upserts, see :func:`write_changes`) and that one fails, the
first is rolled back.
"""

from __future__ import annotations

__all__ = [
    "aligned_frame",
    "delete",
    "delete_frame",
    "insert_into",
    "merge_into",
    "update",
    "update_frames",
    "write_changes",
    "write_frame",
]

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from catalog.base import quote_identifier
from hudi_sql.config import HudiConfigs, HudiWriteConfig
from hudi_sql.errors import CommitStateUnknownError, HudiError, HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import DupPolicy, HudiTableFacts, align_insert, plan_insert, write_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_sql.sql.runner import Runner
    from hudi_sql.write.client import WriteResult

_log = logging.getLogger(__name__)


# Writing --------------------------------------------------------------------------------------------


def write_frame(
    runner: Runner, facts: HudiTableFacts, df: DataFrame, options: Mapping[str, str]
) -> WriteResult:
    """One :func:`hudi_sql.write`; if it fails before committing, its instant is rolled back now
    (not left for the next writer), unless the commit's outcome is unknown."""
    from hudi_sql.write.api import write

    try:
        return write(df, facts.location, dict(options))
    except CommitStateUnknownError:
        raise
    except BaseException:
        _rollback_pending(facts.location)
        raise


def _rollback_pending(location: str) -> None:
    from hudi_sql.commit.rollback import rollback_failed_writes
    from hudi_sql.table.meta_client import TableMetaClient

    try:
        rollback_failed_writes(TableMetaClient.load(location))
    except (HudiError, OSError):  # the next writer rolls it back anyway
        _log.warning(
            "Could not roll back the failed write on '%s' now; the next write will.", location, exc_info=True
        )


def _key_columns(facts: HudiTableFacts) -> list[str]:
    """Record key and partition columns in the table's spelling (what a delete needs)."""
    names = [f.name for f in facts.target_schema().fields]
    lowered = {n.lower(): n for n in names}
    wanted = [*facts.record_key_fields, *facts.partition_fields]
    out: list[str] = []
    for column in wanted:
        name = lowered.get(column.split(".")[0].lower())
        if name is not None and name not in out:
            out.append(name)
    return out


def write_changes(
    runner: Runner,
    facts: HudiTableFacts,
    upserts: DataFrame | None,
    deletes: DataFrame | None,
    *,
    known_counts: tuple[int, int] | None = None,
    moves_are_updates: bool = False,
) -> DataFrame:
    """Write upserted rows and deleted keys; returns the metrics row.

    Upserts go in one ``upsert``, deleted keys in one ``delete`` (a ``_hoodie_is_deleted``
    column would become a column of the table, as it does in Hudi). When both are present the
    delete is a second commit; if it fails, the upsert is rolled back.

    Args:
        known_counts: (upserts, deletes) row counts when the caller knows them.
        moves_are_updates: the deleted keys are old homes of updated rows (UPDATE moving rows to
            another partition): report the rows as updated, not as inserted and deleted.
    """
    from hudi_sql.commit.rollback import rollback_latest_commit
    from hudi_sql.table.meta_client import TableMetaClient

    upsert_options = write_options(facts, runner.options, {HudiWriteConfig.OPERATION.key: "upsert"})
    delete_options = write_options(facts, runner.options, {HudiWriteConfig.OPERATION.key: "delete"})
    if known_counts is not None:
        if known_counts[0] == 0:
            upserts = None
        if known_counts[1] == 0:
            deletes = None
    elif upserts is not None and deletes is not None and deletes.limit(1).count() == 0:
        deletes = None
    if deletes is None and upserts is None:
        return runner.metrics(None)
    if deletes is None:
        assert upserts is not None
        return runner.metrics(write_frame(runner, facts, upserts, upsert_options))
    if upserts is None:
        return runner.metrics(write_frame(runner, facts, deletes, delete_options))
    first = write_frame(runner, facts, upserts, upsert_options)
    try:
        second = write_frame(runner, facts, deletes, delete_options)
    except CommitStateUnknownError:
        raise
    except BaseException:
        if first.instant_time is not None:
            rollback_latest_commit(TableMetaClient.load(facts.location), first.instant_time)
        raise
    inserted, updated = first.num_inserted, first.num_updated
    deleted = second.num_deleted
    if moves_are_updates:
        inserted, updated, deleted = 0, inserted + updated, 0
    return runner.rows(
        "num_affected_rows long, num_inserted_rows long, num_updated_rows long, num_deleted_rows long, "
        "instant_time string",
        [
            (
                inserted + updated + deleted,
                inserted,
                updated,
                deleted,
                second.instant_time or first.instant_time,
            )
        ],
    )


# INSERT ---------------------------------------------------------------------------------------------


def aligned_frame(source: DataFrame, facts: HudiTableFacts, statement: st.InsertInto) -> DataFrame:
    """The query's rows as the table's columns (see :func:`~hudi_sql.sql.planner.align_insert`),
    cast to the table's types as Spark's INSERT casts them. Hudi's meta columns in the query
    (``SELECT *`` from a Hudi table) are dropped first, as Hudi's INSERT drops them."""
    from pyspark.sql import functions as F

    source = drop_meta_columns(source)
    sources = align_insert(statement, facts, len(source.columns))
    renamed = source.toDF(*[f"__hudi_c{i}" for i in range(len(source.columns))])
    columns = []
    for where, field_ in zip(sources, facts.target_schema().fields, strict=True):
        if where.literal is not None:
            value = F.expr(where.literal)
        elif where.position is not None:
            given = source.schema.fields[where.position].dataType
            if not _can_cast(source, given, field_.dataType):
                raise HudiSqlError(
                    f"INSERT INTO {facts.name}: column '{field_.name}' is "
                    f"{field_.dataType.simpleString()} but "
                    f"query column {where.position + 1} ('{source.columns[where.position]}') is "
                    f"{given.simpleString()}.",
                    help="columns are filled by position, partition columns last: "
                    + ", ".join(f.name for f in facts.target_schema().fields),
                )
            value = F.col(f"__hudi_c{where.position}")
        else:
            value = F.lit(None)
        columns.append(value.cast(field_.dataType).alias(field_.name))
    return renamed.select(*columns)


def drop_meta_columns(df: DataFrame) -> DataFrame:
    """*df* without Hudi's five meta columns (``_hoodie_commit_time``, ...)."""
    from hudi_sql.model.schema import META_FIELDS

    present = [c for c in df.columns if c in META_FIELDS]
    return df.drop(*present) if present else df


def _can_cast(df: DataFrame, source: Any, target: Any) -> bool:
    """Whether Spark's CAST accepts *source* to *target* (``Cast.canAnsiCast`` in ANSI mode)."""
    session = df.sparkSession
    parse = session._jsparkSession.parseDataType
    cast = session._jvm.org.apache.spark.sql.catalyst.expressions.Cast
    ansi = str(session.conf.get("spark.sql.ansi.enabled", "true")).lower() == "true"
    check = cast.canAnsiCast if ansi else cast.canCast
    return bool(check(parse(source.json()), parse(target.json())))


def _require_new_keys(
    runner: Runner, facts: HudiTableFacts, frame: DataFrame, options: Mapping[str, str]
) -> None:
    """``dup.policy=fail``: refuse the INSERT if any incoming key exists (before writing)."""
    from pyspark.sql import functions as F

    from hudi_sql.keygen import key_generator_for

    configs = HudiConfigs.of(dict(options))
    incoming_keys = key_generator_for(
        configs, table_properties=facts.table_properties, schema=frame.schema, sql=True
    )
    incoming = frame.select(
        incoming_keys.record_key().alias("__k"), incoming_keys.partition_path().alias("__p")
    )
    snapshot = runner.snapshot(facts.location)
    if facts.populate_meta_fields:
        existing = snapshot.select(
            F.col("_hoodie_record_key").alias("__k"), F.col("_hoodie_partition_path").alias("__p")
        )
    else:
        data = snapshot.drop(*[c for c in snapshot.columns if c.startswith("_hoodie_")])
        keys = key_generator_for(
            configs, table_properties=facts.table_properties, schema=data.schema, sql=True
        )
        existing = data.select(keys.record_key().alias("__k"), keys.partition_path().alias("__p"))
    hit = incoming.join(existing, ["__k", "__p"], "left_semi").limit(1).collect()
    if hit:
        raise HudiSqlError(
            f"Duplicate key found for insert statement, key is: {hit[0]['__k']}",
            help=f"{HudiWriteConfig.INSERT_DUP_POLICY.key}=fail refuses existing keys; "
            "use drop to skip them, or upsert",
        )


def insert_into(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.InsertInto)
    resolved = runner.resolve(statement.table)
    refs = statement.query.table_refs
    if not resolved.is_hudi:
        with runner.bound(refs) as views:
            return runner.spark.sql(st.bind(statement.sql, refs, views))
    facts = runner.facts(resolved)
    mode = str(runner.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static")).lower()
    plan = plan_insert(statement, facts, runner.options, dynamic_overwrite=mode == "dynamic")
    with runner.bound(refs) as views:
        source = runner.spark.sql(statement.query.bind(views))
        frame = aligned_frame(source, facts, statement)
        if plan.dup_policy == DupPolicy.FAIL:
            _require_new_keys(runner, facts, frame, plan.options)
        result = write_frame(runner, facts, frame, plan.options)
    if plan.static_partition is not None:
        _empty_static_partition(runner, facts, plan.static_partition, result)
    if plan.operation.is_overwrite:
        return runner.metrics(result, affected=result.num_inserted)
    return runner.metrics(result)


def _empty_static_partition(
    runner: Runner, facts: HudiTableFacts, static: Mapping[str, str], result: WriteResult
) -> None:
    """``INSERT OVERWRITE t PARTITION (p = v) <no rows>`` empties partition p = v, as in Spark."""
    from hudi_sql.sql.ddl import _decoded, _delete_partitions, _live_partitions
    from hudi_sql.sql.planner import spec_matches

    spec = [st.PartitionValue(k, v, v) for k, v in static.items()]

    doomed = [
        p
        for p in _live_partitions(facts)
        if spec_matches(_decoded(facts, p), spec)
        and p not in result.replaced_file_ids
        and not any(s.partition_path == p for s in result.write_stats)
    ]
    if doomed:
        _delete_partitions(runner, facts, doomed)


# UPDATE / DELETE ------------------------------------------------------------------------------------


def _q(name: str) -> str:
    return quote_identifier(name)


def update(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.Update)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        with runner.bound(statement.table_refs) as views:
            return runner.spark.sql(st.bind(statement.sql, statement.table_refs, views))
    facts = runner.facts(resolved)
    with runner.bound(statement.table_refs) as views, runner.temp_views() as created:
        upserts, deletes = update_frames(runner, statement, facts, views, created)
        return write_changes(runner, facts, upserts, deletes, moves_are_updates=True)


def update_frames(
    runner: Runner, statement: st.Update, facts: HudiTableFacts, views: Mapping[str, str], created: list[str]
) -> tuple[DataFrame, DataFrame | None]:
    """The rows an UPDATE writes, and the old keys of rows it moves to another partition."""
    where_ = f"UPDATE {facts.name}"
    alias = statement.alias or facts.name
    keys = {k.lower() for k in facts.record_key_fields}
    assigned: dict[str, str] = {}
    for assignment in statement.assignments:
        column = facts.column(assignment.column, where_)
        if column.lower() in keys:
            raise HudiSqlError(
                f"{where_}: column '{column}' is part of the record key and cannot be updated.",
                help="delete the row and insert it with the new key",
            )
        assigned[column.lower()] = assignment.value
    fields = facts.target_schema().fields
    partitions = {p.lower() for p in facts.partition_fields}
    target = runner.register_view(runner.snapshot(facts.location))
    created.append(target)

    def value(field_name: str) -> str:
        text = assigned.get(field_name.lower())
        return (
            f"({st.bind(text, statement.table_refs, views)})"
            if text is not None
            else f"{_q(alias)}.{_q(field_name)}"
        )

    new_columns = [f"CAST({value(f.name)} AS {f.dataType.simpleString()}) AS {_q(f.name)}" for f in fields]
    condition = st.bind(statement.where, statement.table_refs, views) if statement.where else None
    where = f" WHERE {condition}" if condition else ""
    upserts = runner.spark.sql(f"SELECT {', '.join(new_columns)} FROM {target} AS {_q(alias)}{where}")
    moved = [f for f in fields if f.name.lower() in partitions and f.name.lower() in assigned]
    if not moved:
        return upserts, None
    changed = " OR ".join(
        f"NOT (CAST({value(f.name)} AS {f.dataType.simpleString()}) <=> {_q(alias)}.{_q(f.name)})"
        for f in moved
    )
    old = ", ".join(f"{_q(alias)}.{_q(c)} AS {_q(c)}" for c in _key_columns(facts))
    both = f"({condition}) AND ({changed})" if condition else changed
    return upserts, runner.spark.sql(f"SELECT {old} FROM {target} AS {_q(alias)} WHERE {both}")


def delete(runner: Runner, statement: st.Statement) -> DataFrame:
    assert isinstance(statement, st.Delete)
    resolved = runner.resolve(statement.table)
    if not resolved.is_hudi:
        with runner.bound(statement.table_refs) as views:
            return runner.spark.sql(st.bind(statement.sql, statement.table_refs, views))
    facts = runner.facts(resolved)
    with runner.bound(statement.table_refs) as views, runner.temp_views() as created:
        return write_changes(runner, facts, None, delete_frame(runner, statement, facts, views, created))


def delete_frame(
    runner: Runner, statement: st.Delete, facts: HudiTableFacts, views: Mapping[str, str], created: list[str]
) -> DataFrame:
    """The rows a DELETE removes."""
    alias = statement.alias or facts.name
    target = runner.register_view(runner.snapshot(facts.location))
    created.append(target)
    columns = ", ".join(f"{_q(alias)}.{_q(f.name)}" for f in facts.target_schema().fields)
    where = f" WHERE {st.bind(statement.where, statement.table_refs, views)}" if statement.where else ""
    return runner.spark.sql(f"SELECT {columns} FROM {target} AS {_q(alias)}{where}")


# MERGE ----------------------------------------------------------------------------------------------


def merge_into(runner: Runner, statement: st.Statement) -> DataFrame:
    from hudi_sql.sql.merge import build_merge, upsert_source

    assert isinstance(statement, st.MergeInto)
    resolved = runner.resolve(statement.target)
    if not resolved.is_hudi:
        with runner.bound(statement.table_refs) as views:
            return runner.spark.sql(st.bind(statement.sql, statement.table_refs, views))
    facts = runner.facts(resolved)
    with runner.bound(statement.table_refs) as views, runner.temp_views() as created:
        upserts = upsert_source(runner, statement, facts, views)
        if upserts is not None:
            return write_changes(runner, facts, upserts, None)
        frames = build_merge(runner, statement, facts, views, created)
        try:
            counts = frames.check_and_count()
            return write_changes(runner, facts, frames.upserts, frames.deletes, known_counts=counts)
        finally:
            frames.release()
