"""``hudi_query_timeline('table' | 'path' [, 'true'])``: a table's timeline as rows, as Apache Hudi 1.x's
``TimelineRelation`` shows it.

One row per instant of the active timeline, in its furthest state (requested, inflight or
completed), in instant order, with the write totals of its commit metadata where the file holds some
(``-1`` where it holds none: requested files, cleans, rollbacks); with ``'true'`` the archived
timeline's instants come first. The rows are the timeline's, not the table's data: the driver
reads instant files only, a few per commit.
"""

from __future__ import annotations

__all__ = ["TIMELINE_FUNCTION", "TIMELINE_RELATION_DDL", "timeline_rows"]

from typing import Any

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.services.archive import read_archived_instants
from hudi_sql.table.meta_client import TableMetaClient

TIMELINE_FUNCTION = "hudi_query_timeline"

#: Apache Hudi's column names and types (``TimelineRelation.schema``).
TIMELINE_RELATION_DDL = (
    "Timestamp string, Action string, State string, Completion_Time string, File_Name string, "
    "Total_Bytes_Written long, Total_Files_Updated long, Total_Partitions_Written long, "
    "Total_Records_Written long, Total_Updated_Records_Written long, Total_Write_Errors long"
)

#: Instants whose files hold commit metadata once they are inflight or completed.
_WRITES = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLUSTERING,
                     Action.COMPACTION, Action.LOG_COMPACTION})
_UNKNOWN = (-1, -1, -1, -1, -1, -1)


def timeline_rows(meta: TableMetaClient, *, archived: bool = False) -> list[tuple[Any, ...]]:
    """The rows of :data:`TIMELINE_RELATION_DDL` for the table's timeline (and its archive)."""
    rows: list[tuple[Any, ...]] = []
    if archived:
        for entry in read_archived_instants(meta):
            rows.append((str(entry["commitTime"]), str(entry["actionType"]), str(entry["state"]), None, None,
                         *_UNKNOWN))
    for instant in meta.timeline.latest_states():
        rows.append((instant.instant_time, instant.action.value, instant.state.name,
                     instant.completion_time if instant.state is State.COMPLETED else None,
                     instant.file_name, *_totals(meta, instant)))
    return rows


def _totals(meta: TableMetaClient, instant: Instant) -> tuple[int, ...]:
    """Bytes written, files updated, partitions written, records written, updated records and write
    errors of the instant's commit metadata (Apache Hudi's ``HoodieCommitMetadata.fetchTotal*``)."""
    if instant.action not in _WRITES or instant.state is State.REQUESTED:
        return _UNKNOWN
    try:
        data = meta.read_instant_bytes(instant)
        if not data.strip():
            return _UNKNOWN
        metadata = CommitMetadata.from_bytes(data, origin=f"instant file {instant.file_name}")
    except (HudiFileFormatError, OSError, ValueError):
        return _UNKNOWN
    t = metadata.totals()
    return (t.bytes_written, t.files_updated, t.partitions_written, t.records_written, t.records_updated,
            t.write_errors)
