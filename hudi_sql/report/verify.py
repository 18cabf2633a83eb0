"""Is the table whole? ``CALL verify_table``: three checks a reader's correctness rests on.

* **files**: every file of the latest file slice of every file group, as the completed instants
  of the active timeline name them (a base file and the log files written on it, file groups a
  completed replacecommit replaced left out), is on storage. A missing one fails every snapshot
  read of its file group.
* **metadata listing**: where the table has a metadata table, its ``files`` partition lists the
  committed data files storage holds, with their sizes. Readers that list through it would miss
  (or fail on) a file it gets wrong. Not checked while a write is pending: that write's files are
  on storage and rightly not in the listing yet.
* **keys**: no record key appears twice in the latest snapshot (per partition; across the
  table for a global index). Counted in Spark tasks; only the first duplicates reach the driver.
* **reader**: where the Rust reader ``hudi`` is installed (and the table is on a local or shared
  file system), it reads every latest file slice too, in Spark tasks, and each partition's row
  count and record-key digest (:mod:`.verify_exec`) must equal hudi-sql's: an independent reading
  of the same files.

Each discrepancy is a row (``check``, ``subject``: the file, partition or key, ``detail``); a
whole table gives none. Nothing is repaired.
"""

from __future__ import annotations

__all__ = ["Discrepancy", "verify_table"]

import importlib.util
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_sql.config.resolve import Resolved
from hudi_sql.engine.read import read_table
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.metadata.maintenance.sync import data_file_instant, storage_listing
from hudi_sql.metadata.reader import MetadataTableReader
from hudi_sql.model.instant import Action
from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.report.verify_exec import DIGEST_DDL, digest_rows, digest_slices
from hudi_sql.spark.local_frame import task_frame
from hudi_sql.storage.uri import is_local
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: Duplicate keys reported at most.
DUPLICATES_SHOWN = 20
#: The subject of a check that could not run (its detail says why).
NOT_CHECKED = "(not checked)"


@dataclass(frozen=True)
class Discrepancy:
    """One thing found wrong: which check, what it concerns, and what exactly."""

    check: str
    subject: str
    detail: str


def verify_table(spark: SparkSession, meta: TableMetaClient, options: Resolved) -> tuple[Discrepancy, ...]:
    """Every discrepancy the checks find (see the module doc); none for a whole table."""
    meta.reload_timeline()
    stored = storage_listing(meta)  # listed once, for both file checks
    found = [*_missing_files(meta, stored), *_metadata_listing(meta, stored)]
    if any(d.subject != NOT_CHECKED for d in found):
        # a snapshot read fails on a missing or wrongly listed file: keys are checked once files are whole
        return (*found, Discrepancy("keys", NOT_CHECKED, "the snapshot reads the files named above; fix them first"))
    return (*found, *_duplicate_keys(spark, meta, options), *_other_reader(spark, meta))


def _latest_slices(meta: TableMetaClient) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(partition, file id) -> the (instant, path) of the latest slice's files, as the completed
    writes of the active timeline name them."""
    written: dict[tuple[str, str], list[tuple[str, str, bool]]] = defaultdict(list)
    replaced: set[tuple[str, str]] = set()
    for instant in meta.timeline.completed_writes():
        metadata = meta.commit_metadata(instant)
        for stat in metadata.write_stats():
            if stat.path:
                written[(stat.partition_path or "", stat.file_id)].append(
                    (instant.instant_time, stat.path, not stat.is_delta))
        if instant.action is Action.REPLACE_COMMIT:
            replaced |= metadata.replaced_file_ids()
    slices: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for group, files in written.items():
        if group in replaced:
            continue
        bases = [i for i, (_, _, is_base) in enumerate(files) if is_base]
        latest = files[bases[-1]:] if bases else files
        slices[group] = sorted({(time, path) for time, path, _ in latest})
    return slices


def _missing_files(meta: TableMetaClient, stored: dict[str, dict[str, int]]) -> list[Discrepancy]:
    found = []
    for (partition, file_id), files in sorted(_latest_slices(meta).items()):
        for instant_time, path in files:
            name = path.rsplit("/", 1)[-1]
            if name not in stored.get(partition, {}):
                found.append(Discrepancy(
                    "files", path, f"written by completed instant {instant_time} (file group {file_id}) and "
                                   "part of its latest file slice, but not on storage"))
    return found


def _metadata_listing(meta: TableMetaClient, stored_now: dict[str, dict[str, int]]) -> list[Discrepancy]:
    try:
        reader = MetadataTableReader.open(meta)
    except UnsupportedFeatureError:
        return []  # a metadata table of a version hudi-sql does not read: nothing to compare
    if reader is None:
        return []
    pending = meta.timeline.pending_writes()
    if pending.instants:
        return [Discrepancy("metadata listing", NOT_CHECKED,
                            f"write {pending.instants[0].instant_time} is pending: its files are on storage "
                            "and not yet in the listing; verify again when no write is in flight")]
    listing = reader.file_listing()
    up_to = listing.instant_time  # the files of instants the listing has seen
    stored = {p: {n: size for n, size in files.items() if (data_file_instant(n) or "") <= up_to}
              for p, files in stored_now.items()}
    found = []
    for partition in sorted(set(stored) | set(listing.partitions)):
        on_storage, listed = stored.get(partition, {}), listing.files(partition)
        for name in sorted(set(on_storage) | set(listed)):
            path = f"{partition}/{name}" if partition else name
            if name not in listed:
                found.append(Discrepancy("metadata listing", path,
                                         "on storage but not in the metadata table's listing (readers miss it)"))
            elif name not in on_storage:
                found.append(Discrepancy("metadata listing", path,
                                         "in the metadata table's listing but not on storage (reads fail on it)"))
            elif on_storage[name] != listed[name]:
                found.append(Discrepancy("metadata listing", path,
                                         f"{on_storage[name]} bytes on storage, {listed[name]} in the listing"))
    return found


def _other_reader(spark: SparkSession, meta: TableMetaClient) -> list[Discrepancy]:
    if (importlib.util.find_spec("hudi") is None or not is_local(meta.base_path) or not meta.populate_meta_fields
            or meta.timeline.completed_writes().last is None):
        return []
    from pyspark.sql import functions as F

    def totals(frame: DataFrame) -> dict[str, tuple[int, int]]:
        summed = frame.groupBy("partition").agg(F.sum("num_rows").alias("n"), F.sum("key_digest").alias("d"))
        return {r["partition"]: (r["n"], r["d"]) for r in summed.collect()}

    ours = totals(read_table(spark, meta.base_path).select(PARTITION_PATH_FIELD, RECORD_KEY_FIELD)
                  .mapInArrow(digest_rows, DIGEST_DDL))
    try:
        # The Rust reader's own file slices (metadata only on the driver), read in tasks.
        from hudi import HudiTableBuilder

        slices = HudiTableBuilder.from_base_uri(meta.base_path).build().get_file_slices()
        rows = [(s.partition_path or "", s.base_file_relative_path(), json.dumps(list(s.log_files_relative_paths())))
                for s in slices]
        theirs = totals(task_frame(spark, rows, "partition string, base string, logs string")
                        .mapInArrow(digest_slices(meta.base_path), DIGEST_DDL)) if rows else {}
    except Exception as exc:  # noqa: BLE001 - whatever stops the other reader is the finding
        return [Discrepancy("reader", meta.base_path, f"the Rust reader hudi could not read the table: "
                                                      f"{type(exc).__name__}: {exc}")]
    found = []
    for partition in sorted(set(ours) | set(theirs)):
        (n, d), (m, e) = ours.get(partition, (0, 0)), theirs.get(partition, (0, 0))
        if n != m:
            found.append(Discrepancy("reader", partition or "(table)",
                                     f"hudi-sql reads {n} rows, the Rust reader hudi {m}"))
        elif d != e:
            found.append(Discrepancy("reader", partition or "(table)",
                                     f"both read {n} rows, but not the same record keys"))
    return found


def _duplicate_keys(spark: SparkSession, meta: TableMetaClient, options: Resolved) -> list[Discrepancy]:
    if not meta.populate_meta_fields or meta.timeline.completed_writes().last is None:
        return []  # a table without meta fields keys its rows by the key fields, checked on write
    from pyspark.sql import functions as F

    global_keys = options.index.index_type.is_global
    columns = [RECORD_KEY_FIELD] if global_keys else [PARTITION_PATH_FIELD, RECORD_KEY_FIELD]
    counted = (read_table(spark, meta.base_path).groupBy(*columns).count().where(F.col("count") > 1)
               .orderBy(*columns))
    shown = counted.limit(DUPLICATES_SHOWN).collect()
    if not shown:
        return []
    where = "in the table (a global index)" if global_keys else "in its partition"
    return [Discrepancy("keys", row[RECORD_KEY_FIELD] if global_keys
                        else f"{row[PARTITION_PATH_FIELD]}/{row[RECORD_KEY_FIELD]}",
                        f"{row['count']} rows with this record key {where} of the latest snapshot")
            for row in shown]
