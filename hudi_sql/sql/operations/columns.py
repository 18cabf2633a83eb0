"""Column references for the DataFrames operations build: sqlglot trees rendered for Spark.

A column name may hold any character (spaces, dots, backticks), so a reference is built as a
tree (``exp.column(..., quoted=True)``) and rendered by the dialect, never pasted together.
"""

from __future__ import annotations

__all__ = ["column"]

from typing import TYPE_CHECKING

from sqlglot import exp

from hudi_sql.sql.dialect import generate

if TYPE_CHECKING:
    from pyspark.sql import Column


def column(name: str, table: str | None = None) -> Column:
    """The column *name*, qualified by the relation alias *table* when given."""
    from pyspark.sql import functions as F

    return F.expr(generate(exp.column(name, table=table, quoted=True)))
