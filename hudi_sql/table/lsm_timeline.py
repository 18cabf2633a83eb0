"""Reading the LSM archived timeline of timeline layout 2 (table versions 8 and 9).

Apache Hudi 1.x archives old instants into ``.hoodie/timeline/history/`` (``hoodie.timeline.history.path``)
as an LSM tree of Parquet files instead of version 6's log files in ``.hoodie/archived/``:

* ``<min instant>_<max instant>_<layer>.parquet``: one row per archived instant
  (``HoodieLSMTimelineInstant``: ``instantTime``, ``completionTime``, ``action``, and the
  completed instant's ``metadata`` and ``plan`` as bytes); layer 0 files hold one archival
  batch each, and compaction merges them into files of the next layer;
* ``manifest_<N>``: JSON (``{"files": [{"fileName": ..., "fileLen": ...}]}``) naming the files
  of snapshot version ``N``, the only ones a reader may read (others are being written, or
  were compacted away and await cleaning);
* ``_version_``: the latest snapshot version as a decimal string, written after its manifest.
  When it is missing or unreadable, the greatest manifest number is the latest version, as
  Apache Hudi's ``LSMTimeline.latestSnapshotVersion`` falls back to.

Only completed instants are archived, so every entry is a completed instant with both times.
The metadata is kept as it was written (Avro commit metadata for commits), for callers that need it.
"""

from __future__ import annotations

__all__ = ["ArchivedInstant", "has_lsm_instants", "latest_snapshot", "lsm_history_path", "read_lsm_instants"]

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_sql.errors import HudiFileFormatError

if TYPE_CHECKING:
    from hudi_sql.table.meta_client import TableMetaClient

_VERSION_FILE = "_version_"
_MANIFEST = re.compile(r"^manifest_(\d+)$")
_COLUMNS = ["instantTime", "completionTime", "action"]


@dataclass(frozen=True)
class ArchivedInstant:
    """One completed instant of the LSM archived timeline."""

    instant_time: str
    completion_time: str | None
    action: str
    metadata: bytes | None = None
    plan: bytes | None = None


def lsm_history_path(meta: TableMetaClient) -> str:
    """``.hoodie/timeline/history`` (or wherever ``hoodie.timeline.history.path`` puts it)."""
    return f"{meta.timeline_path_of_layout(2)}/{meta.config.timeline_history_path}"


def _latest_version(meta: TableMetaClient) -> int:
    """The latest snapshot version; 0 when nothing was ever archived (the first is 1)."""
    folder = lsm_history_path(meta)
    storage = meta.storage
    if not storage.exists(folder):
        return 0
    version_file = f"{folder}/{_VERSION_FILE}"
    if storage.exists(version_file):
        text = storage.read_bytes(version_file).decode("utf-8", "replace").strip()
        if text.isdigit():
            return int(text)
    return max((int(m.group(1)) for s in storage.list(folder) for m in [_MANIFEST.match(s.name)] if m), default=0)


def latest_snapshot(meta: TableMetaClient) -> tuple[int, list[str]]:
    """(version, file names) of the latest snapshot: ``(0, [])`` when nothing is archived.

    Raises:
        HudiFileFormatError: the manifest of that version does not decode.
    """
    version = _latest_version(meta)
    if version == 0:
        return 0, []
    manifest = f"{lsm_history_path(meta)}/manifest_{version}"
    try:
        entries = json.loads(meta.storage.read_bytes(manifest))["files"]
        names = [str(entry["fileName"]) for entry in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise HudiFileFormatError(f"{manifest}: not an LSM timeline manifest ({exc}).",
                                  help="the archived timeline is damaged; the active timeline is still readable") from None
    return version, sorted(names)


def _manifest_files(meta: TableMetaClient) -> list[str]:
    folder = lsm_history_path(meta)
    return [f"{folder}/{name}" for name in latest_snapshot(meta)[1]]


def has_lsm_instants(meta: TableMetaClient) -> bool:
    """Whether archival moved instants into the LSM timeline."""
    return bool(_manifest_files(meta))


def read_lsm_instants(meta: TableMetaClient, *, with_metadata: bool = False) -> list[ArchivedInstant]:
    """Every archived instant of the latest snapshot, by requested time; *with_metadata* reads each
    one's completed-instant content and requested plan (``metadata`` / ``plan``) too.

    Raises:
        HudiFileFormatError: a manifest or a Parquet file of the snapshot does not decode.
    """
    columns = [*_COLUMNS, "metadata", "plan"] if with_metadata else _COLUMNS
    out: list[ArchivedInstant] = []
    for path in _manifest_files(meta):
        try:
            rows = pq.read_table(pa.BufferReader(meta.storage.read_bytes(path)), columns=columns).to_pylist()
        except (OSError, ValueError, KeyError) as exc:
            raise HudiFileFormatError(f"{path}: not an LSM timeline file ({exc}).") from None
        out += [ArchivedInstant(r["instantTime"], r["completionTime"], r["action"], r.get("metadata"), r.get("plan"))
                for r in rows]
    return sorted(out, key=lambda i: (i.instant_time, i.action))
