"""From sqlglot trees to typed statements: the last place a sqlglot object exists.

:func:`analyze` parses a script with :mod:`hudi_sql.sql.dialect` and turns each tree into one
of the frozen dataclasses of :mod:`hudi_sql.sql.statements`, checking what Spark's and
Hudi's grammars require (MERGE clause order and actions, CALL argument forms, literal
partition values, ...). It never looks at a catalog: every table named in a query position
becomes a :class:`~.statements.TableRef` behind a placeholder, and the runner decides which
of them are Hudi tables.

Statements we do not handle ourselves become :class:`~.statements.Passthrough` for Spark,
except SQL that sqlglot could only keep as raw text (``exp.Command``): that is an error
unless it starts with one of the Spark commands in :data:`PASSTHROUGH_COMMANDS`.
"""

from __future__ import annotations

__all__ = ["PASSTHROUGH_COMMANDS", "analyze", "analyze_expression"]

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise

from sqlglot import exp

from hudi_sql.config.read import QueryType
from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import nodes
from hudi_sql.sql import statements as st
from hudi_sql.sql.dialect import (
    PASSTHROUGH_COMMANDS,
    generate,
    is_passthrough_command,
    parse_statements,
    partition_value_sql,
)

#: Statement kinds handed to Spark as they are (after binding table references).
_PASSTHROUGH_TYPES: tuple[type[exp.Expr], ...] = (
    exp.Use,
    exp.Cache,
    exp.Uncache,
    exp.Refresh,
    exp.Analyze,
    exp.Comment,
    exp.LoadData,
    exp.Set,
)

# Trees that are expressions, not statements (`FOO BAR` parses as a column with an alias).
_NOT_STATEMENTS = (exp.Condition, exp.Alias, exp.Identifier, exp.Tuple, exp.Paren, exp.Star)

_HUDI_PROVIDERS = ("hudi", "org.apache.hudi")
_HUDI_TABLE_FUNCTIONS = ("hudi_table_changes", "hudi_table_changes_by_path", "hudi_query")
_SESSION_CATALOG = "spark_catalog"


def analyze(sql: str) -> list[st.Statement]:
    """Parses and analyses a script of ``;``-separated statements.

    Raises:
        HudiSqlError: a statement does not parse (with line, column and caret) or breaks a rule
            of Spark's or Hudi's SQL (the message says which).
        UnsupportedFeatureError: valid SQL that hudi-sql does not support ("not supported: ...").
    """
    return [analyze_expression(parsed.expression, parsed.text) for parsed in parse_statements(sql)]


def analyze_expression(tree: exp.Expr, text: str | None = None) -> st.Statement:
    """Analyses one parsed statement; *text* is its source (used for raw-text commands)."""
    source = text if text is not None else generate(tree)
    handler = _handler_for(tree, source)
    return handler(_Context(source), tree.copy())


# Table references --------------------------------------------------------------------------------


class _Context:
    """Per-statement state: the source text and the placeholders handed out so far."""

    def __init__(self, source: str) -> None:
        self.source = source
        prefix = "__hudi_ref_"
        while prefix in source:
            prefix = "_" + prefix
        self.prefix = prefix
        self.refs: list[st.TableRef] = []

    def placeholder(self) -> str:
        return f"{self.prefix}{len(self.refs)}"


@dataclass
class _RefBuilder:
    """A table reference found in the tree, before its hints are applied."""

    table: exp.Table
    ref: st.TableRef


def _sql(tree: exp.Expr) -> str:
    return generate(tree)


def _statement_sql(ctx: _Context, tree: exp.Expr) -> str:
    """The statement for Spark: regenerated when placeholders were put in, else as written
    (sqlglot's regeneration is not faithful for everything Spark accepts)."""
    return _sql(tree) if ctx.refs else ctx.source.strip()


def _is_cte_name(table: exp.Table) -> bool:
    if table.args.get("db") or table.args.get("catalog"):
        return False
    name = table.name.lower()
    node: exp.Expr | None = table.parent
    while node is not None:
        with_ = node.args.get("with_")
        if isinstance(with_, exp.With) and any(cte.alias.lower() == name for cte in with_.expressions):
            return True
        node = node.parent
    return False


def _table_function_name(table: exp.Table) -> str | None:
    func = table.this
    if isinstance(func, exp.Anonymous) and func.name.lower() in _HUDI_TABLE_FUNCTIONS:
        return func.name.lower()
    return None


def _relation_tables(root: exp.Expr) -> list[exp.Table]:
    """Tables in relation positions (FROM / JOIN), in source order, excluding CTE names."""
    tables = []
    for table in root.find_all(exp.Table, bfs=False):
        if not isinstance(table.parent, (exp.From, exp.Join)):
            continue
        if _table_function_name(table):
            tables.append(table)
        elif isinstance(table.this, exp.Identifier) and not _is_cte_name(table) and not _is_file_path(table):
            tables.append(table)
    return sorted(tables, key=_source_offset)  # the tree's argument order is not the text's


def _is_file_path(table: exp.Table) -> bool:
    """``parquet.`/data/x``` and the like: files read by another data source, not a table."""
    return bool(table.this.quoted) and "/" in table.name and table.db.lower() != "hudi"


def _source_offset(table: exp.Table) -> int:
    for node in table.walk():
        start = node.meta.get("start") if node.meta else None
        if isinstance(start, int):
            return start
    return -1


def _string_value(node: exp.Expr | None, what: str) -> str:
    """A literal argument as text (strings unquoted, numbers as written)."""
    if isinstance(node, exp.Literal):
        return node.name
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return f"-{node.this.name}"
    raise HudiSqlError(
        f"{what} must be a literal, got {_sql(node) if node is not None else 'nothing'}",
        help="write instants as strings, e.g. '20240101093000000' or '2024-01-01 09:30:00'",
    )


def _check_catalog(table: exp.Table) -> None:
    catalog = table.catalog
    if catalog and catalog.lower() != _SESSION_CATALOG:
        raise UnsupportedFeatureError(
            f"not supported: table '{_sql(table)}' in catalog '{catalog}'",
            help=f"hudi-sql works with the session catalog ({_SESSION_CATALOG}) only",
        )


def _table_name(table: exp.Expr) -> st.TableName:
    if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
        raise HudiSqlError(f"expected a table name, got '{_sql(table)}'")
    _check_catalog(table)
    return st.TableName(table.db or None, table.name)


def _time_travel(table: exp.Table) -> str | None:
    version = table.args.get("version")
    if not isinstance(version, exp.Version):
        return None
    kind = str(version.args.get("kind") or "").upper()
    if version.name.upper() != "TIMESTAMP" or kind != "AS OF":
        raise UnsupportedFeatureError(
            f"not supported: time travel '{_sql(version)}'",
            help="Hudi time travel is TIMESTAMP AS OF '<instant or date-time>'",
        )
    return _string_value(version.expression, "TIMESTAMP AS OF")


def _function_ref(table: exp.Table, function: str, alias: str | None) -> st.TableRef:
    args = table.this.expressions
    values = [_string_value(arg, f"argument {i + 1} of {function}") for i, arg in enumerate(args)]
    changes = "'latest_state' | 'cdc', 'begin' [, 'end']"
    usage = {
        "hudi_query": "hudi_query('table', 'snapshot' | 'read_optimized')",
        "hudi_table_changes": f"hudi_table_changes('table' | 'path', {changes})",
        "hudi_table_changes_by_path": f"hudi_table_changes_by_path('path', {changes})",
    }[function]
    if function == "hudi_query":
        if len(values) != 2 or values[1].lower() not in ("snapshot", "read_optimized"):
            raise HudiSqlError(f"bad arguments for {function}: {_sql(table.this)}", help=f"use {usage}")
        query_type, begin, end, incremental_format = QueryType.parse(values[1]), None, None, None
    else:
        if not 3 <= len(values) <= 4 or values[1].lower() not in ("latest_state", "cdc"):
            raise HudiSqlError(f"bad arguments for {function}: {_sql(table.this)}", help=f"use {usage}")
        query_type, incremental_format = QueryType.INCREMENTAL, values[1].lower()
        begin = "000" if values[2].lower() == "earliest" else values[2]
        end = values[3] if len(values) == 4 else None
    target = values[0]
    by_path = function == "hudi_table_changes_by_path" or "/" in target
    name = None if by_path else _parse_dotted_name(target)
    return st.TableRef(
        name=name,
        alias=alias,
        query_type=query_type,
        begin=begin,
        end=end,
        path=target if by_path else None,
        incremental_format=incremental_format,
        table_function=function.removesuffix("_by_path"),
    )


def _parse_dotted_name(text: str) -> st.TableName:
    parts = [part.strip().strip("`") for part in text.split(".")]
    if parts and parts[0].lower() == _SESSION_CATALOG:
        parts = parts[1:]
    if not 1 <= len(parts) <= 2 or not all(parts):
        raise HudiSqlError(
            f"'{text}' is not a table name", help="name the table as 'table' or 'database.table'"
        )
    return st.TableName(parts[0] if len(parts) == 2 else None, parts[-1])


def _build_ref(table: exp.Table) -> st.TableRef:
    alias = table.alias or None
    function = _table_function_name(table)
    if function:
        if table.args.get("version"):
            raise HudiSqlError(f"{function} cannot be combined with TIMESTAMP AS OF")
        ref = _function_ref(table, function, alias)
    elif table.db.lower() == "hudi" and not table.catalog and "/" in table.name:
        ref = st.TableRef(name=None, alias=alias, path=table.name, as_of=_time_travel(table))
    else:
        ref = st.TableRef(name=_table_name(table), alias=alias, as_of=_time_travel(table))
    if function:
        source: exp.Expr = table.this.copy()
    else:
        parts = ("this", "db", "catalog", "version")
        source = exp.Table(**{k: table.args[k].copy() for k in parts if table.args.get(k)})
    return replace(ref, source_sql=_sql(source))


def _rewrite_tables(ctx: _Context, root: exp.Expr) -> list[st.TableRef]:
    """Replaces (in place) every table reference under *root* by a placeholder, applying
    our read hints; returns the new references (also recorded on *ctx*)."""
    builders = [_RefBuilder(table, _build_ref(table)) for table in _relation_tables(root)]
    _apply_hints(root, builders)
    refs = []
    unaliased: set[tuple[str, str]] = set()
    for builder in builders:
        placeholder = ctx.placeholder()
        ref = replace(builder.ref, placeholder=placeholder)
        ctx.refs.append(ref)
        refs.append(ref)
        table = builder.table
        visible = None if ref.table_function or ref.path else ref.visible_name
        if ref.alias is None and ref.name is not None and ref.name.database:
            unaliased.add((ref.name.database.lower(), ref.name.name.lower()))
        table.set("this", exp.to_identifier(placeholder))
        for arg in ("db", "catalog", "version"):
            table.set(arg, None)
        if not table.args.get("alias") and visible:
            table.set("alias", exp.TableAlias(this=exp.to_identifier(visible)))
    if unaliased:
        # `db.t.col` must become `t.col` now that `db.t` is `<placeholder> AS t`.
        for column in root.find_all(exp.Column):
            if column.args.get("db") and (column.text("db").lower(), column.table.lower()) in unaliased:
                column.set("db", None)
                column.set("catalog", None)
    return refs


# Read hints --------------------------------------------------------------------------------------


def _apply_hints(root: exp.Expr, builders: list[_RefBuilder]) -> None:
    for select in list(root.find_all(exp.Select)):
        hint = select.args.get("hint")
        if not isinstance(hint, exp.Hint):
            continue
        ours = [h for h in hint.expressions if isinstance(h, nodes.TableReadHint)]
        if not ours:
            continue
        rest = [h for h in hint.expressions if not isinstance(h, nodes.TableReadHint)]
        select.set("hint", exp.Hint(expressions=rest) if rest else None)
        in_scope = [b for b in builders if _is_within(b.table, select)]
        for read_hint in ours:
            _apply_hint(read_hint, in_scope)


def _is_within(node: exp.Expr, ancestor: exp.Expr) -> bool:
    current: exp.Expr | None = node
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent
    return False


_HINT_USAGE = {
    "SNAPSHOT": "SNAPSHOT(t)",
    "READ_OPTIMIZED": "READ_OPTIMIZED(t)",
    "INCREMENTAL": "INCREMENTAL(t, 'begin instant'[, 'end instant'])",
    "AS_OF": "AS_OF(t, 'instant')",
}


def _apply_hint(hint: nodes.TableReadHint, builders: list[_RefBuilder]) -> None:
    name = hint.name
    text = _sql(hint)
    args = list(hint.expressions)
    tables = [a for a in args if isinstance(a, exp.Table)]
    values = [a for a in args if not isinstance(a, exp.Table)]
    arity_ok = {
        "SNAPSHOT": bool(tables) and not values,
        "READ_OPTIMIZED": bool(tables) and not values,
        "INCREMENTAL": len(tables) == 1 and args[0] is tables[0] and 1 <= len(values) <= 2,
        "AS_OF": len(tables) == 1 and args[0] is tables[0] and len(values) == 1,
    }[name]
    if not arity_ok:
        raise HudiSqlError(f"bad hint {text}", help=f"use {_HINT_USAGE[name]}")
    strings = [_string_value(v, f"hint {text}") for v in values]
    for target in tables:
        matches = [b for b in builders if _hint_matches(target, b.ref)]
        if not matches:
            raise HudiSqlError(
                f"hint {text} names no table of its query: '{_sql(target)}'",
                help="name the table by its alias when it has one",
            )
        for builder in matches:
            builder.ref = _hinted(builder.ref, name, strings, text)


def _hint_matches(target: exp.Table, ref: st.TableRef) -> bool:
    if target.db:
        return (
            ref.alias is None
            and ref.name is not None
            and (ref.name.database or "").lower() == target.db.lower()
            and ref.name.name.lower() == target.name.lower()
        )
    visible = ref.visible_name
    return visible is not None and visible.lower() == target.name.lower()


def _hinted(ref: st.TableRef, name: str, values: list[str], text: str) -> st.TableRef:
    if ref.table_function:
        raise HudiSqlError(f"hint {text} cannot apply to the table function {ref.table_function}")
    if name == "AS_OF":
        if ref.as_of is not None:
            raise HudiSqlError(f"hint {text} conflicts with the time travel already on '{ref.visible_name}'")
        if ref.query_type is QueryType.INCREMENTAL:
            raise HudiSqlError(f"hint {text} conflicts with INCREMENTAL on '{ref.visible_name}'")
        return replace(ref, as_of=values[0])
    query_type = QueryType.parse(name)
    if ref.query_type is not None and ref.query_type is not query_type:
        raise HudiSqlError(
            f"hint {text} conflicts with {ref.query_type.value.upper()} on '{ref.visible_name}'"
        )
    if query_type is QueryType.INCREMENTAL:
        if ref.as_of is not None:
            raise HudiSqlError(f"hint {text} conflicts with the time travel on '{ref.visible_name}'")
        begin = "000" if values[0].lower() == "earliest" else values[0]
        return replace(ref, query_type=query_type, begin=begin, end=values[1] if len(values) > 1 else None)
    return replace(ref, query_type=query_type)


# Queries and expressions -------------------------------------------------------------------------


def _query(ctx: _Context, tree: exp.Expr) -> st.Query:
    refs = _rewrite_tables(ctx, tree)
    return st.Query(_sql(tree), tuple(refs))


def _expression(ctx: _Context, tree: exp.Expr | None) -> str | None:
    """Spark SQL for a condition or value; tables of its subqueries become placeholders."""
    if tree is None:
        return None
    _rewrite_tables(ctx, tree)
    return _sql(tree)


def _select(ctx: _Context, tree: exp.Expr) -> st.Statement:
    refs = _rewrite_tables(ctx, tree)
    return st.Select(_statement_sql(ctx, tree), tuple(refs))


# Literals, partition specs, columns --------------------------------------------------------------


def _partition_text(value: exp.Expr) -> str | None:
    if isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal) and value.this.is_string:
        return value.this.name  # DATE '2024-01-01', TIMESTAMP '...'
    return _string_value(value, "a partition value")


def _partition_spec(
    partition: exp.Expr | None, *, static_only: bool = False
) -> tuple[st.PartitionValue, ...]:
    if partition is None:
        return ()
    spec: list[st.PartitionValue] = []
    seen: set[str] = set()
    for item in partition.expressions:
        column, value = (item.this, item.expression) if isinstance(item, exp.EQ) else (item, None)
        if not isinstance(column, exp.Column) or column.table:
            raise HudiSqlError(
                f"bad partition spec entry '{_sql(item)}'", help="write PARTITION (col = 'value', ...)"
            )
        if column.name.lower() in seen:
            raise HudiSqlError(f"partition column '{column.name}' appears twice in '{_sql(partition)}'")
        seen.add(column.name.lower())
        if value is None:
            if static_only:
                raise HudiSqlError(
                    f"partition column '{column.name}' needs a value in '{_sql(partition)}'",
                    help="write PARTITION (col = 'value', ...)",
                )
            spec.append(st.PartitionValue(column.name, None, None))
            continue
        try:
            text = _partition_text(value)
        except HudiSqlError:
            raise HudiSqlError(
                f"the value of partition column '{column.name}' must be a constant, got {_sql(value)}"
            ) from None
        spec.append(st.PartitionValue(column.name, partition_value_sql(value), text))
    return tuple(spec)


def _column_defs(defs: list[exp.Expr], where: str) -> tuple[st.ColumnDef, ...]:
    columns: list[st.ColumnDef] = []
    seen: set[str] = set()
    for column in defs:
        if not isinstance(column, exp.ColumnDef) or not isinstance(column.args.get("kind"), exp.DataType):
            raise HudiSqlError(f"expected a column name and type in {where}, got '{_sql(column)}'")
        if column.name.lower() in seen:
            raise HudiSqlError(f"column '{column.name}' is declared twice in {where}")
        seen.add(column.name.lower())
        nullable, comment = True, None
        for constraint in column.constraints:
            kind = constraint.args.get("kind")
            if isinstance(kind, exp.NotNullColumnConstraint) and not kind.args.get("allow_null"):
                nullable = False
            elif isinstance(kind, exp.CommentColumnConstraint):
                comment = kind.name
            else:
                raise UnsupportedFeatureError(
                    f"not supported: column constraint '{_sql(constraint)}' on column '{column.name}'",
                    help="columns may carry NOT NULL and COMMENT",
                )
        columns.append(st.ColumnDef(column.name, _sql(column.args["kind"]), nullable, comment))
    return tuple(columns)


def _dotted(node: exp.Expr) -> list[str]:
    if isinstance(node, exp.Dot):
        return _dotted(node.this) + _dotted(node.expression)
    if isinstance(node, exp.Column):
        return [part.name for part in node.parts]
    if isinstance(node, (exp.Literal, exp.Var, exp.Identifier)):
        return [node.name]
    raise HudiSqlError(f"bad property key '{_sql(node)}'", help="write keys as 'key' or key.name")


def _property_key(key: exp.Expr) -> str:
    return ".".join(_dotted(key))


def _property_value(key: str, value: exp.Expr | None) -> str:
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, (exp.Var, exp.Identifier)):
        return value.name
    try:
        return _string_value(value, f"the value of property '{key}'")
    except HudiSqlError:
        raise HudiSqlError(
            f"the value of property '{key}' must be a literal, got {_sql(value) if value else 'nothing'}"
        ) from None


def _properties(items: list[exp.Expr], into: dict[str, str]) -> dict[str, str]:
    for item in items:
        key = _property_key(item.this)
        value = _property_value(key, item.args.get("value"))
        if key in into and into[key] != value:
            raise HudiSqlError(f"property '{key}' is given twice, as '{into[key]}' and '{value}'")
        into[key] = value
    return into


# DDL ---------------------------------------------------------------------------------------------


def _is_hudi_create(tree: exp.Create) -> bool:
    properties = tree.args.get("properties")
    return isinstance(properties, exp.Properties) and any(
        isinstance(p, exp.FileFormatProperty) and p.name.lower() in _HUDI_PROVIDERS
        for p in properties.expressions
    )


def _create(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Create)
    if not _is_hudi_create(tree):
        return _passthrough(ctx, tree, f"CREATE {tree.kind or ''}".strip(), _targets_of(tree))
    if tree.args.get("replace"):
        raise UnsupportedFeatureError("not supported: CREATE OR REPLACE TABLE ... USING hudi")
    if (tree.kind or "").upper() != "TABLE":
        raise UnsupportedFeatureError(f"not supported: CREATE {tree.kind} ... USING hudi")
    target = tree.this
    columns: tuple[st.ColumnDef, ...] = ()
    if isinstance(target, exp.Schema):
        columns = _column_defs(target.expressions, "CREATE TABLE")
        target = target.this
    name = _table_name(target)

    partitioned_by: tuple[str, ...] = ()
    location = comment = None
    properties: dict[str, str] = {}
    for prop in tree.args["properties"].expressions:
        if isinstance(prop, exp.FileFormatProperty):
            continue
        if isinstance(prop, exp.PartitionedByProperty):
            partitioned_by = _partition_columns(prop)
        elif isinstance(prop, exp.LocationProperty):
            location = _string_value(prop.this, "LOCATION")
        elif isinstance(prop, exp.SchemaCommentProperty):
            comment = _string_value(prop.this, "COMMENT")
        elif isinstance(prop, exp.OptionsProperty):
            _properties(prop.expressions, properties)
        elif type(prop) is exp.Property:
            _properties([prop], properties)
        else:
            raise UnsupportedFeatureError(f"not supported: '{_sql(prop)}' in CREATE TABLE ... USING hudi")

    as_query = None
    if tree.expression is not None:
        if columns:
            raise HudiSqlError(
                "a CREATE TABLE ... AS SELECT cannot also declare columns",
                help="the query defines the columns; cast in the SELECT list to choose types",
            )
        as_query = _query(ctx, tree.expression)
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
        sql=_statement_sql(ctx, tree),
    )
    _validate_create(statement)
    return statement


def _partition_columns(prop: exp.PartitionedByProperty) -> tuple[str, ...]:
    schema = prop.this
    items = schema.expressions if isinstance(schema, (exp.Schema, exp.Tuple)) else [schema]
    names = []
    for item in items:
        if isinstance(item, exp.ColumnDef):
            raise UnsupportedFeatureError(
                f"not supported: typed partition column '{_sql(item)}' in PARTITIONED BY",
                help="declare the column in the column list and name it in PARTITIONED BY (col)",
            )
        if not isinstance(item, (exp.Identifier, exp.Column)) or (
            isinstance(item, exp.Column) and item.table
        ):
            raise UnsupportedFeatureError(
                f"not supported: partition transform '{_sql(item)}' in PARTITIONED BY"
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
    checks = [("partition column", c) for c in statement.partitioned_by]
    checks += [("primaryKey field", c) for c in statement.primary_key]
    if statement.precombine_field:
        checks.append(("preCombineField", statement.precombine_field))
    for what, column in checks:
        if column.lower() not in known:
            raise HudiSqlError(
                f"CREATE TABLE {statement.name}: {what} '{column}' is not a column of the table",
                help=f"columns are {', '.join(c.name for c in statement.columns)}",
            )


def _drop(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Drop)
    tables = tree.args.get("tables") or ([tree.this] if tree.this else [])
    if (tree.kind or "").upper() != "TABLE" or tree.args.get("temporary"):
        return _passthrough(ctx, tree, f"DROP {tree.kind or ''}".strip(), _targets_of(tree))
    if len(tables) != 1:
        raise HudiSqlError("DROP TABLE drops one table at a time")
    return st.DropTable(
        _table_name(tables[0]),
        if_exists=bool(tree.args.get("exists")),
        purge=bool(tree.args.get("purge")),
        sql=_statement_sql(ctx, tree),
    )


def _alter(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Alter)
    actions = tree.args.get("actions") or []
    kind = (tree.kind or "").upper()
    if kind != "TABLE" or not actions:
        return _passthrough(ctx, tree, f"ALTER {kind}".strip(), _targets_of(tree))
    table = _table_name(tree.this)
    sql = _statement_sql(ctx, tree)
    first = actions[0]
    if all(isinstance(a, (exp.Schema, exp.ColumnDef)) for a in actions):
        defs = [d for a in actions for d in (a.expressions if isinstance(a, exp.Schema) else [a])]
        return st.AlterTableAddColumns(table, _column_defs(defs, "ALTER TABLE ADD COLUMNS"), sql=sql)
    if len(actions) == 1 and isinstance(first, exp.AlterRename):
        return st.AlterTableRename(table, _table_name(first.this), sql=sql)
    if len(actions) == 1 and isinstance(first, exp.AlterSet) and _is_set_properties(first):
        properties = _properties(first.expressions[0].expressions, {})
        return st.AlterTableSetProperties(table, properties, sql=sql)
    if all(isinstance(a, exp.DropPartition) for a in actions):
        partitions = tuple(_partition_spec(p, static_only=True) for a in actions for p in a.expressions)
        return st.AlterTableDropPartition(
            table,
            partitions,
            if_exists=bool(first.args.get("exists")),
            purge=any(a.args.get("purge") for a in actions),
            sql=sql,
        )
    words = re.match(r"[A-Za-z_ ]*", _sql(first))
    action = " ".join((words.group(0) if words else "").split()[:2]).upper()
    return _passthrough(ctx, tree, f"ALTER TABLE ... {action}".strip(), (table,))


def _is_set_properties(action: exp.AlterSet) -> bool:
    items = action.expressions
    return (
        len(items) == 1
        and isinstance(items[0], exp.Properties)
        and all(type(p) is exp.Property for p in items[0].expressions)
        and len(action.args) == 1
    )


def _truncate(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.TruncateTable)
    if tree.args.get("is_database") or len(tree.expressions) != 1:
        raise UnsupportedFeatureError("not supported: TRUNCATE of several tables or a database")
    spec = _partition_spec(tree.args.get("partition"), static_only=True)
    return st.TruncateTable(_table_name(tree.expressions[0]), spec, sql=_statement_sql(ctx, tree))


def _describe(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Describe)
    style = str(tree.args.get("style") or "").upper()
    if (
        tree.args.get("kind")
        or not isinstance(tree.this, exp.Table)
        or tree.args.get("partition")
        or style not in ("", "EXTENDED", "FORMATTED")
    ):
        return _passthrough(ctx, tree, "DESCRIBE", _targets_of(tree))
    return st.DescribeTable(_table_name(tree.this), extended=bool(style), sql=_statement_sql(ctx, tree))


def _show_partitions(ctx: _Context, tree: exp.Expr) -> st.Statement:
    spec = _partition_spec(tree.args.get("partition"), static_only=True)
    return st.ShowPartitions(_table_name(tree.this), spec, sql=_statement_sql(ctx, tree))


def _show_create_table(ctx: _Context, tree: exp.Expr) -> st.Statement:
    if tree.args.get("as_serde"):
        return _passthrough(ctx, tree, "SHOW CREATE TABLE ... AS SERDE", (_table_name(tree.this),))
    return st.ShowCreateTable(_table_name(tree.this), sql=_statement_sql(ctx, tree))


# DML ---------------------------------------------------------------------------------------------


def _reject_args(tree: exp.Expr, what: str, names: tuple[str, ...]) -> None:
    for name in names:
        value = tree.args.get(name)
        if value:
            shown = _sql(value) if isinstance(value, exp.Expr) else name.upper()
            raise UnsupportedFeatureError(f"not supported: '{shown}' in {what}")


def _target(table: exp.Expr, what: str) -> tuple[st.TableName, str | None]:
    if not isinstance(table, exp.Table):
        raise HudiSqlError(f"{what} needs a table name, got '{_sql(table)}'")
    if table.args.get("version"):
        raise HudiSqlError(f"{what} cannot write to a table as of the past: '{_sql(table)}'")
    return _table_name(table), table.alias or None


def _insert(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Insert)
    target = tree.this
    if not isinstance(target, (exp.Table, exp.Schema)):
        return _passthrough(ctx, tree, "INSERT OVERWRITE DIRECTORY", ())
    _reject_args(
        tree, "INSERT", ("exists", "by_name", "where", "returning", "conflict", "alternative", "ignore")
    )
    columns: tuple[str, ...] = ()
    if isinstance(target, exp.Schema):
        columns = tuple(_assigned_column(c, None) for c in target.expressions)
        if len({c.lower() for c in columns}) != len(columns):
            raise HudiSqlError(f"a column appears twice in the INSERT column list ({', '.join(columns)})")
        target = target.this
    table, _ = _target(target, "INSERT")
    partition_spec = _partition_spec(target.args.get("partition"))

    query_tree = tree.expression
    with_ = tree.args.get("with_")
    if with_ is not None:
        if not isinstance(query_tree, exp.Query):
            raise UnsupportedFeatureError("not supported: WITH ... INSERT ... VALUES")
        inner = query_tree.args.get("with_")
        ctes = [*with_.expressions, *(inner.expressions if inner else [])]
        query_tree.set("with_", exp.With(expressions=ctes, recursive=with_.args.get("recursive")))
        tree.set("with_", None)
    query = _query(ctx, query_tree)
    return st.InsertInto(
        table,
        partition_spec,
        columns,
        query,
        overwrite=bool(tree.args.get("overwrite")),
        sql=_statement_sql(ctx, tree),
    )


def _assigned_column(column: exp.Expr, target: str | None) -> str:
    """A bare column name from an assignment target or column list; a qualifier naming the
    target table is dropped, any other qualifier is refused."""
    if isinstance(column, exp.Identifier):
        return column.name
    if not isinstance(column, exp.Column):
        raise HudiSqlError(f"expected a column name, got '{_sql(column)}'")
    qualifier = [p.name for p in column.parts[:-1]]
    if qualifier and not (
        len(qualifier) == 1 and target is not None and qualifier[0].lower() == target.lower()
    ):
        raise UnsupportedFeatureError(
            f"not supported: assignment to '{_sql(column)}'",
            help="assign top-level columns of the target table (a struct is assigned as a whole)",
        )
    return column.name


def _assignments(ctx: _Context, items: list[exp.Expr], target: str | None) -> tuple[st.Assignment, ...]:
    assignments: list[st.Assignment] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, exp.EQ):
            raise HudiSqlError(f"expected 'column = value', got '{_sql(item)}'")
        column = _assigned_column(item.this, target)
        if column.lower() in seen:
            raise HudiSqlError(f"column '{column}' is assigned twice")
        seen.add(column.lower())
        assignments.append(st.Assignment(column, _expression(ctx, item.expression) or ""))
    return tuple(assignments)


def _where(ctx: _Context, tree: exp.Expr) -> str | None:
    where = tree.args.get("where")
    return _expression(ctx, where.this) if isinstance(where, exp.Where) else None


def _update(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Update)
    _reject_args(tree, "UPDATE", ("from_", "order", "limit", "returning", "with_", "options"))
    table, alias = _target(tree.this, "UPDATE")
    assignments = _assignments(ctx, tree.expressions, alias or table.name)
    if not assignments:
        raise HudiSqlError("UPDATE needs SET column = value")
    where = _where(ctx, tree)
    return st.Update(table, alias, assignments, where, tuple(ctx.refs), sql=_statement_sql(ctx, tree))


def _delete(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Delete)
    _reject_args(tree, "DELETE", ("using", "tables", "order", "limit", "returning", "with_", "cluster"))
    table, alias = _target(tree.this, "DELETE")
    where = _where(ctx, tree)
    return st.Delete(table, alias, where, tuple(ctx.refs), sql=_statement_sql(ctx, tree))


_MERGE_ACTIONS = {
    st.MergeClauseKind.MATCHED: (
        "UPDATE SET ... | UPDATE SET * | DELETE",
        (st.MergeAction.UPDATE, st.MergeAction.DELETE),
    ),
    st.MergeClauseKind.NOT_MATCHED: ("INSERT (...) VALUES (...) | INSERT *", (st.MergeAction.INSERT,)),
    st.MergeClauseKind.NOT_MATCHED_BY_SOURCE: (
        "UPDATE SET ... | DELETE",
        (st.MergeAction.UPDATE, st.MergeAction.DELETE),
    ),
}
_MERGE_KIND_SQL = {
    st.MergeClauseKind.MATCHED: "WHEN MATCHED",
    st.MergeClauseKind.NOT_MATCHED: "WHEN NOT MATCHED",
    st.MergeClauseKind.NOT_MATCHED_BY_SOURCE: "WHEN NOT MATCHED BY SOURCE",
}
_MERGE_ORDER = list(_MERGE_KIND_SQL)


def _merge(ctx: _Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Merge)
    _reject_args(tree, "MERGE", ("returning", "using_cond"))
    target, target_alias = _target(tree.this, "MERGE")
    target_visible = target_alias or target.name

    using = tree.args["using"]
    if isinstance(using, exp.Table):
        source_alias: str | None = using.alias or using.name
        source = _query(ctx, exp.select("*").from_(using))
        # The statement's own text shows the source by its placeholder, like every reference.
        placeholder = exp.Table(this=exp.to_identifier(source.table_refs[0].placeholder))
        using.replace(placeholder.as_(source_alias, table=True) if source_alias else placeholder)
    elif isinstance(using, exp.Subquery) and isinstance(using.this, (exp.Query, exp.Values)):
        source_alias = using.alias or None
        source = _query(ctx, using.this)
    else:
        raise HudiSqlError(f"MERGE needs a table or a (subquery) after USING, got '{_sql(using)}'")

    on = _expression(ctx, tree.args.get("on"))
    if not on:
        raise HudiSqlError("MERGE needs an ON condition")
    whens = tree.args.get("whens")
    clauses = tuple(_merge_clause(ctx, when, target_visible) for when in (whens.expressions if whens else []))
    _validate_merge_clauses(clauses)
    return st.MergeInto(
        target,
        target_alias,
        source,
        source_alias,
        on,
        clauses,
        tuple(ctx.refs),
        sql=_statement_sql(ctx, tree),
    )


def _merge_clause(ctx: _Context, when: exp.Expr, target: str) -> st.MergeClause:
    if when.args.get("matched"):
        kind = st.MergeClauseKind.MATCHED
    elif when.args.get("source"):
        kind = st.MergeClauseKind.NOT_MATCHED_BY_SOURCE
    else:
        kind = st.MergeClauseKind.NOT_MATCHED
    condition = _expression(ctx, when.args.get("condition"))
    then = when.args.get("then")
    clause_sql = f"{_MERGE_KIND_SQL[kind]} THEN {_sql(then) if then else ''}".strip()
    usage, allowed = _MERGE_ACTIONS[kind]

    if isinstance(then, exp.Var) and then.name.upper() == "DELETE":
        clause = st.MergeClause(kind, st.MergeAction.DELETE, condition)
    elif isinstance(then, exp.Update):
        items = then.expressions
        if len(items) == 1 and isinstance(items[0], exp.Star):
            if kind is st.MergeClauseKind.NOT_MATCHED_BY_SOURCE:
                raise HudiSqlError(
                    f"'{clause_sql}': UPDATE SET * needs a source row",
                    help="WHEN NOT MATCHED BY SOURCE can UPDATE SET col = value or DELETE",
                )
            clause = st.MergeClause(kind, st.MergeAction.UPDATE, condition, st.STAR)
        else:
            clause = st.MergeClause(kind, st.MergeAction.UPDATE, condition, _assignments(ctx, items, target))
    elif isinstance(then, exp.Insert):
        clause = _merge_insert(ctx, kind, condition, then, target, clause_sql)
    else:
        raise HudiSqlError(
            f"'{clause_sql}' has no valid action", help=f"{_MERGE_KIND_SQL[kind]} THEN {usage}"
        )
    if clause.action not in allowed:
        raise HudiSqlError(f"'{clause_sql}' is not allowed", help=f"{_MERGE_KIND_SQL[kind]} THEN {usage}")
    return clause


def _merge_insert(
    ctx: _Context,
    kind: st.MergeClauseKind,
    condition: str | None,
    then: exp.Insert,
    target: str,
    clause_sql: str,
) -> st.MergeClause:
    if isinstance(then.this, exp.Star):
        return st.MergeClause(kind, st.MergeAction.INSERT, condition, st.STAR)
    columns_node, values_node = then.this, then.expression
    if not isinstance(columns_node, exp.Tuple) or not isinstance(values_node, exp.Tuple):
        raise HudiSqlError(
            f"'{clause_sql}' needs INSERT (columns) VALUES (values)",
            help="or INSERT * to insert every source column",
        )
    columns = tuple(_assigned_column(c, target) for c in columns_node.expressions)
    values = tuple(_expression(ctx, v) or "" for v in values_node.expressions)
    if len(columns) != len(values):
        raise HudiSqlError(f"'{clause_sql}' names {len(columns)} columns but gives {len(values)} values")
    if len({c.lower() for c in columns}) != len(columns):
        raise HudiSqlError(f"'{clause_sql}' names a column twice")
    assignments = tuple(st.Assignment(c, v) for c, v in zip(columns, values, strict=True))
    return st.MergeClause(kind, st.MergeAction.INSERT, condition, assignments, columns, values)


def _validate_merge_clauses(clauses: tuple[st.MergeClause, ...]) -> None:
    if not clauses:
        raise HudiSqlError("MERGE needs at least one WHEN clause")
    for previous, clause in pairwise(clauses):
        if _MERGE_ORDER.index(clause.kind) < _MERGE_ORDER.index(previous.kind):
            later, earlier = _MERGE_KIND_SQL[clause.kind], _MERGE_KIND_SQL[previous.kind]
            raise HudiSqlError(
                f"MERGE clause order: {later} cannot follow {earlier}",
                help="write WHEN MATCHED clauses, then WHEN NOT MATCHED, then WHEN NOT MATCHED BY SOURCE",
            )
    for kind in _MERGE_ORDER:
        same = [c for c in clauses if c.kind is kind]
        if any(c.condition is None for c in same[:-1]):
            what = _MERGE_KIND_SQL[kind].removeprefix("WHEN ")
            raise HudiSqlError(
                f"When there are more than one {what} clauses in a MERGE statement, "
                f"only the last {what} clause can omit the condition.",
                help=f"add an AND condition to the earlier {what} clauses or drop the unreachable ones",
            )


# Session options, procedures, EXPLAIN ------------------------------------------------------------


def _set_option(ctx: _Context, tree: exp.Expr) -> st.Statement:
    return st.SetOption(tree.this.name, tree.expression.name)


def _show_option(ctx: _Context, tree: exp.Expr) -> st.Statement:
    key = tree.args.get("this")
    return st.ShowOption(key.name if key else None, verbose=bool(tree.args.get("verbose")))


def _reset_option(ctx: _Context, tree: exp.Expr) -> st.Statement:
    key = tree.args.get("this")
    return st.ResetOption(key.name if key else None)


def _call_value(node: exp.Expr, name: str | None, procedure: str) -> st.CallValue:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if isinstance(literal, exp.Literal) and not (negative and literal.is_string):
        if literal.is_string:
            return literal.name
        text = f"-{literal.name}" if negative else literal.name
        try:
            return int(text)
        except ValueError:
            return float(text)
    what = f"argument '{name}'" if name else "a positional argument"
    raise HudiSqlError(
        f"CALL {procedure}: {what} must be a literal, got {_sql(node)}",
        help="pass strings, numbers, true/false or null",
    )


def _call(ctx: _Context, tree: exp.Expr) -> st.Statement:
    procedure = ".".join(part.name for part in tree.this.parts).lower()
    args: list[st.CallArg] = []
    for item in tree.expressions:
        if isinstance(item, exp.Kwarg):
            name = item.this.name.lower()
            if any(a.name == name for a in args):
                raise HudiSqlError(f"CALL {procedure}: argument '{name}' is given twice")
            args.append(st.CallArg(name, _call_value(item.expression, name, procedure)))
        else:
            args.append(st.CallArg(None, _call_value(item, None, procedure)))
    if len({a.name is None for a in args}) > 1:
        raise HudiSqlError(
            f"CALL {procedure}: named and positional arguments cannot be mixed",
            help=f"write CALL {procedure}(name => value, ...)",
        )
    return st.Call(procedure, tuple(args))


def _explain(ctx: _Context, tree: exp.Expr) -> st.Statement:
    inner_tree = tree.this
    handler = _handler_for(inner_tree)
    ctx.source = _EXPLAIN_PREFIX.sub("", ctx.source, count=1)
    inner = handler(ctx, inner_tree)
    if isinstance(inner, (st.Explain, st.Call, st.SetOption, st.ShowOption, st.ResetOption)):
        raise UnsupportedFeatureError(f"not supported: EXPLAIN of {_shorten(_sql(inner_tree))}")
    mode_node = tree.args.get("mode")
    mode = mode_node.name.lower() if mode_node else None
    sql = ""
    if isinstance(inner, (st.Select, st.Passthrough)):
        sql = f"EXPLAIN {mode.upper()} {inner.sql}" if mode else f"EXPLAIN {inner.sql}"
    return st.Explain(inner, mode, sql=sql)


# Passthrough -------------------------------------------------------------------------------------


_EXPLAIN_PREFIX = re.compile(
    r"^\s*EXPLAIN(\s+(EXTENDED|CODEGEN|COST|FORMATTED|LOGICAL)(?=\s))?\s+", re.IGNORECASE
)


def _targets_of(tree: exp.Expr) -> tuple[st.TableName, ...]:
    """The tables a statement addresses by name (views count; databases and functions do not)."""
    kind = str(tree.args.get("kind") or "TABLE").upper()
    if kind not in ("TABLE", "VIEW"):
        return ()
    candidates = [tree.this, *(tree.args.get("tables") or [])]
    if isinstance(tree.this, exp.Schema):
        candidates.append(tree.this.this)
    targets = []
    for node in candidates:
        if isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier):
            try:
                targets.append(_table_name(node))
            except UnsupportedFeatureError:
                continue
    return tuple(targets)


def _passthrough(
    ctx: _Context, tree: exp.Expr, kind: str, targets: tuple[st.TableName, ...]
) -> st.Passthrough:
    refs = _rewrite_tables(ctx, tree)
    return st.Passthrough(_statement_sql(ctx, tree), tuple(refs), targets, kind)


_PASSTHROUGH_KINDS = {"loaddata": "LOAD DATA"}


def _passthrough_statement(ctx: _Context, tree: exp.Expr) -> st.Statement:
    targets = () if isinstance(tree, (exp.Use, exp.Set)) else _targets_of(tree)
    return _passthrough(ctx, tree, _PASSTHROUGH_KINDS.get(tree.key, tree.key.upper()), targets)


def _command(ctx: _Context, tree: exp.Expr) -> st.Statement:
    text = " ".join(ctx.source.split())
    if not is_passthrough_command(text):
        raise UnsupportedFeatureError(
            f"not supported: {_shorten(text)}",
            help="hudi-sql runs Spark SQL statements and Hudi's SQL extensions (CALL, MERGE, ...)",
        )
    return st.Passthrough(ctx.source.strip(), (), (), str(tree.this).upper())


def _shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


_Handler = Callable[[_Context, exp.Expr], st.Statement]

_HANDLERS: dict[type[exp.Expr], _Handler] = {
    exp.Create: _create,
    exp.Drop: _drop,
    exp.Alter: _alter,
    exp.TruncateTable: _truncate,
    exp.Describe: _describe,
    nodes.ShowPartitions: _show_partitions,
    nodes.ShowCreateTable: _show_create_table,
    exp.Insert: _insert,
    exp.Merge: _merge,
    exp.Update: _update,
    exp.Delete: _delete,
    nodes.SetConfig: _set_option,
    nodes.ShowConfig: _show_option,
    nodes.ResetConfig: _reset_option,
    nodes.ProcedureCall: _call,
    nodes.ExplainStatement: _explain,
    exp.Command: _command,
}


def _handler_for(tree: exp.Expr, source: str | None = None) -> _Handler:
    handler = _HANDLERS.get(type(tree))
    if handler is None and isinstance(tree, (exp.Query, exp.Values)):
        handler = _select
    if handler is None and isinstance(tree, _PASSTHROUGH_TYPES):
        handler = _passthrough_statement
    if handler is None and isinstance(tree, _NOT_STATEMENTS):
        raise HudiSqlError(
            f"syntax error: '{_shorten(source or generate(tree))}' is not a statement",
            help="statements start with SELECT, INSERT, MERGE, UPDATE, DELETE, CREATE, CALL, SET, ...",
        )
    if handler is None:
        raise UnsupportedFeatureError(f"not supported: {tree.key.upper()} statements")
    return handler
