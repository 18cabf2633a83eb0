"""Metadata records: their Avro bytes and how two versions of one key merge (``HoodieMetadataPayload``)."""

from __future__ import annotations

import decimal

import pytest

from hudi_sql.errors import HudiFileFormatError
from hudi_sql.metadata.records import (
    METADATA_SCHEMA_JSON,
    BloomFilterEntry,
    ColumnStats,
    FileInfo,
    MetadataRecord,
    RecordType,
    StatKind,
    StatValue,
    decode_record,
    encode_record,
)


def _files(key: str, **files: int | None) -> MetadataRecord:
    return MetadataRecord(key, RecordType.FILE_LIST,
                          {name: FileInfo(size or 0, size is None) for name, size in files.items()})


def _stats(low: int | None, high: int | None, values: int, nulls: int, *, deleted: bool = False) -> ColumnStats:
    wrap = (lambda v: StatValue(StatKind.INT, v) if v is not None else None)
    return ColumnStats("f.parquet", "id", wrap(low), wrap(high), values, nulls, 10, 20, deleted)


def _round_trip(record: MetadataRecord) -> MetadataRecord:
    return decode_record(record.key, encode_record(record), METADATA_SCHEMA_JSON, what="test")


def test_every_record_type_round_trips() -> None:
    values = [StatValue(StatKind.STRING, "b"), StatValue(StatKind.LONG, -(2 ** 40)),
              StatValue(StatKind.DOUBLE, -0.0), StatValue(StatKind.DATE, 19000),
              StatValue(StatKind.DECIMAL, decimal.Decimal("12.500000000000000")),
              StatValue(StatKind.BYTES, b"\x00\xff"), StatValue(StatKind.BOOLEAN, True)]
    records = [_files("p", a=3, b=None),
               MetadataRecord("__all_partitions__", RecordType.PARTITION_LIST, {"p": FileInfo(0)}),
               MetadataRecord("k", RecordType.BLOOM_FILTER, bloom_filter=BloomFilterEntry("DYNAMIC_V0", "1", b"xyz"))]
    records += [MetadataRecord("c", RecordType.COLUMN_STATS,
                               column_stats=ColumnStats("f", "c", v, v, 2, 1, 5, 6)) for v in values]
    for record in records:
        assert _round_trip(record) == record


def test_file_list_merge_adds_files_keeps_larger_size_and_deletes() -> None:
    older = _files("p", a=10, b=5)
    newer = _files("p", a=12, b=None, c=7)
    assert newer.combine(older).live() == {"a": 12, "c": 7}


def test_file_list_tombstone_of_unknown_file_is_kept_to_delete_it_from_a_base_file() -> None:
    merged = _files("p", gone=None).combine(_files("p", a=1))
    assert merged.files["gone"] == FileInfo(0, True)
    assert merged.live() == {"a": 1}


def test_column_stats_merge_widens_the_range_and_adds_counts() -> None:
    merged = MetadataRecord("k", RecordType.COLUMN_STATS, column_stats=_stats(3, 9, 4, 1)).combine(
        MetadataRecord("k", RecordType.COLUMN_STATS, column_stats=_stats(1, 5, 2, 0)))
    stats = merged.column_stats
    assert stats is not None
    assert (stats.min_value.value, stats.max_value.value) == (1, 9)  # type: ignore[union-attr]
    assert (stats.value_count, stats.null_count, stats.total_size) == (6, 1, 20)


def test_column_stats_tombstone_wins_and_a_later_record_replaces_it() -> None:
    live = MetadataRecord("k", RecordType.COLUMN_STATS, column_stats=_stats(1, 5, 2, 0))
    tomb = MetadataRecord("k", RecordType.COLUMN_STATS, column_stats=_stats(None, None, 0, 0, deleted=True))
    assert tomb.combine(live).is_tombstone
    assert not live.combine(tomb).is_tombstone


def test_bloom_filter_newer_replaces_older() -> None:
    old = MetadataRecord("k", RecordType.BLOOM_FILTER, bloom_filter=BloomFilterEntry("DYNAMIC_V0", "1", b"a"))
    new = MetadataRecord("k", RecordType.BLOOM_FILTER, bloom_filter=BloomFilterEntry("", "2", b"", True))
    assert new.combine(old) == new


def test_records_of_different_types_do_not_merge() -> None:
    with pytest.raises(HudiFileFormatError, match="type 3 but an older version is of type 2"):
        MetadataRecord("k", RecordType.COLUMN_STATS, column_stats=_stats(1, 1, 1, 0)).combine(_files("k", a=1))


def test_base_file_values_carry_the_file_name_meta_field() -> None:
    record = _files("p", a=1)
    assert encode_record(record, base_file_name="files-0000-0_0-0-0_1.hfile") != encode_record(record)
    assert decode_record("p", encode_record(record, base_file_name="x.hfile"), METADATA_SCHEMA_JSON, what="t") == record


def test_a_record_type_not_allowed_in_its_partition_names_the_partition() -> None:
    value = encode_record(_files("p", a=1))
    with pytest.raises(HudiFileFormatError, match="record type 2 does not belong to the column_stats partition"):
        decode_record("p", value, METADATA_SCHEMA_JSON, what="t", allowed=(RecordType.COLUMN_STATS,),
                      partition="column_stats")
