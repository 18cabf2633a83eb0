"""SHOW CREATE TABLE, SHOW TBLPROPERTIES and DESCRIBE [EXTENDED] of a Hudi table (Spark
describes the others)."""

from __future__ import annotations

__all__ = ["describe_table", "show_create_table", "show_table_properties"]

from typing import TYPE_CHECKING

from sqlglot import exp

from catalog.dialects import CatalogSpark, identifier, string
from catalog.spark_catalog import column_definitions
from hudi_sql.spark.schema import add_meta_fields
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.spark_fallback import on_hudi_table

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


@on_hudi_table(lambda statement: statement.table)
def show_create_table(ctx: OperationContext, statement: st.ShowCreateTable, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    info = resolved.info
    assert info is not None
    columns = column_definitions(ctx.spark, facts.target_schema())
    clauses: list[exp.Expr] = [exp.FileFormatProperty(this=exp.var("hudi"))]
    if info.partition_columns:
        clauses.append(exp.PartitionedByProperty(
            this=exp.Schema(expressions=[identifier(c) for c in info.partition_columns])))
    if info.comment:
        clauses.append(exp.SchemaCommentProperty(this=string(info.comment)))
    if not info.managed:
        clauses.append(exp.LocationProperty(this=string(str(info.location))))
    clauses += [exp.Property(this=string(k), value=string(v)) for k, v in sorted(info.properties.items())]
    create = exp.Create(this=exp.Schema(this=resolved.ident.tree(), expressions=columns), kind="TABLE",
                        properties=exp.Properties(expressions=clauses))
    text = create.sql(dialect=CatalogSpark, identify=True, pretty=True)
    return ctx.rows("createtab_stmt string", [(text + "\n",)])


@on_hudi_table(lambda statement: statement.table)
def show_table_properties(
    ctx: OperationContext, statement: st.ShowTableProperties, resolved: Resolved
) -> DataFrame:
    """The catalog table's properties as Apache Hudi's Spark SQL lists them: the
    ``TBLPROPERTIES`` given at create (and by ALTER TABLE), with the short name ``type``, which
    Apache Hudi's catalog always records (``cow`` unless the table says otherwise). The
    ``hoodie.properties`` of the table are not listed (Apache Hudi 0.15 does not either); a
    key the table lacks gives Spark's "does not have property" row."""
    info = resolved.info
    assert info is not None
    properties = dict(info.properties)
    if not any(k.lower() == "type" for k in properties):
        properties["type"] = "mor" if ctx.facts(resolved).table_type.value == "MERGE_ON_READ" else "cow"
    if statement.key is None:
        rows = sorted(properties.items())
    elif statement.key in properties:
        rows = [(statement.key, properties[statement.key])]
    else:
        qualified = f"spark_catalog.{info.ident.database}.{info.ident.name}"
        rows = [(statement.key, f"Table {qualified} does not have property: {statement.key}")]
    return ctx.rows("key string, value string", rows)


@on_hudi_table(lambda statement: statement.table)
def describe_table(ctx: OperationContext, statement: st.DescribeTable, resolved: Resolved) -> DataFrame:
    facts = ctx.facts(resolved)
    info = resolved.info
    assert info is not None
    rows: list[tuple[str, str, str | None]] = []
    for field_ in add_meta_fields(facts.target_schema()).fields:
        comment = field_.metadata.get("comment") if field_.metadata else None
        rows.append((field_.name, field_.dataType.simpleString(), comment))
    if info.partition_columns:
        types = {f.name.lower(): f.dataType.simpleString() for f in facts.target_schema().fields}
        rows += [("# Partition Information", "", ""), ("# col_name", "data_type", "comment")]
        rows += [(c, types.get(c.lower(), ""), None) for c in info.partition_columns]
    if statement.extended:
        props = ", ".join(f"{k}={v}" for k, v in sorted(info.properties.items()))
        rows += [
            ("", "", ""),
            ("# Detailed Table Information", "", ""),
            ("Catalog", "spark_catalog", ""),
            ("Database", info.ident.database, ""),
            ("Table", info.ident.name, ""),
            ("Type", "MANAGED" if info.managed else "EXTERNAL", ""),
            ("Provider", "hudi", ""),
            ("Location", str(info.location), ""),
            ("Hudi Table Type", facts.table_type.value, ""),
            ("Record Key", ",".join(facts.record_key_fields), ""),
            ("Precombine Field", facts.precombine_field or "", ""),
            ("Partition Fields", ",".join(facts.partition_fields), ""),
            ("Table Properties", f"[{props}]", ""),
        ]
        if info.comment:
            rows.append(("Comment", info.comment, ""))
    return ctx.rows("col_name string, data_type string, comment string", rows)
