"""The streaming sink's checkpoint and the streaming source's offsets, on a real table folder
driven without Spark: which micro-batch a table already holds, and how far a stream may read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hudi_sql.commit.transaction import Transaction
from hudi_sql.config import HudiConfigs, HudiStreamingConfig, HudiTableConfig, HudiWriteConfig
from hudi_sql.config.concurrency import ConcurrencyConfig, FailedWritesPolicy, WriteConcurrencyMode
from hudi_sql.config.resolve import Resolved, WriteConfig
from hudi_sql.errors import HudiConfigError
from hudi_sql.model.commit_metadata import CommitMetadata
from hudi_sql.model.instant import Action
from hudi_sql.read.plan import EARLIEST
from hudi_sql.streaming.sink import SINK_CHECKPOINT_KEY, last_committed_batch, start_options
from hudi_sql.streaming.source import latest_offset_instant
from hudi_sql.table.meta_client import TableMetaClient, init_table

OCC = ConcurrencyConfig(mode=WriteConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL,
                        failed_writes=FailedWritesPolicy.LAZY, heartbeat_interval_ms=100, heartbeat_tolerable_misses=2)
DEFAULTS = Resolved()


@pytest.fixture
def meta(tmp_path: Path) -> TableMetaClient:
    return init_table(str(tmp_path / "t"), {HudiTableConfig.NAME.key: "t"})


def _begin(meta: TableMetaClient, options: Resolved = DEFAULTS) -> Transaction:
    txn = Transaction.begin(meta, Action.DELTA_COMMIT, options)
    txn.start(CommitMetadata({}, "upsert"))
    return txn


def _complete(txn: Transaction, checkpoint: dict[str, str] | None = None) -> str:
    extra = {SINK_CHECKPOINT_KEY: json.dumps(checkpoint)} if checkpoint is not None else {}
    txn.complete(CommitMetadata({}, "upsert", extra_metadata=extra))
    return txn.instant_time


def _commit(meta: TableMetaClient, checkpoint: dict[str, str] | None = None, options: Resolved = DEFAULTS) -> str:
    return _complete(_begin(meta, options), checkpoint)


# -- the sink's checkpoint -------------------------------------------------------------------

def test_last_committed_batch_is_the_newest_commit_naming_the_stream(meta: TableMetaClient) -> None:
    _commit(meta, {"orders": "0"})
    _commit(meta, {"payments": "5"})
    _commit(meta, {"orders": "1"})
    _commit(meta)  # a table service's commit records no batch
    meta.reload_timeline()
    assert last_committed_batch(meta, "orders") == 1
    assert last_committed_batch(meta, "payments") == 5
    assert last_committed_batch(meta, "refunds") is None


def test_a_batch_whose_commit_did_not_complete_is_not_held(meta: TableMetaClient) -> None:
    _commit(meta, {"orders": "0"})
    _begin(meta)  # batch 1 killed before its commit completed: inflight only
    meta.reload_timeline()
    assert last_committed_batch(meta, "orders") == 0


def test_options_with_the_commit_metadata_prefix_travel_into_the_commit() -> None:
    options = {"_pipeline.source.instant": "20240101000000000", "checkpointLocation": "/ck"}
    assert WriteConfig.of(HudiConfigs.of(options)).commit_extra_metadata == {
        "_pipeline.source.instant": "20240101000000000"}
    own_prefix = {**options, HudiWriteConfig.COMMIT_METADATA_KEY_PREFIX.key: "checkpoint"}
    assert WriteConfig.of(HudiConfigs.of(own_prefix)).commit_extra_metadata == {"checkpointLocation": "/ck"}
    none = {**options, HudiWriteConfig.COMMIT_METADATA_KEY_PREFIX.key: ""}
    assert WriteConfig.of(HudiConfigs.of(none)).commit_extra_metadata == {}


def test_partition_by_of_a_stream_names_the_partition_path_unless_the_options_do() -> None:
    key = HudiWriteConfig.PARTITION_PATH_FIELDS.key
    assert start_options({}, ["region", "day"])[key] == "region,day"
    assert start_options({key: "day"}, ["region"])[key] == "day"
    assert key not in start_options({}, None)


# -- the source's offsets ----------------------------------------------------------------------

def test_an_empty_table_offers_nothing_past_earliest(meta: TableMetaClient) -> None:
    assert latest_offset_instant(meta) == EARLIEST


def test_the_latest_offset_stops_before_a_write_still_in_flight(meta: TableMetaClient) -> None:
    """A commit that started earlier but completes later must not fall behind the stream."""
    occ = Resolved().given(concurrency=OCC)
    first = _commit(meta, options=occ)
    slow = _begin(meta, occ)
    fast = _commit(meta, options=occ)
    meta.reload_timeline()
    assert latest_offset_instant(meta) == first
    _complete(slow)
    meta.reload_timeline()
    assert latest_offset_instant(meta) == fast


def test_start_offset_is_earliest_latest_or_an_instant_time() -> None:
    def start(value: str) -> str:
        return HudiConfigs.of({HudiStreamingConfig.START_OFFSET.key: value}).get(HudiStreamingConfig.START_OFFSET)

    assert HudiConfigs.of({}).get(HudiStreamingConfig.START_OFFSET) == "earliest"
    assert start("LATEST") == "latest"
    assert start("20240101120000000") == "20240101120000000"
    with pytest.raises(HudiConfigError, match="hoodie.datasource.streaming.startOffset"):
        start("yesterday")


# -- the SQL pipeline's checkpoint ('checkpoint' as hudi_table_changes' begin) --------------------

def test_a_pipeline_resumes_after_the_source_instant_its_target_recorded(tmp_path: Path) -> None:
    from hudi_sql.errors import HudiSqlError
    from hudi_sql.sql.operations.pipeline import checkpoint_options, checkpoint_range, writing_to

    source = init_table(str(tmp_path / "orders"), {HudiTableConfig.NAME.key: "orders"})
    target = init_table(str(tmp_path / "daily"), {HudiTableConfig.NAME.key: "daily"})
    first = _commit(source)
    with writing_to(target.base_path):
        assert checkpoint_range(source.base_path, "orders") == (EARLIEST, first)  # the first run
        recorded = checkpoint_options()
    assert list(recorded.values()) == [first]
    txn = _begin(target)
    txn.complete(CommitMetadata({}, "upsert", extra_metadata=recorded))
    second = _commit(source)
    with writing_to(target.base_path):
        assert checkpoint_range(source.base_path, "orders") == (first, second)
    _commit(target)  # a commit of another kind records nothing; the position stays
    with writing_to(target.base_path):
        assert checkpoint_range(source.base_path, "orders") == (first, second)
    txn = _begin(target)
    txn.complete(CommitMetadata({}, "upsert", extra_metadata={next(iter(recorded)): second}))
    with writing_to(target.base_path):
        assert checkpoint_range(source.base_path, "orders") == (second, second)  # nothing new: empty range
    with pytest.raises(HudiSqlError, match="INSERT INTO or MERGE INTO"):
        checkpoint_range(source.base_path, "orders")
