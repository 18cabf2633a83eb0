"""The timeline writer of a data table: instant files, and the metadata table kept in step.

A :class:`TimelineWriter` is an :class:`~hudi_sql.commit.instant_files.InstantFileWriter`
(the one code that touches instant files, inside its lock-holding transactions) whose two
transitions that matter to the metadata table do one thing more, as Apache Hudi's write
client does::

    request(<t>.<action>.requested)    first, under the lock: the metadata table is dropped when
                                       the writer turned it off, created when it is on and
                                       missing, and compacted and cleaned when due
                                       (MetadataTableSync.before_request)
    complete(<t>.<action>)             first, under the same lock: what the instant changed is
                                       committed to the metadata table as its deltacommit <t>
                                       (MetadataTableSync.apply); then <t>.<action> is published

Committing the metadata table first means a crash between the two leaves a metadata
deltacommit whose data instant never completed, which every reader ignores (it applies only
blocks of completed data instants) and the rollback of the data instant removes; the other
order would leave a completed instant the metadata table does not know.
"""

from __future__ import annotations

__all__ = ["LockProvider", "NoOpLockProvider", "TimelineWriter"]

from hudi_sql.commit.instant_files import InstantFileWriter, LockProvider, NoOpLockProvider
from hudi_sql.commit.locks import table_lock
from hudi_sql.config.resolve import Resolved
from hudi_sql.metadata.maintenance.sync import MetadataTableSync
from hudi_sql.model.instant import Instant, State
from hudi_sql.model.instant_payloads import Payload
from hudi_sql.table.meta_client import TableMetaClient


class TimelineWriter(InstantFileWriter):
    """The instant files of one data table, and its metadata table in step with them.

    *options* are the operation's (its entry point's :class:`Resolved`): the table lock and
    heartbeats follow its concurrency options, the metadata table its metadata options.
    """

    def __init__(self, meta_client: TableMetaClient, options: Resolved,
                 lock_provider: LockProvider | None = None) -> None:
        super().__init__(meta_client, lock_provider if lock_provider is not None
                         else table_lock(meta_client.base_path, options.concurrency))
        self.options = options
        self.metadata_table = MetadataTableSync(meta_client, options.metadata)

    def request(self, instant: Instant, payload: Payload = None, *, overwrite: bool = False) -> None:
        """Write ``<t>.<action>.requested``, the metadata table prepared first (see the module doc)."""
        assert instant.state is State.REQUESTED, instant
        self._require_transaction(f"write {instant.file_name}")
        self.meta_client.require_writable(f"start a {instant.action.value} on")
        self.metadata_table.before_request(instant)
        super().request(instant, payload, overwrite=overwrite)

    def complete(self, instant: Instant, payload: Payload, *, overwrite: bool = False) -> None:
        """Commit *instant*'s changes to the metadata table, then publish its completed file."""
        assert instant.state is State.COMPLETED, instant
        self._require_transaction(f"complete {instant}")
        self.metadata_table.apply(instant, payload)
        super().complete(instant, payload, overwrite=overwrite)

    def retire_metadata_table(self) -> None:
        """Remove the metadata table (``hoodie.metadata.enable=false``, a downgrade)."""
        self._require_transaction("remove the metadata table")
        self.metadata_table.retire()
