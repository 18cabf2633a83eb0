"""Literals, partition specs, column definitions and properties, as the analyzer reads them."""

from __future__ import annotations

__all__ = ["column_defs", "partition_spec_of", "properties_of"]

from sqlglot import exp

from hudi_sql.errors import HudiSqlError, UnsupportedFeatureError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer.refs import string_value, to_sql
from hudi_sql.sql.dialect import partition_value_sql


def _partition_text(value: exp.Expr) -> str | None:
    if isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal) and value.this.is_string:
        return value.this.name  # DATE '2024-01-01', TIMESTAMP '...'
    return string_value(value, "a partition value")


def partition_spec_of(
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
                f"bad partition spec entry '{to_sql(item)}'", help="write PARTITION (col = 'value', ...)"
            )
        if column.name.lower() in seen:
            raise HudiSqlError(f"partition column '{column.name}' appears twice in '{to_sql(partition)}'")
        seen.add(column.name.lower())
        if value is None:
            if static_only:
                raise HudiSqlError(
                    f"partition column '{column.name}' needs a value in '{to_sql(partition)}'",
                    help="write PARTITION (col = 'value', ...)",
                )
            spec.append(st.PartitionValue(column.name, None, None))
            continue
        try:
            text = _partition_text(value)
        except HudiSqlError:
            raise HudiSqlError(
                f"the value of partition column '{column.name}' must be a constant, got {to_sql(value)}"
            ) from None
        spec.append(st.PartitionValue(column.name, partition_value_sql(value), text))
    return tuple(spec)


def column_defs(defs: list[exp.Expr], where: str) -> tuple[st.ColumnDef, ...]:
    columns: list[st.ColumnDef] = []
    seen: set[str] = set()
    for column in defs:
        if not isinstance(column, exp.ColumnDef) or not isinstance(column.args.get("kind"), exp.DataType):
            raise HudiSqlError(f"expected a column name and type in {where}, got '{to_sql(column)}'")
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
                    f"not supported: column constraint '{to_sql(constraint)}' on column '{column.name}'",
                    help="columns may carry NOT NULL and COMMENT",
                )
        columns.append(st.ColumnDef(column.name, to_sql(column.args["kind"]), nullable, comment))
    return tuple(columns)


def _dotted(node: exp.Expr) -> list[str]:
    if isinstance(node, exp.Dot):
        return _dotted(node.this) + _dotted(node.expression)
    if isinstance(node, exp.Column):
        return [part.name for part in node.parts]
    if isinstance(node, (exp.Literal, exp.Var, exp.Identifier)):
        return [node.name]
    raise HudiSqlError(f"bad property key '{to_sql(node)}'", help="write keys as 'key' or key.name")


def _property_key(key: exp.Expr) -> str:
    return ".".join(_dotted(key))


def _property_value(key: str, value: exp.Expr | None) -> str:
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, (exp.Var, exp.Identifier)):
        return value.name
    try:
        return string_value(value, f"the value of property '{key}'")
    except HudiSqlError:
        raise HudiSqlError(
            f"the value of property '{key}' must be a literal, got {to_sql(value) if value else 'nothing'}"
        ) from None


def properties_of(items: list[exp.Expr], into: dict[str, str]) -> dict[str, str]:
    for item in items:
        key = _property_key(item.this)
        value = _property_value(key, item.args.get("value"))
        if key in into and into[key] != value:
            raise HudiSqlError(f"property '{key}' is given twice, as '{into[key]}' and '{value}'")
        into[key] = value
    return into

