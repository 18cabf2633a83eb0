"""Table-service procedures: savepoints, restore, archived commits, clustering, Hive sync.

Names, arguments and columns follow Apache Hudi 0.14's Spark procedures; each one is a thin
call into :mod:`hudi_sql.services` or :mod:`catalog.hive.sync`.
"""

from __future__ import annotations

from typing import Any

from catalog.hive.config import HiveSyncConfig
from catalog.hive.sync import HiveSyncTool
from hudi_sql.config import HudiServiceConfig
from hudi_sql.errors import HudiSqlError
from hudi_sql.read.plan import partition_values
from hudi_sql.services.archive import archive, read_archived_instants
from hudi_sql.services.clustering import cluster
from hudi_sql.services.savepoint import create_savepoint as create
from hudi_sql.services.savepoint import delete_savepoint as delete
from hudi_sql.services.savepoint import restore_to_savepoint
from hudi_sql.services.savepoint import show_savepoints as show
from hudi_sql.spark.local_frame import local_frame
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure
from hudi_sql.table.fs_view import FileSystemView


@procedure(
    "create_savepoint",
    args=[Arg("table"), Arg("commit_time"), Arg("user", default=""), Arg("comments", default=""), Arg("path")],
    output="create_savepoint_result boolean",
    description="Pin a completed commit (default the latest) so the cleaner keeps its files.",
)
def create_savepoint(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    create(ctx.meta(args), args["commit_time"], user=args["user"], comments=args["comments"],
           options=ctx.resolve(args))
    return [(True,)]


@procedure(
    "show_savepoints",
    args=[Arg("table"), Arg("path")],
    output="savepoint_time string",
    description="Completed savepoints, newest first.",
)
def show_savepoints(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(row["savepoint_time"],) for row in show(ctx.meta(args))]


def _savepoint_or_latest(ctx: ProcedureContext, meta: Any, instant_time: str | None) -> str:
    """*instant_time*, or the newest savepoint when none is given (as Apache Hudi's procedures do)."""
    if instant_time:
        return instant_time
    savepoints = show(meta)
    if not savepoints:
        raise HudiSqlError(f"CALL {ctx.name}: the table has no savepoint.",
                           help="CALL show_savepoints lists them; CALL create_savepoint makes one")
    return str(savepoints[0]["savepoint_time"])


@procedure(
    "delete_savepoint",
    args=[Arg("table"), Arg("instant_time"), Arg("path")],
    output="delete_savepoint_result boolean",
    description="Remove a savepoint, the newest when instant_time is not given (its files become cleanable again).",
)
def delete_savepoint(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    delete(meta, _savepoint_or_latest(ctx, meta, args["instant_time"]), options=ctx.resolve(args))
    return [(True,)]


@procedure(
    "rollback_to_savepoint",
    args=[Arg("table"), Arg("instant_time"), Arg("path")],
    output="rollback_savepoint_result boolean",
    description="Restore the table to a savepoint (the newest when instant_time is not given): every later "
                "commit is rolled back (a restore instant).",
)
def rollback_to_savepoint(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    meta = ctx.meta(args)
    restore_to_savepoint(meta, _savepoint_or_latest(ctx, meta, args["instant_time"]), options=ctx.resolve(args))
    return [(True,)]


@procedure(
    "show_archived_commits",
    args=[Arg("table", required=True), Arg("limit", "int", default=10), Arg("start_ts", default=""),
          Arg("end_ts", default="")],
    output="commit_time string, action string, state string",
    description="Instants moved to the archived timeline, newest first; start_ts / end_ts bound their times "
                "(both inclusive).",
)
def show_archived_commits(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    start, end = str(args["start_ts"] or ""), str(args["end_ts"] or "")
    rows = [(r["commitTime"], r["actionType"], r["state"]) for r in read_archived_instants(ctx.meta(args))
            if (not start or str(r["commitTime"]) >= start) and (not end or str(r["commitTime"]) <= end)]
    return sorted(rows, key=lambda r: str(r[0]), reverse=True)[: args["limit"]]


@procedure(
    "archive_commits",
    args=[Arg("table"), Arg("path"), Arg("min_commits", "int", default=20), Arg("max_commits", "int", default=30),
          Arg("retain_commits", "int", default=10), Arg("enable_metadata", "boolean", default=True)],
    output="result int",
    description="Archive old instants now: keep between min_commits and max_commits on the active timeline, "
                "never past what the cleaner retains (retain_commits); 0 on success.",
)
def archive_commits(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Apache Hudi's ``archive_commits``: archival with the limits given here instead of the table's.

    ``enable_metadata`` is accepted for Apache Hudi's scripts: hudi-sql keeps no metadata table.
    """
    limits = {HudiServiceConfig.ARCHIVE_MIN_COMMITS.key: str(args["min_commits"]),
              HudiServiceConfig.ARCHIVE_MAX_COMMITS.key: str(args["max_commits"]),
              HudiServiceConfig.CLEANER_COMMITS_RETAINED.key: str(args["retain_commits"])}
    archive(ctx.meta(args), ctx.write_configs(args, limits))
    return [(0,)]


@procedure(
    "run_clustering",
    args=[Arg("table"), Arg("path"), Arg("predicate"), Arg("order"), Arg("op", default="scheduleAndExecute"),
          Arg("instant_time"), Arg("options"), Arg("selected_partitions"), Arg("instants")],
    output="timestamp string, input_group_size int, state string, involved_partitions string",
    description="Schedule and/or execute a clustering (op: schedule, execute, scheduleAndExecute), of the "
    "partitions named (selected_partitions) or whose values satisfy predicate, else of every partition; "
    "op => 'execute' with instants => 't1,t2' runs those pending clusterings, one row each.",
)
def run_clustering(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    op = str(args["op"]).lower()
    if op not in ("schedule", "execute", "scheduleandexecute"):
        raise HudiSqlError(f"CALL run_clustering: op '{args['op']}' is not schedule, execute or scheduleAndExecute.")
    meta = ctx.meta(args)
    extra = parse_options(args["options"], "CALL run_clustering")
    if args["instants"]:
        if op != "execute":
            raise HudiSqlError("CALL run_clustering: instants names pending clusterings to run; it needs "
                               "op => 'execute'.")
        chosen = [i.strip() for i in str(args["instants"]).split(",") if i.strip()]
        configs = {**ctx.write_configs(args, extra).raw()}
        return [_clustering_row(meta, cluster(ctx.spark, meta.base_path, configs, order=args["order"],
                                              schedule=False, instant_time=instant), "COMPLETED")
                for instant in chosen]
    # Apache Hudi's order: partitions named win over a predicate; a predicate no partition
    # satisfies schedules nothing.
    if args["selected_partitions"]:
        extra[HudiServiceConfig.CLUSTERING_PARTITION_SELECTED.key] = str(args["selected_partitions"])
    elif args["predicate"]:
        selected = _partitions_satisfying(ctx, meta, str(args["predicate"]))
        if not selected:
            return []
        extra[HudiServiceConfig.CLUSTERING_PARTITION_SELECTED.key] = ",".join(selected)
    instant = cluster(ctx.spark, meta.base_path, {**ctx.write_configs(args, extra).raw()}, order=args["order"],
                      schedule=op != "execute", execute=op != "schedule", instant_time=args["instant_time"])
    if instant is None:
        return []
    return [_clustering_row(meta, instant, "SCHEDULED" if op == "schedule" else "COMPLETED")]


def _clustering_row(meta: Any, instant: str | None, state: str) -> tuple[Any, ...]:
    """A result row of run_clustering: the instant, its plan's group count, *state*, its partitions."""
    assert instant is not None  # a named pending clustering runs or raises
    plan = meta.clustering_plan(instant)
    partitions = sorted({s.partition_path for g in plan.groups for s in g.slices})
    return (instant, len(plan.groups), state, ",".join(partitions))


def _partitions_satisfying(ctx: ProcedureContext, meta: Any, predicate: str) -> list[str]:
    """The table's partition paths whose partition column values satisfy *predicate* (Spark SQL
    over the partition columns, their values as the paths spell them: strings)."""
    from pyspark.sql import functions as F
    from pyspark.sql.utils import AnalysisException

    fields = meta.partition_fields
    if not fields:
        raise HudiSqlError("CALL run_clustering: predicate needs a partitioned table.",
                           help="leave predicate out to cluster the whole table")
    view = FileSystemView(meta)
    paths = [] if view.is_empty else view.partition_paths()
    hive_style, url_encoded = meta.config.hive_style_partitioning, meta.config.url_encode_partitioning
    rows = [(path, *(values[f] for f in fields)) for path in paths
            if (values := partition_values(path, fields, hive_style=hive_style, url_encoded=url_encoded))]
    ddl = ", ".join(["__hudi_partition_path string", *(f"`{f}` string" for f in fields)])
    try:
        chosen = local_frame(ctx.spark, rows, ddl).where(F.expr(predicate)).select("__hudi_partition_path").collect()
    except AnalysisException as exc:
        raise HudiSqlError(f"CALL run_clustering: predicate '{predicate}' cannot be evaluated over the partition "
                           f"columns ({', '.join(fields)}): {exc}") from exc
    return sorted(str(r[0]) for r in chosen)


@procedure(
    "hive_sync",
    # Apache Hudi 0.15's arguments in its order (positional calls carry over), then hudi-sql's own
    args=[Arg("table", required=True), Arg("metastore_uri"), Arg("username"), Arg("password"), Arg("use_jdbc"),
          Arg("mode"), Arg("partition_fields"), Arg("partition_extractor_class"), Arg("strategy"),
          Arg("sync_incremental"), Arg("jdbc_url"), Arg("options")],
    output="result string",
    description="Sync the table (and its partitions and schema) to a Hive metastore now; strategy RO / RT / ALL "
    "chooses which of a Merge-On-Read table's tables, sync_incremental => false compares every partition.",
)
def hive_sync(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    names = {"metastore_uri": HiveSyncConfig.METASTORE_URIS, "jdbc_url": HiveSyncConfig.JDBC_URL,
             "mode": HiveSyncConfig.MODE, "username": HiveSyncConfig.USERNAME, "password": HiveSyncConfig.PASSWORD,
             "partition_fields": HiveSyncConfig.PARTITION_FIELDS, "use_jdbc": HiveSyncConfig.USE_JDBC,
             "partition_extractor_class": HiveSyncConfig.PARTITION_EXTRACTOR_CLASS,
             "strategy": HiveSyncConfig.TABLE_STRATEGY, "sync_incremental": HiveSyncConfig.INCREMENTAL}
    options = dict(ctx.write_configs(args, parse_options(args["options"], "CALL hive_sync")).raw())
    # Apache Hudi leaves an argument given as '' unset, as if it were not given
    options.update({key.key: str(args[name]) for name, key in names.items() if args[name] not in (None, "")})
    meta = ctx.meta(args)
    HiveSyncTool.for_table(meta.base_path, options, spark=ctx.spark).sync()
    return [("Hive sync succeeded",)]
