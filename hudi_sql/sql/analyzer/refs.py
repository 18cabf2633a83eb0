"""Table references and expressions: what every statement family of the analyzer shares.

A :class:`Context` is one statement's state: its source text and the placeholders handed out
so far. :func:`rewrite_tables` replaces every table in a query position by a placeholder
(applying our read hints and table functions) and records a :class:`~hudi_sql.sql.statements.TableRef`
for it; :func:`query_of` and :func:`expression_of` keep a rewritten subtree for Spark.
"""

from __future__ import annotations

__all__ = [
    "HUDI_TABLE_FUNCTIONS",
    "SESSION_CATALOG",
    "Context",
    "expression_of",
    "parse_table_name",
    "passthrough",
    "query_of",
    "rewrite_tables",
    "select_statement",
    "shorten",
    "statement_sql",
    "string_value",
    "table_name",
    "targets_of",
    "to_sql",
]

from dataclasses import dataclass, replace

from sqlglot import exp

from hudi_sql.config.read import QueryType
from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import nodes
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.filters import table_filters
from hudi_sql.sql.dialect import generate

HUDI_TABLE_FUNCTIONS = ("hudi_table_changes", "hudi_table_changes_by_path", "hudi_query", "hudi_query_timeline",
                        "hudi_query_timeline_by_path")
SESSION_CATALOG = "spark_catalog"


# Table references --------------------------------------------------------------------------------


class Context:
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


def to_sql(tree: exp.Expr) -> str:
    return generate(tree)


def statement_sql(ctx: Context, tree: exp.Expr) -> st.SparkSql:
    """The statement for Spark: its tree when placeholders were put in, else the text as written
    (sqlglot's regeneration is not faithful for everything Spark accepts)."""
    return st.SparkSql.of(tree) if ctx.refs else st.SparkSql(text=ctx.source.strip())


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
    if isinstance(func, exp.Anonymous) and func.name.lower() in HUDI_TABLE_FUNCTIONS:
        return func.name.lower()
    return None


def _relation_tables(root: exp.Expr) -> list[exp.Table]:
    """Tables in relation positions (FROM / JOIN), in source order, excluding CTE names."""
    tables = []
    for table in root.find_all(exp.Table, bfs=False):
        if not isinstance(table.parent, (exp.From, exp.Join)):
            continue
        if _table_function_name(table) or isinstance(table.this, exp.Identifier) and not _is_cte_name(table) and not _is_file_path(table):
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


def string_value(node: exp.Expr | None, what: str) -> str:
    """A literal argument as text (strings unquoted, numbers as written)."""
    if isinstance(node, exp.Literal):
        return node.name
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return f"-{node.this.name}"
    raise HudiSqlError(
        f"{what} must be a literal, got {to_sql(node) if node is not None else 'nothing'}",
        help="write instants as strings, e.g. '20240101093000000' or '2024-01-01 09:30:00'",
    )


def _check_catalog(table: exp.Table) -> None:
    catalog = table.catalog
    if catalog and catalog.lower() != SESSION_CATALOG:
        raise UnsupportedFeatureError(
            f"not supported: table '{to_sql(table)}' in catalog '{catalog}'",
            help=f"hudi-sql works with the session catalog ({SESSION_CATALOG}) only",
        )


def table_name(table: exp.Expr) -> st.TableName:
    if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
        raise HudiSqlError(f"expected a table name, got '{to_sql(table)}'")
    _check_catalog(table)
    return st.TableName(table.db or None, table.name)


def _time_travel(table: exp.Table) -> str | None:
    version = table.args.get("version")
    if not isinstance(version, exp.Version):
        return None
    kind = str(version.args.get("kind") or "").upper()
    if version.name.upper() != "TIMESTAMP" or kind != "AS OF":
        raise UnsupportedFeatureError(
            f"not supported: time travel '{to_sql(version)}'",
            help="Hudi time travel is TIMESTAMP AS OF '<instant or date-time>'",
        )
    return string_value(version.expression, "TIMESTAMP AS OF")


def _function_ref(table: exp.Table, function: str, alias: str | None) -> st.TableRef:
    args = table.this.expressions
    values = [string_value(arg, f"argument {i + 1} of {function}") for i, arg in enumerate(args)]
    changes = "'latest_state' | 'cdc', 'begin' | 'earliest' | 'checkpoint' [, 'end']"
    usage = {
        "hudi_query": "hudi_query('table', 'snapshot' | 'read_optimized')",
        "hudi_table_changes": f"hudi_table_changes('table' | 'path', {changes})",
        "hudi_table_changes_by_path": f"hudi_table_changes_by_path('path', {changes})",
        "hudi_query_timeline": "hudi_query_timeline('table' | 'path' [, 'true' to add the archived timeline])",
        "hudi_query_timeline_by_path": "hudi_query_timeline_by_path('path' [, 'true'])",
    }[function]
    archived = False
    if function.startswith("hudi_query_timeline"):
        if not 1 <= len(values) <= 2:
            raise HudiSqlError(f"bad arguments for {function}: {to_sql(table.this)}", help=f"use {usage}")
        # (Apache Hudi takes 'true' / 'TRUE' as yes and anything else as no)
        archived = len(values) == 2 and values[1] in ("true", "TRUE")
        query_type, begin, end, incremental_format = None, None, None, None
    elif function == "hudi_query":
        if len(values) != 2 or values[1].lower() not in ("snapshot", "read_optimized"):
            raise HudiSqlError(f"bad arguments for {function}: {to_sql(table.this)}", help=f"use {usage}")
        query_type, begin, end, incremental_format = QueryType.parse(values[1]), None, None, None
    else:
        if not 3 <= len(values) <= 4 or values[1].lower() not in ("latest_state", "cdc"):
            raise HudiSqlError(f"bad arguments for {function}: {to_sql(table.this)}", help=f"use {usage}")
        query_type, incremental_format = QueryType.INCREMENTAL, values[1].lower()
        begin = {"earliest": "000", st.CHECKPOINT_BEGIN: st.CHECKPOINT_BEGIN}.get(values[2].lower(), values[2])
        end = values[3] if len(values) == 4 else None
    target = values[0]
    by_path = function.endswith("_by_path") or "/" in target
    name = None if by_path else parse_table_name(target)
    return st.TableRef(
        name=name,
        alias=alias,
        query_type=query_type,
        begin=begin,
        end=end,
        path=target if by_path else None,
        incremental_format=incremental_format,
        table_function=function.removesuffix("_by_path"),
        archived_timeline=archived,
    )


def parse_table_name(text: str) -> st.TableName:
    """``t``, ``db.t`` or ``spark_catalog.db.t`` (backquotes allowed) as a table name."""
    parts = [part.strip().strip("`") for part in text.split(".")]
    if parts and parts[0].lower() == SESSION_CATALOG:
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
        ref = st.TableRef(name=table_name(table), alias=alias, as_of=_time_travel(table))
    if function:
        source: exp.Expr = table.this.copy()
    else:
        parts = ("this", "db", "catalog", "version")
        source = exp.Table(**{k: table.args[k].copy() for k in parts if table.args.get(k)})
    return replace(ref, source=source)


def rewrite_tables(ctx: Context, root: exp.Expr) -> list[st.TableRef]:
    """Replaces (in place) every table reference under *root* by a placeholder, applying
    our read hints; returns the new references (also recorded on *ctx*)."""
    builders = [_RefBuilder(table, _build_ref(table)) for table in _relation_tables(root)]
    _apply_hints(root, builders)
    refs = []
    unaliased: set[tuple[str, str]] = set()
    for builder in builders:
        placeholder = ctx.placeholder()
        table = builder.table
        visible = None if builder.ref.table_function or builder.ref.path else builder.ref.visible_name
        filters = () if builder.ref.table_function else table_filters(table, visible or builder.ref.alias)
        ref = replace(builder.ref, placeholder=placeholder, filters=filters)
        ctx.refs.append(ref)
        refs.append(ref)
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
    text = to_sql(hint)
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
    strings = [string_value(v, f"hint {text}") for v in values]
    for target in tables:
        matches = [b for b in builders if _hint_matches(target, b.ref)]
        if not matches:
            raise HudiSqlError(
                f"hint {text} names no table of its query: '{to_sql(target)}'",
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


def query_of(ctx: Context, tree: exp.Expr) -> st.Query:
    refs = rewrite_tables(ctx, tree)
    return st.Query(st.SparkSql.of(tree), tuple(refs))


def expression_of(ctx: Context, tree: exp.Expr | None) -> st.SparkSql | None:
    """A condition or value for Spark; tables of its subqueries become placeholders."""
    if tree is None:
        return None
    rewrite_tables(ctx, tree)
    return st.SparkSql.of(tree)


def select_statement(ctx: Context, tree: exp.Expr) -> st.Statement:
    refs = rewrite_tables(ctx, tree)
    return st.Select(statement_sql(ctx, tree), tuple(refs))



# Passthrough -------------------------------------------------------------------------------------


def targets_of(tree: exp.Expr) -> tuple[st.TableName, ...]:
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
                targets.append(table_name(node))
            except UnsupportedFeatureError:
                continue
    return tuple(targets)


def passthrough(
    ctx: Context, tree: exp.Expr, kind: str, targets: tuple[st.TableName, ...]
) -> st.Passthrough:
    refs = rewrite_tables(ctx, tree)
    return st.Passthrough(statement_sql(ctx, tree), tuple(refs), targets, kind)



def shorten(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."

