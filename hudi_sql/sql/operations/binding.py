"""Binding a statement's table references for Spark.

Every table a statement reads arrives as a placeholder (:class:`~hudi_sql.sql.statements.TableRef`).
:func:`bound` binds each one for the duration of the statement: a Hudi table becomes a
temporary view over a snapshot read *now* (``read_table`` plans its files when called, so every
statement sees the latest commit), honouring its hint, time travel or incremental range; any
other table is put back as written, for Spark to resolve. The views are dropped when the
statement is done; the DataFrame a query returns has already been analysed and keeps its plan.

Hive sync's ``<t>_ro`` / ``<t>_rt`` names read the Hudi table ``t`` read-optimized / snapshot
(:mod:`hudi_sql.config.hive_naming`).
"""

from __future__ import annotations

__all__ = ["bound", "keep_view", "query", "ref_frame", "register_view", "temp_views"]

import itertools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from hudi_sql.config import QueryType
from hudi_sql.config.hive_naming import hive_table_resolution, synced_query_type
from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.planner import read_options

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_view_ids = itertools.count()


def register_view(ctx: OperationContext, df: DataFrame, prefix: str = "hudi_view") -> str:
    """*df* as a temporary view under a fresh, unique name."""
    name = f"__{prefix}_{next(_view_ids)}_{uuid.uuid4().hex[:8]}"
    df.createOrReplaceTempView(name)
    return name


@contextmanager
def temp_views(ctx: OperationContext) -> Iterator[list[str]]:
    """Views appended to the yielded list inside the block are dropped when it ends."""
    created: list[str] = []
    try:
        yield created
    finally:
        for name in created:
            ctx.spark.catalog.dropTempView(name)


@contextmanager
def bound(ctx: OperationContext, refs: tuple[st.TableRef, ...]) -> Iterator[dict[str, str]]:
    """Placeholders -> views for *refs* (Hudi tables only) for the duration of the block."""
    with temp_views(ctx) as created:
        views: dict[str, str] = {}
        for ref in refs:
            df = ref_frame(ctx, ref)
            if df is not None:
                name = register_view(ctx, df)
                created.append(name)
                views[ref.placeholder] = name
        yield views


def ref_frame(ctx: OperationContext, ref: st.TableRef) -> DataFrame | None:
    """The snapshot *ref* reads when it names a Hudi table (or path), else ``None``."""
    if ref.path is not None:
        return ctx.snapshot(ref.path, read_options(ref, ctx.options))
    assert ref.name is not None
    resolved, query_type = _resolve_read(ctx, ref.name)
    if not resolved.is_hudi:
        _check_plain_ref(ref)
        return None
    info = resolved.info
    assert info is not None and info.location is not None
    if query_type is not None and ref.query_type is None and ref.as_of is None and ref.table_function is None:
        ref = replace(ref, query_type=query_type)
    return ctx.snapshot(info.location, read_options(ref, ctx.options))


def keep_view(ctx: OperationContext, ref: st.TableRef) -> str | None:
    """A view of *ref*'s snapshot that outlives the statement (for views and caches)."""
    df = ref_frame(ctx, ref)
    return register_view(ctx, df, "hudi_kept") if df is not None else None


def _resolve_read(ctx: OperationContext, name: st.TableName) -> tuple[Resolved, QueryType | None]:
    """The table a query reads under *name*, and the query type its Hive name implies.

    Hive sync registers a Merge-On-Read table ``t`` as ``t_ro`` / ``t_rt``: such a catalog
    table is read read-optimized / snapshot (its ro-table property, else its suffix), and when
    only ``t`` is registered, ``t_ro`` / ``t_rt`` read ``t`` that way.
    """
    resolved = ctx.lookup(name)
    if resolved is not None:
        info = resolved.info
        return resolved, synced_query_type(info.ident.name, info.properties) if resolved.is_hudi and info else None
    synced = hive_table_resolution(name.name)
    if synced is not None:
        base = ctx.lookup(replace(name, name=synced[0]))
        if base is not None and base.is_hudi:
            return base, synced[1]
    raise ctx.not_found(ctx.ident(name))


def _check_plain_ref(ref: st.TableRef) -> None:
    what = None
    if ref.table_function:
        what = f"{ref.table_function}(...)"
    elif ref.query_type is not None:
        what = f"the hint {ref.query_type.value.upper()}({ref.visible_name})"
    if what is not None:
        raise HudiSqlError(
            f"{what} names '{ref.name}', which is not a Hudi table.",
            help="read hints and Hudi table functions apply to Hudi tables only",
        )


def query(ctx: OperationContext, statement: st.Query) -> DataFrame:
    """A query as a DataFrame (analysed now, against snapshots read now)."""
    with bound(ctx, statement.table_refs) as views:
        return ctx.spark.sql(statement.bind(views))
