"""Overwrite operations, committed as ``replacecommit`` instants.

* ``insert_overwrite``: the partitions present in the batch, and those listed in
  ``hoodie.static.overwrite.partition.paths`` (a static-mode SQL overwrite), are replaced by the batch;
* ``insert_overwrite_table``: every file group of the table is replaced;
* ``delete_partition``: the partitions named by ``hoodie.datasource.write.partitions.to.delete``
  (``*`` wildcards allowed; else the partitions of the batch's records) are replaced by nothing.

New data goes to new file groups (no index lookup, no small-file packing). Replaced groups are
listed in ``partitionToReplaceFileIds``; readers drop them from every view at or after the
replacecommit and still see them before it, until the cleaner removes their files.
"""

from __future__ import annotations

__all__ = ["OverwriteHost", "prepare_overwrite"]

from typing import TYPE_CHECKING, Any, Protocol

from hudi_sql.commit.transaction import Transaction
from hudi_sql.errors import HudiConfigError
from hudi_sql.index.base import FILE_ID_COLUMN
from hudi_sql.model.avro_metadata import empty_requested_replace_metadata
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action
from hudi_sql.spark.schema import avro_schema_json
from hudi_sql.table.fs_view import FileSystemView, match_partitions
from hudi_sql.write.operation import WriteOperationType
from hudi_sql.write.plan import WorkloadProfile, WritePlan
from hudi_sql.write.prepare import prepare_records
from hudi_sql.write.profile import profile_workload
from hudi_sql.write.result import PostCommitFailure, WriteResult, group_stats, input_is_repeatable
from hudi_sql.write.routing import execute_plan

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from hudi_sql.config.resolve import Resolved, WriteConfig
    from hudi_sql.keygen.base import KeyGenerator
    from hudi_sql.table.meta_client import TableMetaClient


class OverwriteHost(Protocol):
    """The parts of the write client an overwrite reuses (table creation, plan, post-commit).

    A protocol rather than the client class: the client calls into this module, so this module
    naming the client back would make the two one import cycle.
    """

    base_path: str
    config: WriteConfig
    resolved: Resolved

    def create_table(self, keygen: KeyGenerator, schema: StructType) -> TableMetaClient: ...

    def _plan(self, meta: TableMetaClient, view: FileSystemView, profile: WorkloadProfile,
              operation: WriteOperationType, instant_time: str, schema_json: str, data_schema: StructType,
              ordering: str | None, *, keygen: KeyGenerator, use_small_files: bool,
              combine_in_task: bool = False) -> WritePlan: ...

    @staticmethod
    def _workload_metadata(profile: WorkloadProfile, plan: WritePlan,
                           operation: WriteOperationType) -> CommitMetadata: ...

    def post_commit(self, spark: Any, meta: TableMetaClient) -> tuple[PostCommitFailure, ...]: ...


def prepare_overwrite(client: OverwriteHost, df: DataFrame, meta: TableMetaClient | None, keygen: KeyGenerator,
                      table_schema: StructType | None, operation: WriteOperationType) -> WriteResult:
    from pyspark.sql import functions as F

    config = client.config
    deleting = operation is WriteOperationType.DELETE_PARTITION
    if deleting and meta is None:
        raise HudiConfigError(f"delete_partition needs an existing table at '{client.base_path}'.")
    ordering = config.precombine_field
    patterns = config.partitions_to_delete
    combine_in_task = False
    if deleting and patterns:
        prepared_records = None
        data_schema = table_schema
    else:
        prepared = prepare_records(df, keygen=keygen, table_schema=table_schema, ordering_field=ordering,
                                   delete_operation=deleting, dedup=config.combine_before_insert, global_index=False)
        prepared_records = prepared.records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
        data_schema = prepared.data_schema
        combine_in_task = prepared.combine_in_task
    assert data_schema is not None
    cached = prepared_records is not None and not input_is_repeatable(df)
    tagged = prepared_records.persist() if cached and prepared_records is not None else prepared_records
    try:
        profile = profile_workload(tagged, keygen, ordering) if tagged is not None else WorkloadProfile({})
        if meta is None:  # created only once the batch proved valid
            meta = client.create_table(keygen, data_schema)
        view = FileSystemView(meta, use_metadata=client.resolved.metadata.enable)
        if deleting:
            # Without patterns, the partitions the batch's records are in (its records are deletes
            # of keys no file group holds, as an overwrite tags none: they have no workload).
            partitions = (match_partitions(view.partition_paths(), patterns) if patterns
                          else sorted(profile.batch_partitions))
            profile = WorkloadProfile({})
        elif operation is WriteOperationType.INSERT_OVERWRITE_TABLE:
            partitions = view.partition_paths()
        else:  # the partitions written, and those a static-mode SQL overwrite names even when it writes none
            partitions = sorted(set(profile.partitions).union(config.static_overwrite_partitions))
        existing = set(view.partition_paths()) if not view.is_empty else set()
        replaced = {p: tuple(sorted(g.file_group_id.file_id for g in view.file_groups(p)))
                    for p in partitions if p in existing}
        replaced = {p: ids for p, ids in replaced.items() if ids}
        schema_json = avro_schema_json(data_schema, meta.table_name)
        txn = Transaction.begin(meta, Action.REPLACE_COMMIT, client.resolved)
        plan = client._plan(meta, view, profile, operation, txn.instant_time, schema_json, data_schema, ordering,
                            keygen=keygen, use_small_files=False, combine_in_task=combine_in_task)
        workload = client._workload_metadata(profile, plan, operation)
        txn.start(workload, requested_payload=empty_requested_replace_metadata())
        execution = (execute_plan(tagged, plan, client.resolved.index, config.index_type)
                     if tagged is not None and plan.buckets else None)
    finally:
        if cached and tagged is not None:
            tagged.unpersist()
    metadata = CommitMetadata(
        partition_to_write_stats=group_stats(stats := execution.stats if execution else []),
        operation_type=operation.value,
        extra_metadata={**client.config.commit_extra_metadata, "schema": schema_json},
        partition_to_replace_file_ids=replaced,
    )
    txn.complete(metadata)
    failures = client.post_commit(df.sparkSession, meta)
    return WriteResult(txn.instant_time, operation.value, tuple(stats), replaced,
                       writer_pids=execution.writer_pids if execution else frozenset(), post_commit_failures=failures)
