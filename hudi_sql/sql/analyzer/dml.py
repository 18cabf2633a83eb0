"""The analyzer's DML: INSERT, UPDATE, DELETE and MERGE INTO.

For MERGE it also reads the ``ON`` condition's equalities off the tree
(:attr:`~hudi_sql.sql.statements.MergeInto.on_equalities`, ``on_column_pairs``), so that no
later layer parses the condition again.
"""

from __future__ import annotations

__all__ = ["analyze_delete", "analyze_insert", "analyze_merge", "analyze_update"]

from itertools import pairwise

from sqlglot import exp

from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.refs import (
    Context,
    expression_of,
    passthrough,
    query_of,
    statement_sql,
    table_name,
    to_sql,
)
from hudi_sql.sql.analyzer.values import partition_spec_of


def _reject_args(tree: exp.Expr, what: str, names: tuple[str, ...]) -> None:
    for name in names:
        value = tree.args.get(name)
        if value:
            shown = to_sql(value) if isinstance(value, exp.Expr) else name.upper()
            raise UnsupportedFeatureError(f"not supported: '{shown}' in {what}")


def _target(table: exp.Expr, what: str) -> tuple[st.TableName, str | None]:
    if not isinstance(table, exp.Table):
        raise HudiSqlError(f"{what} needs a table name, got '{to_sql(table)}'")
    if table.args.get("version"):
        raise HudiSqlError(f"{what} cannot write to a table as of the past: '{to_sql(table)}'")
    return table_name(table), table.alias or None


def analyze_insert(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Insert)
    target = tree.this
    if not isinstance(target, (exp.Table, exp.Schema)):
        return passthrough(ctx, tree, "INSERT OVERWRITE DIRECTORY", ())
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
    partition_spec = partition_spec_of(target.args.get("partition"))

    query_tree = tree.expression
    with_ = tree.args.get("with_")
    if with_ is not None:
        if not isinstance(query_tree, exp.Query):
            raise UnsupportedFeatureError("not supported: WITH ... INSERT ... VALUES")
        inner = query_tree.args.get("with_")
        ctes = [*with_.expressions, *(inner.expressions if inner else [])]
        query_tree.set("with_", exp.With(expressions=ctes, recursive=with_.args.get("recursive")))
        tree.set("with_", None)
    query = query_of(ctx, query_tree)
    return st.InsertInto(
        table,
        partition_spec,
        columns,
        query,
        overwrite=bool(tree.args.get("overwrite")),
        sql=statement_sql(ctx, tree),
    )


def _assigned_column(column: exp.Expr, target: str | None) -> str:
    """A bare column name from an assignment target or column list; a qualifier naming the
    target table is dropped, any other qualifier is refused."""
    if isinstance(column, exp.Identifier):
        return column.name
    if not isinstance(column, exp.Column):
        raise HudiSqlError(f"expected a column name, got '{to_sql(column)}'")
    qualifier = [p.name for p in column.parts[:-1]]
    if qualifier and not (
        len(qualifier) == 1 and target is not None and qualifier[0].lower() == target.lower()
    ):
        raise UnsupportedFeatureError(
            f"not supported: assignment to '{to_sql(column)}'",
            help="assign top-level columns of the target table (a struct is assigned as a whole)",
        )
    return column.name


def _assignments(ctx: Context, items: list[exp.Expr], target: str | None) -> tuple[st.Assignment, ...]:
    assignments: list[st.Assignment] = []
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, exp.EQ):
            raise HudiSqlError(f"expected 'column = value', got '{to_sql(item)}'")
        column = _assigned_column(item.this, target)
        if column.lower() in seen:
            raise HudiSqlError(f"column '{column}' is assigned twice")
        seen.add(column.lower())
        assignments.append(st.Assignment(column, expression_of(ctx, item.expression) or st.SparkSql()))
    return tuple(assignments)


def _where(ctx: Context, tree: exp.Expr) -> st.SparkSql | None:
    where = tree.args.get("where")
    return expression_of(ctx, where.this) if isinstance(where, exp.Where) else None


def analyze_update(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Update)
    _reject_args(tree, "UPDATE", ("from_", "order", "limit", "returning", "with_", "options"))
    table, alias = _target(tree.this, "UPDATE")
    assignments = _assignments(ctx, tree.expressions, alias or table.name)
    if not assignments:
        raise HudiSqlError("UPDATE needs SET column = value")
    where = _where(ctx, tree)
    return st.Update(table, alias, assignments, where, tuple(ctx.refs), sql=statement_sql(ctx, tree))


def analyze_delete(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Delete)
    _reject_args(tree, "DELETE", ("using", "tables", "order", "limit", "returning", "with_", "cluster"))
    table, alias = _target(tree.this, "DELETE")
    where = _where(ctx, tree)
    return st.Delete(table, alias, where, tuple(ctx.refs), sql=statement_sql(ctx, tree))


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


def analyze_merge(ctx: Context, tree: exp.Expr) -> st.Statement:
    assert isinstance(tree, exp.Merge)
    _reject_args(tree, "MERGE", ("returning", "using_cond"))
    target, target_alias = _target(tree.this, "MERGE")
    target_visible = target_alias or target.name

    using = tree.args["using"]
    if isinstance(using, exp.Table):
        source_alias: str | None = using.alias or using.name
        source = query_of(ctx, exp.select("*").from_(using))
        # The statement's own text shows the source by its placeholder, like every reference.
        placeholder = exp.Table(this=exp.to_identifier(source.table_refs[0].placeholder))
        using.replace(placeholder.as_(source_alias, table=True) if source_alias else placeholder)
    elif isinstance(using, exp.Subquery) and isinstance(using.this, (exp.Query, exp.Values)):
        source_alias = using.alias or None
        source = query_of(ctx, using.this)
    else:
        raise HudiSqlError(f"MERGE needs a table or a (subquery) after USING, got '{to_sql(using)}'")

    on_tree = tree.args.get("on")
    on = expression_of(ctx, on_tree)
    if not on or on_tree is None:
        raise HudiSqlError("MERGE needs an ON condition")
    source_visible = source_alias or "__hudi_source"
    on_terms = _and_terms(on_tree)
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
        on_equalities=_equi_join_columns(on_terms, target_visible, source_visible),
        on_column_pairs=_column_equalities(on_terms, target_visible, source_visible),
        update_source_columns=_update_source_columns(whens.expressions if whens else [], target_visible,
                                                     source_visible),
        sql=statement_sql(ctx, tree),
    )


def _update_source_columns(whens: list[exp.Expr], target: str, source: str) -> tuple[tuple[str, str], ...]:
    """``(target column, source column)`` pairs (lower case) of ``WHEN MATCHED`` ``UPDATE SET``
    assignments whose value is a plain source column: qualified by *source*, or not qualified (the operation checks
    the source has it)."""
    found: list[tuple[str, str]] = []
    for when in whens:
        then = when.args.get("then")
        if not when.args.get("matched") or not isinstance(then, exp.Update):
            continue
        for item in then.expressions:
            value = item.expression if isinstance(item, exp.EQ) else None
            if isinstance(value, exp.Column) and value.table.lower() in ("", source.lower()):
                found.append((_assigned_column(item.this, target).lower(), value.name.lower()))
    return tuple(found)


def _merge_clause(ctx: Context, when: exp.Expr, target: str) -> st.MergeClause:
    if when.args.get("matched"):
        kind = st.MergeClauseKind.MATCHED
    elif when.args.get("source"):
        kind = st.MergeClauseKind.NOT_MATCHED_BY_SOURCE
    else:
        kind = st.MergeClauseKind.NOT_MATCHED
    condition = expression_of(ctx, when.args.get("condition"))
    then = when.args.get("then")
    clause_sql = f"{_MERGE_KIND_SQL[kind]} THEN {to_sql(then) if then else ''}".strip()
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
    ctx: Context,
    kind: st.MergeClauseKind,
    condition: st.SparkSql | None,
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
    values = tuple(expression_of(ctx, v) or st.SparkSql() for v in values_node.expressions)
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



# The ON condition ----------------------------------------------------------------------------------


def _and_terms(on: exp.Expr) -> list[exp.Expr]:
    """The top-level ``AND`` terms of a join condition."""
    terms: list[exp.Expr] = []
    pending: list[exp.Expr] = [on]
    while pending:
        node = pending.pop()
        while isinstance(node, exp.Paren):
            node = node.this
        if isinstance(node, exp.And):
            pending += [node.this, node.expression]
        else:
            terms.append(node)
    return terms


def _side(node: exp.Expr, target: str, source: str) -> str | None:
    """"target" or "source" when every column of *node* has that qualifier (and no subquery)."""
    columns = list(node.find_all(exp.Column))
    if not columns or any(isinstance(n, (exp.Subquery, exp.Select)) for n in node.walk()):
        return None
    qualifiers = {c.table.lower() for c in columns}
    if qualifiers == {target.lower()}:
        return "target"
    if qualifiers == {source.lower()}:
        return "source"
    return None


def _equi_join_columns(terms: list[exp.Expr], target: str, source: str) -> tuple[tuple[str, st.SparkSql], ...]:
    """Target columns the ``ON`` condition equates with an expression of source columns only:
    ``(target column (lower case), source expression)``, from the top-level ``AND`` terms
    ``target.c = <source expression>`` (either side). A condition with anything else at the top
    level (an ``OR``) contributes only its equality terms; a term mixing both sides, or naming
    columns without a qualifier, contributes nothing. MERGE uses this to read only the target
    partitions the source can match (what Hudi's index lookup achieves for key conditions).
    """
    found: dict[str, st.SparkSql] = {}
    for term in terms:
        if not isinstance(term, exp.EQ):
            continue
        for left, right in ((term.this, term.expression), (term.expression, term.this)):
            if isinstance(left, exp.Column) and _side(left, target, source) == "target" \
                    and _side(right, target, source) == "source":
                found.setdefault(left.name.lower(), st.SparkSql.of(right))
    return tuple(found.items())


def _column_equalities(terms: list[exp.Expr], target: str, source: str) -> tuple[tuple[str, str], ...] | None:
    """``(target column, source column)`` pairs (lower case) when ``ON`` is nothing but
    ``AND``-ed equalities of a plain target column with a plain source column; None for any
    other condition. A MERGE whose ``ON`` equates exactly the record key (and partition)
    columns is an upsert of its source (see :mod:`hudi_sql.sql.operations.merge_into`).
    """
    if not terms:
        return None
    found: dict[str, str] = {}
    for term in terms:
        if not isinstance(term, exp.EQ):
            return None
        pair = None
        for left, right in ((term.this, term.expression), (term.expression, term.this)):
            if isinstance(left, exp.Column) and isinstance(right, exp.Column) and \
                    _side(left, target, source) == "target" and _side(right, target, source) == "source":
                pair = (left.name.lower(), right.name.lower())
        if pair is None or found.get(pair[0], pair[1]) != pair[1]:
            return None
        found[pair[0]] = pair[1]
    return tuple(found.items())
