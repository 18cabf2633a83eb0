"""Archiving into the LSM timeline of layout 2 (table versions 8 and 9), as Apache Hudi 1.x does.

:mod:`hudi_sql.services.archive` plans what to archive (the same rules on both layouts) and
deletes the archived instant files; this module writes the archive itself, in the layout
:mod:`hudi_sql.table.lsm_timeline` reads (Apache Hudi's ``LSMTimelineWriter``):

1. one layer-0 Parquet file ``<first>_<last>_0.parquet`` of ``HoodieLSMTimelineInstant`` rows,
   one per archived instant: its requested and completion times, its completed action, the
   completed file's bytes as ``metadata``, and as ``plan`` the bytes of the plan it ran (a
   clean's cleaner plan, a compaction's plan, a replacecommit's or clustering's requested
   file, or its inflight file when that is not empty), ``version`` 1;
2. ``manifest_<N+1>``: the files of the latest snapshot plus the new one;
3. ``_version_``: ``N+1``, which publishes the snapshot.

Crash safety: a reader follows ``_version_``, so a file or manifest written before a crash is
invisible until the version file names it. If the archival is cut after ``_version_`` and
before the instant files are deleted, those instants are both archived and active (readers
prefer the active timeline); the next archival plans the same batch, finds its file already in
the snapshot and only deletes the instant files, as Apache Hudi's writer skips "the redundant
file". Layers above 0 (Apache Hudi's compaction of the LSM tree) are left to Apache Hudi: its
next archival compacts our layer-0 files with its own.
"""

from __future__ import annotations

__all__ = ["LSM_INSTANT_SCHEMA", "write_lsm_batch"]

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.table.lsm_timeline import latest_snapshot, lsm_history_path
from hudi_sql.table.meta_client import TableMetaClient

LSM_INSTANT_SCHEMA = pa.schema([
    pa.field("instantTime", pa.string()),
    pa.field("completionTime", pa.string()),
    pa.field("action", pa.string()),
    pa.field("metadata", pa.binary()),
    pa.field("plan", pa.binary()),
    pa.field("version", pa.int32(), nullable=False),
])
"""The Parquet columns of ``HoodieLSMTimelineInstant`` (every field but ``version`` nullable)."""

_AVRO_SCHEMA = json.dumps({
    "type": "record", "name": "HoodieLSMTimelineInstant", "namespace": "org.apache.hudi.avro.model",
    "fields": [
        {"name": "instantTime", "type": ["null", "string"], "default": None},
        {"name": "completionTime", "type": ["null", "string"], "default": None},
        {"name": "action", "type": ["null", "string"], "default": None},
        {"name": "metadata", "type": ["null", "bytes"], "default": None},
        {"name": "plan", "type": ["null", "bytes"], "default": None},
        {"name": "version", "type": "int", "default": 1},
    ],
})
_FORMAT_VERSION = 1


def write_lsm_batch(meta: TableMetaClient, instants: Sequence[Instant]) -> str:
    """Archive the completed instants among *instants* (every state file of each) as one new
    layer-0 file, and publish it; returns the file's path. Nothing is deleted here."""
    rows = _rows(meta, instants)
    times = [str(row["instantTime"]) for row in rows]
    folder = lsm_history_path(meta)
    name = f"{min(times)}_{max(times)}_0.parquet"
    version, files = latest_snapshot(meta)
    if name in files:  # archived before a crash that kept the instant files: only they remain to delete
        return f"{folder}/{name}"
    storage = meta.storage
    storage.mkdirs(folder)
    table = pa.Table.from_pylist(rows, schema=LSM_INSTANT_SCHEMA).replace_schema_metadata(
        {"parquet.avro.schema": _AVRO_SCHEMA, "writer.model.name": "avro"})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    storage.write_bytes(f"{folder}/{name}", sink.getvalue().to_pybytes(), overwrite=True)
    entries = [{"fileName": f, "fileLen": storage.size(f"{folder}/{f}")} for f in sorted({*files, name})]
    storage.write_bytes(f"{folder}/manifest_{version + 1}", json.dumps({"files": entries}).encode(), overwrite=True)
    storage.write_bytes(f"{folder}/_version_", str(version + 1).encode(), overwrite=True)
    return f"{folder}/{name}"


def _rows(meta: TableMetaClient, instants: Sequence[Instant]) -> list[dict[str, Any]]:
    by_time: dict[str, dict[State, Instant]] = defaultdict(dict)
    for instant in instants:
        by_time[instant.instant_time][instant.state] = instant
    rows = []
    for instant_time in sorted(by_time):
        states = by_time[instant_time]
        completed = states.get(State.COMPLETED)
        if completed is None:
            continue
        pending_action = next((s.action for s in states.values() if not s.is_completed), completed.action)
        rows.append({"instantTime": instant_time, "completionTime": completed.completion_time,
                     "action": completed.action.value, "metadata": _bytes(meta, completed),
                     "plan": _plan(meta, pending_action, states), "version": _FORMAT_VERSION})
    return rows


def _plan(meta: TableMetaClient, pending_action: Action, states: dict[State, Instant]) -> bytes | None:
    """The plan bytes Apache Hudi's ``MetadataConversionUtils.createLSMTimelineInstant`` keeps."""
    requested, inflight = states.get(State.REQUESTED), states.get(State.INFLIGHT)
    if pending_action in (Action.CLEAN, Action.COMPACTION, Action.LOG_COMPACTION):
        return _bytes(meta, requested)
    if pending_action in (Action.REPLACE_COMMIT, Action.CLUSTERING):
        return _bytes(meta, inflight) or _bytes(meta, requested)
    return None


def _bytes(meta: TableMetaClient, instant: Instant | None) -> bytes | None:
    if instant is None:
        return None
    data = meta.read_instant_bytes(instant)
    return data or None
