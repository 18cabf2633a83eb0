"""The filters a query puts on one table, for data skipping (:mod:`hudi_sql.read.skipping`).

Of the WHERE clause of the SELECT that reads a table directly, the conjuncts that compare one of
the table's columns with literals become :class:`~hudi_sql.read.skipping.ColumnPredicate`\\ s:
``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=`` (either side), ``IN (...)``, ``BETWEEN``, ``IS [NOT]
NULL``. Literals are numbers, strings, booleans, ``DATE '...'`` and ``TIMESTAMP '...'`` (a
timestamp without zone is in the session's time zone: it stays naive here and is placed in that
zone when the query is bound, :func:`localized`); anything else (functions, casts of columns,
subqueries) is left to Spark alone. Spark still evaluates the whole
WHERE clause on the rows read: these predicates only decide which files need not be read.

They are taken only where dropping rows of the table before the WHERE clause cannot change the
result: the table is in the SELECT's own FROM or an inner join (never on the nullable side of an
outer join, where a filtered-out row would turn into a row of nulls), and a column belongs to it
when qualified by its name or alias, or unqualified with no join at all.
"""

from __future__ import annotations

__all__ = ["localized", "table_filters"]

import datetime
import decimal
from typing import Any

from sqlglot import exp

from hudi_sql.read.skipping import ColumnPredicate

_COMPARISONS: dict[type[exp.Expr], str] = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=",
                                           exp.GT: ">", exp.GTE: ">="}
_FLIPPED = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NO_VALUE = object()
#: ``DATE '...'``, and Spark's ``TIMESTAMP '...'`` (the session's time zone: sqlglot reads it as TIMESTAMPTZ).
_DATE_TIME = (exp.DataType.Type.DATE, exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ,
              exp.DataType.Type.TIMESTAMPLTZ)


def table_filters(table: exp.Table, visible: str | None) -> tuple[ColumnPredicate, ...]:
    """The predicates the SELECT reading *table* directly puts on it (module doc)."""
    relation = table.parent
    select = relation.parent if relation is not None else None
    if not isinstance(select, exp.Select):
        return ()
    joins = select.args.get("joins") or []
    if any(join.side or str(join.kind or "").upper() not in ("", "INNER", "CROSS") for join in joins):
        return ()
    where = select.args.get("where")
    if where is None:
        return ()
    condition = where.this
    conjuncts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    single = not joins
    found: list[ColumnPredicate] = []
    for conjunct in conjuncts:
        found += _predicates(conjunct, visible, single)
    return tuple(found)


def _column(node: exp.Expr, visible: str | None, single: bool) -> str | None:
    """The column *node* names when it is one of the table's top-level columns."""
    if not isinstance(node, exp.Column) or node.args.get("db") or isinstance(node.this, exp.Star):
        return None
    qualifier = node.table
    if qualifier:
        return node.name if visible is not None and qualifier.lower() == visible.lower() else None
    return node.name if single else None


def _literal(node: exp.Expr) -> Any:
    """The value of a literal, or ``_NO_VALUE``."""
    if isinstance(node, exp.Paren):
        return _literal(node.this)
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Neg):
        inner = _literal(node.this)
        return -inner if isinstance(inner, (int, decimal.Decimal)) and not isinstance(inner, bool) else _NO_VALUE
    if isinstance(node, exp.Literal):
        text = node.this
        if node.is_string:
            return text
        try:
            return int(text) if text.isdigit() else decimal.Decimal(text)
        except (ValueError, decimal.InvalidOperation):
            return _NO_VALUE
    target = node.to.this if isinstance(node, exp.Cast) else None
    if target in _DATE_TIME and isinstance(node.this, exp.Literal) and node.this.is_string:
        text = node.this.this.strip()
        try:
            if target is exp.DataType.Type.DATE:
                return datetime.date.fromisoformat(text)
            moment = datetime.datetime.fromisoformat(text)  # naive: the session's time zone, bound later
            return moment if moment.tzinfo is None else moment.astimezone(datetime.timezone.utc)
        except ValueError:
            return _NO_VALUE
    return _NO_VALUE


def _predicates(node: exp.Expr, visible: str | None, single: bool) -> list[ColumnPredicate]:
    op = _COMPARISONS.get(type(node))
    if op is not None:
        left, right = node.this, node.expression
        column, value = _column(left, visible, single), _literal(right)
        if column is None:
            column, value, op = _column(right, visible, single), _literal(left), _FLIPPED[op]
        return [ColumnPredicate(column, op, (value,))] if column and value is not _NO_VALUE else []
    if isinstance(node, exp.In) and not node.args.get("query") and not node.args.get("unnest"):
        column = _column(node.this, visible, single)
        values = [_literal(v) for v in node.expressions]
        if column and values and all(v is not _NO_VALUE for v in values):
            return [ColumnPredicate(column, "in", tuple(values))]
        return []
    if isinstance(node, exp.Between):
        column = _column(node.this, visible, single)
        low, high = _literal(node.args["low"]), _literal(node.args["high"])
        if column and low is not _NO_VALUE and high is not _NO_VALUE:
            return [ColumnPredicate(column, ">=", (low,)), ColumnPredicate(column, "<=", (high,))]
        return []
    negated = isinstance(node, exp.Not)
    target = node.this if negated else node
    if isinstance(target, exp.Is) and isinstance(target.expression, exp.Null):
        column = _column(target.this, visible, single)
        return [ColumnPredicate(column, "is_not_null" if negated else "is_null")] if column else []
    return []


def localized(filters: tuple[ColumnPredicate, ...], time_zone: str) -> tuple[ColumnPredicate, ...]:
    """*filters* with their naive timestamps placed in *time_zone* (the session's), as Spark reads
    a ``TIMESTAMP '...'`` literal; an unknown zone leaves them naive (data skipping then ignores them)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        zone = ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        return filters

    def place(value: Any) -> Any:
        if isinstance(value, datetime.datetime) and value.tzinfo is None:
            return value.replace(tzinfo=zone)
        return value

    return tuple(ColumnPredicate(p.column, p.op, tuple(place(v) for v in p.values)) for p in filters)
