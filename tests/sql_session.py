"""Shared helpers of the SQL runner tests: a fresh database per module, result rows as tuples."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def fresh_database(spark: Any, name: str) -> Iterator[Any]:
    """An empty database *name* made current, with a SQL session on it; the previous database
    is current again afterwards."""
    import hudi_sql

    spark.sql(f"DROP DATABASE IF EXISTS {name} CASCADE")
    spark.sql(f"CREATE DATABASE {name}")
    previous = spark.catalog.currentDatabase()
    spark.catalog.setCurrentDatabase(name)
    try:
        yield hudi_sql.connect(spark)
    finally:
        spark.catalog.setCurrentDatabase(previous)


def rows(db: Any, sql: str) -> list[tuple[Any, ...]]:
    return [tuple(r) for r in db.sql(sql).collect()]
