"""Record keys of the index partitions and the file group a key goes to, against Apache Hudi's.

The expected keys and groups are read off a table Apache Hudi 0.15 wrote (partitions
``dt=2024-01-01`` and ``dt=2024-01-02``, columns ``_hoodie_file_name``, ``name``, ``price``; four
bloom filter groups, two column statistics groups); XXH64's expected values are those of its
specification's reference implementation.
"""

from __future__ import annotations

import pytest

from hudi_sql.metadata.index_keys import (
    bloom_filter_key,
    column_hash,
    column_stats_key,
    partition_hash,
    xxh64,
)
from hudi_sql.metadata.layout import MetadataPartition, file_group_index, file_id, init_instant_time, suffixed

FILE = "d9253df9-7e79-41e7-9f07-daf7e5918da3-0_0-40-62_20261128024533775.parquet"


@pytest.mark.parametrize(("data", "seed", "expected"), [
    (b"", 0, 0xEF46DB3751D8E999),
    (b"a", 0, 0xD24EC4F1A98C6E5B),
    (b"abc", 0, 0x44BC2CF5AD770999),
    (bytes(range(100)), 0, 0x6AC1E58032166597),
])
def test_xxh64_reference_values(data: bytes, seed: int, expected: int) -> None:
    assert xxh64(data, seed) == expected


def test_partition_and_column_hashes_match_apache_hudis_keys() -> None:
    assert partition_hash("dt=2024-01-01") == "kt4hIToG1LE="
    assert partition_hash("dt=2024-01-02") == "zS3ZZHpyGaA="
    assert column_hash("_hoodie_file_name") == "8pE2wroWa9I="
    assert column_hash("name") == "F5SYxeUa1U8="
    assert column_hash("price") == "XV1ds8/f890="


def test_bloom_filter_key_is_partition_then_file_md5() -> None:
    assert bloom_filter_key("dt=2024-01-01", FILE) == "kt4hIToG1LE=BuRLGSku8T2UhmN0wT6vdg=="


def test_column_stats_key_is_column_partition_file() -> None:
    assert column_stats_key("dt=2024-01-01", FILE, "_hoodie_file_name") == (
        "8pE2wroWa9I=kt4hIToG1LE=BuRLGSku8T2UhmN0wT6vdg==")


def test_non_partitioned_table_hashes_its_partition_as_dot() -> None:
    assert partition_hash("") == partition_hash(".")


@pytest.mark.parametrize(("key", "count", "group"), [
    ("kt4hIToG1LE=BuRLGSku8T2UhmN0wT6vdg==", 4, 0),
    ("zS3ZZHpyGaA=Vrus+HWWaX7Vj4NEX3TDRg==", 4, 1),
    ("kt4hIToG1LE=I5dRrbj1+kGVKkAuLqvMtw==", 4, 2),
    ("zS3ZZHpyGaA=qMxlSgKDFPUa4M7qhPUciA==", 4, 3),
    ("8pE2wroWa9I=kt4hIToG1LE=BuRLGSku8T2UhmN0wT6vdg==", 2, 0),
    ("F5SYxeUa1U8=zS3ZZHpyGaA=Vrus+HWWaX7Vj4NEX3TDRg==", 2, 0),
    ("8pE2wroWa9I=zS3ZZHpyGaA=Vrus+HWWaX7Vj4NEX3TDRg==", 2, 1),
])
def test_file_group_index_puts_keys_where_apache_hudi_did(key: str, count: int, group: int) -> None:
    assert file_group_index(key, count) == group


def test_file_group_index_is_javas_string_hash_code() -> None:
    # "hello".hashCode() == 99162322; "polygenelubricants".hashCode() == Integer.MIN_VALUE
    assert file_group_index("hello", 1000000007) == 99162322
    assert file_group_index("polygenelubricants", 7) == (2 ** 31) % 7
    assert file_group_index("\u00e9\U0001f600", 1 << 31) >= 0


def test_file_ids_and_instant_suffixes() -> None:
    assert file_id(MetadataPartition.FILES, 0) == "files-0000-0"
    assert file_id(MetadataPartition.COLUMN_STATS, 1) == "col-stats-0001-0"
    assert file_id(MetadataPartition.BLOOM_FILTERS, 3) == "bloom-filters-0003-0"
    assert init_instant_time(None, 0) == "00000000000000010"
    assert init_instant_time("20240101000000000", 2) == "20240101000000000012"
    assert suffixed("20240101000000000", "001") == "20240101000000000001"
