"""The metadata table kept in step by the timeline writer, without Spark.

Instants are published through :class:`TimelineWriter` as the write client and the services do;
the data files are parquet files written here, with the bloom filter footer Hudi's writers add.
Each test checks what a reader of the metadata table (ours, as Apache Hudi's rules read it) sees.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_sql.commit.timeline_writer import TimelineWriter
from hudi_sql.config import HudiTableConfig
from hudi_sql.config.metadata import MetadataConfig
from hudi_sql.config.resolve import Resolved
from hudi_sql.index.bloom_footer import footer_metadata
from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.reader import MetadataTableReader, read_metadata_files
from hudi_sql.model.commit_metadata import CommitMetadata, WriteStat
from hudi_sql.model.instant import Action, Instant, State
from hudi_sql.table.fs_view import FileSystemView
from hudi_sql.table.meta_client import TableMetaClient, init_table

SCHEMA = '{"type":"record","name":"r","fields":[{"name":"id","type":["null","int"]}]}'


class Table:
    """A partitioned table at *root*, written by hand-made commits."""

    def __init__(self, root: Path) -> None:
        self.base = root / "t"
        init_table(str(self.base), {HudiTableConfig.NAME.key: "t", HudiTableConfig.PARTITION_FIELDS.key: "p"})
        self.count = 0

    @property
    def meta(self) -> TableMetaClient:
        return TableMetaClient.load(str(self.base))

    def _file(self, partition: str, ids: list[int], instant: str, file_id: str) -> WriteStat:
        folder = self.base / partition
        folder.mkdir(exist_ok=True)
        (folder / ".hoodie_partition_metadata").write_text("#partition metadata\ncommitTime=1\npartitionDepth=1\n")
        name = f"{file_id}_0-1-1_{instant}.parquet"
        keys = [str(i) for i in ids]
        table = pa.table({"_hoodie_record_key": keys, "id": pa.array(ids, pa.int32())})
        pq.write_table(table.replace_schema_metadata(footer_metadata(keys)), folder / name)
        return WriteStat(file_id, f"{partition}/{name}", partition, num_writes=len(ids),
                         file_size_in_bytes=(folder / name).stat().st_size)

    def commit(self, files: dict[str, list[int]], *, config: MetadataConfig | None = None,
               complete: bool = True) -> str:
        """One commit writing a new file group per partition of *files*."""
        meta = self.meta
        writer = TimelineWriter(meta, Resolved().given(metadata=config or MetadataConfig()))
        with writer.transaction("commit"):
            instant = writer.next_instant_time()
            writer.request(Instant(instant, Action.COMMIT, State.REQUESTED))
            self.count += 1
            stats = {p: (self._file(p, ids, instant, f"g{self.count}{p}-0"),) for p, ids in files.items()}
            writer.start(Instant(instant, Action.COMMIT, State.INFLIGHT), CommitMetadata({}, "UPSERT"))
            if complete:
                writer.complete(Instant(instant, Action.COMMIT), CommitMetadata(stats, "UPSERT", {"schema": SCHEMA}))
        return instant

    def clean(self, partition: str, name: str, *, config: MetadataConfig | None = None) -> str:
        meta = self.meta
        writer = TimelineWriter(meta, Resolved().given(metadata=config or MetadataConfig()))
        with writer.transaction("clean"):
            instant = writer.next_instant_time()
            writer.request(Instant(instant, Action.CLEAN, State.REQUESTED))
            (self.base / partition / name).unlink()
            writer.complete(Instant(instant, Action.CLEAN), {
                "startCleanTime": instant, "timeTakenInMillis": 1, "totalFilesDeleted": 1,
                "earliestCommitToRetain": "", "lastCompletedCommitTimestamp": "", "version": 2,
                "bootstrapPartitionMetadata": {}, "extraMetadata": None,
                "partitionMetadata": {partition: {
                    "partitionPath": partition, "policy": "KEEP_LATEST_COMMITS", "deletePathPatterns": [name],
                    "successDeleteFiles": [name], "failedDeleteFiles": [], "isPartitionDeleted": False}}})
        return instant

    def files(self) -> dict[str, dict[str, int]]:
        """What storage holds: partition -> parquet file -> size."""
        return {p.name: {f.name: f.stat().st_size for f in p.glob("*.parquet")}
                for p in sorted(self.base.iterdir()) if p.is_dir() and p.name != ".hoodie"}

    def listed(self) -> dict[str, dict[str, int]]:
        listing = read_metadata_files(str(self.base))
        assert listing is not None
        return {p: listing.files(p) for p in listing.partitions}


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def test_first_write_creates_the_files_partition_and_each_commit_lands_in_it(table: Table) -> None:
    first = table.commit({"a": [1, 2]})
    table.commit({"a": [3], "b": [4]})
    assert table.meta.properties["hoodie.table.metadata.partitions"] == "files"
    assert table.listed() == table.files()
    metadata_timeline = TableMetaClient.load(str(table.base / ".hoodie" / "metadata")).timeline
    assert [i.instant_time for i in metadata_timeline.completed()][:2] == ["00000000000000010", first]


def test_a_write_on_an_existing_table_lists_its_files_into_a_new_metadata_table(table: Table) -> None:
    table.commit({"a": [1]}, config=MetadataConfig(enable=False))
    assert not (table.base / ".hoodie" / "metadata").exists()
    table.commit({"b": [2]})
    assert table.listed() == table.files()


def test_a_write_with_the_metadata_table_off_removes_it(table: Table) -> None:
    table.commit({"a": [1]})
    table.commit({"a": [2]}, config=MetadataConfig(enable=False))
    assert not (table.base / ".hoodie" / "metadata").exists()
    assert table.meta.properties["hoodie.table.metadata.partitions"] == ""
    assert read_metadata_files(str(table.base)) is None


def test_a_clean_deletes_the_files_it_removed(table: Table) -> None:
    table.commit({"a": [1]})
    table.commit({"a": [2]})
    gone = min(table.files()["a"])
    table.clean("a", gone)
    assert table.listed() == table.files()
    assert gone not in table.listed()["a"]


def test_a_data_instant_that_never_completed_is_not_listed(table: Table) -> None:
    table.commit({"a": [1]})
    table.commit({"b": [2]}, complete=False)
    assert table.listed() == {"a": table.files()["a"]}


def test_the_file_system_view_lists_through_the_metadata_table(table: Table) -> None:
    table.commit({"a": [1]})
    stray = table.base / "a" / "stray-0_0-1-1_20000101000000000.parquet"
    stray.write_bytes(b"not listed by any commit")
    with_metadata = FileSystemView(table.meta).file_groups("a")
    from_storage = FileSystemView(table.meta, use_metadata=False).file_groups("a")
    assert {g.file_group_id.file_id for g in with_metadata} == (
        {g.file_group_id.file_id for g in from_storage} - {"stray-0"})


def test_compaction_folds_the_log_files_into_a_base_file_after_max_delta_commits(table: Table) -> None:
    config = MetadataConfig(compact_max_delta_commits=3)
    for i in range(5):
        table.commit({"a": [i]}, config=config)
    metadata = TableMetaClient.load(str(table.base / ".hoodie" / "metadata"))
    compactions = metadata.timeline.completed().with_actions(Action.COMMIT)
    assert [i.instant_time[-3:] for i in compactions] == ["001"]
    assert table.listed() == table.files()
    reader = MetadataTableReader.open(table.meta)
    assert reader is not None
    (file_slice,) = reader.file_slices(MetadataPartition.FILES)
    assert file_slice.base_instant == compactions.last.instant_time  # type: ignore[union-attr]


def test_index_partitions_hold_each_base_files_bloom_filter_and_column_ranges(table: Table) -> None:
    config = MetadataConfig(column_stats=True, bloom_filters=True, column_stats_columns=("id",))
    table.commit({"a": [5, 9], "b": [1]}, config=config)
    table.commit({"a": [20]}, config=config)
    assert table.meta.properties["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files"
    reader = MetadataTableReader.open(table.meta)
    assert reader is not None
    stats = {(r.column_stats.file_name, r.column_stats.column_name): (r.column_stats.min_value.value,
             r.column_stats.max_value.value) for r in reader.read(MetadataPartition.COLUMN_STATS).values()
             if r.column_stats and r.column_stats.min_value and r.column_stats.max_value}
    expected = {}
    for partition, files in table.files().items():
        for name in files:
            ids = pq.read_table(table.base / partition / name).column("id").to_pylist()
            expected[(name, "id")] = (min(ids), max(ids))
    assert stats == expected
    blooms = reader.read(MetadataPartition.BLOOM_FILTERS)
    assert len(blooms) == sum(len(f) for f in table.files().values())


def test_a_cleaned_base_file_leaves_tombstones_in_the_index_partitions(table: Table) -> None:
    config = MetadataConfig(column_stats=True, bloom_filters=True, column_stats_columns=("id",))
    table.commit({"a": [1]}, config=config)
    gone = next(iter(table.files()["a"]))
    table.commit({"a": [2]}, config=config)
    table.clean("a", gone, config=config)
    reader = MetadataTableReader.open(table.meta)
    assert reader is not None
    live = {r.column_stats.file_name for r in reader.read(MetadataPartition.COLUMN_STATS).values()
            if r.column_stats and not r.is_tombstone}
    assert live == set(table.files()["a"])
    tombstones = [r for r in reader.read(MetadataPartition.BLOOM_FILTERS).values() if r.is_tombstone]
    assert len(tombstones) == 1


def test_a_record_index_partition_is_dropped_before_our_first_write(table: Table) -> None:
    table.commit({"a": [1]})
    meta = table.meta
    meta.update_properties({"hoodie.table.metadata.partitions": "files,record_index"})
    (table.base / ".hoodie" / "metadata" / "record_index").mkdir()
    table.commit({"a": [2]})
    assert table.meta.properties["hoodie.table.metadata.partitions"] == "files"
    assert not (table.base / ".hoodie" / "metadata" / "record_index").exists()
    assert table.listed() == table.files()
