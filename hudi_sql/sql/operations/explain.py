"""EXPLAIN: what a statement would do, without doing it.

* A query (or a statement Spark runs) gets Spark's plan, preceded by the read plan of each Hudi
  table it reads: query type, instant, files read by Spark's Parquet reader, file slices merged
  with their log files (:func:`hudi_sql.read.plan.plan_read`).
* A write (INSERT, UPDATE, DELETE, MERGE) computes the same changes the statement would write,
  then tags them against the table's current keys as the index would, and prints the
  operation, the partitions, the file groups it would rewrite (copy-on-write) or append log
  files to (merge-on-read), the new records and an estimate of the bytes written. Nothing is
  written: no instant, no file.
* DDL gets a one-paragraph description.

The result is one row with one column, ``plan``, as Spark's EXPLAIN returns.
"""

from __future__ import annotations

__all__ = ["explain"]

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_sql.config import HudiConfigs, TableType
from hudi_sql.config.scoped import ReadConfig
from hudi_sql.engine.write_client import WriteClient
from hudi_sql.keygen import key_generator_for
from hudi_sql.read.plan import plan_read
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.filters import localized
from hudi_sql.sql.insert_planner import plan_insert
from hudi_sql.sql.operations.binding import bound
from hudi_sql.sql.operations.context import OperationContext
from hudi_sql.sql.operations.insert import aligned_frame, spark_overwrite_mode, static_partitions
from hudi_sql.sql.operations.merge_into import build_merge
from hudi_sql.sql.operations.partitions import live_partitions
from hudi_sql.sql.operations.update_delete import delete_frame, update_frames
from hudi_sql.sql.planner import HudiTableFacts, read_options, write_options
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient
from hudi_sql.write.operation import WriteOperationType

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


def explain(ctx: OperationContext, statement: st.Explain) -> DataFrame:
    """EXPLAIN of any statement (see the module doc)."""
    inner = statement.statement
    if isinstance(inner, (st.Select, st.Passthrough)):
        text = _explain_query(ctx, statement, inner)
    elif isinstance(inner, (st.InsertInto, st.Update, st.Delete, st.MergeInto)):
        text = _explain_write(ctx, inner)
    else:
        text = _explain_ddl(ctx, inner)
    return ctx.rows("plan string", [(text,)])


# Queries ------------------------------------------------------------------------------------------


def _read_plan_lines(ctx: OperationContext, ref: st.TableRef) -> list[str]:
    if ref.path is not None:
        location, label = ref.path, ref.path
    else:
        assert ref.name is not None
        resolved = ctx.lookup(ref.name)
        if resolved is None or not resolved.is_hudi or resolved.info is None:
            return []
        location, label = str(resolved.info.location), str(resolved.ident)
    options = read_options(ref, ctx.options)
    meta = TableMetaClient.load(location)
    time_zone = ctx.spark.conf.get("spark.sql.session.timeZone") or "UTC"
    plan = plan_read(meta, ReadConfig.of(HudiConfigs.of(options)), data_filters=localized(ref.filters, time_zone))
    native = sum(_file_size(meta, p) for p in plan.native_files)
    merged_base = sum(s.base_file.size for s in plan.merge_slices if s.base_file is not None)
    logs = [log for s in plan.merge_slices for log in s.log_files]
    lines = [
        f"== Hudi read: {label}" + (f" AS {ref.alias}" if ref.alias else "") + " ==",
        (
            f"table type: {meta.table_type.value}; query type: {plan.query_type.value}; "
            f"as of: {plan.as_of or '-'}"
        ),
    ]
    if plan.begin is not None:
        lines.append(f"incremental range: ({plan.begin}, {plan.end}]")
    if plan.skipping is not None:
        used = "; ".join(str(p) for p in plan.skipping.predicates) or "none usable"
        lines.append(f"data skipping: {plan.skipping.skipped} of {plan.skipping.total} file slices skipped by column "
                     f"statistics (filters: {used})")
    lines.append(f"base files read by Spark's Parquet reader: {len(plan.native_files)} ({_size(native)})")
    lines.append(
        f"file slices merged with log files: {len(plan.merge_slices)} (base {_size(merged_base)}, "
        f"{len(logs)} log files {_size(sum(log.size for log in logs))})"
    )
    return lines


def _file_size(meta: Any, path: str) -> int:
    try:
        return int(meta.storage.size(path))
    except OSError:
        return 0


def _explain_query(ctx: OperationContext, statement: st.Explain, inner: st.Select | st.Passthrough) -> str:
    lines: list[str] = []
    for ref in inner.table_refs:
        lines += _read_plan_lines(ctx, ref)
    with bound(ctx, inner.table_refs) as views:
        spark_plan = ctx.spark.sql(statement.sql.bind(inner.table_refs, views)).collect()
    text = "\n".join(str(row[0]) for row in spark_plan)
    return "\n".join(lines + [text]) if lines else text


# Writes -------------------------------------------------------------------------------------------


def _record_size(ctx: OperationContext, facts: HudiTableFacts) -> int:
    """Bytes per record as the write path estimates it (:attr:`HudiWriteConfig.RECORD_SIZE_ESTIMATE`
    until a commit wrote enough to measure)."""
    meta = TableMetaClient.load(facts.location)
    return int(WriteClient(facts.location, write_options(facts, ctx.options)).sizing(meta).record_size)


def _tag(
    ctx: OperationContext,
    facts: HudiTableFacts,
    frame: DataFrame,
    options: Mapping[str, str],
    *,
    deletes: bool,
    use_index: bool,
) -> list[tuple[str, str | None, bool, int]]:
    """(partition, existing file id or None, is delete, records) as the index would tag them."""
    from pyspark.sql import functions as F

    configs = HudiConfigs.of(dict(options))
    keygen = key_generator_for(
        configs, table_properties=facts.table_properties, schema=frame.schema, sql=True,
        stored_keys_value_only=facts.stored_keys_value_only,
    )
    incoming = frame.select(keygen.record_key().alias("__k"), keygen.partition_path().alias("__p"))
    if use_index:
        snapshot = ctx.snapshot(facts.location)
        if facts.populate_meta_fields:
            existing = snapshot.select(
                F.col("_hoodie_record_key").alias("__k"),
                F.col("_hoodie_partition_path").alias("__p"),
                F.regexp_extract(F.col("_hoodie_file_name"), r"^\.?([^_]+)", 1).alias("__f"),
            )
        else:
            data = snapshot.drop(*[c for c in snapshot.columns if c.startswith("_hoodie_")])
            keys = key_generator_for(
                configs, table_properties=facts.table_properties, schema=data.schema, sql=True,
                stored_keys_value_only=facts.stored_keys_value_only,
            )
            existing = data.select(
                keys.record_key().alias("__k"),
                keys.partition_path().alias("__p"),
                F.lit("(unknown: no meta fields)").alias("__f"),
            )
        incoming = incoming.join(existing, ["__k", "__p"], "left")
    else:
        incoming = incoming.withColumn("__f", F.lit(None).cast("string"))
    rows = incoming.groupBy("__p", "__f").count().collect()
    return [(str(r["__p"]), r["__f"], deletes, int(r["count"])) for r in rows]


def _describe_write(
    ctx: OperationContext,
    facts: HudiTableFacts,
    operation: str,
    tagged: list[tuple[str, str | None, bool, int]],
    *,
    replaced: list[str] | None = None,
    partitions_read: frozenset[str] | None = None,
) -> str:
    meta = TableMetaClient.load(facts.location)
    view = FileSystemView(meta)
    slices = (
        {(s.partition_path, s.file_id): s for s in view.latest_file_slices()} if not view.is_empty else {}
    )
    record = _record_size(ctx, facts)
    mor = facts.table_type is TableType.MERGE_ON_READ
    updates: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    inserts: dict[str, int] = defaultdict(int)
    for partition, file_id, is_delete, count in tagged:
        if file_id:
            updates[(partition, file_id)][1 if is_delete else 0] += count
        elif not is_delete:
            inserts[partition] += count
    partitions = sorted({p for p, _ in updates} | set(inserts) | set(replaced or []))
    total_updates = sum(u for u, _ in updates.values())
    total_deletes = sum(d for _, d in updates.values())
    total_inserts = sum(inserts.values())
    lines = [
        f"== Hudi write plan: {facts.name} ({facts.table_type.value}) ==",
        f"location: {facts.location}",
        f"operation: {operation}",
        (
            f"records: {total_updates + total_inserts + total_deletes} ({total_updates} updates, "
            f"{total_inserts} inserts, {total_deletes} deletes)"
        ),
        "partitions: " + (", ".join(p or "(non-partitioned)" for p in partitions) or "(none)"),
    ]
    if partitions_read is not None:
        lines.append(f"target partitions read (pruned by the ON condition): {len(partitions_read)}")
    estimate = total_inserts * record
    if updates:
        what = "file groups to append log files to" if mor else "file groups to rewrite (copy-on-write merge)"
        lines.append(f"{what}: {len(updates)}")
        for (partition, file_id), (n_up, n_del) in sorted(updates.items()):
            file_slice = slices.get((partition, file_id))
            base = file_slice.base_file if file_slice is not None else None
            size = base.size if base is not None else 0
            estimate += (n_up + n_del) * record if mor else size + n_up * 0
            lines.append(
                f"  {partition or '(root)'}  {file_id}  base {base.file_name if base else '-'} "
                f"({_size(size)})  updates {n_up}, deletes {n_del}"
            )
    if inserts:
        lines.append(
            "new records (into small files or new file groups): "
            + ", ".join(f"{p or '(root)'}: {n}" for p, n in sorted(inserts.items()))
        )
    if replaced is not None:
        groups = [s for (p, _), s in slices.items() if p in set(replaced)]
        lines.append(
            f"file groups replaced: {len(groups)} in {len(replaced)} partition(s) "
            f"({_size(sum(s.total_size for s in groups))})"
        )
    lines.append(f"estimated bytes written: {_size(estimate)} (average record {_size(record)})")
    lines.append("EXPLAIN wrote nothing.")
    return "\n".join(lines)


def _explain_write(ctx: OperationContext, inner: st.Statement) -> str:
    if isinstance(inner, st.InsertInto):
        _, facts = ctx.hudi_table(inner.table, "EXPLAIN INSERT")
        plan = plan_insert(inner, facts, ctx.options, spark_overwrite_mode=spark_overwrite_mode(ctx))
        with bound(ctx, inner.query.table_refs) as views:
            frame = aligned_frame(ctx.spark.sql(inner.query.bind(views)), facts, inner)
            use_index = plan.operation in (WriteOperationType.UPSERT,) or plan.dup_policy != "none"
            tagged = _tag(ctx, facts, frame, plan.options, deletes=False, use_index=use_index)
            replaced = None
            if plan.operation is WriteOperationType.INSERT_OVERWRITE_TABLE:
                replaced = live_partitions(facts)
            elif plan.operation is WriteOperationType.INSERT_OVERWRITE:
                replaced = sorted({p for p, _, _, _ in tagged}.union(
                    static_partitions(facts, plan.static_partition or {}) if plan.static_partition else ()))
            return _describe_write(ctx, facts, plan.operation.value.lower(), tagged, replaced=replaced)
    upserts, deletes, facts, cleanup, pruned = _change_frames(ctx, inner)
    try:
        options = write_options(facts, ctx.options)
        tagged = []
        if upserts is not None:
            tagged += _tag(ctx, facts, upserts, options, deletes=False, use_index=True)
        if deletes is not None:
            tagged += _tag(ctx, facts, deletes, options, deletes=True, use_index=True)
        operation = "upsert" if upserts is not None else "delete"
        if upserts is not None and deletes is not None:
            operation = "upsert, then delete"
        return _describe_write(ctx, facts, operation, tagged, partitions_read=pruned)
    finally:
        cleanup()


def _change_frames(ctx: OperationContext, inner: st.Statement) -> tuple[Any, Any, HudiTableFacts, Any, Any]:
    """The DataFrames UPDATE / DELETE / MERGE would write, and a cleanup to call after."""
    from contextlib import ExitStack

    stack = ExitStack()
    pruned = None
    table = inner.target if isinstance(inner, st.MergeInto) else inner.table
    refs: tuple[st.TableRef, ...] = inner.table_refs
    _, facts = ctx.hudi_table(table, what=f"EXPLAIN {type(inner).__name__.upper()}")
    try:
        views = stack.enter_context(bound(ctx, refs))
        if isinstance(inner, st.MergeInto):
            frames = build_merge(ctx, inner, facts, views)
            stack.callback(frames.release)
            upserts, deletes, pruned = frames.upserts, frames.deletes, frames.partitions_read
        elif isinstance(inner, st.Update):
            upserts, deletes = update_frames(ctx, inner, facts, views)
        else:
            assert isinstance(inner, st.Delete)
            upserts, deletes = None, delete_frame(ctx, inner, facts, views)
    except BaseException:
        stack.close()
        raise
    return upserts, deletes, facts, stack.close, pruned


# DDL ----------------------------------------------------------------------------------------------


def _explain_ddl(ctx: OperationContext, inner: st.Statement) -> str:
    kind = type(inner).__name__
    target = getattr(inner, "name", None) or getattr(inner, "table", None)
    lines = [f"== {kind} ==", f"table: {target}" if target is not None else ""]
    if isinstance(inner, st.CreateTable):
        lines.append(f"location: {inner.location or '(managed, in the warehouse)'}")
        lines.append(f"properties: {dict(inner.properties)}")
        if inner.as_query is not None:
            lines.append("then: bulk_insert of the query")
    lines.append("EXPLAIN ran nothing.")
    return "\n".join(line for line in lines if line)
