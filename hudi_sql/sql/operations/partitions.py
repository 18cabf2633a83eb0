"""Partitions of a Hudi table from SQL: ``ALTER TABLE ... DROP PARTITION``, ``TRUNCATE TABLE``
and ``SHOW PARTITIONS``, with the helpers INSERT OVERWRITE and EXPLAIN share (the live
partitions, a partition spec matched against them, a ``delete_partition`` write)."""

from __future__ import annotations

__all__ = [
    "decoded_partition",
    "delete_partitions",
    "drop_partition",
    "live_partitions",
    "matching_partitions",
    "show_partitions",
    "truncate_table",
]

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hudi_sql.config import HudiWriteConfig
from hudi_sql.errors import HudiSqlError, did_you_mean
from hudi_sql.read.plan import partition_values
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.spark_fallback import on_hudi_table
from hudi_sql.sql.operations.writes import write_frame
from hudi_sql.sql.planner import HudiTableFacts, spec_matches, write_options
from hudi_sql.storage.fs import Storage
from hudi_sql.storage.layout import TableLayout
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def live_partitions(facts: HudiTableFacts, *, emptied_too: bool = False) -> list[str]:
    """The table's partitions that hold file groups; *emptied_too* adds those an overwrite emptied
    (their folders remain until the cleaner's turn, and Apache Hudi's DROP PARTITION finds them)."""
    view = FileSystemView(TableMetaClient.load(facts.location))
    if view.is_empty:
        return []
    return [p for p in view.partition_paths() if emptied_too or view.latest_file_slices([p])]


def decoded_partition(facts: HudiTableFacts, partition: str) -> dict[str, str] | None:
    return partition_values(
        partition, facts.partition_fields, hive_style=facts.hive_style, url_encoded=facts.url_encode
    )


def matching_partitions(
    facts: HudiTableFacts, partitions: list[str], spec: Sequence[st.PartitionValue], where: str
) -> list[str]:
    names = {p.lower() for p in facts.partition_fields}
    for entry in spec:
        if entry.column.lower() not in names:
            raise HudiSqlError(
                f"{where}: '{entry.column}' is not a partition column of {facts.name}."
                f"{did_you_mean(entry.column, list(facts.partition_fields))}",
                help=f"partition columns are {', '.join(facts.partition_fields) or '(none)'}",
            )
    return [p for p in partitions if spec_matches(decoded_partition(facts, p), spec)]


def _spec_sql(spec: Sequence[st.PartitionValue]) -> str:
    return "PARTITION (" + ", ".join(f"{p.column} = {p.value}" for p in spec) + ")"


def _glob_escape(partition: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in partition)


def delete_partitions(ctx: OperationContext, facts: HudiTableFacts, partitions: list[str]) -> None:
    empty = ctx.spark.createDataFrame([], facts.target_schema())
    write_frame(
        ctx,
        facts,
        empty,
        write_options(
            facts,
            ctx.options,
            {
                HudiWriteConfig.OPERATION.key: "delete_partition",
                HudiWriteConfig.PARTITIONS_TO_DELETE.key: ",".join(_glob_escape(p) for p in partitions),
            },
        ),
    )


@on_hudi_table(lambda statement: statement.table)
def drop_partition(ctx: OperationContext, statement: st.AlterTableDropPartition, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    where = f"ALTER TABLE {resolved.ident} DROP PARTITION"
    if not facts.partition_fields:
        raise HudiSqlError(f"{where}: table {resolved.ident} is not partitioned.")
    live = live_partitions(facts, emptied_too=True)
    doomed: list[str] = []
    for spec in statement.partitions:
        named = {entry.column.lower() for entry in spec}
        if named < {field.lower() for field in facts.partition_fields}:
            # Apache Hudi drops whole partition paths only, so a spec must name every level.
            raise HudiSqlError(
                f"{where}: All partition columns need to be specified for Hoodie's partition "
                f"({_spec_sql(spec)} of {', '.join(facts.partition_fields)}).",
                help="name every partition column: " + ", ".join(f"{f} = ..." for f in facts.partition_fields),
            )
        found = matching_partitions(facts, live, spec, where)
        if not found and not statement.if_exists:
            raise HudiSqlError(
                f"{where}: {_spec_sql(spec)} does not exist in {resolved.ident}.",
                help="SHOW PARTITIONS lists them; ALTER TABLE ... DROP IF EXISTS PARTITION ignores it",
            )
        doomed += [p for p in found if p not in doomed]
    if doomed:
        delete_partitions(ctx, facts, doomed)
        if statement.purge:
            layout = TableLayout.of(facts.location)
            for partition in doomed:
                Storage().delete_dir(layout.partition_dir(partition))
    return ctx.empty()


@on_hudi_table(lambda statement: statement.table)
def truncate_table(ctx: OperationContext, statement: st.TruncateTable, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    live = live_partitions(facts)
    if statement.partition_spec:
        where = f"TRUNCATE TABLE {resolved.ident}"
        if not facts.partition_fields:
            raise HudiSqlError(f"{where}: the table is not partitioned, so it has no PARTITION to truncate.")
        found = matching_partitions(facts, live, statement.partition_spec, where)
        if found:
            delete_partitions(ctx, facts, found)
        return ctx.empty()
    if live:
        empty = ctx.spark.createDataFrame([], facts.target_schema())
        write_frame(
            ctx,
            facts,
            empty,
            write_options(facts, ctx.options, {HudiWriteConfig.OPERATION.key: "insert_overwrite_table"}),
        )
    return ctx.empty()


@on_hudi_table(lambda statement: statement.table)
def show_partitions(ctx: OperationContext, statement: st.ShowPartitions, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    if not facts.partition_fields:
        # Apache Hudi answers a non-partitioned table with no rows (Spark's own catalog refuses it).
        return ctx.rows("partition string", [])
    live = live_partitions(facts)
    rows = []
    for partition in matching_partitions(facts, live, statement.partition_spec, "SHOW PARTITIONS"):
        values = decoded_partition(facts, partition)
        rows.append(("/".join(f"{k}={v}" for k, v in values.items()) if values else partition,))
    return ctx.rows("partition string", sorted(rows))


