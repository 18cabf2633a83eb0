"""Incremental pipelines in SQL: ``hudi_table_changes('src', 'latest_state', 'checkpoint')``.

A scheduler reruns the same statement every night; each run must read only what changed in
the source since the previous run committed. Apache Hudi's own incremental pipelines keep that
position in the target table's commit metadata (the streamer's checkpoint key); so does this.

In an ``INSERT`` or ``MERGE`` into a Hudi table, the begin instant ``'checkpoint'`` means: the
source instant that the target table's newest commit recorded for this source (``000`` before
the first run). The range's end is pinned to the source's latest completed commit when the
statement binds it, and the statement's commit records that end under
``_hudi_sql.checkpoint.<source base path>``. A run whose range is empty writes nothing and
records nothing. A run that fails records nothing either: its commit never completed, so the
next run reads the same range again.

The key starts with ``_``, the default ``hoodie.datasource.write.commitmeta.key.prefix``, which
is what stores a write option in the commit's extra metadata. A session that changes that prefix
keeps no checkpoint, and every run then starts at ``000`` again.
"""

from __future__ import annotations

__all__ = ["checkpoint_options", "checkpoint_range", "writing_to"]

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from hudi_sql.errors import HudiSqlError
from hudi_sql.read.plan import EARLIEST
from hudi_sql.sql.statements import CHECKPOINT_BEGIN
from hudi_sql.table.meta_client import TableMetaClient

_KEY_PREFIX = "_hudi_sql.checkpoint."


@dataclass
class _Write:
    target: str
    checkpoints: dict[str, str] = field(default_factory=dict)


_current: ContextVar[_Write | None] = ContextVar("hudi_sql_pipeline_write", default=None)


@contextmanager
def writing_to(location: str) -> Iterator[None]:
    """The block binds and writes one statement into the Hudi table at *location*."""
    token = _current.set(_Write(location))
    try:
        yield
    finally:
        _current.reset(token)


def checkpoint_range(source_location: str, source_name: str) -> tuple[str, str | None]:
    """``(begin, end)`` of a ``'checkpoint'`` read of the source at *source_location*; the end
    is remembered for the statement's commit (:func:`checkpoint_options`)."""
    write = _current.get()
    if write is None:
        raise HudiSqlError(
            f"hudi_table_changes('{source_name}', ..., '{CHECKPOINT_BEGIN}') resumes where the last write into a "
            "table stopped, so it belongs in an INSERT INTO or MERGE INTO a Hudi table.",
            help="in a plain query, give the begin instant itself ('earliest' or an instant time)")
    key = _KEY_PREFIX + source_location.rstrip("/")
    begin = _recorded(write.target, key) or EARLIEST
    source = TableMetaClient.load(source_location)
    completed = source.timeline.completed_writes()
    if source.timeline.has_completion_times:  # version 8: hudi_table_changes ranges over completion times
        position = max((i.completion_time for i in completed if i.completion_time), default=None)
    else:
        position = completed.last.instant_time if completed.last is not None else None
    end = position if position is not None and position > begin else None
    write.checkpoints[key] = end or begin
    return begin, end or (begin if begin != EARLIEST else None)


def checkpoint_options() -> dict[str, str]:
    """The source positions the statement being written read up to (commit extra metadata)."""
    write = _current.get()
    return dict(write.checkpoints) if write is not None else {}


def _recorded(target: str, key: str) -> str | None:
    """The value of *key* in the newest completed commit of the target that has it."""
    if not TableMetaClient.exists(target):
        return None
    return next((value for _, value in TableMetaClient.load(target).extra_metadata_values(key)), None)
