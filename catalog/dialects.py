"""How the catalog's statements become text: sqlglot trees, rendered once for Hive or Spark.

Hive sync and the Spark catalog build every statement they send as a sqlglot tree (identifiers
as ``exp.Identifier``, values as ``exp.Literal``), so quoting happens by construction, in the
generator, never by pasting a value into a string. Two dialects render them:

* :class:`CatalogHive` -- sqlglot's Hive, for what Hive sync sends to a metastore's SQL server
  (HiveServer2 or Spark's Thrift server: the statements are Hive syntax both parse);
* :class:`CatalogSpark` -- sqlglot's Spark, for the Spark catalog's own DDL.

Both render string literals with :func:`quote_string`, the escaping both parsers read back
unchanged (sqlglot's own writes control characters as octal escapes, which Hive reads only up
to ``\\177``), keep a data source provider's case (``USING hudi``; sqlglot upper-cases it) and
add the statements sqlglot's trees lack: :class:`AddPartitions` (Hive's several ``PARTITION ...
LOCATION`` clauses after one ``ADD IF NOT EXISTS``), :class:`ShowTables`,
:class:`ShowPartitionsOf` and :class:`ShowTblPropertiesOf`.

Quoting rules (the same for Hive's and Spark's parsers):

* identifiers are backquoted, a backquote inside doubled (```a``b```);
* strings are single-quoted; ``\\`` and ``'`` get a backslash, control characters become
  ``\\uXXXX`` (both parsers unescape it); other characters, non-ASCII included, pass through.
  (``\\%`` and ``\\_`` are never produced: Hive keeps their backslash.)
"""

from __future__ import annotations

__all__ = [
    "AddPartitions",
    "CatalogHive",
    "CatalogSpark",
    "ShowPartitionsOf",
    "ShowTables",
    "ShowTblPropertiesOf",
    "identifier",
    "quote_string",
    "render_hive",
    "render_spark",
    "string",
    "table",
]

from collections.abc import Callable
from typing import Any, ClassVar

from sqlglot import exp
from sqlglot.dialects.hive import Hive
from sqlglot.dialects.spark import Spark
from sqlglot.generators.hive import HiveGenerator
from sqlglot.generators.spark import SparkGenerator

from hudi_sql.errors import HudiConfigError

_SIMPLE_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote_string(value: str) -> str:
    """*value* as a single-quoted SQL string literal that Hive and Spark read back unchanged."""
    out = []
    for ch in value:
        escaped = _SIMPLE_ESCAPES.get(ch)
        if escaped is not None:
            out.append(escaped)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "'" + "".join(out) + "'"


def identifier(name: str) -> exp.Identifier:
    """A quoted identifier; an empty name or one holding NUL is refused (no parser reads it back)."""
    if not name or "\x00" in name:
        raise HudiConfigError(f"{name!r} is not a valid Hive identifier.", help="use a non-empty name without NUL")
    return exp.Identifier(this=name, quoted=True)


def string(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def table(database: str | None, name: str) -> exp.Table:
    """``database.name`` (or ``name`` alone), each part quoted."""
    return exp.Table(this=identifier(name), db=identifier(database) if database is not None else None)


class AddPartitions(exp.Expression):
    """``ALTER TABLE t ADD IF NOT EXISTS PARTITION (...) LOCATION '...' PARTITION (...) ...``:
    ``this`` the table, ``expressions`` one ``exp.AddPartition`` (spec and location) each."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expressions": True}


class ShowTables(exp.Expression):
    """``SHOW TABLES IN database``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class ShowPartitionsOf(exp.Expression):
    """``SHOW PARTITIONS table``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class ShowTblPropertiesOf(exp.Expression):
    """``SHOW TBLPROPERTIES table``."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


def _add_partitions_sql(self: Any, e: AddPartitions) -> str:
    clauses = " ".join(
        f"{self.sql(part, 'this')} {self.sql(part, 'location')}".rstrip() for part in e.expressions)
    return f"ALTER TABLE {self.sql(e, 'this')} ADD IF NOT EXISTS {clauses}"


def _partitioned_by_sql(self: Any, e: exp.PartitionedByProperty) -> str:
    # on one line also when pretty, as Spark's SHOW CREATE TABLE prints it
    columns = e.this.expressions if isinstance(e.this, exp.Schema) else [e.this]
    return f"PARTITIONED BY ({', '.join(self.sql(c) for c in columns)})"


_CATALOG_TRANSFORMS: dict[type[exp.Expr], Callable[..., str]] = {
    AddPartitions: _add_partitions_sql,
    exp.PartitionedByProperty: _partitioned_by_sql,
    ShowTables: lambda self, e: f"SHOW TABLES IN {self.sql(e, 'this')}",
    ShowPartitionsOf: lambda self, e: f"SHOW PARTITIONS {self.sql(e, 'this')}",
    ShowTblPropertiesOf: lambda self, e: f"SHOW TBLPROPERTIES {self.sql(e, 'this')}",
}


class _CatalogRendering:
    """What both catalog generators change in sqlglot's: string escaping and the provider's case."""

    def literal_sql(self, expression: exp.Literal) -> str:
        if expression.is_string:
            return quote_string(expression.this)
        return str(super().literal_sql(expression))  # type: ignore[misc]

    def fileformatproperty_sql(self, expression: exp.FileFormatProperty) -> str:
        if not expression.args.get("hive_format"):
            return f"USING {expression.name}"  # a provider keeps its case: USING hudi
        return str(super().fileformatproperty_sql(expression))  # type: ignore[misc]


class CatalogHive(Hive):
    """Hive syntax for Hive sync's statements."""

    class Generator(_CatalogRendering, HiveGenerator):
        TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
            **HiveGenerator.TRANSFORMS, **_CATALOG_TRANSFORMS}


class CatalogSpark(Spark):
    """Spark SQL syntax for the Spark catalog's statements."""

    class Generator(_CatalogRendering, SparkGenerator):
        TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
            **SparkGenerator.TRANSFORMS, **_CATALOG_TRANSFORMS}


def render_hive(tree: exp.Expr) -> str:
    return tree.sql(dialect=CatalogHive, identify=True)


def render_spark(tree: exp.Expr) -> str:
    return tree.sql(dialect=CatalogSpark, identify=True)
