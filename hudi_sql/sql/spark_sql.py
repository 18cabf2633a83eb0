"""Spark SQL on its way to Spark: the analyzer's sqlglot tree, its table references standing as
placeholder tables, bound to the relations the runner chose and rendered once, at the Spark
boundary (:class:`SparkSql`). :mod:`hudi_sql.sql.statements` carries it in every statement."""

from __future__ import annotations

__all__ = ["SparkSql", "Views"]

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlglot import exp

from hudi_sql.sql.dialect import generate


class Reference(Protocol):
    """A table reference as binding needs it (:class:`hudi_sql.sql.statements.TableRef`)."""

    @property
    def placeholder(self) -> str: ...

    @property
    def source(self) -> exp.Expr | None: ...


#: Where a view of a placeholder's table is: a view's name, or a relation (``db.t``) as a tree.
Views = Mapping[str, "str | exp.Expr"]


@dataclass(frozen=True, eq=False)
class SparkSql:
    """Spark SQL on its way to Spark.

    ``tree`` is the analyzer's sqlglot tree, its table references standing as placeholder tables
    (a copy, so later rewrites of the statement's tree do not reach it); :meth:`bind` puts the
    relations in and renders it, once. ``text`` is a statement as written, kept instead when it
    has no table reference: sqlglot's regeneration is not faithful to everything Spark accepts.
    Two are equal when they say the same SQL (:meth:`__str__`).
    """

    tree: exp.Expr | None = None
    text: str = ""

    @classmethod
    def of(cls, tree: exp.Expr) -> SparkSql:
        return cls(tree=tree.copy())

    def bind(self, table_refs: Sequence[Reference], views: Views) -> str:
        """The SQL with each placeholder of *table_refs* replaced: by ``views[placeholder]`` when
        given, else by the reference's own :attr:`~hudi_sql.sql.statements.TableRef.source`."""
        if self.tree is None:
            return self.text
        if not table_refs:
            return generate(self.tree)
        by_placeholder = {ref.placeholder: ref for ref in table_refs}
        tree = self.tree.copy()
        for table in list(tree.find_all(exp.Table)):
            ref = by_placeholder.get(table.name) if isinstance(table.this, exp.Identifier) and not table.db else None
            if ref is not None:
                _put_relation(table, views.get(ref.placeholder, ref.source))
        return generate(tree)

    def __str__(self) -> str:
        """The SQL with its placeholders, for messages and EXPLAIN."""
        return self.text if self.tree is None else generate(self.tree)

    def __bool__(self) -> bool:
        return self.tree is not None or bool(self.text)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SparkSql) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


def _put_relation(table: exp.Table, relation: str | exp.Expr | None) -> None:
    """*table* (a placeholder) made to read *relation*: a view name, a table (its name, database,
    catalog and time travel), or a table function's call."""
    if relation is None:
        raise AssertionError(f"placeholder {table.name} has neither a view nor a source")
    if isinstance(relation, str):
        relation = exp.Table(this=exp.to_identifier(relation))
    if isinstance(relation, exp.Table):
        for arg in ("this", "db", "catalog", "version"):
            value = relation.args.get(arg)
            table.set(arg, value.copy() if value is not None else None)
    else:
        table.set("this", relation.copy())


