"""MERGE INTO as Spark joins: which target rows change, and how.

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
  or partition changed (the new row is an upsert elsewhere, the old one must go).

When ``ON`` equates every partition column of the target with a source expression (as a
condition on the record key and partition usually does), only the target partitions the
source's rows fall in are read, the way Hudi's index lookup confines itself to the partitions
of the incoming keys. ``WHEN NOT MATCHED BY SOURCE`` needs the whole target.

A target row matched by more than one source row that a clause acts on is an error
(``MERGE_CARDINALITY_VIOLATION`` in Spark), unless the table has an ordering (preCombine)
field: then the source row with the greatest ordering value wins, as Hudi's precombine does.
The check is one Spark aggregate over the persisted changes, run before anything is written.
"""

from __future__ import annotations

__all__ = ["MergeFrames", "build_merge", "upsert_source"]

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from catalog.base import quote_identifier
from hudi_sql.errors import HudiSqlError, did_you_mean
from hudi_sql.sql import statements as st
from hudi_sql.sql.planner import HudiTableFacts, column_equalities, equi_join_columns, write_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from hudi_sql.sql.runner import Runner

_SRC = "__hudi_src"
_TGT = "__hudi_tgt"
_CLAUSE = "__hudi_clause"
_MATCHED = "__hudi_matched"
_DELETE = "__hudi_delete"
_UPDATE = "__hudi_update"


def _q(name: str) -> str:
    return quote_identifier(name)


def _value(index: int) -> str:
    return f"__hudi_v{index}"


def _old(index: int) -> str:
    return f"__hudi_old{index}"


def _ident(index: int) -> str:
    return f"__hudi_id{index}"


@dataclass
class MergeFrames:
    """The changes a MERGE makes, before they are written.

    ``changes`` (persisted) holds one row per acted-on joined row; ``upserts`` and ``deletes``
    are its two halves in the table's columns (deletes: key and partition columns only).
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
        moved = self.changes.where(F.col(_UPDATE) & F.col("__hudi_moved")).limit(1).count()
        return by_flag.get(False, 0), by_flag.get(True, 0) + moved

    def release(self) -> None:
        self.changes.unpersist()


def build_merge(
    runner: Runner,
    statement: st.MergeInto,
    facts: HudiTableFacts,
    views: Mapping[str, str],
    created: list[str],
) -> MergeFrames:
    """The joined changes of *statement* against a fresh snapshot of *facts*' table.

    Args:
        views: placeholder -> view of the statement's table references (already bound).
        created: temp views made here are appended, for the caller to drop.
    """
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    spark = runner.spark
    name = f"MERGE INTO {facts.name}"
    refs = statement.table_refs
    target_alias = statement.target_alias or facts.name
    source_alias = statement.source_alias or "__hudi_source"
    t, s = _q(target_alias), _q(source_alias)
    fields = facts.target_schema().fields
    lowered = {f.name.lower(): i for i, f in enumerate(fields)}

    source_df = spark.sql(statement.source.bind(views))
    source_columns = {c.lower(): c for c in source_df.columns}
    source_view = runner.register_view(source_df, "hudi_merge_source")
    created.append(source_view)
    kinds = {c.kind for c in statement.clauses}
    partitions = None
    if facts.partition_fields and st.MergeClauseKind.NOT_MATCHED_BY_SOURCE not in kinds:
        partitions = _source_partitions(
            runner,
            facts,
            equi_join_columns(statement.on, target_alias, source_alias),
            source_view,
            s,
            refs,
            views,
        )
    snapshot = runner.snapshot(facts.location, partitions=partitions)
    target_view = runner.register_view(snapshot, "hudi_merge_target")
    created.append(target_view)

    if st.MergeClauseKind.NOT_MATCHED_BY_SOURCE in kinds:
        join = "FULL OUTER JOIN"
    elif st.MergeClauseKind.NOT_MATCHED in kinds:
        join = "LEFT OUTER JOIN"
    else:
        join = "INNER JOIN"
    matched = f"({s}.{_SRC} IS NOT NULL AND {t}.{_TGT} IS NOT NULL)"
    kind_predicate = {
        st.MergeClauseKind.MATCHED: matched,
        st.MergeClauseKind.NOT_MATCHED: f"({t}.{_TGT} IS NULL)",
        st.MergeClauseKind.NOT_MATCHED_BY_SOURCE: f"({s}.{_SRC} IS NULL)",
    }

    def bound(text: str) -> str:
        return st.bind(text, refs, views)

    def source_column(column: str, clause: str) -> str:
        found = source_columns.get(column.lower())
        if found is None:
            raise HudiSqlError(
                f"{name}: {clause} needs a source column '{column}' for target column '{column}'."
                f"{did_you_mean(column, list(source_df.columns))}",
                help="name the columns: UPDATE SET col = expr / INSERT (cols) VALUES (exprs)",
            )
        return f"{s}.{_q(found)}"

    # Per clause: column index -> value SQL.
    clause_values: list[dict[int, str]] = []
    cases = []
    for index, clause in enumerate(statement.clauses):
        condition = f" AND ({bound(clause.condition)})" if clause.condition else ""
        cases.append(f"WHEN {kind_predicate[clause.kind]}{condition} THEN {index}")
        values: dict[int, str] = {}
        if clause.action is st.MergeAction.DELETE:
            pass
        elif clause.is_star:
            what = "UPDATE SET *" if clause.action is st.MergeAction.UPDATE else "INSERT *"
            for i, field_ in enumerate(fields):
                values[i] = source_column(field_.name, what)
        else:
            assert not isinstance(clause.assignments, st.Star)
            for assignment in clause.assignments:
                column = facts.column(assignment.column, name)
                values[lowered[column.lower()]] = f"({bound(assignment.value)})"
        clause_values.append(values)

    delete_clauses = [i for i, c in enumerate(statement.clauses) if c.action is st.MergeAction.DELETE]
    update_clauses = [i for i, c in enumerate(statement.clauses) if c.action is st.MergeAction.UPDATE]
    select = [f"CASE {' '.join(cases)} END AS {_CLAUSE}"]
    for i, field_ in enumerate(fields):
        branches = [
            f"WHEN {index} THEN CAST({values[i]} AS {field_.dataType.simpleString()})"
            for index, values in enumerate(clause_values)
            if i in values
        ]
        old = f"{t}.{_q(field_.name)}"
        select.append(
            f"CASE {_CLAUSE} {' '.join(branches)} ELSE {old} END AS {_value(i)}"
            if branches
            else f"{old} AS {_value(i)}"
        )
    key_columns = [lowered[c.lower()] for c in _key_and_partition_columns(facts)]
    for i in key_columns:
        select.append(f"{t}.{_q(fields[i].name)} AS {_old(i)}")
    if facts.populate_meta_fields:
        identity_sql = [f"{t}._hoodie_record_key", f"{t}._hoodie_partition_path"]
    else:
        identity_sql = [f"{t}.{_q(fields[i].name)}" for i in key_columns]
    identity = [_ident(j) for j in range(len(identity_sql))]
    select += [f"{expr} AS {alias}" for expr, alias in zip(identity_sql, identity, strict=True)]
    select.append(f"{matched} AS {_MATCHED}")
    select.append(
        f"{_CLAUSE} IN ({', '.join(map(str, delete_clauses))}) AS {_DELETE}"
        if delete_clauses
        else f"false AS {_DELETE}"
    )
    select.append(
        f"({_CLAUSE} IN ({', '.join(map(str, update_clauses))}) AND {t}.{_TGT} IS NOT NULL) AS {_UPDATE}"
        if update_clauses
        else f"false AS {_UPDATE}"
    )
    sql = (
        f"SELECT {', '.join(select)} FROM (SELECT *, true AS {_SRC} FROM {source_view}) AS {s} "
        f"{join} (SELECT *, true AS {_TGT} FROM {target_view}) AS {t} ON ({bound(statement.on)})"
    )
    joined = spark.sql(sql).where(F.col(_CLAUSE).isNotNull())
    moved_condition = F.lit(False)
    for i in key_columns:
        moved_condition = moved_condition | ~F.col(_value(i)).eqNullSafe(F.col(_old(i)))
    joined = joined.withColumn("__hudi_moved", moved_condition)

    ordering = facts.precombine_field
    dedup = ordering is not None and ordering.lower() in lowered
    if dedup:
        assert ordering is not None
        order_value = F.col(_value(lowered[ordering.lower()]))
        window = Window.partitionBy(*identity).orderBy(order_value.desc_nulls_last())
        ranked = joined.withColumn(
            "__hudi_rank", F.when(F.col(_MATCHED), F.row_number().over(window)).otherwise(F.lit(1))
        )
        joined = ranked.where(F.col("__hudi_rank") == 1).drop("__hudi_rank")
    changes = joined.persist(StorageLevel.MEMORY_AND_DISK)

    table_columns = [F.col(_value(i)).alias(f.name) for i, f in enumerate(fields)]
    upserts = changes.where(~F.col(_DELETE)).select(*table_columns)
    key_names = [fields[i].name for i in key_columns]
    deleted = changes.where(F.col(_DELETE)).select(
        *[F.col(_value(i)).alias(fields[i].name) for i in key_columns]
    )
    moved = changes.where(F.col(_UPDATE) & F.col("__hudi_moved")).select(
        *[F.col(_old(i)).alias(fields[i].name) for i in key_columns]
    )
    deletes = deleted.unionByName(moved).select(*key_names)
    return MergeFrames(name, changes, upserts, deletes, identity, dedup, partitions)


#: Above this many source partitions the target is read whole (the filter is a Python set).
MAX_PRUNED_PARTITIONS = 10_000


def _source_partitions(
    runner: Runner,
    facts: HudiTableFacts,
    equated: Mapping[str, str],
    source_view: str,
    source_alias_sql: str,
    refs: tuple[st.TableRef, ...],
    views: Mapping[str, str],
) -> frozenset[str] | None:
    """The partitions of the target the source can match, when ``ON`` equates every partition
    column with a source expression (else ``None``: read every partition).

    The source's values of those expressions go through the table's key generator, so they
    become partition paths exactly as the write would form them.
    """
    from hudi_sql.config import HudiConfigs
    from hudi_sql.keygen import key_generator_for

    if not all(p.lower() in equated for p in facts.partition_fields):
        return None
    types = {f.name.lower(): f.dataType.simpleString() for f in facts.target_schema().fields}
    if not all(p.lower() in types for p in facts.partition_fields):
        return None
    columns = [
        f"CAST({st.bind(equated[p.lower()], refs, views)} AS {types[p.lower()]}) AS {_q(p)}"
        for p in facts.partition_fields
    ]
    columns += [
        f"CAST(NULL AS STRING) AS {_q(k)}"
        for k in facts.record_key_fields
        if k.lower() not in {p.lower() for p in facts.partition_fields}
    ]
    values = runner.spark.sql(
        f"SELECT DISTINCT {', '.join(columns)} FROM {source_view} AS {source_alias_sql}"
    )
    keygen = key_generator_for(
        HudiConfigs.of(write_options(facts, runner.options)),
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


def _key_and_partition_columns(facts: HudiTableFacts) -> list[str]:
    names = {f.name.lower(): f.name for f in facts.target_schema().fields}
    out: list[str] = []
    for column in (*facts.record_key_fields, *facts.partition_fields):
        found = names.get(column.split(".")[0].lower())
        if found is not None and found not in out:
            out.append(found)
    return out


def upsert_source(
    runner: Runner, statement: st.MergeInto, facts: HudiTableFacts, views: Mapping[str, str]
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
    from hudi_sql.config import HudiConfigs, HudiWriteConfig

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
    if ordering is None or ordering.lower() not in names:
        return None
    keys = [k.lower() for k in facts.record_key_fields]
    if facts.partition_fields:
        index = HudiConfigs.of(write_options(facts, runner.options)).get(HudiWriteConfig.INDEX_TYPE)
        if index.is_global:
            return None
        keys += [p.lower() for p in facts.partition_fields]
    pairs = column_equalities(statement.on, statement.target_alias or facts.name,
                              statement.source_alias or "__hudi_source")
    if pairs is None or set(pairs) != set(keys) or any(pairs[k] != k for k in keys):
        return None
    source = runner.spark.sql(statement.source.bind(views))
    types = {f.name.lower(): (f.name, f.dataType) for f in source.schema.fields}
    if any(f.name.lower() not in types or types[f.name.lower()][1] != f.dataType for f in fields):
        return None
    return source.select(*[source[types[f.name.lower()][0]].alias(f.name) for f in fields])
