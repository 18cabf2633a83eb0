"""Writing the changes of a SQL statement: one :func:`hudi_sql.write` per operation.

A statement that fails leaves the table as it was: a write that fails before its commit is
rolled back at once; and when a statement needs a second commit (deletes next to upserts, see
:func:`write_changes`) and that one fails, the first is rolled back.
"""

from __future__ import annotations

__all__ = ["drop_meta_columns", "global_index", "key_columns", "stored_key_columns", "write_changes", "write_frame"]

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from hudi_sql.commit.rollback import rollback_failed_writes, rollback_latest_commit
from hudi_sql.config import HudiWriteConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.engine.write import write
from hudi_sql.errors import CommitStateUnknownError, HudiError
from hudi_sql.model.schema import META_FIELDS, RECORD_KEY_FIELD
from hudi_sql.sql.operations.columns import column
from hudi_sql.sql.operations.context import METRICS_SCHEMA, OperationContext
from hudi_sql.sql.operations.pipeline import checkpoint_options
from hudi_sql.sql.planner import HudiTableFacts, write_options
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.handles import IS_DELETE_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from hudi_sql.engine.write_client import WriteResult

_log = logging.getLogger(__name__)


def write_frame(
    ctx: OperationContext, facts: HudiTableFacts, df: DataFrame, options: Mapping[str, str]
) -> WriteResult:
    """One :func:`hudi_sql.write`; if it fails before committing, its instant is rolled back now
    (not left for the next writer), unless the commit's outcome is unknown."""
    try:
        return write(df, facts.location, {**options, **checkpoint_options()})
    except CommitStateUnknownError:
        raise
    except BaseException:
        rollback_pending(facts.location, Resolved.of(options))
        raise


def rollback_pending(location: str, options: Resolved) -> None:
    """Roll back the failed write at *location* now, under the write's *options*."""
    try:
        rollback_failed_writes(TableMetaClient.load(location), options)
    except (HudiError, OSError):  # the next writer rolls it back anyway
        _log.warning(
            "Could not roll back the failed write on '%s' now; the next write will.", location, exc_info=True
        )


def key_columns(facts: HudiTableFacts) -> list[str]:
    """Record key and partition columns in the table's spelling (what a delete needs)."""
    names = [f.name for f in facts.target_schema().fields]
    lowered = {n.lower(): n for n in names}
    wanted = [*facts.record_key_fields, *facts.partition_fields]
    out: list[str] = []
    for field_name in wanted:
        name = lowered.get(field_name.split(".")[0].lower())
        if name is not None and name not in out:
            out.append(name)
    return out


def stored_key_columns(facts: HudiTableFacts, alias: str) -> list[Column]:
    """The stored ``_hoodie_record_key`` of a table whose keys were generated (no record key
    fields): rows an UPDATE, DELETE or MERGE rewrites keep their key (empty for other tables)."""
    return [] if facts.record_key_fields else [column(RECORD_KEY_FIELD, alias).alias(RECORD_KEY_FIELD)]


def write_changes(
    ctx: OperationContext,
    facts: HudiTableFacts,
    upserts: DataFrame | None,
    deletes: DataFrame | None,
    *,
    known_counts: tuple[int, int] | None = None,
    moves_are_updates: bool = False,
    upsert_options: Mapping[str, str] | None = None,
    one_commit: bool = False,
) -> DataFrame:
    """Write upserted rows and deleted keys; returns the metrics row.

    Upserts go in one ``upsert``, deleted keys in one ``delete`` (a ``_hoodie_is_deleted``
    column would become a column of the table, as it does in Hudi). When both are present the
    delete is a second commit; if it fails, the upsert is rolled back.

    With *one_commit* (a MERGE, which Apache Hudi writes as one ``upsert``), the deleted keys
    travel in the upsert itself, flagged in the write path's own delete column, and compete with
    the stored records by the ordering value they carry, as a delete record of a payload does;
    except on a table with a global index, whose upsert combines a key's records across
    partitions (a moved row's old home and its new row would meet there).

    Args:
        known_counts: (upserts, deletes) row counts when the caller knows them.
        moves_are_updates: the deleted keys are old homes of updated rows (UPDATE moving rows to
            another partition): report the rows as updated, not as inserted and deleted.
        upsert_options: options of this statement's upsert only (e.g. MERGE's ordered payload).
    """
    upsert_options = write_options(facts, ctx.options, {**(upsert_options or {}),
                                                        HudiWriteConfig.OPERATION.key: "upsert"})
    delete_options = write_options(facts, ctx.options, {HudiWriteConfig.OPERATION.key: "delete"})
    given = (upserts, upsert_options) if upserts is not None else (deletes, delete_options)
    if known_counts is not None:
        if known_counts[0] == 0:
            upserts = None
        if known_counts[1] == 0:
            deletes = None
    elif upserts is not None and deletes is not None and deletes.limit(1).count() == 0:
        deletes = None
    if deletes is None and upserts is None:
        # Nothing matched: the empty write goes to the write client, which commits it or not
        # (hoodie.allow.empty.commit, a pipeline's unchanged checkpoints) as Apache Hudi does.
        frame, options = given
        if frame is None:
            return ctx.metrics(None)
        return ctx.metrics(write_frame(ctx, facts, frame.limit(0), options))
    if one_commit and deletes is not None and not global_index(facts, ctx.options):
        from pyspark.sql import functions as F

        # a delete record has every column of the table, null where the key does not say
        missing = [f for f in facts.target_schema().fields if f.name not in deletes.columns]
        flagged = deletes.select("*", *[F.lit(None).cast(f.dataType).alias(f.name) for f in missing],
                                 F.lit(True).alias(IS_DELETE_COLUMN))
        if upserts is not None:
            flagged = upserts.withColumn(IS_DELETE_COLUMN, F.lit(False)).unionByName(flagged)
        return ctx.metrics(write_frame(ctx, facts, flagged, upsert_options))
    if deletes is None:
        assert upserts is not None
        return ctx.metrics(write_frame(ctx, facts, upserts, upsert_options))
    if upserts is None:
        return ctx.metrics(write_frame(ctx, facts, deletes, delete_options))
    first = write_frame(ctx, facts, upserts, upsert_options)
    try:
        second = write_frame(ctx, facts, deletes, delete_options)
    except CommitStateUnknownError:
        raise
    except BaseException:
        if first.instant_time is not None:
            rollback_latest_commit(TableMetaClient.load(facts.location), Resolved.of(upsert_options),
                                   first.instant_time)
        raise
    inserted, updated = first.num_inserted, first.num_updated
    deleted = second.num_deleted
    if moves_are_updates:
        inserted, updated, deleted = 0, inserted + updated, 0
    return ctx.rows(
        METRICS_SCHEMA,
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



def global_index(facts: HudiTableFacts, session: Mapping[str, str]) -> bool:
    """Whether the table's index (as the session and table set it) is a global one."""
    return Resolved.of(write_options(facts, session)).index.index_type.is_global


def drop_meta_columns(df: DataFrame) -> DataFrame:
    """*df* without Hudi's five meta columns (``_hoodie_commit_time``, ...)."""
    present = [c for c in df.columns if c in META_FIELDS]
    return df.drop(*present) if present else df

