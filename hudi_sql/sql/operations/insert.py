"""INSERT INTO / INSERT OVERWRITE into a Hudi table.

The query's rows become the table's columns as Spark's INSERT maps them (by position or by the
column list, static partition values filled in, cast to the table's types), and are written
with the operation :func:`~hudi_sql.sql.insert_planner.plan_insert` chose. Under ``dup.policy=fail``
(and the strict insert mode of older scripts) existing keys are looked for before anything is
written.
"""

from __future__ import annotations

__all__ = ["aligned_frame", "insert_into", "spark_overwrite_mode", "static_partitions"]

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hudi_sql.config import HudiConfigs, HudiWriteConfig
from hudi_sql.errors import HudiSqlError
from hudi_sql.keygen import key_generator_for
from hudi_sql.sql import statements as st
from hudi_sql.sql.insert_planner import align_insert, plan_insert
from hudi_sql.sql.operations.binding import bound
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.partitions import decoded_partition, live_partitions
from hudi_sql.sql.operations.pipeline import writing_to
from hudi_sql.sql.operations.spark_fallback import on_hudi_table
from hudi_sql.sql.operations.writes import drop_meta_columns, write_frame
from hudi_sql.sql.planner import HudiTableFacts, spec_matches

if TYPE_CHECKING:
    from pyspark.sql import DataFrame



def aligned_frame(source: DataFrame, facts: HudiTableFacts, statement: st.InsertInto) -> DataFrame:
    """The query's rows as the table's columns (see :func:`~hudi_sql.sql.insert_planner.align_insert`),
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



def _can_cast(df: DataFrame, source: Any, target: Any) -> bool:
    """Whether Spark's CAST accepts *source* to *target* (``Cast.canAnsiCast`` in ANSI mode)."""
    session = df.sparkSession
    parse = session._jsparkSession.parseDataType
    cast = session._jvm.org.apache.spark.sql.catalyst.expressions.Cast
    ansi = str(session.conf.get("spark.sql.ansi.enabled", "true")).lower() == "true"
    check = cast.canAnsiCast if ansi else cast.canCast
    return bool(check(parse(source.json()), parse(target.json())))


def _require_new_keys(
    ctx: OperationContext, facts: HudiTableFacts, frame: DataFrame, options: Mapping[str, str], refused_by: str
) -> None:
    """``dup.policy=fail`` (or the strict insert mode): refuse the INSERT if any incoming key
    exists, before anything is written; *refused_by* names the setting that asked for it."""
    from pyspark.sql import functions as F

    configs = HudiConfigs.of(dict(options))
    incoming_keys = key_generator_for(
        configs, table_properties=facts.table_properties, schema=frame.schema, sql=True,
        stored_keys_value_only=facts.stored_keys_value_only,
    )
    incoming = frame.select(
        incoming_keys.record_key().alias("__k"), incoming_keys.partition_path().alias("__p")
    )
    snapshot = ctx.snapshot(facts.location)
    if facts.populate_meta_fields:
        existing = snapshot.select(
            F.col("_hoodie_record_key").alias("__k"), F.col("_hoodie_partition_path").alias("__p")
        )
    else:
        data = snapshot.drop(*[c for c in snapshot.columns if c.startswith("_hoodie_")])
        keys = key_generator_for(
            configs, table_properties=facts.table_properties, schema=data.schema, sql=True,
            stored_keys_value_only=facts.stored_keys_value_only,
        )
        existing = data.select(keys.record_key().alias("__k"), keys.partition_path().alias("__p"))
    hit = incoming.join(existing, ["__k", "__p"], "left_semi").limit(1).collect()
    if hit:
        raise HudiSqlError(
            f"Duplicate key found for insert statement, key is: {hit[0]['__k']}",
            help=f"{refused_by} refuses existing keys; "
            f"{HudiWriteConfig.INSERT_DUP_POLICY.key}=drop skips them, an upsert updates them",
        )


@on_hudi_table(lambda statement: statement.table)
def insert_into(ctx: OperationContext, statement: st.InsertInto, resolved: Resolved) -> DataFrame:
    refs = statement.query.table_refs
    facts = ctx.facts(resolved)
    plan = plan_insert(statement, facts, ctx.options, spark_overwrite_mode=spark_overwrite_mode(ctx))
    options = dict(plan.options)
    if plan.static_partition is not None:
        options[HudiWriteConfig.STATIC_OVERWRITE_PARTITIONS.key] = ",".join(
            static_partitions(facts, plan.static_partition))
    with writing_to(facts.location), bound(ctx, refs) as views:
        source = ctx.spark.sql(statement.query.bind(views))
        frame = aligned_frame(source, facts, statement)
        if plan.refused_by:
            _require_new_keys(ctx, facts, frame, options, plan.refused_by)
        result = write_frame(ctx, facts, frame, options)
    if plan.operation.is_overwrite:
        return ctx.metrics(result, affected=result.num_inserted)
    return ctx.metrics(result)


def spark_overwrite_mode(ctx: OperationContext) -> str:
    """Spark's ``spark.sql.sources.partitionOverwriteMode`` (``static`` unless set)."""
    return str(ctx.spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static"))


def static_partitions(facts: HudiTableFacts, static: Mapping[str, str]) -> list[str]:
    """The existing partitions a static ``PARTITION (a = 'x'[, b])`` overwrite replaces: every
    one whose values match the static ones (``a=x/*``), as Apache Hudi's static overwrite does."""
    spec = [st.PartitionValue(k, v, v) for k, v in static.items()]
    return [p for p in live_partitions(facts) if spec_matches(decoded_partition(facts, p), spec)]
