"""One commit's files, partitions and totals, and write amplification: ``show_commit_files``,
``show_commit_partitions``, ``show_commit_write_stats``, ``stats_wa`` (Apache Hudi's arguments and
columns, checked against Apache Hudi 1.2's ``CALL help`` and its rows on the same table)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from hudi_sql.errors import HudiTimelineError
from hudi_sql.model.commit_metadata import CommitMetadata, WriteTotals
from hudi_sql.model.instant import Action, Instant
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.table.meta_client import TableMetaClient

_WRITES = (Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT)
_ONE_COMMIT = [Arg("table", required=True), Arg("limit", "int", default=10), Arg("instant_time", required=True)]


def _commit(ctx: ProcedureContext, args: dict[str, Any]) -> tuple[Instant, CommitMetadata]:
    """The completed write ``instant_time`` names, with its metadata."""
    meta = ctx.meta(args)
    wanted = str(args["instant_time"])
    for instant in meta.timeline.completed().with_actions(*_WRITES):
        if instant.instant_time == wanted:
            return instant, meta.commit_metadata(instant)
    raise HudiTimelineError(f"Commit {wanted} not found in the commits of '{args['table']}'.",
                            help=f"CALL show_commits(table => '{args['table']}') lists them")


@procedure(
    "show_commit_files",
    args=_ONE_COMMIT,
    output="action string, partition_path string, file_id string, previous_commit string, total_records_updated long, "
    "total_records_written long, total_bytes_written long, total_errors long, file_size long",
    description="The files one commit wrote, with their write totals.",
)
def show_commit_files(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    instant, metadata = _commit(ctx, args)
    rows = [(instant.action.value, partition, s.file_id, s.prev_commit, s.num_update_writes, s.num_writes,
             s.total_write_bytes, s.total_write_errors, s.file_size_in_bytes)
            for partition, stats in metadata.partition_to_write_stats.items() for s in stats]
    return rows[: args["limit"]]


@procedure(
    "show_commit_partitions",
    args=_ONE_COMMIT,
    output="action string, partition_path string, total_files_added long, total_files_updated long, "
    "total_records_inserted long, total_records_updated long, total_bytes_written long, total_errors long",
    description="The partitions one commit wrote, with their write totals.",
)
def show_commit_partitions(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    instant, metadata = _commit(ctx, args)
    rows = []
    for partition, stats in metadata.partition_to_write_stats.items():
        t = WriteTotals.of(list(stats), partitions=1)
        rows.append((instant.action.value, partition, t.files_added, t.files_updated, t.records_inserted,
                     t.records_updated, t.bytes_written, t.write_errors))
    return rows[: args["limit"]]


@procedure(
    "show_commit_write_stats",
    args=_ONE_COMMIT,
    output="action string, total_bytes_written long, total_records_written long, avg_record_size long",
    description="One commit's bytes and records written, and the average record size.",
)
def show_commit_write_stats(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    instant, metadata = _commit(ctx, args)
    t = metadata.totals()
    return [(instant.action.value, t.bytes_written, t.records_written,
             _java_rounded(t.bytes_written, t.records_written))][: args["limit"]]


#: ``Long.MAX_VALUE``: what Java's ``Math.round`` makes of a division by zero records.
_JAVA_LONG_MAX = 2**63 - 1


def _java_rounded(numerator: int, denominator: int) -> int:
    """``Math.round((double) numerator / denominator)``, as Apache Hudi computes an average: half
    up, and a division by zero is ``Long.MAX_VALUE`` (0 / 0 is 0)."""
    if denominator == 0:
        return 0 if numerator == 0 else _JAVA_LONG_MAX
    return math.floor(numerator / denominator + 0.5)


def _ratio(written: int, upserted: int) -> str:
    """``written / upserted`` as Java's ``DecimalFormat("#.00")`` prints it (``8.00``, ``.50``);
    "0" without upserts."""
    if not upserted:
        return "0"
    value = Decimal(written / upserted).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
    text = format(value, "f")
    return text[1:] if text.startswith("0.") else text


@procedure(
    "stats_wa",
    args=[Arg("table", required=True), Arg("limit", "int", default=10)],
    output="commit_time string, total_upserted long, total_written long, write_amplification_factor string",
    description="Write amplification of each completed commit (records written per record updated), and in total.",
)
def stats_wa(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta: TableMetaClient = ctx.meta(args)
    # Apache Hudi's commit timeline: commits and replacecommits (a deltacommit rewrites nothing)
    instants = meta.timeline.completed().with_actions(Action.COMMIT, Action.REPLACE_COMMIT)
    rows: list[tuple[Any, ...]] = []
    all_upserted = all_written = 0
    for instant in sorted(instants, key=lambda i: i.instant_time):
        t = meta.commit_metadata(instant).totals()
        upserted, written = t.records_updated, t.records_written
        rows.append((instant.instant_time, upserted, written, _ratio(written, upserted)))
        all_upserted, all_written = all_upserted + upserted, all_written + written
    rows.append(("Total", all_upserted, all_written, _ratio(all_written, all_upserted)))
    return rows[: args["limit"]]
