"""Streams for the streaming tests: JSON input files whose keys repeat across files, the rows a
table must end with, the batch ids a table's commits record, and writes still in flight."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from table_helpers import ExpectedTable

INPUT_SCHEMA = "id long, v string, ts long, p string"


def write_input_files(folder: Path, files: int, rows_per_file: int = 6) -> list[list[dict[str, Any]]]:
    """*files* JSON files; file i inserts new ids and updates half the previous file's ids, its
    ``ts`` (the ordering field) i, so the latest file wins each key."""
    folder.mkdir(parents=True, exist_ok=True)
    batches = []
    started = time.time() - files
    for i in range(files):
        first = i * rows_per_file // 2
        rows = [{"id": first + k, "v": f"file{i}-{first + k}", "ts": i, "p": f"p{(first + k) % 2}"}
                for k in range(rows_per_file)]
        path = folder / f"part-{i:03d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        # Spark's file source takes files oldest first; files written in the same millisecond
        # would come in any order, and with a payload where the latest batch wins (Apache Hudi
        # 0.15's DataFrame default) the table would then depend on that order.
        os.utime(path, (started + i, started + i))
        batches.append(rows)
    return batches


def expected_rows(batches: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    model = ExpectedTable(["id"], "ts")
    for rows in batches:
        model.upsert(rows)
    return model.sorted_rows("id")


def sink_options(name: str, table_type: str, **extra: str) -> dict[str, str]:
    return {"hoodie.table.name": name, "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.recordkey.field": "id", "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.partitionpath.field": "p", **extra}


def committed_batches(path: str) -> list[int]:
    """The micro-batch ids the table's completed commits record, in commit order (a batch
    applied twice appears twice)."""
    from hudi_sql.streaming.sink import SINK_CHECKPOINT_KEY
    from hudi_sql.table.meta_client import TableMetaClient

    meta = TableMetaClient.load(path)
    ids = []
    for instant in meta.timeline.completed_writes():
        raw = meta.commit_metadata(instant).extra_metadata.get(SINK_CHECKPOINT_KEY)
        if raw:
            ids.extend(int(v) for v in json.loads(raw).values())
    return ids


def writes_in_flight(path: Path) -> set[str]:
    """Instant times of commits and deltacommits that started and have not completed."""
    timeline = path / ".hoodie"
    if not timeline.is_dir():
        return set()
    names = {p.name for p in timeline.iterdir()}
    started = {n.split(".")[0] for n in names if n.endswith((".commit.requested", ".deltacommit.requested"))}
    return {t for t in started if f"{t}.commit" not in names and f"{t}.deltacommit" not in names}
