"""Bloom filter footers of base files Apache Hudi wrote: we parse them and rebuild them byte for byte."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from fixture_tables import SampleTable

from hudi_sql.index.bloom_filter import BloomFilterType
from hudi_sql.index.bloom_footer import footer_metadata, read_footer_index
from hudi_sql.model.footer_keys import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    MAX_RECORD_KEY_KEY,
    MIN_RECORD_KEY_KEY,
)

pytestmark = pytest.mark.compat


def _base_files(table: SampleTable) -> list[Path]:
    base = table.path()
    return sorted(p for p in base.rglob("*.parquet") if ".hoodie" not in p.relative_to(base).parts)


def _has_meta_fields(table: SampleTable) -> bool:
    return not table.name.endswith("NO_METAFIELDS")


@pytest.mark.parametrize("table", list(SampleTable), ids=lambda t: t.name)
def test_fixture_base_files_bloom_footer_rebuilt_byte_identical(table: SampleTable) -> None:
    files = _base_files(table)
    if "EMPTY" not in table.name:
        assert files, f"{table.value} should have base files"
    for path in files:
        metadata = pq.ParquetFile(path).metadata.metadata
        index = read_footer_index(metadata)
        if not _has_meta_fields(table):
            assert index is None, path
            continue
        assert index is not None and index.bloom_filter is not None, path
        assert index.bloom_filter.type_code is BloomFilterType.DYNAMIC_V0
        keys = pq.read_table(path, columns=["_hoodie_record_key"]).column(0).to_pylist()

        # (a) every key of the file tests positive, in bulk and one by one
        assert index.bloom_filter.might_contain_all(keys).all(), path
        assert all(index.bloom_filter.might_contain(k) for k in keys), path

        # (b) rebuilding from the file's keys gives Java's exact footer value
        rebuilt = footer_metadata(keys)
        assert rebuilt[BLOOM_FILTER_KEY.encode()] == metadata[BLOOM_FILTER_KEY.encode()], path
        assert rebuilt[BLOOM_FILTER_TYPE_CODE_KEY.encode()] == metadata[BLOOM_FILTER_TYPE_CODE_KEY.encode()]
        assert index.bloom_filter.serialize().encode() == metadata[BLOOM_FILTER_KEY.encode()], path

        # (c) min/max are the footer values, and Python str order reproduces them
        assert (index.min_key, index.max_key) == (min(keys), max(keys)), path
        assert rebuilt[MIN_RECORD_KEY_KEY.encode()] == metadata[MIN_RECORD_KEY_KEY.encode()]
        assert rebuilt[MAX_RECORD_KEY_KEY.encode()] == metadata[MAX_RECORD_KEY_KEY.encode()]

        # keys that are not in the file test negative (fpp 1e-9 per row)
        others = [f"{k}-absent" for k in keys] + ["0", "zzz", "id:99,name:Nobody"]
        assert not index.bloom_filter.might_contain_all([k for k in others if k not in keys]).any(), path
