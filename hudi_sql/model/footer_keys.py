"""The keys Apache Hudi writes into a base file's Parquet footer (key-value metadata): what the
bloom index reads, and where the table's stored record keys can be seen without reading rows."""

from __future__ import annotations

__all__ = ["BLOOM_FILTER_KEY", "BLOOM_FILTER_TYPE_CODE_KEY", "LEGACY_BLOOM_FILTER_KEY", "MAX_RECORD_KEY_KEY",
           "MIN_RECORD_KEY_KEY", "record_key_range"]

from collections.abc import Mapping

BLOOM_FILTER_KEY = "org.apache.hudi.bloomfilter"
"""Footer key of the base64 bloom filter (Java ``HOODIE_AVRO_BLOOM_FILTER_METADATA_KEY``)."""
LEGACY_BLOOM_FILTER_KEY = "com.uber.hoodie.bloomfilter"
"""Pre-Apache footer key; Java readers fall back to it, so we read it too but never write it."""
BLOOM_FILTER_TYPE_CODE_KEY = "hoodie_bloom_filter_type_code"
"""Footer key of the filter type; written only for DYNAMIC types, absent means SIMPLE."""
MIN_RECORD_KEY_KEY = "hoodie_min_record_key"
"""Footer key of the smallest ``_hoodie_record_key`` in the file."""
MAX_RECORD_KEY_KEY = "hoodie_max_record_key"
"""Footer key of the largest ``_hoodie_record_key`` in the file."""


def record_key_range(footer: Mapping[bytes, bytes] | None) -> tuple[str | None, str | None]:
    """The ``[min, max]`` record keys a base file's footer (its Parquet key-value metadata)
    records; (None, None) when it records none (a file written without them)."""
    low = (footer or {}).get(MIN_RECORD_KEY_KEY.encode())
    high = (footer or {}).get(MAX_RECORD_KEY_KEY.encode())
    if low is None or high is None:
        return None, None
    return low.decode("utf-8"), high.decode("utf-8")
