"""The analyzer's DDL: CREATE / DROP / ALTER / TRUNCATE TABLE, DESCRIBE, SHOW PARTITIONS and
SHOW CREATE TABLE. Statements on other providers (and other kinds) pass through to Spark."""

from __future__ import annotations

__all__ = [
    "analyze_alter",
    "analyze_create",
    "analyze_describe",
    "analyze_drop",
    "analyze_show_create_table",
    "analyze_show_partitions",
    "analyze_show_tblproperties",
    "analyze_truncate",
]

import re

from sqlglot import exp

from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.refs import (
    Context,
    passthrough,
    query_of,
    statement_sql,
    string_value,
    table_name,
    targets_of,
    to_sql,
)
from hudi_sql.sql.analyzer.values import column_defs, partition_spec_of, properties_of

_HUDI_PROVIDERS = ("hudi", "org.apache.hudi")


def _is_hudi_create(tree: exp.Create) -> bool:
    properties = tree.args.get("properties")
    return isinstance(properties, exp.Properties) and any(
        isinstance(p, exp.FileFormatProperty) and p.name.lower() in _HUDI_PROVIDERS
        for p in properties.expressions
    )


def analyze_create(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Create)
    if (tree.kind or "").upper() == "VIEW" and not _is_temporary(tree):
        return _analyze_create_view(ctx, tree)
    if not _is_hudi_create(tree):
        return passthrough(ctx, tree, kind=f"CREATE {tree.kind or ''}".strip(), targets=targets_of(tree))
    if tree.args.get("replace"):
        raise UnsupportedFeatureError("not supported: CREATE OR REPLACE TABLE ... USING hudi")
    if (tree.kind or "").upper() != "TABLE":
        raise UnsupportedFeatureError(f"not supported: CREATE {tree.kind} ... USING hudi")
    target = tree.this
    columns: tuple[st.ColumnDef, ...] = ()
    if isinstance(target, exp.Schema):
        columns = column_defs(target.expressions, "CREATE TABLE")
        target = target.this
    name = table_name(target)

    partitioned_by: tuple[str, ...] = ()
    location = comment = None
    properties: dict[str, str] = {}
    for prop in tree.args["properties"].expressions:
        if isinstance(prop, exp.FileFormatProperty):
            continue
        if isinstance(prop, exp.PartitionedByProperty):
            partitioned_by = _partition_columns(prop)
        elif isinstance(prop, exp.LocationProperty):
            location = string_value(prop.this, "LOCATION")
        elif isinstance(prop, exp.SchemaCommentProperty):
            comment = string_value(prop.this, "COMMENT")
        elif isinstance(prop, exp.OptionsProperty):
            properties_of(prop.expressions, properties)
        elif type(prop) is exp.Property:
            properties_of([prop], properties)
        else:
            raise UnsupportedFeatureError(f"not supported: '{to_sql(prop)}' in CREATE TABLE ... USING hudi")

    as_query = None
    if tree.expression is not None:
        if columns:
            raise HudiSqlError(
                "a CREATE TABLE ... AS SELECT cannot also declare columns",
                help="the query defines the columns; cast in the SELECT list to choose types",
            )
        as_query = query_of(ctx, tree.expression)
    elif not columns and location is None:
        raise HudiSqlError(
            f"CREATE TABLE {name} USING hudi needs columns, AS SELECT, or the LOCATION of an existing table"
        )

    statement = st.CreateTable(
        name=name,
        columns=columns,
        partitioned_by=partitioned_by,
        location=location,
        properties=properties,
        if_not_exists=bool(tree.args.get("exists")),
        as_query=as_query,
        comment=comment,
        sql=statement_sql(ctx, tree),
    )
    _validate_create(statement)
    return statement


def _is_temporary(tree: exp.Create) -> bool:
    properties = tree.args.get("properties")
    return isinstance(properties, exp.Properties) and any(
        isinstance(p, exp.TemporaryProperty) for p in properties.expressions
    )


def _analyze_create_view(ctx: Context, tree: exp.Create) -> st.Statement:
    """A permanent view; the runner decides whether Spark creates it (see :class:`st.CreateView`)."""
    if tree.expression is None:
        return passthrough(ctx, tree, "CREATE VIEW", targets_of(tree))
    target = tree.this
    columns: list[tuple[str, str | None]] = []
    if isinstance(target, exp.Schema):
        for column in target.expressions:
            comment = None
            if isinstance(column, exp.ColumnDef):
                for constraint in column.args.get("constraints") or []:
                    if isinstance(constraint.args.get("kind"), exp.CommentColumnConstraint):
                        comment = string_value(constraint.args["kind"].this, "COMMENT")
            columns.append((column.name, comment))
        target = target.this
    name = table_name(target)
    comment = None
    properties: dict[str, str] = {}
    for prop in (tree.args.get("properties") or exp.Properties(expressions=[])).expressions:
        if isinstance(prop, exp.SchemaCommentProperty):
            comment = string_value(prop.this, "COMMENT")
        elif type(prop) is exp.Property:
            properties_of([prop], properties)
        else:
            return passthrough(ctx, tree, "CREATE VIEW", (name,))  # Spark's to accept or refuse
    view_text = to_sql(tree.expression.copy())
    query = query_of(ctx, tree.expression)
    return st.CreateView(
        name=name,
        query=query,
        view_text=view_text,
        spark_sql=statement_sql(ctx, tree),
        columns=tuple(columns),
        comment=comment,
        properties=properties,
        replace=bool(tree.args.get("replace")),
        if_not_exists=bool(tree.args.get("exists")),
    )


def _partition_columns(prop: exp.PartitionedByProperty) -> tuple[str, ...]:
    schema = prop.this
    items = schema.expressions if isinstance(schema, (exp.Schema, exp.Tuple)) else [schema]
    names = []
    for item in items:
        if isinstance(item, exp.ColumnDef):
            raise UnsupportedFeatureError(
                f"not supported: typed partition column '{to_sql(item)}' in PARTITIONED BY",
                help="declare the column in the column list and name it in PARTITIONED BY (col)",
            )
        if not isinstance(item, (exp.Identifier, exp.Column)) or (
            isinstance(item, exp.Column) and item.table
        ):
            raise UnsupportedFeatureError(
                f"not supported: partition transform '{to_sql(item)}' in PARTITIONED BY"
            )
        names.append(item.name)
    return tuple(names)


def _validate_create(statement: st.CreateTable) -> None:
    try:
        _ = statement.table_type
    except ValueError as e:
        raise HudiSqlError(
            f"CREATE TABLE {statement.name}: {e}", help="use type = 'cow' or type = 'mor'"
        ) from None
    if not statement.columns:
        return
    known = {c.name.lower() for c in statement.columns}
    checks = [("partition column", c, c) for c in statement.partitioned_by]
    # a record key or ordering field may be a path into a struct column (the planner resolves the rest)
    checks += [("primaryKey field", c, c.split(".", 1)[0]) for c in statement.primary_key]
    if statement.precombine_field:
        checks.append(("preCombineField", statement.precombine_field, statement.precombine_field.split(".", 1)[0]))
    for what, column, top in checks:
        if top.lower() not in known:
            raise HudiSqlError(
                f"CREATE TABLE {statement.name}: {what} '{column}' is not a column of the table",
                help=f"columns are {', '.join(c.name for c in statement.columns)}",
            )


def analyze_drop(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Drop)
    tables = tree.args.get("tables") or ([tree.this] if tree.this else [])
    if (tree.kind or "").upper() != "TABLE" or tree.args.get("temporary"):
        return passthrough(ctx, tree, kind=f"DROP {tree.kind or ''}".strip(), targets=targets_of(tree))
    if len(tables) != 1:
        raise HudiSqlError("DROP TABLE drops one table at a time")
    return st.DropTable(
        table_name(tables[0]),
        if_exists=bool(tree.args.get("exists")),
        purge=bool(tree.args.get("purge")),
        sql=statement_sql(ctx, tree),
    )


def analyze_alter(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Alter)
    actions = tree.args.get("actions") or []
    kind = (tree.kind or "").upper()
    if kind != "TABLE" or not actions:
        return passthrough(ctx, tree, kind=f"ALTER {kind}".strip(), targets=targets_of(tree))
    table = table_name(tree.this)
    sql = statement_sql(ctx, tree)
    first = actions[0]
    if all(isinstance(a, (exp.Schema, exp.ColumnDef)) for a in actions):
        defs = [d for a in actions for d in (a.expressions if isinstance(a, exp.Schema) else [a])]
        return st.AlterTableAddColumns(table, column_defs(defs, "ALTER TABLE ADD COLUMNS"), sql=sql)
    if len(actions) == 1 and isinstance(first, exp.AlterRename):
        return st.AlterTableRename(table, table_name(first.this), sql=sql)
    if len(actions) == 1 and isinstance(first, exp.AlterSet) and _is_set_properties(first):
        properties = properties_of(first.expressions[0].expressions, {})
        return st.AlterTableSetProperties(table, properties, sql=sql)
    if all(isinstance(a, exp.DropPartition) for a in actions):
        partitions = tuple(partition_spec_of(p, static_only=True) for a in actions for p in a.expressions)
        return st.AlterTableDropPartition(
            table,
            partitions,
            if_exists=bool(first.args.get("exists")),
            purge=any(a.args.get("purge") for a in actions),
            sql=sql,
        )
    words = re.match(r"[A-Za-z_ ]*", to_sql(first))
    action = " ".join((words.group(0) if words else "").split()[:2]).upper()
    return passthrough(ctx, tree, kind=f"ALTER TABLE ... {action}".strip(), targets=(table,))


def _is_set_properties(action: exp.AlterSet) -> bool:
    items = action.expressions
    return (
        len(items) == 1
        and isinstance(items[0], exp.Properties)
        and all(type(p) is exp.Property for p in items[0].expressions)
        and len(action.args) == 1
    )


def analyze_truncate(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.TruncateTable)
    if tree.args.get("is_database") or len(tree.expressions) != 1:
        raise UnsupportedFeatureError("not supported: TRUNCATE of several tables or a database")
    spec = partition_spec_of(tree.args.get("partition"), static_only=True)
    return st.TruncateTable(table_name(tree.expressions[0]), spec, sql=statement_sql(ctx, tree))


def analyze_describe(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Describe)
    style = str(tree.args.get("style") or "").upper()
    if (
        str(tree.args.get("kind") or "TABLE").upper() != "TABLE"  # DESCRIBE [TABLE] t, not a database or function
        or not isinstance(tree.this, exp.Table)
        or tree.args.get("partition")
        or style not in ("", "EXTENDED", "FORMATTED")
    ):
        return passthrough(ctx, tree, "DESCRIBE", targets_of(tree))
    return st.DescribeTable(table_name(tree.this), extended=bool(style), sql=statement_sql(ctx, tree))


def analyze_show_partitions(ctx: Context, tree: exp.Expr) -> st.Statement:
    spec = partition_spec_of(tree.args.get("partition"), static_only=True)
    return st.ShowPartitions(table_name(tree.this), spec, sql=statement_sql(ctx, tree))


def analyze_show_create_table(ctx: Context, tree: exp.Expr) -> st.Statement:
    if tree.args.get("as_serde"):
        return passthrough(ctx, tree, "SHOW CREATE TABLE ... AS SERDE", (table_name(tree.this),))
    return st.ShowCreateTable(table_name(tree.this), sql=statement_sql(ctx, tree))


def analyze_show_tblproperties(ctx: Context, tree: exp.Expr) -> st.Statement:
    key = tree.args.get("key")
    return st.ShowTableProperties(
        table_name(tree.this), key.name if key is not None else None, sql=statement_sql(ctx, tree)
    )
