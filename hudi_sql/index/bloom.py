"""BLOOM and GLOBAL_BLOOM index: find file groups by key ranges and bloom filters in base-file footers.

Every base file Hudi writes with meta fields on carries, in its parquet footer, the smallest and
largest ``_hoodie_record_key`` and a bloom filter of all its keys (see
:mod:`hudi_sql.index.bloom_filter`). Java's ``HoodieBloomIndex`` uses them to avoid reading the
keys of every file; this is the same lookup, as Spark work:

1. **Candidate files** (driver): the latest base files of the partitions the batch touches
   (every partition for GLOBAL_BLOOM), from the file-system view.
2. **Key ranges**: the ``[min, max]`` keys in each candidate file's footer, as Java's
   ``loadColumnRangesFromFiles`` reads them (no bloom filter is deserialized here). A base file
   never changes under its name, so ranges read once are remembered for the process's next
   writes; up to :data:`DRIVER_FOOTER_READS` new footers are read on the driver (a Spark job
   would cost more to schedule than the reads), more by Spark tasks (``mapInArrow``) that
   return one small row per file.
3. **Range pruning** (Spark join): the incoming keys are joined with the broadcast file ranges
   (``hoodie.bloom.index.prune.by.ranges``), on partition equality too unless global. Only
   ``(file, key)`` pairs whose key falls in the file's range survive. With monotonically
   increasing keys (``yyyyMMddHHmm_device``) new keys fall above every old file's range, so old
   files drop out before their bloom filters are ever read.
4. **Bloom filter and confirmation** (Spark tasks, pairs partitioned by file, ``mapInArrow``):
   for each file that still has candidate keys, a task deserializes its bloom filter, tests the
   keys, and confirms the positives against the file's actual ``_hoodie_record_key`` column
   (read alone with pyarrow), so a bloom false positive never becomes an update. The confirmed
   matches are cached and counted (one job that reads only the batch's key columns).

The confirmed ``(key, partition, file id)`` triples are then joined back onto the records by
:func:`hudi_sql.index.simple.tag_location`, so the output is exactly the SIMPLE index's; the
global variant honours ``hoodie.bloom.index.update.partition.path`` there. Up to
:data:`BROADCAST_MAX_MATCHES` triples are broadcast, so the records themselves are not shuffled
to be tagged (a daily batch updates a small share of the table).

Tables without meta fields (``hoodie.populate.meta.fields=false``) have no bloom filters or key
ranges in their footers; the index then behaves as the SIMPLE index (as Java falls back to
reading the files).

With ``hoodie.bloom.index.use.metadata`` (Java's ``bloomIndexUseMetadata``) the footers are left
alone where the metadata table can answer: the key ranges come from its ``column_stats``
partition (the ``_hoodie_record_key`` column's range of each file, one read on the driver), and
each lookup task fetches its files' bloom filters from the ``bloom_filters`` partition by key.
A file the metadata table does not cover is read from its footer as before.

Counts of the lookup are in :attr:`BloomIndex.last_stats`, reported as the write result's ``index_stats``. The per-file
counts come back through a Spark accumulator keyed by file id, so a recomputed task does not
double count; they are complete once the tagged records have been evaluated (the write's
profile job).

Key order: ranges are compared as Spark compares strings (UTF-8 bytes), the order our writer and
Java's Spark-native writer use for min/max. Java's Avro writer orders by UTF-16 code units; the two
differ only for keys mixing supplementary-plane characters with BMP characters above U+E000.
"""

from __future__ import annotations

__all__ = ["BROADCAST_MAX_MATCHES", "DRIVER_FOOTER_READS", "BloomIndex", "BloomIndexStats", "FileLookup", "candidate_pairs", "footer_key_range"]

from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa
from pyspark.accumulators import AccumulatorParam

from hudi_sql.config import IndexType
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.index.base import FILE_ID_COLUMN, Index, IndexContext, register_index
from hudi_sql.index.bloom_filter import BloomFilter
from hudi_sql.index.bloom_footer import read_footer_index
from hudi_sql.index.partition_moves import stored_ordering
from hudi_sql.index.simple import SimpleIndex, latest_base_files, tag_location, update_partition_path
from hudi_sql.metadata.index_keys import bloom_filter_key, column_hash, column_stats_key
from hudi_sql.metadata.layout import MetadataPartition
from hudi_sql.metadata.reader import MetadataTableReader
from hudi_sql.model.file_names import BaseFileName
from hudi_sql.model.footer_keys import record_key_range
from hudi_sql.model.schema import PARTITION_PATH_FIELD, RECORD_KEY_FIELD
from hudi_sql.spark.local_frame import local_frame, task_frame
from hudi_sql.storage.fs import Storage
from hudi_sql.table.meta_client import TableMetaClient

if TYPE_CHECKING:
    from pyspark import Accumulator
    from pyspark.sql import DataFrame, SparkSession

# Up to this many (key, file) matches are broadcast to the records (about 100 bytes each), so
# tagging the batch needs no shuffle of its records; more go through a shuffle join.
BROADCAST_MAX_MATCHES = 500_000
# Candidate files travel as their position in the driver's list (``_fi``); tasks get the list
# itself with the function, so a (file, key) pair is a number and a key, not three strings.
_RANGE_DDL = "_fi int, _fp string, _min string, _max string"
# Up to this many footers not yet remembered are read on the driver, by threads; more go to Spark tasks.
DRIVER_FOOTER_READS = 64
# Footer key ranges by base file path (a Hudi base file never changes under its name), kept
# across writes of this process so that a daily upsert does not reread last week's footers.
_KEY_RANGES: dict[str, tuple[str | None, str | None]] = {}
_KEY_RANGE_CACHE_SIZE = 200_000
_CANDIDATE_DDL = "_fi int, _fp string, _path string"
_MATCH_DDL = "_ek string, _ep string, _ef string"
_RANGE_SCHEMA = pa.schema([("_fi", pa.int32()), ("_fp", pa.string()), ("_min", pa.string()), ("_max", pa.string())])
_MATCH_SCHEMA = pa.schema([(name, pa.string()) for name in ("_ek", "_ep", "_ef")])


@dataclass(frozen=True)
class FileLookup:
    """What the lookup task of one candidate file did.

    Attributes:
        keys_checked: distinct incoming keys inside the file's key range.
        bloom_loaded: whether a bloom filter was deserialized (False: the footer has none, so
            every checked key was confirmed against the file's keys).
        bloom_positives: keys the bloom filter passed (all checked keys without a filter).
        keys_confirmed: keys actually present in the file: the updates.
    """

    keys_checked: int
    bloom_loaded: bool
    bloom_positives: int
    keys_confirmed: int


@dataclass(frozen=True)
class BloomIndexStats:
    """Counts of one bloom index lookup.

    Attributes:
        candidate_files: latest base files of the consulted partitions.
        footers_read: files whose footer key range was read (0 with range pruning off; files
            whose range an earlier lookup of this process read are not read again).
        files_range_matched: files with at least one incoming key inside their key range (all
            candidate files with pruning off); only these get a lookup task.
        bloom_filters_loaded: bloom filters deserialized.
        keys_checked: (file, key) pairs tested against a bloom filter.
        bloom_positives: pairs the bloom filter passed, confirmed against the file's keys.
        keys_confirmed: pairs found in the file (updates, or moves for the global index).
        loaded_file_ids: file ids whose bloom filters were deserialized.
    """

    candidate_files: int
    footers_read: int
    files_range_matched: int
    bloom_filters_loaded: int
    keys_checked: int
    bloom_positives: int
    keys_confirmed: int
    loaded_file_ids: frozenset[str]

    @classmethod
    def of(cls, *, candidate_files: int, footers_read: int, lookups: Mapping[str, FileLookup]) -> BloomIndexStats:
        return cls(
            candidate_files=candidate_files,
            footers_read=footers_read,
            files_range_matched=len(lookups),
            bloom_filters_loaded=sum(1 for f in lookups.values() if f.bloom_loaded),
            keys_checked=sum(f.keys_checked for f in lookups.values()),
            bloom_positives=sum(f.bloom_positives for f in lookups.values()),
            keys_confirmed=sum(f.keys_confirmed for f in lookups.values()),
            loaded_file_ids=frozenset(fid for fid, f in lookups.items() if f.bloom_loaded),
        )


@register_index(IndexType.BLOOM, IndexType.GLOBAL_BLOOM)
class BloomIndex(Index):
    """Tag records by footer key ranges and bloom filters, confirmed against the file's keys."""

    def __init__(self, context: IndexContext) -> None:
        super().__init__(context)
        self._candidate_files = 0
        self._footers_read = 0
        self._lookups: Accumulator[dict[str, FileLookup]] | None = None
        self._cached: list[DataFrame] = []

    @property
    def last_stats(self) -> BloomIndexStats:
        """Counts of the latest :meth:`tag_location`; per-file counts fill in as its tasks run."""
        lookups = self._lookups.value if self._lookups is not None else {}
        return BloomIndexStats.of(candidate_files=self._candidate_files, footers_read=self._footers_read,
                                  lookups=lookups)

    def tag_location(self, records: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        self._candidate_files = self._footers_read = 0
        self._lookups = None
        context = self.context
        if not context.meta_client.populate_meta_fields:
            return SimpleIndex(context).tag_location(records)
        base_files = latest_base_files(context, records)
        self._candidate_files = len(base_files)
        if not base_files:
            return records.withColumn(FILE_ID_COLUMN, F.lit(None).cast("string"))
        spark = records.sparkSession
        global_index = context.index_type.is_global
        files = [(partition, BaseFileName.parse(path.rsplit("/", 1)[-1]).file_id, path)
                 for partition, path in base_files]
        metadata = self._metadata_index()
        ranges = self._file_ranges(spark, files, metadata)
        pairs = candidate_pairs(records, ranges, global_index=global_index)
        self._lookups = spark.sparkContext.accumulator({}, _LookupParam())
        lookup_tasks = max(1, min(len(files), 2 * spark.sparkContext.defaultParallelism))
        blooms_from = context.meta_client.base_path if metadata is not None and metadata.has(
            MetadataPartition.BLOOM_FILTERS) else None
        existing = pairs.repartition(lookup_tasks, "_fi").mapInArrow(
            _file_key_lookups(self._lookups, files, blooms_from, context.meta_client.storage), _MATCH_DDL).persist()
        self._cached.append(existing)
        if existing.count() <= BROADCAST_MAX_MATCHES:  # the lookup runs here, once
            existing = F.broadcast(existing)
        return tag_location(records, existing, global_index=global_index,
                            update_partition_path=update_partition_path(context),
                            stored=stored_ordering(context), ordering_field=context.ordering_field)

    def release(self) -> None:
        for frame in self._cached:
            frame.unpersist()
        self._cached.clear()

    def _metadata_index(self) -> MetadataTableReader | None:
        """The metadata table to read bloom filters and key ranges from, when the write asks for it."""
        if not self.context.config.bloom_use_metadata:
            return None
        try:
            return MetadataTableReader.open(self.context.meta_client)
        except UnsupportedFeatureError:
            return None

    def _file_ranges(self, spark: SparkSession, files: list[tuple[str, str, str]],
                     metadata: MetadataTableReader | None = None) -> DataFrame:
        """(file position, partition, min key, max key) per candidate file, as a small local frame.

        *files* are (partition, file id, path). With range pruning on, each file's range comes
        from the metadata table's column statistics when it is used, else from its footer:
        remembered from an earlier lookup (a base file never changes under its name), read on
        the driver when only a few files are new (no Spark job to schedule), or read by Spark
        tasks that return one small row per file. With pruning off, every file's range is
        unbounded (null).
        """
        candidates = [(i, partition, path) for i, (partition, _, path) in enumerate(files)]
        storage = self.context.meta_client.storage
        if not self.context.config.bloom_prune_by_ranges:
            return local_frame(spark, [(i, partition, None, None) for i, partition, _ in candidates], _RANGE_DDL)
        if metadata is not None and metadata.has(MetadataPartition.COLUMN_STATS):
            _KEY_RANGES.update(_metadata_key_ranges(metadata, candidates))
        unknown = [c for c in candidates if c[2] not in _KEY_RANGES]
        if len(unknown) <= DRIVER_FOOTER_READS:
            with ThreadPoolExecutor(max_workers=8) as pool:
                read = list(pool.map(partial(footer_key_range, storage=storage), (path for _, _, path in unknown)))
        else:
            rows = (task_frame(spark, unknown, _CANDIDATE_DDL, max_tasks=spark.sparkContext.defaultParallelism)
                    .mapInArrow(_key_range_reader(storage), _RANGE_DDL).collect())
            by_position = {r["_fi"]: (r["_min"], r["_max"]) for r in rows}
            read = [by_position[i] for i, _, _ in unknown]
        self._footers_read = len(unknown)
        if len(_KEY_RANGES) + len(unknown) > _KEY_RANGE_CACHE_SIZE:
            _KEY_RANGES.clear()
        _KEY_RANGES.update((path, bounds) for (_, _, path), bounds in zip(unknown, read))
        return local_frame(spark, [(i, partition, *_KEY_RANGES[path]) for i, partition, path in candidates],
                           _RANGE_DDL)


def _metadata_key_ranges(metadata: MetadataTableReader,
                         candidates: list[tuple[int, str, str]]) -> dict[str, tuple[str | None, str | None]]:
    """Base file path -> its ``_hoodie_record_key`` range, from the metadata table's column statistics."""
    by_key = {column_stats_key(partition, path.rsplit("/", 1)[-1], RECORD_KEY_FIELD): path
              for _, partition, path in candidates}
    found = {}
    for key, record in metadata.read(MetadataPartition.COLUMN_STATS, prefixes=[column_hash(RECORD_KEY_FIELD)]).items():
        stats = record.column_stats
        path = by_key.get(key)
        if path is None or stats is None or stats.is_deleted:
            continue
        low, high = stats.min_value, stats.max_value
        found[path] = (str(low.value), str(high.value)) if low is not None and high is not None else (None, None)
    return found


def candidate_pairs(records: DataFrame, ranges: DataFrame, *, global_index: bool) -> DataFrame:
    """``(_fi, _k)``: incoming keys paired with each file (by position) whose key range holds them.

    A range join of the incoming keys with the broadcast file ranges (a file without a range
    takes every key); non-global indexes also require the record's partition to be the file's.
    """
    from pyspark.sql import functions as F

    keys = records.select(F.col(RECORD_KEY_FIELD).alias("_k"), F.col(PARTITION_PATH_FIELD).alias("_kp")).where(
        F.col("_k").isNotNull())
    in_range = F.col("_min").isNull() | ((F.col("_k") >= F.col("_min")) & (F.col("_k") <= F.col("_max")))
    condition = in_range if global_index else (F.col("_kp") == F.col("_fp")) & in_range
    return keys.join(F.broadcast(ranges), condition, "inner").select("_fi", "_k")


# --------------------------------------------------------------------------------------------
# Executor side
# --------------------------------------------------------------------------------------------


def footer_key_range(path: str, storage: Storage) -> tuple[str | None, str | None]:
    """The ``[min, max]`` record keys in a base file's footer; (None, None) when it has none (every
    key is then a candidate). No bloom filter is parsed."""
    return record_key_range(storage.parquet_metadata(path).metadata)


def _key_range_reader(storage: Storage) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function: :func:`footer_key_range` of each candidate file."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            columns: dict[str, list[int | str | None]] = {name: [] for name in _RANGE_SCHEMA.names}
            for position, partition, path in zip(*(batch.column(i).to_pylist() for i in range(3))):
                for name, value in zip(_RANGE_SCHEMA.names, (position, partition, *footer_key_range(path, storage))):
                    columns[name].append(value)
            yield pa.RecordBatch.from_pydict(columns, schema=_RANGE_SCHEMA)

    return run


def _file_key_lookups(lookups: Accumulator[dict[str, FileLookup]], files: list[tuple[str, str, str]],
                      blooms_from: str | None, storage: Storage) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The ``mapInArrow`` function of the lookup: the pairs of a task, grouped by file here (a
    ``groupBy(file)`` would have Spark sort every pair first), one :func:`_lookup_file` per file.
    With *blooms_from* (the table's base path) the task reads its files' bloom filters from the
    metadata table, all at once."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import pyarrow.compute as pc

        collected = list(batches)
        if not collected:
            return
        pairs = pa.Table.from_batches(collected)
        positions = pairs.column("_fi")
        wanted = pc.unique(positions).to_pylist()
        blooms = _metadata_blooms(blooms_from, [files[p] for p in wanted], storage) if blooms_from else {}
        for position in wanted:
            yield from _lookup_file(pairs.filter(pc.equal(positions, position)), lookups, files,
                                    storage, blooms).to_batches()

    return run


def _metadata_blooms(base_path: str, files: list[tuple[str, str, str]], storage: Storage) -> dict[str, BloomFilter]:
    """Base file path -> its bloom filter, as the metadata table's ``bloom_filters`` partition holds it."""
    reader = MetadataTableReader.open(TableMetaClient.load(base_path, storage=storage))
    if reader is None:
        return {}
    by_key = {bloom_filter_key(partition, path.rsplit("/", 1)[-1]): path for partition, _, path in files}
    out = {}
    for key, record in reader.read(MetadataPartition.BLOOM_FILTERS, prefixes=sorted(by_key)).items():
        entry = record.bloom_filter
        if key in by_key and entry is not None and not entry.is_deleted:
            out[by_key[key]] = BloomFilter.deserialize(entry.bloom_filter.decode("utf-8"), entry.type_code or None)
    return out


def _lookup_file(pairs: pa.Table, lookups: Accumulator[dict[str, FileLookup]],
                 files: list[tuple[str, str, str]], storage: Storage,
                 blooms: Mapping[str, BloomFilter] | None = None) -> pa.Table:
    """The candidate keys of one file: bloom test (the metadata table's filter when *blooms* has
    it, else the footer's), then confirmation against the file's own keys."""
    import pyarrow.compute as pc

    if pairs.num_rows == 0:
        return _MATCH_SCHEMA.empty_table()
    partition, file_id, path = files[pairs.column("_fi")[0].as_py()]
    keys = pc.unique(pairs.column("_k").combine_chunks())
    bloom = (blooms or {}).get(path)
    if bloom is None:
        footer = read_footer_index(storage.parquet_metadata(path).metadata)
        bloom = footer.bloom_filter if footer is not None else None
    if bloom is not None:
        positives = keys.filter(pa.array(bloom.might_contain_all(keys.to_pylist())))
    else:
        positives = keys
    confirmed = positives
    if len(positives):
        stored = storage.read_parquet(path, columns=[RECORD_KEY_FIELD]).column(RECORD_KEY_FIELD).combine_chunks()
        confirmed = positives.filter(pc.is_in(positives, value_set=stored.cast(pa.string())))
    lookups.add({file_id: FileLookup(len(keys), bloom is not None, len(positives), len(confirmed))})
    n = len(confirmed)
    return pa.table([confirmed.cast(pa.string()), pa.array([partition] * n, pa.string()),
                     pa.array([file_id] * n, pa.string())], schema=_MATCH_SCHEMA)


class _LookupParam(AccumulatorParam[dict[str, FileLookup]]):
    """Accumulator of per-file lookups; a recomputed task replaces its own entry (no double count)."""

    def zero(self, value: dict[str, FileLookup]) -> dict[str, FileLookup]:
        return {}

    def addInPlace(self, value1: dict[str, FileLookup],
                   value2: dict[str, FileLookup]) -> dict[str, FileLookup]:
        value1.update(value2)
        return value1
