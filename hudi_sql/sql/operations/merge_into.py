"""MERGE INTO a Hudi table as a Spark join: which target rows change, and how.

The source and a snapshot of the target are joined on the statement's ``ON`` condition, any
condition at all (Apache Hudi 0.14 insists on the record key; a join has no such need):

* ``INNER JOIN`` when there are only ``WHEN MATCHED`` clauses;
* ``source LEFT JOIN target`` with ``WHEN NOT MATCHED`` clauses;
* ``FULL OUTER JOIN`` with ``WHEN NOT MATCHED BY SOURCE`` clauses.

Each joined row takes the first clause whose kind and condition fit (a ``CASE`` in clause
order, so the first match wins), and each target column becomes a ``CASE`` over the chosen
clause: the assigned value, the source column of the same name (``UPDATE SET *`` /
``INSERT *``), or the target's value (a partial ``UPDATE SET`` keeps the other columns).
Rows no clause takes are not written.

What is written:

* upserts: the new rows of UPDATE and INSERT clauses;
* deleted keys: the rows of DELETE clauses, and the old key of an updated row whose record key
  changed (the new row is an upsert of another key, the old one must go). A row updated into
  another partition is the index's to place: a global index moves it, under a partition-scoped
  one it is a new record there and the old row stays, as Apache Hudi (0.15 and 1.2) writes it.

When ``ON`` equates every partition column of the target with a source expression (as a
condition on the record key and partition usually does), only the target partitions the
source's rows fall in are read, the way Hudi's index lookup confines itself to the partitions
of the incoming keys. ``WHEN NOT MATCHED BY SOURCE`` needs the whole target.

A target row matched by more than one source row that a clause acts on is an error
(``MERGE_CARDINALITY_VIOLATION`` in Spark), unless the table has an ordering (preCombine)
field: then the source row with the greatest ordering value wins, as Hudi's precombine does.
The check is one Spark aggregate over the persisted changes, run before anything is written.

The ordering field orders a MERGE against the table too, as Apache Hudi's ``ExpressionPayload``
does: the incoming ordering value is the source column of the field's name, else the source
column an ``UPDATE SET`` assigns to the field; a table with an ordering field and a source that
has neither is refused (Apache Hudi: "Failed to resolve pre-combine field"). On a Copy-On-Write
table a matched row whose incoming ordering value is lower than the stored one is left as it
is, by UPDATE and DELETE clauses alike — on version 8 and later only under the merge mode
``EVENT_TIME_ORDERING`` (merging by commit time, the MERGE's row wins, as in Apache Hudi 1.2),
and under a partition-scoped index only while the row keeps its partition (moved, it is a new
record in its new partition, as Apache Hudi writes it). A Merge-On-Read table logs the change
and its readers order it against the stored record, as Apache Hudi 0.15 does; a deleted key's
record carries the source row's ordering value, so a logged record with a greater one outlives it. The upserts and
deletes of one MERGE are one commit, as in Apache Hudi.

On a Merge-On-Read table of version 8 or later, an ``UPDATE SET`` of some of the columns logs only
those (and the ordering field): a partial-update block, as Apache Hudi 1.x writes it, whose other
columns readers take from the stored record (:func:`_partial_update_schema` says when).

The join, the clause choice and the new values are built with the DataFrame API over the
source and a snapshot of the target, each aliased as the statement names it; the statement's
own expressions (``ON``, conditions, assigned values) are handed to Spark whole (``F.expr``),
so no SQL text is assembled here. What ``ON`` equates was read off its tree by the analyzer
(:attr:`~hudi_sql.sql.statements.MergeInto.on_equalities`, ``on_column_pairs``).
"""

from __future__ import annotations

__all__ = ["MAX_PRUNED_PARTITIONS", "MergeFrames", "build_merge", "merge_into", "upsert_source"]

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.config import HudiConfigs, HudiWriteConfig, IndexType, TableType
from hudi_sql.config.resolve import Resolved as ResolvedOptions
from hudi_sql.errors import HudiSqlError, did_you_mean
from hudi_sql.keygen import key_generator_for
from hudi_sql.model.payload import Payload
from hudi_sql.model.schema import RECORD_KEY_FIELD
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.binding import bound
from hudi_sql.sql.operations.columns import column
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.pipeline import writing_to
from hudi_sql.sql.operations.spark_fallback import on_hudi_table
from hudi_sql.sql.operations.writes import global_index, key_columns, write_changes
from hudi_sql.sql.planner import HudiTableFacts, write_options

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

_SRC = "__hudi_src"
_TGT = "__hudi_tgt"
_CLAUSE = "__hudi_clause"
_MATCHED = "__hudi_matched"
_DELETE = "__hudi_delete"
_UPDATE = "__hudi_update"
_MOVED = "__hudi_moved"
_INCOMING = "__hudi_incoming_ordering"
_DEFAULT_SOURCE_ALIAS = "__hudi_source"
#: Above this many source partitions the target is read whole (the filter is a Python set).
MAX_PRUNED_PARTITIONS = 10_000


def _value(index: int) -> str:
    return f"__hudi_v{index}"


def _old(index: int) -> str:
    return f"__hudi_old{index}"


def _ident(index: int) -> str:
    return f"__hudi_id{index}"


@on_hudi_table(lambda statement: statement.target)
def merge_into(ctx: OperationContext, statement: st.MergeInto, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    with writing_to(facts.location), bound(ctx, statement.table_refs) as views:
        upserts = upsert_source(ctx, statement, facts, views)
        if upserts is not None:
            # Copy-On-Write: a stored row with a higher ordering value stays (the join path's rule).
            ordered = {HudiWriteConfig.PAYLOAD_CLASS.key: Payload.DEFAULT.java_class} \
                if facts.table_type is TableType.COPY_ON_WRITE and facts.orders_against_stored else None
            return write_changes(ctx, facts, upserts, None, upsert_options=ordered)
        frames = build_merge(ctx, statement, facts, views)
        upsert_options: dict[str, str] = {}
        if facts.precombine_field is None:
            # Nothing ranks two source rows of one new key: Apache Hudi inserts them both (a matched
            # target row is refused when matched twice, above).
            upsert_options[HudiWriteConfig.COMBINE_BEFORE_UPSERT.key] = "false"
        partial = _partial_update_schema(ctx, statement, facts)
        if partial:
            upsert_options[HudiWriteConfig.PARTIAL_UPDATE_SCHEMA.key] = partial
        try:
            counts = frames.check_and_count()
            return write_changes(ctx, facts, frames.upserts, frames.deletes, known_counts=counts,
                                 one_commit=True, upsert_options=upsert_options or None)
        finally:
            frames.release()


@dataclass
class MergeFrames:
    """The changes a MERGE makes, before they are written.

    ``changes`` (persisted) holds one row per acted-on joined row; ``upserts`` and ``deletes``
    are its two halves in the table's columns (deletes: key and partition columns, and the
    ordering field when the table has one).
    """

    statement_name: str
    changes: DataFrame
    upserts: DataFrame
    deletes: DataFrame
    identity: list[str]
    dedup_by_ordering: bool
    partitions_read: frozenset[str] | None = None  # None: every partition of the target

    def check_and_count(self) -> tuple[int, int]:
        """Refuse a target row matched twice (see the module doc); (upserts, deletes) counts."""
        from pyspark.sql import functions as F

        if not self.dedup_by_ordering:
            twice = (
                self.changes.where(F.col(_MATCHED))
                .groupBy(*self.identity)
                .count()
                .where(F.col("count") > 1)
                .limit(1)
                .collect()
            )
            if twice:
                key = ", ".join(str(twice[0][c]) for c in self.identity)
                raise HudiSqlError(
                    f"{self.statement_name}: a target row (key {key}) is matched by more than one "
                    "source row.",
                    help="make the source unique per target row (e.g. aggregate or filter it), or give the "
                    "table a preCombineField so that the greatest ordering value wins",
                )
        counts = self.changes.groupBy(F.col(_DELETE)).count().collect()
        by_flag = {bool(r[_DELETE]): int(r["count"]) for r in counts}
        moved = self.changes.where(F.col(_UPDATE) & F.col(_MOVED)).limit(1).count()
        return by_flag.get(False, 0), by_flag.get(True, 0) + moved

    def release(self) -> None:
        self.changes.unpersist()


def build_merge(
    ctx: OperationContext, statement: st.MergeInto, facts: HudiTableFacts, views: Mapping[str, str]
) -> MergeFrames:
    """The joined changes of *statement* against a fresh snapshot of *facts*' table.

    Args:
        views: placeholder -> view of the statement's table references (already bound).
    """
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    where = f"MERGE INTO {facts.name}"
    refs = statement.table_refs
    target_alias = statement.target_alias or facts.name
    source_alias = statement.source_alias or _DEFAULT_SOURCE_ALIAS
    fields = facts.target_schema().fields
    lowered = {f.name.lower(): i for i, f in enumerate(fields)}

    def expr(sql: st.SparkSql) -> Column:
        return F.expr(sql.bind(refs, views))

    source_df = ctx.spark.sql(statement.source.bind(views))
    source_columns = {c.lower(): c for c in source_df.columns}
    ordering = facts.precombine_field if facts.precombine_field and facts.precombine_field.lower() in lowered \
        else None  # the table's ordering field, when its schema has it
    incoming_ordering = _incoming_ordering(statement, ordering, source_columns, where)
    kinds = {c.kind for c in statement.clauses}
    partitions = None
    if facts.partition_fields and st.MergeClauseKind.NOT_MATCHED_BY_SOURCE not in kinds:
        partitions = _source_partitions(ctx, facts, dict(statement.on_equalities), source_df, source_alias, expr)
    snapshot = ctx.snapshot(facts.location, partitions=partitions)

    if st.MergeClauseKind.NOT_MATCHED_BY_SOURCE in kinds:
        how = "full_outer"
    elif st.MergeClauseKind.NOT_MATCHED in kinds:
        how = "left_outer"
    else:
        how = "inner"
    source = source_df.withColumn(_SRC, F.lit(True)).alias(source_alias)
    target = snapshot.withColumn(_TGT, F.lit(True)).alias(target_alias)
    source_present = column(_SRC, source_alias).isNotNull()
    target_present = column(_TGT, target_alias).isNotNull()
    matched = source_present & target_present
    kind_predicate = {
        st.MergeClauseKind.MATCHED: matched,
        st.MergeClauseKind.NOT_MATCHED: ~target_present,
        st.MergeClauseKind.NOT_MATCHED_BY_SOURCE: ~source_present,
    }

    def source_column(wanted: str, clause: str) -> Column:
        found = source_columns.get(wanted.lower())
        if found is None:
            raise HudiSqlError(
                f"{where}: {clause} needs a source column '{wanted}' for target column '{wanted}'."
                f"{did_you_mean(wanted, list(source_df.columns))}",
                help="name the columns: UPDATE SET col = expr / INSERT (cols) VALUES (exprs)",
            )
        return column(found, source_alias)

    # The first clause whose kind and condition fit; per clause: column index -> new value.
    chosen: Column | None = None
    clause_values: list[dict[int, Column]] = []
    for index, clause in enumerate(statement.clauses):
        fits = kind_predicate[clause.kind]
        if clause.condition:
            fits = fits & expr(clause.condition)
        chosen = F.when(fits, F.lit(index)) if chosen is None else chosen.when(fits, F.lit(index))
        values: dict[int, Column] = {}
        if clause.action is st.MergeAction.DELETE:
            pass
        elif clause.is_star:
            what = "UPDATE SET *" if clause.action is st.MergeAction.UPDATE else "INSERT *"
            for i, field_ in enumerate(fields):
                values[i] = source_column(field_.name, what)
        else:
            assert not isinstance(clause.assignments, st.Star)
            for assignment in clause.assignments:
                target_column = facts.column(assignment.column, where)
                values[lowered[target_column.lower()]] = expr(assignment.value)
        clause_values.append(values)
    assert chosen is not None  # the analyzer requires a WHEN clause

    clause_index = F.col(_CLAUSE)
    delete_clauses = [i for i, c in enumerate(statement.clauses) if c.action is st.MergeAction.DELETE]
    update_clauses = [i for i, c in enumerate(statement.clauses) if c.action is st.MergeAction.UPDATE]
    select: list[Column] = [clause_index]
    new_values: dict[int, Column] = {}
    for i, field_ in enumerate(fields):
        old = column(field_.name, target_alias)
        new: Column | None = None
        for index, values in enumerate(clause_values):
            if i in values:
                taken = clause_index == index
                cast = values[i].cast(field_.dataType)
                new = F.when(taken, cast) if new is None else new.when(taken, cast)
        new_values[i] = new.otherwise(old) if new is not None else old
        select.append(new_values[i].alias(_value(i)))
    key_indexes = [lowered[c.lower()] for c in key_columns(facts)]
    select += [column(fields[i].name, target_alias).alias(_old(i)) for i in key_indexes]
    if facts.populate_meta_fields:
        identity_columns = [
            column("_hoodie_record_key", target_alias), column("_hoodie_partition_path", target_alias)
        ]
    else:
        identity_columns = [column(fields[i].name, target_alias) for i in key_indexes]
    identity = [_ident(j) for j in range(len(identity_columns))]
    select += [c.alias(a) for c, a in zip(identity_columns, identity, strict=True)]
    select.append(matched.alias(_MATCHED))
    select.append((clause_index.isin(delete_clauses) if delete_clauses else F.lit(False)).alias(_DELETE))
    select.append(
        (clause_index.isin(update_clauses) & target_present if update_clauses else F.lit(False)).alias(_UPDATE)
    )
    ordering_of_deletes = fields[lowered[ordering.lower()]] \
        if ordering is not None and incoming_ordering is not None and ordering.lower() in lowered else None
    if ordering_of_deletes is not None:
        # a deleted key carries the source row's ordering value, as Apache Hudi's delete record does
        select.append(column(incoming_ordering, source_alias).cast(ordering_of_deletes.dataType).alias(_INCOMING))
    acted = clause_index.isNotNull()
    if (ordering is not None and incoming_ordering is not None and facts.table_type is TableType.COPY_ON_WRITE
            and facts.orders_against_stored):
        stored = column(fields[lowered[ordering.lower()]].name, target_alias)
        late = matched & (column(incoming_ordering, source_alias) < stored)
        if not global_index(facts, ctx.options):
            # A partition-scoped index makes a row moved to another partition a new record there,
            # written whatever the stored row's ordering value (the stored row stays), as Apache Hudi does.
            for name in facts.partition_fields:
                if name.lower() in lowered:
                    i = lowered[name.lower()]
                    late = late & new_values[i].eqNullSafe(column(fields[i].name, target_alias))
        # A matched row whose incoming ordering value is lower than the stored one is not changed.
        acted = acted & ~F.coalesce(late, F.lit(False))
    joined = (
        source.join(target, expr(statement.on), how)
        .withColumn(_CLAUSE, chosen)
        .where(acted)
        .select(*select)
    )
    # The old row goes when the record key changed. A partition change is the index's to handle: a
    # global index moves the key (the write deletes it from its old partition; a delete of the key
    # here would delete the moved row too), a partition-scoped one makes the row a new record in
    # its new partition and the old one stays, as Apache Hudi writes it.
    # (Generated keys travel with the row, so there a partition change still removes the old row.)
    identity_indexes = sorted({lowered[k.split(".")[0].lower()] for k in facts.record_key_fields
                               if k.split(".")[0].lower() in lowered}) if facts.record_key_fields else key_indexes
    moved_condition = functools.reduce(
        lambda a, b: a | b,
        [~F.col(_value(i)).eqNullSafe(F.col(_old(i))) for i in identity_indexes],
        F.lit(False),
    )
    joined = joined.withColumn(_MOVED, moved_condition)

    dedup = ordering is not None
    if ordering is not None:
        order_value = F.col(_value(lowered[ordering.lower()]))
        window = Window.partitionBy(*identity).orderBy(order_value.desc_nulls_last())
        ranked = joined.withColumn(
            "__hudi_rank", F.when(F.col(_MATCHED), F.row_number().over(window)).otherwise(F.lit(1))
        )
        joined = ranked.where(F.col("__hudi_rank") == 1).drop("__hudi_rank")
    changes = joined.persist(StorageLevel.MEMORY_AND_DISK)

    table_columns = [F.col(_value(i)).alias(f.name) for i, f in enumerate(fields)]
    # Generated keys (no record key fields) are kept: the target row's stored key, NULL for an insert.
    stored = [] if facts.record_key_fields else [F.col(identity[0]).alias(RECORD_KEY_FIELD)]
    upserts = changes.where(~F.col(_DELETE)).select(*table_columns, *stored)
    key_names = [fields[i].name for i in key_indexes] + [RECORD_KEY_FIELD] * len(stored)
    # Deleted keys carry an ordering value when the table orders records: the source row's for a
    # DELETE clause (a newer stored record keeps it), none for the old home of a moved row (it goes).
    ordered = [] if ordering_of_deletes is None or ordering_of_deletes.name in key_names else [ordering_of_deletes]
    deleted = changes.where(F.col(_DELETE)).select(
        *[F.col(_value(i)).alias(fields[i].name) for i in key_indexes],
        *[F.col(_INCOMING).alias(f.name) for f in ordered], *stored
    )
    moved = changes.where(F.col(_UPDATE) & F.col(_MOVED)).select(
        *[F.col(_old(i)).alias(fields[i].name) for i in key_indexes],
        *[F.lit(None).cast(f.dataType).alias(f.name) for f in ordered], *stored
    )
    deletes = deleted.unionByName(moved).select(*key_names, *[f.name for f in ordered])
    return MergeFrames(where, changes, upserts, deletes, identity, dedup, partitions)


def _partial_update_schema(ctx: OperationContext, statement: st.MergeInto, facts: HudiTableFacts) -> str | None:
    """The Avro schema of the columns the MERGE's updates log, when it writes partial updates; None
    for whole records.

    As Apache Hudi 1.x (``MergeIntoHoodieTableCommand``): a Merge-On-Read table of version 8 or
    later, ``hoodie.spark.sql.merge.into.partial.updates`` on, ``UPDATE SET`` clauses that together
    assign some but not all of the columns, a partition-scoped index, a built-in merge mode, no
    partial-update mode, meta fields (the record key of a partial record is its
    ``_hoodie_record_key``), no bootstrap source. The ordering field is written too, so readers order
    the update against the stored record by it. Whole records also when an insert of this MERGE could
    be logged beside the updates (a bucket index appends inserts to its file groups' logs; an ``ON``
    not on the record key may insert a stored key; an ``UPDATE SET`` of a key or partition column
    makes the row an insert of another key or partition), since an insert needs all its columns.
    """
    from pyspark.sql.types import StructType

    options = ResolvedOptions.of(write_options(facts, ctx.options))
    table = facts.table_config
    if (facts.table_type is not TableType.MERGE_ON_READ or facts.table_version < 8
            or not options.write.merge_into_partial_updates or not facts.populate_meta_fields
            or table.bootstrap_base_path):
        return None
    if table.record_merge_mode == "CUSTOM" or table.partial_update_mode != "NONE":
        return None
    updates = [c for c in statement.clauses if c.action is st.MergeAction.UPDATE]
    if not updates or any(c.is_star for c in updates):
        return None
    index = options.index.index_type
    if index.is_global:
        return None
    inserts = any(c.action is st.MergeAction.INSERT for c in statement.clauses)
    keys = {k.lower() for k in facts.record_key_fields}
    on_keys = {column_.lower() for column_, _ in statement.on_equalities}
    if inserts and (index is IndexType.BUCKET or not keys or not keys <= on_keys):
        return None
    fields = facts.target_schema().fields
    where = f"MERGE INTO {facts.name}"
    assigned = {facts.column(a.column, where).lower()
                for c in updates if not isinstance(c.assignments, st.Star) for a in c.assignments}
    if assigned & {name.lower() for name in (*facts.record_key_fields, *facts.partition_fields)}:
        return None  # a row given another key or partition is an insert there, with all its columns
    if facts.precombine_field:
        assigned.add(facts.precombine_field.lower())
    written = [f for f in fields if f.name.lower() in assigned]
    if len(written) == len(fields):
        return None
    return avro_schema_json(StructType(written), facts.name, with_meta_fields=False)


def _incoming_ordering(statement: st.MergeInto, ordering: str | None, source_columns: Mapping[str, str],
                       name: str) -> str | None:
    """The source column holding each row's incoming ordering value (None: the table has no
    *ordering* field): the source column of the field's name, else a source column an ``UPDATE
    SET`` assigns to the field (:attr:`~hudi_sql.sql.statements.MergeInto.update_source_columns`),
    as Apache Hudi resolves it.

    Raises:
        HudiSqlError: the table has an ordering field and the source provides neither.
    """
    if ordering is None:
        return None
    assigned = (source_columns.get(value) for column_, value in statement.update_source_columns
                if column_ == ordering.lower())
    found = source_columns.get(ordering.lower()) or next((c for c in assigned if c is not None), None)
    if found is None:
        raise HudiSqlError(
            f"{name}: failed to resolve pre-combine field `{ordering}` w/in the source-table output.",
            help=f"give the source a column '{ordering}' (or assign one of its columns to it in UPDATE SET): "
            "a MERGE orders incoming rows against stored ones by it",
        )
    return found


def _source_partitions(
    ctx: OperationContext,
    facts: HudiTableFacts,
    equated: Mapping[str, st.SparkSql],
    source_df: DataFrame,
    source_alias: str,
    expr: Callable[[st.SparkSql], Column],
) -> frozenset[str] | None:
    """The partitions of the target the source can match, when ``ON`` equates every partition
    column with a source expression (else ``None``: read every partition).

    The source's values of those expressions go through the table's key generator, so they
    become partition paths exactly as the write would form them.
    """
    from pyspark.sql import functions as F

    if not all(p.lower() in equated for p in facts.partition_fields):
        return None
    types = {f.name.lower(): f.dataType for f in facts.target_schema().fields}
    if not all(p.lower() in types for p in facts.partition_fields):
        return None
    columns = [expr(equated[p.lower()]).cast(types[p.lower()]).alias(p) for p in facts.partition_fields]
    columns += [
        F.lit(None).cast("string").alias(k)
        for k in facts.record_key_fields
        if k.lower() not in {p.lower() for p in facts.partition_fields}
    ]
    values = source_df.alias(source_alias).select(*columns).distinct()
    keygen = key_generator_for(
        HudiConfigs.of(write_options(facts, ctx.options)),
        table_properties=facts.table_properties,
        schema=values.schema,
        sql=True,
    )
    paths = (
        values.select(keygen.partition_path().alias("p"))
        .distinct()
        .limit(MAX_PRUNED_PARTITIONS + 1)
        .collect()
    )
    if len(paths) > MAX_PRUNED_PARTITIONS:
        return None
    return frozenset(str(r["p"]) for r in paths if r["p"] is not None)


def upsert_source(
    ctx: OperationContext, statement: st.MergeInto, facts: HudiTableFacts, views: Mapping[str, str]
) -> DataFrame | None:
    """The MERGE's source shaped as the table's rows, when the statement *is* an upsert of it;
    None when it needs the join (:func:`build_merge`).

    ``MERGE INTO t USING s ON <keys> WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN
    INSERT *`` writes every source row over the target row of its key, or as a new row: what
    an upsert does, with the index finding the matches. That is how Apache Hudi runs MERGE
    INTO, and it spares reading and joining the target. It holds when:

    * the clauses are exactly those two, with no conditions (without the INSERT clause
      unmatched source rows are dropped, which an upsert would not do);
    * ``ON`` is only equalities ``t.c = s.c`` (same name) of every record key column and, for a
      partitioned table without a global index, every partition column, so "matched" means
      "same key in the same partition", as the index sees it;
    * the table orders records (a precombine field), so two source rows of one key are combined
      by it, as the join path ranks them;
    * the source has every target column with the target's type.
    """
    upsert = {(st.MergeClauseKind.MATCHED, st.MergeAction.UPDATE),
              (st.MergeClauseKind.NOT_MATCHED, st.MergeAction.INSERT)}
    clauses = {(c.kind, c.action) for c in statement.clauses}
    if len(statement.clauses) != 2 or clauses != upsert or any(
        c.condition or not c.is_star for c in statement.clauses
    ):
        return None
    fields = facts.target_schema().fields
    names = {f.name.lower() for f in fields}
    ordering = facts.precombine_field
    if ordering is None or ordering.lower() not in names or not facts.record_key_fields:
        return None  # generated keys: matches come from the join, which keeps the stored keys
    keys = [k.lower() for k in facts.record_key_fields]
    if facts.partition_fields:
        if global_index(facts, ctx.options):
            return None
        keys += [p.lower() for p in facts.partition_fields]
    found = statement.on_column_pairs
    pairs = dict(found) if found is not None else None
    if pairs is None or set(pairs) != set(keys) or any(pairs[k] != k for k in keys):
        return None
    source = ctx.spark.sql(statement.source.bind(views))
    types = {f.name.lower(): (f.name, f.dataType) for f in source.schema.fields}
    if any(f.name.lower() not in types or types[f.name.lower()][1] != f.dataType for f in fields):
        return None
    return source.select(*[source[types[f.name.lower()][0]].alias(f.name) for f in fields])
