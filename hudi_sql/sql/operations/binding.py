"""Binding a statement's table references for Spark.

Every table a statement reads arrives as a placeholder (:class:`~hudi_sql.sql.statements.TableRef`).
:func:`bound` binds each one for the duration of the statement: a Hudi table becomes a
temporary view over a snapshot read *now* (``read_table`` plans its files when called, so every
statement sees the latest commit), honouring its hint, time travel or incremental range; any
other table is put back as written, for Spark to resolve. The views are dropped when the
statement is done; the DataFrame a query returns has already been analysed and keeps its plan.

Hive sync's ``<t>_ro`` / ``<t>_rt`` names read the Hudi table ``t`` read-optimized / snapshot
(:mod:`hudi_sql.config.hive_naming`).

A permanent view hudi-sql stored over a Hudi table (:data:`READS_HUDI_PROPERTY`,
:mod:`.views`) is expanded here: its text is analysed like a query, its unqualified tables
resolved in the view's database, and bound like any other statement, so a view reads the
latest commit each time it is queried, as a view over a Spark table does.
"""

from __future__ import annotations

__all__ = [
    "READS_HUDI_PROPERTY",
    "bound",
    "expanding",
    "keep_view",
    "query",
    "reads_hudi",
    "ref_frame",
    "register_view",
    "temp_views",
]

import itertools
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING

from sqlglot import exp

from hudi_sql.config import QueryType
from hudi_sql.config.hive_naming import hive_table_resolution, synced_query_type
from hudi_sql.errors import HudiSqlError
from hudi_sql.sql import statements as st
from hudi_sql.sql.analyzer import analyze
from hudi_sql.sql.analyzer.filters import localized
from hudi_sql.sql.operations.context import OperationContext, Resolved
from hudi_sql.sql.operations.pipeline import checkpoint_range
from hudi_sql.sql.operations.timeline_relation import TIMELINE_FUNCTION, TIMELINE_RELATION_DDL, timeline_rows
from hudi_sql.sql.planner import read_options
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

_view_ids = itertools.count()

#: The catalog property marking a permanent view that hudi-sql stored because it reads a Hudi
#: table (:mod:`.views`); such a view is expanded by hudi-sql when queried.
READS_HUDI_PROPERTY = "hudi_sql.view.reads_hudi"
#: The stored views being expanded, outermost first: a view replaced after another view named
#: it can close a cycle, which Spark's own view checks never see.
_expanding: ContextVar[tuple[str, ...]] = ContextVar("hudi_sql_expanding_views", default=())


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
    if ref.filters:
        ref = replace(ref, filters=localized(ref.filters, ctx.spark.conf.get("spark.sql.session.timeZone") or "UTC"))
    if ref.table_function == TIMELINE_FUNCTION:
        return _timeline_frame(ctx, ref)
    if ref.path is not None:
        return ctx.snapshot(ref.path, read_options(_resumed(ref, ref.path), ctx.options), filters=ref.filters)
    assert ref.name is not None
    resolved, query_type = _resolve_read(ctx, ref.name)
    if _is_hudi_view(resolved):
        _check_plain_ref(ref)
        return _view_frame(ctx, resolved)
    if not resolved.is_hudi:
        _check_plain_ref(ref)
        return None
    info = resolved.info
    assert info is not None and info.location is not None
    if query_type is not None and ref.query_type is None and ref.as_of is None and ref.table_function is None:
        ref = replace(ref, query_type=query_type)
    return ctx.snapshot(info.location, read_options(_resumed(ref, info.location), ctx.options), filters=ref.filters)


def _timeline_frame(ctx: OperationContext, ref: st.TableRef) -> DataFrame:
    """``hudi_query_timeline``: the timeline of the table named (or at the path), as rows."""
    location = ref.path
    if location is None:
        assert ref.name is not None
        resolved, _ = _resolve_read(ctx, ref.name)
        if not resolved.is_hudi or resolved.info is None or resolved.info.location is None:
            _check_plain_ref(ref)
        assert resolved.info is not None and resolved.info.location is not None
        location = resolved.info.location
    return ctx.rows(TIMELINE_RELATION_DDL, timeline_rows(TableMetaClient.load(location), archived=ref.archived_timeline))


def _resumed(ref: st.TableRef, location: str) -> st.TableRef:
    """*ref* with a ``'checkpoint'`` begin instant replaced by the range it resumes (:mod:`.pipeline`)."""
    if ref.table_function is None or ref.begin != st.CHECKPOINT_BEGIN:
        return ref
    begin, end = checkpoint_range(location, str(ref.name) if ref.name is not None else location)
    return replace(ref, begin=begin, end=end)


def reads_hudi(ctx: OperationContext, ref: st.TableRef) -> bool:
    """Whether *ref* reads a Hudi table: by path, by name, or through a view hudi-sql stored."""
    if ref.path is not None or ref.table_function is not None:
        return True
    assert ref.name is not None
    try:
        resolved, _ = _resolve_read(ctx, ref.name)
    except HudiSqlError:
        return False  # not found: Spark says so in its own words
    return resolved.is_hudi or _is_hudi_view(resolved)


def _is_hudi_view(resolved: Resolved) -> bool:
    info = resolved.info
    return info is not None and info.is_view and info.properties.get(READS_HUDI_PROPERTY) == "true"


@contextmanager
def expanding(view: str) -> Iterator[None]:
    """Marks *view* as being expanded (or created) inside the block; naming it again is a cycle."""
    outer = _expanding.get()
    if view in outer:
        cycle = " -> ".join([*outer[outer.index(view):], view])
        raise HudiSqlError(f"View {view} refers to itself: {cycle}.",
                           help="CREATE OR REPLACE one of these views without the cycle")
    token = _expanding.set((*outer, view))
    try:
        yield
    finally:
        _expanding.reset(token)


def _view_frame(ctx: OperationContext, resolved: Resolved) -> DataFrame:
    """The stored view's query, run through hudi-sql in the view's database (see module doc)."""
    info = resolved.info
    assert info is not None and info.view_text is not None and info.schema is not None
    statements = analyze(info.view_text)
    if len(statements) != 1 or not isinstance(statements[0], st.Select):
        raise HudiSqlError(f"View {info.ident} holds text that is not one query: {info.view_text!r}")
    statement = statements[0]
    database = info.ident.database
    refs = tuple(
        replace(ref, name=replace(ref.name, database=database))
        if ref.name is not None and ref.name.database is None else ref
        for ref in statement.table_refs
    )
    # Tables Spark resolves itself are qualified too: the session may be in another database.
    qualified: dict[str, str | exp.Expr] = {
        ref.placeholder: _in_database(ref.source, database)
        for ref in statement.table_refs
        if ref.name is not None and ref.name.database is None and ref.table_function is None
        and isinstance(ref.source, exp.Table)
    }
    with expanding(str(info.ident)), bound(ctx, refs) as views:
        df = ctx.spark.sql(statement.bind({**qualified, **views}))
    return df.toDF(*info.schema.fieldNames())


def _in_database(source: exp.Table, database: str | None) -> exp.Table:
    """*source* (a table named without its database) qualified by *database*."""
    table = source.copy()
    table.set("db", exp.to_identifier(database) if database else None)
    return table


def keep_view(ctx: OperationContext, ref: st.TableRef) -> str | None:
    """A view of *ref*'s snapshot that outlives the statement (for views and caches)."""
    df = ref_frame(ctx, ref)
    return register_view(ctx, df, "hudi_kept") if df is not None else None


def _resolve_read(ctx: OperationContext, name: st.TableName) -> tuple[Resolved, QueryType | None]:
    """The table a query reads under *name*, and the query type its Hive name implies.

    Hive sync registers a Merge-On-Read table ``t`` as ``t_ro`` / ``t_rt``: such a catalog
    table is read read-optimized / snapshot as its ro-table property says (a table without it,
    whatever its name, is read as any other), and when only ``t`` is registered, ``t_ro`` /
    ``t_rt`` read ``t`` that way.
    """
    resolved = ctx.lookup(name)
    if resolved is not None:
        info = resolved.info
        return resolved, synced_query_type(info.properties) if resolved.is_hudi and info else None
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
