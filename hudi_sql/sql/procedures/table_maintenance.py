"""Procedures Apache Hudi 1.2 has around a table's upkeep: ``show_clustering``, ``drop_partition``,
``truncate_table``, ``delete_marker``, ``copy_to_temp_view`` and ``copy_to_table`` (its arguments
and columns, checked against Apache Hudi 1.2's ``CALL help``).

Each is a thin call into what the SQL statements already do: dropping partitions is a
``delete_partition`` commit, truncating an ``insert_overwrite_table``, a copy is a read of the
table (by query type, range or time travel) handed to Spark.
"""

from __future__ import annotations

from typing import Any

from hudi_sql.config import HudiReadConfig
from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.partitions import delete_partitions, truncate_table
from hudi_sql.sql.procedures import Arg, ProcedureContext, procedure
from hudi_sql.storage.layout import TableLayout


@procedure(
    "show_clustering",
    args=[Arg("table"), Arg("path"), Arg("limit", "int", default=20),
          Arg("show_involved_partition", "boolean", default=False)],
    output="timestamp string, input_group_size int, state string, involved_partitions string",
    description="Clusterings, newest first: how many groups each rewrites, its state, and (with "
                "show_involved_partition) the partition of every input file slice.",
)
def show_clustering(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    clusterings = [i for i in meta.timeline.latest_states() if meta.is_clustering_instant(i)]
    rows = []
    for instant in sorted(clusterings, key=lambda i: i.instant_time, reverse=True)[: args["limit"]]:
        plan = meta.clustering_plan(instant.instant_time)
        involved = (",".join(s.partition_path for g in plan.groups for s in g.slices)
                    if args["show_involved_partition"] else "*")
        rows.append((instant.instant_time, len(plan.groups), instant.state.name, involved))
    return rows


def _partitions(text: str | None) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


@procedure(
    "drop_partition",
    args=[Arg("table", required=True), Arg("partition", required=True)],
    output="result string",
    description="Delete the partitions named by their paths (comma-separated), as a delete_partition commit.",
)
def drop_partition(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    partitions = _partitions(args["partition"])
    if not partitions:
        raise HudiSqlError(f"CALL {ctx.name}: no partition named.", help="partition => 'city=sf' (a partition path)")
    delete_partitions(ctx.runner, ctx.facts(str(args["table"])), partitions)
    return [("Success",)]


@procedure(
    "truncate_table",
    args=[Arg("table", required=True), Arg("partitions")],
    output="result string, time_cost long",
    description="Delete every row (an insert_overwrite_table commit), or those of the partitions named "
                "by their paths (comma-separated).",
)
def truncate(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    partitions = _partitions(args["partitions"])
    if partitions:
        delete_partitions(ctx.runner, ctx.facts(str(args["table"])), partitions)
    else:
        truncate_table(ctx.runner, st.TruncateTable(table=ctx.table_name(str(args["table"]))))
    return []  # (Apache Hudi answers no row)


@procedure(
    "delete_marker",
    args=[Arg("table", required=True), Arg("instant_time", required=True)],
    output="delete_marker_result boolean",
    description="Delete the markers an instant's writers left in .hoodie/.temp (a failed write's leftovers).",
)
def delete_marker(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    folder = TableLayout.of(meta.base_path).marker_dir(str(args["instant_time"]))
    try:
        if meta.storage.exists(folder):
            meta.storage.delete_dir(folder)
    except OSError:
        return [(False,)]
    return [(True,)]


_COPY_ARGS = [Arg("table", required=True), Arg("query_type", default="snapshot")]
_RANGE_ARGS = [Arg("begin_instance_time", default=""), Arg("end_instance_time", default=""),
               Arg("as_of_instant", default="")]


def _copy(ctx: ProcedureContext, args: dict[str, Any]) -> Any:
    """The table read as the arguments ask: a query type, an incremental range, or time travel."""
    options = {HudiReadConfig.QUERY_TYPE.key: str(args["query_type"])}
    if args.get("begin_instance_time"):
        options[HudiReadConfig.BEGIN_INSTANT.key] = str(args["begin_instance_time"])
    if args.get("end_instance_time"):
        options[HudiReadConfig.END_INSTANT.key] = str(args["end_instance_time"])
    if args.get("as_of_instant"):
        options[HudiReadConfig.AS_OF_INSTANT.key] = str(args["as_of_instant"])
    return ctx.runner.snapshot(ctx.table_location(args), options)


@procedure(
    "copy_to_temp_view",
    args=[*_COPY_ARGS, Arg("view_name", required=True), *_RANGE_ARGS, Arg("replace", "boolean", default=False),
          Arg("global", "boolean", default=False)],
    output="status int",
    description="The table's rows (snapshot, read_optimized, incremental range or as of an instant) as a "
                "temporary view; replace => true replaces a view of that name, global => true makes it global.",
)
def copy_to_temp_view(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    frame, view = _copy(ctx, args), str(args["view_name"])
    if args["global"]:
        (frame.createOrReplaceGlobalTempView if args["replace"] else frame.createGlobalTempView)(view)
    else:
        (frame.createOrReplaceTempView if args["replace"] else frame.createTempView)(view)
    return [(0,)]


@procedure(
    "copy_to_table",
    args=[*_COPY_ARGS, Arg("new_table", required=True), *_RANGE_ARGS, Arg("save_mode", default="overwrite"),
          Arg("columns", default="")],
    output="status int",
    description="The table's rows (as copy_to_temp_view reads them; columns => 'a,b' for some columns) saved "
                "as a new Spark table with save_mode.",
)
def copy_to_table(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    frame = _copy(ctx, args)
    columns = [c.strip() for c in str(args["columns"] or "").split(",") if c.strip()]
    if columns:
        frame = frame.select(*columns)
    frame.write.mode(str(args["save_mode"])).saveAsTable(str(args["new_table"]))
    return [(0,)]
